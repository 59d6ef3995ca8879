// Registers the reductions of ops/common/reduce_kernels.h on cuda.
#include "ops/common/reduce_kernels.h"
#include "ops/cuda/reduce.cuh"

namespace tsgpu {
namespace ops {
#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_REDUCE_KERNELS(TSGPU_REGISTER_CUDA, cuda::ReduceEngine)
#undef TSGPU_REGISTER_CUDA
}  // namespace ops
}  // namespace tsgpu
