// The fused cross entropy (forward and backward) and the softmax /
// logSoftmax backward on cuda (ops/common/loss_kernels.h). A block per row
// streams it in 16-byte vectors (online_rows.cuh): the forward reads the row
// once for its maximum, the sum of exponentials and the smoothing's sums,
// writing the row's loss and logsumexp (float32; double for float64); the
// backward reads the row once and writes its gradient, recomputing the
// probabilities from the saved logsumexp. A target outside [0, C) that is not
// ignoreIndex is caught on the device: its row's loss and logsumexp are NaN
// (and so its gradient), where PyTorch stops the process with an assertion.
#include "ops/common/loss_kernels.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/online_rows.cuh"
#include "ops/cuda/rows.cuh"

namespace tsgpu {
namespace ops {
namespace {

using cuda::OnlineCombine;
using cuda::OnlineMax;
using cuda::Plus;

template <typename T>
__device__ __forceinline__ LossAcc<T> valueOf(T v) {
  return static_cast<LossAcc<T>>(static_cast<OpMathType<T>>(v));
}

template <typename T, int V>
__global__ void __launch_bounds__(cuda::kStreamMaxThreads) crossEntropyRows(CeArgs<T> a) {
  using A = LossAcc<T>;
  __shared__ OnlineMax<A> sharedMax[cuda::kWarp];
  __shared__ A sharedSum[cuda::kWarp];
  const int64_t n = a.classes;
  const bool smooth = a.smoothing > A(0);
  for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const T* x = a.x + r * n;
    OnlineMax<A> acc = OnlineMax<A>::empty();
    A sx = 0, ws = 0;
    cuda::forRowVectors<V, A>(x, n, [&](int64_t j, const A(&v)[V]) {
      acc.add(v);
      if (smooth) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A w = a.weight ? valueOf(a.weight[j + k]) : A(1);
          sx += w * v[k];
          ws += w;
        }
      }
    });
    acc = cuda::blockCombineAll(acc, OnlineCombine(), OnlineMax<A>::empty(), sharedMax);
    if (smooth) {
      sx = cuda::blockCombineAll(sx, Plus(), A(0), sharedSum);
      ws = cuda::blockCombineAll(ws, Plus(), A(0), sharedSum);
    }
    if (threadIdx.x == 0) {
      const int64_t y = a.target[r];
      A lse = acc.logSumExp();
      A loss = 0;
      if (y != a.ignoreIndex) {
        if (y < 0 || y >= n) {
          lse = static_cast<A>(NAN);
          loss = lse;
        } else {
          const A wy = a.weight ? valueOf(a.weight[y]) : A(1);
          loss = (A(1) - a.smoothing) * wy * (lse - valueOf(x[y]));
          if (smooth) loss += a.smoothing / static_cast<A>(n) * (ws * lse - sx);
        }
      }
      a.lse[r] = lse;
      a.loss[r] = loss;
    }
  }
}

template <typename T, int V>
__global__ void __launch_bounds__(cuda::kStreamMaxThreads) crossEntropyGradRows(CeArgs<T> a, const LossAcc<T>* gradLoss, T* out) {
  using A = LossAcc<T>;
  __shared__ A sharedSum[cuda::kWarp];
  const int64_t n = a.classes;
  const A eps = a.smoothing, perClass = a.smoothing / static_cast<A>(n);
  A wsum = static_cast<A>(n);
  if (a.weight && eps > A(0)) {
    A s = 0;
    for (int64_t c = threadIdx.x; c < n; c += blockDim.x) s += valueOf(a.weight[c]);
    wsum = cuda::blockCombineAll(s, Plus(), A(0), sharedSum);
  }
  for (int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const T* x = a.x + r * n;
    T* g = out + r * n;
    const int64_t y = a.target[r];
    const bool ignored = y == a.ignoreIndex;
    const bool bad = !ignored && (y < 0 || y >= n);
    const A go = ignored ? A(0) : (bad ? static_cast<A>(NAN) : gradLoss[r]);
    const A lse = a.lse[r];
    const A wy = (ignored || bad) ? A(0) : (a.weight ? valueOf(a.weight[y]) : A(1));
    const A pScale = go * ((A(1) - eps) * wy + perClass * wsum);
    const A hit = go * (A(1) - eps) * wy;
    const A flat = go * perClass;
    cuda::forRowVectors<V, A>(x, n, [&](int64_t j, const A(&v)[V]) {
      A d[V];
#pragma unroll
      for (int k = 0; k < V; ++k) {
        d[k] = ignored ? A(0) : pScale * sm::exp(v[k] - lse) - flat * (a.weight ? valueOf(a.weight[j + k]) : A(1));
        if (j + k == y) d[k] -= hit;
      }
      cuda::storeVector<V>(g, j, d);
    });
  }
}

template <typename T, bool Log, int V>
__global__ void __launch_bounds__(cuda::kStreamMaxThreads) softmaxGradRows(const T* grad, const T* y, T* out, int64_t rows, int64_t n) {
  using A = LossAcc<T>;
  __shared__ A sharedSum[cuda::kWarp];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* g = grad + r * n;
    const T* yr = y + r * n;
    A s = 0;
    if constexpr (Log) {
      cuda::forRowVectors<V, A>(g, n, [&](int64_t, const A(&v)[V]) {
#pragma unroll
        for (int k = 0; k < V; ++k) s += v[k];
      });
    } else {
      cuda::forRowVectors<V, A>(g, n, [&](int64_t j, const A(&v)[V]) {
        A w[V];
        cuda::loadVector<V>(yr, j, w);
#pragma unroll
        for (int k = 0; k < V; ++k) s += v[k] * w[k];
      });
    }
    s = cuda::blockCombineAll(s, Plus(), A(0), sharedSum);
    cuda::forRowVectors<V, A>(g, n, [&](int64_t j, const A(&v)[V]) {
      A w[V], d[V];
      cuda::loadVector<V>(yr, j, w);
#pragma unroll
      for (int k = 0; k < V; ++k) d[k] = Log ? v[k] - sm::exp(w[k]) * s : w[k] * (v[k] - s);
      cuda::storeVector<V>(out + r * n, j, d);
    });
  }
}

/** Calls f(integral_constant<int, V>) with V the 16-byte vector width when every row of n elements at the pointers is aligned to it, 1 otherwise. */
template <typename T, typename F>
void withRowVector(int64_t n, std::initializer_list<const void*> ptrs, F&& f) {
  constexpr int V = cuda::VecWidth<T>::value;
  bool ok = n % V == 0;
  for (const void* p : ptrs) ok = ok && cuda::alignedTo(p, sizeof(T) * V);
  if (ok) return f(std::integral_constant<int, V>{});
  f(std::integral_constant<int, 1>{});
}

struct CudaLoss {
  template <typename T>
  static void crossEntropy(const OpCall& call, const CeArgs<T>& a) {
    withRowVector<T>(a.classes, {a.x}, [&](auto v) {
      constexpr int V = decltype(v)::value;
      crossEntropyRows<T, V><<<cuda::blockRowBlocks(a.rows), cuda::streamThreads(a.classes, V), 0, cuda::streamOf(call)>>>(a);
    });
    cuda::checkLaunch(call);
  }

  template <typename T>
  static void crossEntropyGrad(const OpCall& call, const CeArgs<T>& a, const LossAcc<T>* gradLoss, T* out) {
    withRowVector<T>(a.classes, {a.x, out}, [&](auto v) {
      constexpr int V = decltype(v)::value;
      crossEntropyGradRows<T, V><<<cuda::blockRowBlocks(a.rows), cuda::streamThreads(a.classes, V), 0, cuda::streamOf(call)>>>(
          a, gradLoss, out);
    });
    cuda::checkLaunch(call);
  }

  template <typename T, bool Log>
  static void softmaxGrad(const OpCall& call, int64_t rows, int64_t n, const T* grad, const T* y, T* out) {
    withRowVector<T>(n, {grad, y, out}, [&](auto v) {
      constexpr int V = decltype(v)::value;
      softmaxGradRows<T, Log, V><<<cuda::blockRowBlocks(rows), cuda::streamThreads(n, V), 0, cuda::streamOf(call)>>>(
          grad, y, out, rows, n);
    });
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_LOSS_KERNELS(TSGPU_REGISTER_CUDA, CudaLoss)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
