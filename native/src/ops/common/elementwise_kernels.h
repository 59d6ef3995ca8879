// The elementwise op kernels, written once for both devices: each reads its
// OpCall (dtype, numbers given for `#` inputs, attributes), picks the functor
// and hands it to an Engine — ops::cpu::Engine (cpu/elementwise.h) or
// ops::cuda::Engine (cuda/elementwise.cuh); cpu/{unary,binary,compare}_ops.cc
// and cuda/{unary,binary,compare}_ops.cu register them from the lists below.
//
// Engine::run<Out, In...>(call, out, {inputs}, f) computes
// out = f(in...) elementwise with broadcasting by strides.
#pragma once

#include <string>

#include "base/errors.h"
#include "ops/common/bind_arg.h"
#include "ops/common/binary_functors.h"
#include "ops/common/dispatch.h"
#include "ops/common/unary_functors.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** The dtype an elementwise op computes in: its first tensor input's. */
inline DType computeDtype(const OpCall& call) {
  for (size_t i = 0; i < call.numInputs(); ++i)
    if (!call.isScalar(i) && call.in(i).defined()) return call.in(i).dtype;
  return call.outputs[0].dtype;
}

/** The number given for input i in T's compute type (a half tensor's 0.1 stays 0.1f, as PyTorch's). */
template <typename T>
OpMathType<T> numberAs(const OpCall& call, size_t i) {
  return static_cast<OpMathType<T>>(call.scalar(i));
}

/** out = F(self), same dtype. */
template <typename E, DtypeSet Set, typename F>
void unaryKernel(OpCall& call) {
  dispatchDtype<Set>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template run<T, T>(call, call.out(0), {&call.in(0)}, F{});
  });
}

/** out(bool) = !self. */
template <typename E>
void logicalNotKernel(OpCall& call) {
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template run<bool, T>(call, call.out(0), {&call.in(0)}, fn::LogicalNot{});
  });
}

/** gelu with approximate = "none" (erf) or "tanh". */
template <typename E>
void geluKernel(OpCall& call) {
  const std::string& mode = call.attrString("approximate");
  if (mode != "none" && mode != "tanh")
    throw ArgumentError(std::string("gelu: expected 'none' or 'tanh' for approximate, got '") + mode + "'");
  if (mode == "tanh") return unaryKernel<E, kFloatDtypes, fn::GeluTanh>(call);
  unaryKernel<E, kFloatDtypes, fn::GeluExact>(call);
}

template <typename E>
void softplusKernel(OpCall& call) {
  fn::Softplus f;
  f.beta = call.attrDouble("beta");
  f.threshold = call.attrDouble("threshold");
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template run<T, T>(call, call.out(0), {&call.in(0)}, f);
  });
}

template <typename E>
void leakyReluKernel(OpCall& call) {
  const double slope = call.attrDouble("negativeSlope");
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fn::LeakyRelu<OpMathType<T>> f;
    f.negativeSlope = static_cast<OpMathType<T>>(slope);
    E::template run<T, T>(call, call.out(0), {&call.in(0)}, f);
  });
}

/**
 * Two-input op with result type R (T itself or bool): either input may be a
 * number, which travels bound into the functor. T is the compute dtype.
 */
template <typename E, typename T, bool BoolOut, typename F>
void runBinary(OpCall& call, const F& f) {
  using R = typename std::conditional<BoolOut, bool, T>::type;
  if (call.isScalar(0) && call.isScalar(1))
    throw ArgumentError(std::string(call.name()) + ": expected at least one tensor input, got two numbers");
  if (call.isScalar(1))
    return E::template run<R, T>(call, call.out(0), {&call.in(0)}, bindArg<1>(f, numberAs<T>(call, 1)));
  if (call.isScalar(0))
    return E::template run<R, T>(call, call.out(0), {&call.in(1)}, bindArg<0>(f, numberAs<T>(call, 0)));
  E::template run<R, T, T>(call, call.out(0), {&call.in(0), &call.in(1)}, f);
}

/** out = F(self, other) in the inputs' dtype. */
template <typename E, DtypeSet Set, typename F>
void binaryKernel(OpCall& call) {
  dispatchDtype<Set>(computeDtype(call), call.name(), [&](auto tag) {
    runBinary<E, typename decltype(tag)::type, false>(call, F{});
  });
}

/** out(bool) = F(self, other). */
template <typename E, DtypeSet Set, typename F>
void compareKernel(OpCall& call) {
  dispatchDtype<Set>(computeDtype(call), call.name(), [&](auto tag) {
    runBinary<E, typename decltype(tag)::type, true>(call, F{});
  });
}

/** add / sub with alpha: F<M>{alpha}. */
template <typename E, template <typename> class F>
void alphaKernel(OpCall& call) {
  dispatchDtype<kNumericDtypes>(computeDtype(call), call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    F<OpMathType<T>> f;
    f.alpha = static_cast<OpMathType<T>>(call.attrDouble("alpha"));
    runBinary<E, T, false>(call, f);
  });
}

/** div with roundingMode absent (true division), "trunc" or "floor". */
template <typename E>
void divKernel(OpCall& call) {
  const std::string mode = call.hasAttr("roundingMode") ? call.attrString("roundingMode") : std::string();
  if (mode.empty()) return binaryKernel<E, kFloatDtypes, fn::Div>(call);
  if (mode == "trunc") return binaryKernel<E, kNumericDtypes, fn::DivTrunc>(call);
  if (mode == "floor") return binaryKernel<E, kNumericDtypes, fn::DivFloor>(call);
  throw ArgumentError("div: expected 'trunc' or 'floor' for roundingMode, got '" + mode + "'");
}

/** where(condition, self, other): self/other may be numbers. */
template <typename E>
void whereKernel(OpCall& call) {
  dispatchDtype<kAllDtypes>(call.out(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const TensorView& c = call.in(0);
    const fn::Where f;
    const bool sa = call.isScalar(1), sb = call.isScalar(2);
    if (sa && sb)
      return E::template run<T, bool>(call, call.out(0), {&c},
                                      bindArg<1>(bindArg<1>(f, numberAs<T>(call, 1)),
                                                 numberAs<T>(call, 2)));
    if (sa) return E::template run<T, bool, T>(call, call.out(0), {&c, &call.in(2)}, bindArg<1>(f, numberAs<T>(call, 1)));
    if (sb) return E::template run<T, bool, T>(call, call.out(0), {&c, &call.in(1)}, bindArg<2>(f, numberAs<T>(call, 2)));
    E::template run<T, bool, T, T>(call, call.out(0), {&c, &call.in(1), &call.in(2)}, f);
  });
}

/** clamp(self, min?, max?): each bound absent, a number, or a tensor. */
template <typename E>
void clampKernel(OpCall& call) {
  dispatchDtype<kNumericDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    const bool tensorLo = !call.isScalar(1) && call.in(1).defined();
    const bool tensorHi = !call.isScalar(2) && call.in(2).defined();
    fn::Clamp<M> scalarBounds;
    if (call.isScalar(1)) scalarBounds.lo = numberAs<T>(call, 1);
    if (call.isScalar(2)) scalarBounds.hi = numberAs<T>(call, 2);
    if (!tensorLo && !tensorHi) return E::template run<T, T>(call, call.out(0), {&call.in(0)}, scalarBounds);
    const fn::ClampTensor f;
    if (tensorLo && tensorHi)
      return E::template run<T, T, T, T>(call, call.out(0), {&call.in(0), &call.in(1), &call.in(2)}, f);
    if (tensorLo) return E::template run<T, T, T>(call, call.out(0), {&call.in(0), &call.in(1)}, bindArg<2>(f, scalarBounds.hi));
    E::template run<T, T, T>(call, call.out(0), {&call.in(0), &call.in(2)}, bindArg<1>(f, scalarBounds.lo));
  });
}

/** lerp(self, end, weight): weight a tensor or a number. */
template <typename E>
void lerpKernel(OpCall& call) {
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const fn::Lerp f;
    if (call.isScalar(2))
      return E::template run<T, T, T>(call, call.out(0), {&call.in(0), &call.in(1)},
                                      bindArg<2>(f, numberAs<T>(call, 2)));
    E::template run<T, T, T, T>(call, call.out(0), {&call.in(0), &call.in(1), &call.in(2)}, f);
  });
}

/** addcmul / addcdiv: self + value * (t1 op t2). */
template <typename E, DtypeSet Set, template <typename> class F>
void addcKernel(OpCall& call) {
  dispatchDtype<Set>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    F<OpMathType<T>> f;
    f.value = static_cast<OpMathType<T>>(call.attrDouble("value"));
    E::template run<T, T, T, T>(call, call.out(0), {&call.in(0), &call.in(1), &call.in(2)}, f);
  });
}

}  // namespace ops
}  // namespace tsgpu

/**
 * X(op, kernel expression) for every elementwise op, in three lists (one
 * file each per device, so they compile in parallel); E is the engine. The
 * device files expand them with TSGPU_REGISTER_KERNEL.
 */
#define TSGPU_UNARY_KERNELS(X, E)                                                     \
  X(neg, (unaryKernel<E, kNumericDtypes, fn::Neg>))                                   \
  X(abs, (unaryKernel<E, kNumericDtypes, fn::Abs>))                                   \
  X(sign, (unaryKernel<E, kNumericDtypes, fn::Sign>))                                 \
  X(exp, (unaryKernel<E, kFloatDtypes, fn::Exp>))                                     \
  X(expm1, (unaryKernel<E, kFloatDtypes, fn::Expm1>))                                 \
  X(log, (unaryKernel<E, kFloatDtypes, fn::Log>))                                     \
  X(log1p, (unaryKernel<E, kFloatDtypes, fn::Log1p>))                                 \
  X(log2, (unaryKernel<E, kFloatDtypes, fn::Log2>))                                   \
  X(sqrt, (unaryKernel<E, kFloatDtypes, fn::Sqrt>))                                   \
  X(rsqrt, (unaryKernel<E, kFloatDtypes, fn::Rsqrt>))                                 \
  X(reciprocal, (unaryKernel<E, kFloatDtypes, fn::Reciprocal>))                       \
  X(sin, (unaryKernel<E, kFloatDtypes, fn::Sin>))                                     \
  X(cos, (unaryKernel<E, kFloatDtypes, fn::Cos>))                                     \
  X(tanh, (unaryKernel<E, kFloatDtypes, fn::Tanh>))                                   \
  X(tan, (unaryKernel<E, kFloatDtypes, fn::Tan>))                                     \
  X(asin, (unaryKernel<E, kFloatDtypes, fn::Asin>))                                   \
  X(acos, (unaryKernel<E, kFloatDtypes, fn::Acos>))                                   \
  X(atan, (unaryKernel<E, kFloatDtypes, fn::Atan>))                                   \
  X(sinh, (unaryKernel<E, kFloatDtypes, fn::Sinh>))                                   \
  X(cosh, (unaryKernel<E, kFloatDtypes, fn::Cosh>))                                   \
  X(asinh, (unaryKernel<E, kFloatDtypes, fn::Asinh>))                                 \
  X(acosh, (unaryKernel<E, kFloatDtypes, fn::Acosh>))                                 \
  X(atanh, (unaryKernel<E, kFloatDtypes, fn::Atanh>))                                 \
  X(log10, (unaryKernel<E, kFloatDtypes, fn::Log10>))                                 \
  X(exp2, (unaryKernel<E, kFloatDtypes, fn::Exp2>))                                   \
  X(erf, (unaryKernel<E, kFloatDtypes, fn::Erf>))                                     \
  X(erfc, (unaryKernel<E, kFloatDtypes, fn::Erfc>))                                   \
  X(erfinv, (unaryKernel<E, kFloatDtypes, fn::Erfinv>))                               \
  X(bitwiseNot, (unaryKernel<E, kIntDtypes | kBoolDtypes, fn::BitwiseNot>))           \
  X(sigmoid, (unaryKernel<E, kFloatDtypes, fn::Sigmoid>))                             \
  X(relu, (unaryKernel<E, kNumericDtypes, fn::Relu>))                                 \
  X(silu, (unaryKernel<E, kFloatDtypes, fn::Silu>))                                   \
  X(floor, (unaryKernel<E, kNumericDtypes, fn::Floor>))                               \
  X(ceil, (unaryKernel<E, kNumericDtypes, fn::Ceil>))                                 \
  X(round, (unaryKernel<E, kNumericDtypes, fn::Round>))                               \
  X(trunc, (unaryKernel<E, kNumericDtypes, fn::Trunc>))                               \
  X(logicalNot, (logicalNotKernel<E>))                                                \
  X(gelu, (geluKernel<E>))                                                            \
  X(softplus, (softplusKernel<E>))                                                    \
  X(leakyRelu, (leakyReluKernel<E>))

#define TSGPU_BINARY_KERNELS(X, E)                                                    \
  X(add, (alphaKernel<E, fn::Add>))                                                   \
  X(sub, (alphaKernel<E, fn::Sub>))                                                   \
  X(mul, (binaryKernel<E, kAllDtypes, fn::Mul>))                                      \
  X(div, (divKernel<E>))                                                              \
  X(pow, (binaryKernel<E, kNumericDtypes, fn::Pow>))                                  \
  X(remainder, (binaryKernel<E, kNumericDtypes, fn::Remainder>))                      \
  X(maximum, (binaryKernel<E, kAllDtypes, fn::Maximum>))                              \
  X(minimum, (binaryKernel<E, kAllDtypes, fn::Minimum>))                              \
  X(fmod, (binaryKernel<E, kNumericDtypes, fn::Fmod>))                                \
  X(atan2, (binaryKernel<E, kFloatDtypes, fn::Atan2>))                                \
  X(hypot, (binaryKernel<E, kFloatDtypes, fn::Hypot>))                                \
  X(copysign, (binaryKernel<E, kFloatDtypes, fn::Copysign>))                          \
  X(bitwiseAnd, (binaryKernel<E, kIntDtypes | kBoolDtypes, fn::BitwiseAnd>))          \
  X(bitwiseOr, (binaryKernel<E, kIntDtypes | kBoolDtypes, fn::BitwiseOr>))            \
  X(bitwiseXor, (binaryKernel<E, kIntDtypes | kBoolDtypes, fn::BitwiseXor>))          \
  X(bitwiseLeftShift, (binaryKernel<E, kIntDtypes, fn::BitwiseLeftShift>))            \
  X(bitwiseRightShift, (binaryKernel<E, kIntDtypes, fn::BitwiseRightShift>))

#define TSGPU_COMPARE_TERNARY_KERNELS(X, E)                                           \
  X(eq, (compareKernel<E, kAllDtypes, fn::Eq>))                                       \
  X(ne, (compareKernel<E, kAllDtypes, fn::Ne>))                                       \
  X(lt, (compareKernel<E, kAllDtypes, fn::Lt>))                                       \
  X(le, (compareKernel<E, kAllDtypes, fn::Le>))                                       \
  X(gt, (compareKernel<E, kAllDtypes, fn::Gt>))                                       \
  X(ge, (compareKernel<E, kAllDtypes, fn::Ge>))                                       \
  X(logicalAnd, (compareKernel<E, kAllDtypes, fn::LogicalAnd>))                       \
  X(logicalOr, (compareKernel<E, kAllDtypes, fn::LogicalOr>))                         \
  X(logicalXor, (compareKernel<E, kAllDtypes, fn::LogicalXor>))                       \
  X(where, (whereKernel<E>))                                                          \
  X(clamp, (clampKernel<E>))                                                          \
  X(lerp, (lerpKernel<E>))                                                            \
  X(addcmul, (addcKernel<E, kNumericDtypes, fn::Addcmul>))                            \
  X(addcdiv, (addcKernel<E, kFloatDtypes, fn::Addcdiv>))
