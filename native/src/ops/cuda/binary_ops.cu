// Registers the binary elementwise ops of ops/common/elementwise_kernels.h on cuda.
#include "ops/common/elementwise_kernels.h"
#include "ops/cuda/elementwise.cuh"

namespace tsgpu {
namespace ops {
#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_BINARY_KERNELS(TSGPU_REGISTER_CUDA, cuda::Engine)
#undef TSGPU_REGISTER_CUDA
}  // namespace ops
}  // namespace tsgpu
