// The example kernel of the contract: `add` on cpu, any numeric dtype, any
// strides, broadcasting by strides. It shows the pattern every kernel file
// follows (read OpCall, write the outputs, register); the binary-op family
// of ops/common replaces it with a fast one (delete this file then).
#include "base/errors.h"
#include "ops/example_add.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

template <typename T>
void addTyped(OpCall& call) {
  using M = OpMathType<T>;
  TensorView& out = call.out(0);
  const TensorView& a = call.in(0);
  const bool bScalar = call.isScalar(1);
  const M alpha = static_cast<M>(call.attrDouble("alpha"));
  const M bValue = bScalar ? static_cast<M>(call.scalar(1)) : M(0);
  example::Strides sa = example::broadcastStrides(a, out), sb;
  if (!bScalar) sb = example::broadcastStrides(call.in(1), out);
  T* o = out.data<T>();
  const T* pa = a.data<T>();
  const T* pb = bScalar ? nullptr : call.in(1).data<T>();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) {
    if ((i & 0xfffff) == 0) call.checkInterrupt();
    int64_t oo = 0, oa = 0, ob = 0;
    example::offsets(out, i, sa, sb, &oo, &oa, &ob);
    const M x = static_cast<M>(pa[oa]);
    const M y = bScalar ? bValue : static_cast<M>(pb[ob]);
    o[oo] = static_cast<T>(x + alpha * y);
  }
}

void addCpu(OpCall& call) {
  switch (call.out(0).dtype) {
#define TSGPU_ADD_CASE(Name, name, code, CppT, bytes, kind, sgn) \
  case DType::k##Name:                                             \
    return addTyped<CppT>(call);
    TSGPU_FOR_EACH_DTYPE(TSGPU_ADD_CASE)
#undef TSGPU_ADD_CASE
  }
}

}  // namespace

TSGPU_REGISTER_KERNEL(add, kCpu, addCpu);

}  // namespace tsgpu
