// Registers the comparison, logical and ternary elementwise ops of ops/common/elementwise_kernels.h on cpu.
#include "ops/common/elementwise_kernels.h"
#include "ops/cpu/elementwise.h"

namespace tsgpu {
namespace ops {
#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_COMPARE_TERNARY_KERNELS(TSGPU_REGISTER_CPU, cpu::Engine)
#undef TSGPU_REGISTER_CPU
}  // namespace ops
}  // namespace tsgpu
