// softmax, logSoftmax and cumsum, written once for both devices: the kernel
// reads `dim`, builds the DimPlan and calls the engine:
//   E::template softmax<T, Log>(call, plan, out, in)
//   E::template cumsum<T, O>(call, plan, out, in)
#pragma once

#include "ops/common/dim_plan.h"
#include "ops/common/dispatch.h"
#include "ops/common/reduce_kernels.h"

namespace tsgpu {
namespace ops {

template <typename E, bool Log>
void softmaxKernel(OpCall& call) {
  const DimPlan plan = makeDimPlan(call.out(0), call.in(0), call.attrInt("dim"), call.name());
  expectOutDtype(call, 0, call.in(0).dtype);
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template softmax<T, Log>(call, plan, call.out(0).template data<T>(), call.in(0).template data<T>());
  });
}

/** cumsum: floating types keep their dtype; integers and bool accumulate into int64, as PyTorch. */
template <typename E>
void cumsumKernel(OpCall& call) {
  const DimPlan plan = makeDimPlan(call.out(0), call.in(0), call.attrInt("dim"), call.name());
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<OpMathType<T>>::value) {
      expectOutDtype(call, 0, call.in(0).dtype);
      E::template cumsum<T, T>(call, plan, call.out(0).template data<T>(), call.in(0).template data<T>());
    } else {
      expectOutDtype(call, 0, DType::kInt64);
      E::template cumsum<T, int64_t>(call, plan, call.out(0).template data<int64_t>(), call.in(0).template data<T>());
    }
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_DIM_KERNELS(X, E)                 \
  X(softmax, (softmaxKernel<E, false>))         \
  X(logSoftmax, (softmaxKernel<E, true>))       \
  X(cumsum, (cumsumKernel<E>))
