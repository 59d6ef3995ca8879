// layerNorm and rmsNorm on cuda (ops/common/norm_kernels.h): a block per row
// (rows strided over the grid); sums combined in shared memory. Queued on the
// call's stream.
#include "ops/common/norm_kernels.h"
#include "ops/cuda/block_reduce.cuh"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

template <typename T, bool Rms>
__global__ void normRows(int64_t rows, int64_t n, const T* x, const T* w, const T* b, T* y, double eps) {
  using M = OpMathType<T>;
  using S = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  __shared__ S shared[cuda::kBlockThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    S mean = 0;
    if (!Rms) {
      S s = 0;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += static_cast<S>(static_cast<M>(xr[j]));
      mean = cuda::blockAll(s, shared, cuda::Plus()) / static_cast<S>(n);
    }
    S sq = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const S d = static_cast<S>(static_cast<M>(xr[j])) - mean;
      sq += d * d;
    }
    sq = cuda::blockAll(sq, shared, cuda::Plus());
    const S rstd = S(1) / sm::sqrt(sq / static_cast<S>(n) + static_cast<S>(eps));
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      S v = (static_cast<S>(static_cast<M>(xr[j])) - mean) * rstd;
      if (w) v *= static_cast<S>(static_cast<M>(w[j]));
      if (b) v += static_cast<S>(static_cast<M>(b[j]));
      yr[j] = static_cast<T>(static_cast<M>(v));
    }
  }
}

struct CudaNorm {
  template <typename T, bool Rms>
  static void rows(const OpCall& call, int64_t rows, int64_t n, const T* x, const T* w, const T* b, T* y, double eps) {
    if (rows == 0) return;
    const unsigned blocks = static_cast<unsigned>(rows < cuda::kMaxBlocks ? rows : cuda::kMaxBlocks);
    normRows<T, Rms><<<blocks, cuda::kBlockThreads, 0, cuda::streamOf(call)>>>(rows, n, x, w, b, y, eps);
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_NORM_KERNELS(TSGPU_REGISTER_CUDA, CudaNorm)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
