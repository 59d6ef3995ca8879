// layerNorm and rmsNorm, written once for both devices: the last
// `normalizedNumel` elements of each row are normalized (the op's TypeScript
// function passes a contiguous input, and weight/bias of that many elements);
//   layerNorm: (x - mean) / sqrt(var + eps) * weight + bias   (biased var)
//   rmsNorm:   x / sqrt(mean(x^2) + eps) * weight
// Statistics are computed in double for float64 and float otherwise
// (NormStat<T>); layerNorm writes each row's mean and rstd = 1 / sqrt(var +
// eps) in that type (outputs 1 and 2, what its backward reads; as PyTorch's
// native_layer_norm). rmsNorm has no statistics outputs (mean, rstd null).
//   E::template rows<T, Rms>(call, rows, n, x, weight, bias, y, eps, mean, rstd)
#pragma once

#include <string>
#include <type_traits>

#include "base/errors.h"
#include "ops/common/dispatch.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** Checks one contiguous operand; `numel` < 0 skips the element count check. */
inline void expectContiguous(const OpCall& call, const TensorView& v, const char* name, int64_t numel, DType dtype) {
  if (!v.isContiguous())
    throw ArgumentError(std::string(call.name()) + ": expected a contiguous tensor for " + name);
  if (numel >= 0 && v.numel() != numel)
    throw ArgumentError(std::string(call.name()) + ": expected " + std::to_string(numel) + " elements for " + name +
                        ", got " + std::to_string(v.numel()));
  if (v.dtype != dtype)
    throw ArgumentError(std::string(call.name()) + ": expected dtype " + dtypeName(dtype) + " for " + name + ", got " +
                        dtypeName(v.dtype));
}

/** The statistics type of a row norm of T: double for float64, float otherwise. */
template <typename T>
using NormStat = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

template <typename E, bool Rms>
void normKernel(OpCall& call) {
  const TensorView& x = call.in(0);
  const int64_t n = call.attrInt("normalizedNumel");
  const int64_t total = x.numel();
  if (n <= 0 || total % n != 0)
    throw ArgumentError(std::string(call.name()) + ": expected a normalized size dividing " + std::to_string(total) +
                        " for normalizedNumel, got " + std::to_string(n));
  expectContiguous(call, x, "self", -1, x.dtype);
  expectContiguous(call, call.out(0), "out", total, x.dtype);
  const TensorView& w = call.in(1);
  if (w.defined()) expectContiguous(call, w, "weight", n, x.dtype);
  const TensorView* b = nullptr;
  if (!Rms && call.in(2).defined()) {
    b = &call.in(2);
    expectContiguous(call, *b, "bias", n, x.dtype);
  }
  const double eps = call.attrDouble("eps");
  const DType statDtype = x.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const bool stats = !Rms;
  if (stats) {
    expectContiguous(call, call.out(1), "mean", total / n, statDtype);
    expectContiguous(call, call.out(2), "rstd", total / n, statDtype);
  }
  dispatchDtype<kFloatDtypes>(x.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = NormStat<T>;
    E::template rows<T, Rms>(call, total / n, n, x.template data<T>(), w.defined() ? w.template data<T>() : nullptr,
                             b ? b->template data<T>() : nullptr, call.out(0).template data<T>(), eps,
                             stats ? call.out(1).template data<S>() : nullptr,
                             stats ? call.out(2).template data<S>() : nullptr);
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_NORM_KERNELS(X, E)           \
  X(layerNorm, (normKernel<E, false>))     \
  X(rmsNorm, (normKernel<E, true>))
