// Registers the reductions of ops/common/reduce_kernels.h on cpu.
#include "ops/common/reduce_kernels.h"
#include "ops/cpu/reduce.h"

namespace tsgpu {
namespace ops {
#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_REDUCE_KERNELS(TSGPU_REGISTER_CPU, cpu::ReduceEngine)
#undef TSGPU_REGISTER_CPU
}  // namespace ops
}  // namespace tsgpu
