// batchNormForward and batchNormBackward, written once for both devices: the
// argument checks, the dtype dispatch and the per-channel formulas; the
// engines (cpu/batch_norm.cc, cuda/batch_norm.cu) walk the elements.
//
// Layout: self is contiguous [N, C, *]; channel c's elements are the N runs of
// `inner` (the product of the dims after 1) elements starting at
// (n * C + c) * inner. Types: T the input's, P the parameters' and running
// statistics' (T, or float for a float16/bfloat16 input), S the statistics'
// (double for float64, float otherwise: what saveMean/saveInvstd, gradWeight
// and gradBias hold).
//   E::template forward<T, P>(call, BnForward<T, P>)
//   E::template backward<T, P>(call, BnBackward<T, P>)
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include "base/errors.h"
#include "base/host_device.h"
#include "ops/common/dispatch.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** The statistics type of a batch norm of T: double for float64, float otherwise. */
template <typename T>
using BnStat = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/** [outer = N, channels = C, inner = the product of the dims after 1]. */
struct BnGeometry {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;
  TSGPU_HD int64_t count() const { return outer * inner; }
  TSGPU_HD int64_t numel() const { return outer * channels * inner; }
};

template <typename T, typename P>
struct BnForward {
  using S = BnStat<T>;
  BnGeometry g;
  const T* x = nullptr;
  const P* w = nullptr;
  const P* b = nullptr;
  P* runMean = nullptr;
  P* runVar = nullptr;
  T* y = nullptr;
  S* mean = nullptr;
  S* invstd = nullptr;
  bool training = false;
  double momentum = 0.1;
  double eps = 1e-5;
};

template <typename T, typename P>
struct BnBackward {
  using S = BnStat<T>;
  BnGeometry g;
  const T* dy = nullptr;
  const T* x = nullptr;
  const P* w = nullptr;
  const S* mean = nullptr;
  const S* invstd = nullptr;
  T* dx = nullptr;  // null: gradInput not wanted
  S* dw = nullptr;  // sum of dy * (x - mean) * invstd
  S* db = nullptr;  // sum of dy
  bool training = false;
};

/**
 * The running statistics' update of one channel from the batch's mean and
 * biased variance over `count` elements (PyTorch's: the variance unbiased).
 */
template <typename P, typename A>
TSGPU_HD void bnUpdateRunning(P* runMean, P* runVar, int64_t c, A mean, A var, int64_t count, double momentum) {
  const A m = static_cast<A>(momentum);
  if (runMean) runMean[c] = static_cast<P>(static_cast<OpMathType<P>>(static_cast<A>(static_cast<OpMathType<P>>(runMean[c])) * (A(1) - m) + mean * m));
  if (runVar) {
    const A unbiased = count > 1 ? var * static_cast<A>(count) / static_cast<A>(count - 1) : var;
    runVar[c] = static_cast<P>(static_cast<OpMathType<P>>(static_cast<A>(static_cast<OpMathType<P>>(runVar[c])) * (A(1) - m) + unbiased * m));
  }
}

namespace bn_detail {

inline std::string opName(const OpCall& call) { return std::string(call.name()); }

inline void expectVector(const OpCall& call, const TensorView& v, const char* name, int64_t c, DType dtype) {
  if (!v.isContiguous())
    throw ArgumentError(opName(call) + ": expected a contiguous tensor for " + name);
  if (v.numel() != c)
    throw ArgumentError(opName(call) + ": expected " + std::to_string(c) + " elements for " + name + ", got " +
                        std::to_string(v.numel()));
  if (v.dtype != dtype)
    throw ArgumentError(opName(call) + ": expected dtype " + dtypeName(dtype) + " for " + name + ", got " +
                        dtypeName(v.dtype));
}

inline BnGeometry geometryOf(const OpCall& call, const TensorView& x) {
  if (x.ndim < 2)
    throw ArgumentError(opName(call) + ": expected an input of 2 or more dims [N, C, ...] for self");
  if (!x.isContiguous()) throw ArgumentError(opName(call) + ": expected a contiguous tensor for self");
  BnGeometry g;
  g.outer = x.size(0);
  g.channels = x.size(1);
  for (int d = 2; d < x.ndim; ++d) g.inner *= x.size(d);
  return g;
}

/** The parameters' dtype: that of the given ones (one for all), self's or float32 for a 16-bit self. */
inline DType paramDtype(const OpCall& call, DType t, std::initializer_list<std::pair<const TensorView*, const char*>> ps) {
  const bool half = t == DType::kFloat16 || t == DType::kBFloat16;
  bool found = false;
  DType p = t;
  for (const auto& [v, name] : ps) {
    if (!v->defined()) continue;
    if (!found) {
      p = v->dtype;
      found = true;
      if (p != t && !(half && p == DType::kFloat32))
        throw ArgumentError(opName(call) + ": expected dtype " + dtypeName(t) +
                            (half ? " or float32" : "") + " for " + name + ", got " + dtypeName(p));
    } else if (v->dtype != p) {
      throw ArgumentError(opName(call) + ": expected dtype " + dtypeName(p) + " for " + name + " (that of the other parameters), got " +
                          dtypeName(v->dtype));
    }
  }
  return p;
}

/** Calls f(TypeTag<T>, TypeTag<P>) for the input dtype t and parameter dtype p (p == t, or float for 16-bit t). */
template <typename F>
void dispatchBn(const OpCall& call, DType t, DType p, F&& f) {
  dispatchDtype<kFloatDtypes>(t, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (p == t) {
      f(tag, tag);
    } else if constexpr (!std::is_same<T, float>::value && !std::is_same<T, double>::value) {
      f(tag, TypeTag<float>{});
    } else {
      throw ArgumentError(opName(call) + ": unsupported parameter dtype " + dtypeName(p));
    }
  });
}

}  // namespace bn_detail

template <typename E>
void batchNormForwardKernel(OpCall& call) {
  using namespace bn_detail;
  const TensorView& x = call.in(0);
  const BnGeometry g = geometryOf(call, x);
  const int64_t c = g.channels;
  const TensorView &w = call.in(1), &b = call.in(2), &rm = call.in(3), &rv = call.in(4);
  const DType p = paramDtype(call, x.dtype, {{&w, "weight"}, {&b, "bias"}, {&rm, "runningMean"}, {&rv, "runningVar"}});
  if (w.defined()) expectVector(call, w, "weight", c, p);
  if (b.defined()) expectVector(call, b, "bias", c, p);
  if (rm.defined()) expectVector(call, rm, "runningMean", c, p);
  if (rv.defined()) expectVector(call, rv, "runningVar", c, p);
  const bool training = call.attrBool("training");
  if (!training && (!rm.defined() || !rv.defined()))
    throw ArgumentError(opName(call) + ": running_mean and running_var must be defined in evaluation mode (training: false)");
  if (training && g.count() <= 1)
    throw ArgumentError(opName(call) + ": Expected more than 1 value per channel when training");
  TensorView& y = call.out(0);
  if (!y.isContiguous() || y.numel() != x.numel() || y.dtype != x.dtype)
    throw ArgumentError(opName(call) + ": expected a contiguous out of self's size and dtype");
  const DType statDtype = x.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  expectVector(call, call.out(1), "saveMean", c, statDtype);
  expectVector(call, call.out(2), "saveInvstd", c, statDtype);
  dispatchBn(call, x.dtype, p, [&](auto ttag, auto ptag) {
    using T = typename decltype(ttag)::type;
    using P = typename decltype(ptag)::type;
    using S = BnStat<T>;
    BnForward<T, P> a;
    a.g = g;
    a.x = x.template data<T>();
    a.w = w.defined() ? w.template data<P>() : nullptr;
    a.b = b.defined() ? b.template data<P>() : nullptr;
    a.runMean = rm.defined() ? rm.template data<P>() : nullptr;
    a.runVar = rv.defined() ? rv.template data<P>() : nullptr;
    a.y = y.template data<T>();
    a.mean = call.out(1).template data<S>();
    a.invstd = call.out(2).template data<S>();
    a.training = training;
    a.momentum = call.attrDouble("momentum");
    a.eps = call.attrDouble("eps");
    E::template forward<T, P>(call, a);
  });
}

template <typename E>
void batchNormBackwardKernel(OpCall& call) {
  using namespace bn_detail;
  const TensorView& dy = call.in(0);
  const TensorView& x = call.in(1);
  const BnGeometry g = geometryOf(call, x);
  const int64_t c = g.channels;
  if (!dy.isContiguous() || dy.numel() != x.numel() || dy.dtype != x.dtype)
    throw ArgumentError(opName(call) + ": expected a contiguous gradOut of self's size and dtype");
  const TensorView& w = call.in(2);
  const DType p = paramDtype(call, x.dtype, {{&w, "weight"}});
  if (w.defined()) expectVector(call, w, "weight", c, p);
  const DType statDtype = x.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  expectVector(call, call.in(3), "saveMean", c, statDtype);
  expectVector(call, call.in(4), "saveInvstd", c, statDtype);
  TensorView& dx = call.out(0);
  const bool wantDx = dx.numel() != 0 || x.numel() == 0;
  if (wantDx && (!dx.isContiguous() || dx.numel() != x.numel() || dx.dtype != x.dtype))
    throw ArgumentError(opName(call) + ": expected a contiguous gradInput of self's size and dtype (or of 0 elements)");
  expectVector(call, call.out(1), "gradWeight", c, statDtype);
  expectVector(call, call.out(2), "gradBias", c, statDtype);
  dispatchBn(call, x.dtype, p, [&](auto ttag, auto ptag) {
    using T = typename decltype(ttag)::type;
    using P = typename decltype(ptag)::type;
    using S = BnStat<T>;
    BnBackward<T, P> a;
    a.g = g;
    a.dy = dy.template data<T>();
    a.x = x.template data<T>();
    a.w = w.defined() ? w.template data<P>() : nullptr;
    a.mean = call.in(3).template data<S>();
    a.invstd = call.in(4).template data<S>();
    a.dx = wantDx && x.numel() > 0 ? dx.template data<T>() : nullptr;
    a.dw = call.out(1).template data<S>();
    a.db = call.out(2).template data<S>();
    a.training = call.attrBool("training");
    E::template backward<T, P>(call, a);
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_BATCH_NORM_KERNELS(X, E)                \
  X(batchNormForward, (batchNormForwardKernel<E>))    \
  X(batchNormBackward, (batchNormBackwardKernel<E>))
