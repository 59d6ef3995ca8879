// Streaming a long row with a block: the online softmax accumulator (a
// running maximum and the sum of exponentials relative to it, so that one
// read of the row gives both), its block-wide combination, the block size for
// a row length, and a loop over a row's elements in 16-byte vectors. Used by
// softmax / logSoftmax for rows longer than a warp takes (dim_ops.cu) and by
// the fused cross entropy and the softmax backward (loss_ops.cu). A second
// pass over a row a block has just read is served from L2 (a row of 262,144
// floats is 1 MiB; the resident blocks' rows fit the H200's 50 MiB), so
// these kernels read the row from memory once.
#pragma once

#include <cstdint>

#include "ops/common/scalar_math.h"
#include "ops/cuda/vec.cuh"
#include "ops/cuda/warp_reduce.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {

/** Running maximum m and Σ exp(x - m) of the elements seen (m = -inf, s = 0 before any). */
template <typename M>
struct OnlineMax {
  M m, s;

  __device__ __forceinline__ static OnlineMax empty() { return OnlineMax{sm::Limits<M>::lowest(), M(0)}; }

  /** Adds the k values of v (their maximum taken first, so one rescaling per group). */
  template <int K>
  __device__ __forceinline__ void add(const M (&v)[K]) {
    M mx = v[0];
#pragma unroll
    for (int i = 1; i < K; ++i) mx = (sm::isNan(v[i]) || v[i] > mx) ? v[i] : mx;
    const M nm = (sm::isNan(mx) || mx > m) ? mx : m;
    if (nm == sm::Limits<M>::lowest()) return;  // every value so far is -inf: nothing to add
    M add = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) add += sm::exp(v[i] - nm);
    s = s * sm::exp(m - nm) + add;
    m = nm;
  }

  __device__ __forceinline__ static OnlineMax combine(const OnlineMax& a, const OnlineMax& b) {
    const M nm = (sm::isNan(a.m) || a.m > b.m) ? a.m : b.m;
    if (nm == sm::Limits<M>::lowest()) return a;
    return OnlineMax{nm, a.s * sm::exp(a.m - nm) + b.s * sm::exp(b.m - nm)};
  }

  /** log Σ exp(x): -inf for a row of -inf, NaN where a NaN was seen. */
  __device__ __forceinline__ M logSumExp() const { return m == sm::Limits<M>::lowest() ? m : m + sm::log(s); }
};

struct OnlineCombine {
  template <typename M>
  __device__ __forceinline__ OnlineMax<M> operator()(const OnlineMax<M>& a, const OnlineMax<M>& b) const {
    return OnlineMax<M>::combine(a, b);
  }
};

/** Most threads of a block that streams rows (the kernels' launch bounds). */
constexpr int kStreamMaxThreads = 1024;

/** Threads of a block that streams rows of n elements, V a vector: about four vectors a thread, 128 to kStreamMaxThreads. */
inline int streamThreads(int64_t n, int v) {
  const int64_t want = n / (4 * v);
  int t = 128;
  while (t < kStreamMaxThreads && t < want) t <<= 1;
  return t;
}

/**
 * Calls f(j, vals) for each group of V consecutive elements of row x (n elements) that thread
 * threadIdx.x of the block owns: vals are the elements j .. j + V - 1 converted to M. With V > 1
 * the caller guarantees x is aligned to V elements and n is a multiple of V.
 */
template <int V, typename M, typename T, typename F>
__device__ __forceinline__ void forRowVectors(const T* x, int64_t n, F&& f) {
  if constexpr (V == 1) {
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const M v[1] = {static_cast<M>(x[j])};
      f(j, v);
    }
  } else {
    const int64_t groups = n / V;
    for (int64_t q = threadIdx.x; q < groups; q += blockDim.x) {
      const Vec<T, V> p = *reinterpret_cast<const Vec<T, V>*>(x + q * V);
      M v[V];
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = static_cast<M>(p.v[k]);
      f(q * V, v);
    }
  }
}

/** Loads the V elements of x at j (aligned like forRowVectors' rows) as M. */
template <int V, typename M, typename T>
__device__ __forceinline__ void loadVector(const T* x, int64_t j, M (&v)[V]) {
  if constexpr (V == 1) {
    v[0] = static_cast<M>(x[j]);
  } else {
    const Vec<T, V> p = *reinterpret_cast<const Vec<T, V>*>(x + j);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = static_cast<M>(p.v[k]);
  }
}

/** Stores V values of M at y + j (aligned like forRowVectors' rows). */
template <int V, typename M, typename T>
__device__ __forceinline__ void storeVector(T* y, int64_t j, const M (&v)[V]) {
  if constexpr (V == 1) {
    y[j] = static_cast<T>(v[0]);
  } else {
    Vec<T, V> p;
#pragma unroll
    for (int k = 0; k < V; ++k) p.v[k] = static_cast<T>(v[k]);
    *reinterpret_cast<Vec<T, V>*>(y + j) = p;
  }
}

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
