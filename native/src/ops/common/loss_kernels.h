// The fused cross entropy with class indices and the fused softmax /
// logSoftmax backward, written once for both devices: the checks and the
// dtype dispatch live here, the row loops in the engines (cpu/loss_ops.cc,
// cuda/loss_ops.cu).
//
// crossEntropyLoss over logits x [N, C] (contiguous) and targets y [N]
// (int64): per row, lse = log Σ_c exp(x_c) and
//   loss = (1 - ε)·w[y]·(lse - x[y]) + ε/C·Σ_c w_c·(lse - x_c)
// (w = 1 without weights; 0 where y == ignoreIndex), in float32 for half and
// bfloat16 logits (double for float64). Only lse is saved for backward:
//   ∂loss/∂x_c = p_c·((1 - ε)·w[y] + ε/C·Σ_k w_k) - (1 - ε)·w[y]·[c == y] - ε/C·w_c,
// with p_c = exp(x_c - lse), recomputed in the backward pass.
//   E::template crossEntropy<T>(call, const CeArgs<T>&)
//   E::template crossEntropyGrad<T>(call, const CeArgs<T>&, gradLoss, gradLogits)
//   E::template softmaxGrad<T, Log>(call, rows, n, grad, output, out)
#pragma once

#include <string>

#include "base/errors.h"
#include "ops/common/dispatch.h"
#include "ops/common/scalar_math.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** The accumulation type of the fused losses: double for float64, float otherwise. */
template <typename T>
using LossAcc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/** The operands of one crossEntropyLoss / crossEntropyBackward call. */
template <typename T>
struct CeArgs {
  int64_t rows = 0, classes = 0;
  const T* x = nullptr;           // [rows, classes]
  const int64_t* target = nullptr;  // [rows]
  const T* weight = nullptr;      // [classes] or nullptr
  LossAcc<T>* loss = nullptr;     // [rows] (forward)
  LossAcc<T>* lse = nullptr;      // [rows] (written forward, read backward)
  int64_t ignoreIndex = -100;
  LossAcc<T> smoothing = 0;
};

namespace loss_detail {

[[noreturn]] inline void fail(const OpCall& call, const std::string& what) {
  throw ArgumentError(std::string(call.name()) + ": " + what);
}

inline void expectDense(const OpCall& call, const TensorView& v, const char* name, int64_t numel, DType dtype) {
  if (!v.isContiguous()) fail(call, std::string("expected a contiguous tensor for ") + name);
  if (v.numel() != numel)
    fail(call, "expected " + std::to_string(numel) + " elements for " + name + ", got " + std::to_string(v.numel()));
  if (v.dtype != dtype)
    fail(call, std::string("expected dtype ") + dtypeName(dtype) + " for " + name + ", got " + dtypeName(v.dtype));
}

/** The dtype of loss and lse for logits of dtype t. */
inline DType accDtype(DType t) { return t == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32; }

/** Fills the shared part of CeArgs from logits `xi`, targets `ti` and optional weights `wi` (input slots). */
template <typename T>
CeArgs<T> ceArgs(const OpCall& call, size_t xi, size_t ti, size_t wi) {
  const TensorView& x = call.in(xi);
  if (x.ndim != 2) fail(call, "expected logits of 2 dimensions [N, C] for self, got " + std::to_string(x.ndim));
  CeArgs<T> a;
  a.rows = x.sizes[0];
  a.classes = x.sizes[1];
  expectDense(call, x, "self", a.rows * a.classes, x.dtype);
  expectDense(call, call.in(ti), "target", a.rows, DType::kInt64);
  if (call.in(wi).defined()) {
    expectDense(call, call.in(wi), "weight", a.classes, x.dtype);
    a.weight = call.in(wi).template data<T>();
  }
  a.x = x.template data<T>();
  a.target = call.in(ti).template data<int64_t>();
  a.ignoreIndex = call.attrInt("ignoreIndex");
  const double eps = call.attrDouble("labelSmoothing");
  if (!(eps >= 0 && eps <= 1)) fail(call, "expected a number in [0, 1] for labelSmoothing, got " + std::to_string(eps));
  a.smoothing = static_cast<LossAcc<T>>(eps);
  return a;
}

}  // namespace loss_detail

/** crossEntropyLoss: outputs loss [N], lse [N]. */
template <typename E>
void crossEntropyKernel(OpCall& call) {
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    CeArgs<T> a = loss_detail::ceArgs<T>(call, 0, 1, 2);
    const DType acc = loss_detail::accDtype(call.in(0).dtype);
    loss_detail::expectDense(call, call.out(0), "loss", a.rows, acc);
    loss_detail::expectDense(call, call.out(1), "lse", a.rows, acc);
    a.loss = call.out(0).template data<LossAcc<T>>();
    a.lse = call.out(1).template data<LossAcc<T>>();
    if (a.rows == 0) return;
    if (a.classes == 0) loss_detail::fail(call, "expected at least one class for self");
    E::template crossEntropy<T>(call, a);
  });
}

/** crossEntropyBackward: inputs gradLoss [N], self, target, lse [N], weight?; output out [N, C]. */
template <typename E>
void crossEntropyBackwardKernel(OpCall& call) {
  const TensorView& self = call.in(1);
  dispatchDtype<kFloatDtypes>(self.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = LossAcc<T>;
    CeArgs<T> a = loss_detail::ceArgs<T>(call, 1, 2, 4);
    const DType acc = loss_detail::accDtype(self.dtype);
    loss_detail::expectDense(call, call.in(0), "gradLoss", a.rows, acc);
    loss_detail::expectDense(call, call.in(3), "lse", a.rows, acc);
    loss_detail::expectDense(call, call.out(0), "out", a.rows * a.classes, self.dtype);
    a.lse = call.in(3).template data<A>();
    if (a.rows == 0 || a.classes == 0) return;
    E::template crossEntropyGrad<T>(call, a, call.in(0).template data<A>(), call.out(0).template data<T>());
  });
}

/** softmaxBackward / logSoftmaxBackward over the last dim of contiguous grad and output. */
template <typename E, bool Log>
void softmaxBackwardKernel(OpCall& call) {
  const TensorView& g = call.in(0);
  const TensorView& y = call.in(1);
  if (g.ndim < 1) loss_detail::fail(call, "expected a tensor of at least 1 dimension for grad");
  const int64_t total = g.numel();
  const int64_t n = g.sizes[g.ndim - 1];
  loss_detail::expectDense(call, g, "grad", total, g.dtype);
  loss_detail::expectDense(call, y, "output", total, g.dtype);
  loss_detail::expectDense(call, call.out(0), "out", total, g.dtype);
  if (total == 0) return;
  dispatchDtype<kFloatDtypes>(g.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template softmaxGrad<T, Log>(call, total / n, n, g.template data<T>(), y.template data<T>(),
                                    call.out(0).template data<T>());
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_LOSS_KERNELS(X, E)                                \
  X(crossEntropyLoss, (crossEntropyKernel<E>))                  \
  X(crossEntropyBackward, (crossEntropyBackwardKernel<E>))      \
  X(softmaxBackward, (softmaxBackwardKernel<E, false>))         \
  X(logSoftmaxBackward, (softmaxBackwardKernel<E, true>))
