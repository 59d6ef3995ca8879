// Registers the unary elementwise ops of ops/common/elementwise_kernels.h on cpu,
// and logit, a cpu-only op (its vector loop is cpu's; on cuda the TypeScript
// function composes it from div and log).
#include "ops/common/elementwise_kernels.h"
#include "ops/cpu/elementwise.h"

namespace tsgpu {
namespace ops {
#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_UNARY_KERNELS(TSGPU_REGISTER_CPU, cpu::Engine)
#undef TSGPU_REGISTER_CPU

namespace {
void logitCpu(OpCall& call) {
  const double eps = call.attrDouble("eps");
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    fn::Logit<M> f;
    if (eps >= 0.0) {
      f.bounds.lo = static_cast<M>(eps);
      f.bounds.hi = static_cast<M>(1.0 - eps);
    }
    cpu::Engine::template run<T, T>(call, call.out(0), {&call.in(0)}, f);
  });
}
}  // namespace

TSGPU_REGISTER_KERNEL(logit, kCpu, logitCpu);
}  // namespace ops
}  // namespace tsgpu
