// Block-wide combination for CUDA kernels that give a block one row.
#pragma once

#include "ops/common/scalar_math.h"

namespace tsgpu {
namespace ops {
namespace cuda {

/** Combines one value per thread with `op` (shared holds blockDim.x values); every thread gets the result. */
template <typename M, typename Op>
__device__ M blockAll(M v, M* shared, Op op) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  const M r = shared[0];
  __syncthreads();
  return r;
}

/** max that keeps NaN. */
struct MaxNan {
  template <typename M>
  __device__ M operator()(M a, M b) const {
    return (sm::isNan(a) || a > b) ? a : b;
  }
};

struct Plus {
  template <typename M>
  __device__ M operator()(M a, M b) const {
    return a + b;
  }
};

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
