// layerNorm and rmsNorm on cuda (ops/common/norm_kernels.h). Rows of up to
// 1024 elements get a warp each (the row in registers: one read, one write);
// longer rows a block each, the row kept in shared memory while it fits.
// Statistics in float (double for float64), combined with warp shuffles; the
// variance is the mean of squared deviations from the mean (two passes over
// the held row). layerNorm's lane 0 / thread 0 of each row writes its mean and
// rstd. Queued on the call's stream.
#include "ops/common/norm_kernels.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/rows.cuh"

namespace tsgpu {
namespace ops {
namespace {

using cuda::kWarp;
using cuda::Plus;

template <typename T>
using StatOf = NormStat<T>;

template <typename T, typename S>
__device__ __forceinline__ S loadAs(const T* p, int64_t j) {
  return static_cast<S>(static_cast<OpMathType<T>>(p[j]));
}

/** (v - mean) * rstd * w[j] + b[j], stored as T. */
template <typename T, typename S>
__device__ __forceinline__ void storeNormed(T* y, const T* w, const T* b, int64_t j, S v, S mean, S rstd) {
  S r = (v - mean) * rstd;
  if (w) r *= loadAs<T, S>(w, j);
  if (b) r += loadAs<T, S>(b, j);
  y[j] = static_cast<T>(static_cast<OpMathType<T>>(r));
}

/** A warp per row of at most 32 * E elements, held in registers (element e * 32 + lane). */
template <typename T, bool Rms, int E>
__global__ void normWarpRows(int64_t rows, int64_t n, const T* x, const T* w, const T* b, T* y, double eps,
                             StatOf<T>* meanOut, StatOf<T>* rstdOut) {
  using S = StatOf<T>;
  const int lane = threadIdx.x % kWarp;
  for (int64_t r = cuda::firstWarpRow(); r < rows; r += cuda::warpRowStep()) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    S v[E];
    S s = 0;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t j = e * kWarp + lane;
      v[e] = j < n ? loadAs<T, S>(xr, j) : S(0);
      s += v[e];
    }
    S mean = 0;
    if (!Rms) mean = cuda::warpCombineAll(s, Plus()) / static_cast<S>(n);
    S sq = 0;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const S d = e * kWarp + lane < n ? v[e] - mean : S(0);
      sq += d * d;
    }
    sq = cuda::warpCombineAll(sq, Plus());
    const S rstd = S(1) / sm::sqrt(sq / static_cast<S>(n) + static_cast<S>(eps));
    if (lane == 0 && meanOut) {
      meanOut[r] = mean;
      rstdOut[r] = rstd;
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t j = e * kWarp + lane;
      if (j < n) storeNormed(yr, w, b, j, v[e], mean, rstd);
    }
  }
}

/**
 * A block per row; Cached keeps the row in shared memory (each thread its own elements
 * j = threadIdx.x + k * blockDim.x, so no barrier guards them) instead of reading it again.
 */
template <typename T, bool Rms, bool Cached>
__global__ void normBlockRows(int64_t rows, int64_t n, const T* x, const T* w, const T* b, T* y, double eps,
                              StatOf<T>* meanOut, StatOf<T>* rstdOut) {
  using S = StatOf<T>;
  extern __shared__ __align__(16) unsigned char rowCache[];
  __shared__ S shared[kWarp];
  S* cache = reinterpret_cast<S*>(rowCache);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    S mean = 0;
    if (!Rms || Cached) {
      S s = 0;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const S v = loadAs<T, S>(xr, j);
        if (Cached) cache[j] = v;
        s += v;
      }
      if (!Rms) mean = cuda::blockCombineAll(s, Plus(), S(0), shared) / static_cast<S>(n);
    }
    S sq = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const S d = (Cached ? cache[j] : loadAs<T, S>(xr, j)) - mean;
      sq += d * d;
    }
    sq = cuda::blockCombineAll(sq, Plus(), S(0), shared);
    const S rstd = S(1) / sm::sqrt(sq / static_cast<S>(n) + static_cast<S>(eps));
    if (threadIdx.x == 0 && meanOut) {
      meanOut[r] = mean;
      rstdOut[r] = rstd;
    }
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
      storeNormed(yr, w, b, j, Cached ? cache[j] : loadAs<T, S>(xr, j), mean, rstd);
  }
}

struct CudaNorm {
  template <typename T, bool Rms>
  static void rows(const OpCall& call, int64_t rows, int64_t n, const T* x, const T* w, const T* b, T* y, double eps,
                   StatOf<T>* mean, StatOf<T>* rstd) {
    if (rows == 0) return;
    const cudaStream_t stream = cuda::streamOf(call);
    if (n <= cuda::kWarpRowMax) {
      cuda::withLaneElems(n, [&](auto e) {
        normWarpRows<T, Rms, decltype(e)::value><<<cuda::warpRowBlocks(rows), cuda::kWarpRowThreads, 0, stream>>>(
            rows, n, x, w, b, y, eps, mean, rstd);
      });
    } else {
      const size_t bytes = static_cast<size_t>(n) * sizeof(StatOf<T>);
      if (bytes <= cuda::kRowCacheBytes)
        normBlockRows<T, Rms, true><<<cuda::blockRowBlocks(rows), cuda::kBlockThreads, bytes, stream>>>(
            rows, n, x, w, b, y, eps, mean, rstd);
      else
        normBlockRows<T, Rms, false><<<cuda::blockRowBlocks(rows), cuda::kBlockThreads, 0, stream>>>(
            rows, n, x, w, b, y, eps, mean, rstd);
    }
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_NORM_KERNELS(TSGPU_REGISTER_CUDA, CudaNorm)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
