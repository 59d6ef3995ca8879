// Running scans along one dim (cumprod, logcumsumexp, cummax, cummin),
// written once for both devices. Each op is a scan functor over a state:
//   S identity()            the state before the first element
//   S lift(M x, int64_t j)  the state of element j alone
//   S combine(S a, S b)     a (earlier elements) followed by b; associative,
//                           so a device may scan a row in parallel
//   O value(S)              what the output holds at each position
//   int64_t index(S)        (kIndices) the index output at each position
// The kernel builds the ScanPlan (rows of out, indices, self along dim) and calls
//   E::template scan<Op>(call, plan, out, indices, self)
// with indices null for ops without an index output.
#pragma once

#include <string>
#include <type_traits>

#include "base/errors.h"
#include "ops/common/dim_plan.h"
#include "ops/common/dispatch.h"
#include "ops/common/reduce_kernels.h"
#include "ops/common/reducers.h"
#include "ops/common/scalar_math.h"

namespace tsgpu {
namespace ops {

/** Rows of self along dim; operands: out, indices (out's strides again when there is no index output), self. */
struct ScanPlan {
  IterPlan rows;
  int64_t len = 1, outStride = 0, indexStride = 0, inStride = 0;
};

inline ScanPlan makeScanPlan(const TensorView& out, const TensorView* indices, const TensorView& in, int64_t dim,
                             const char* op) {
  const std::vector<bool> reduced = reducedDims({dim}, in.ndim, op);
  if (sizesOf(out) != sizesOf(in) || (indices != nullptr && sizesOf(*indices) != sizesOf(in)))
    throw ArgumentError(std::string(op) + ": expected outputs of shape " + shapeString(sizesOf(in)));
  const TensorView& ix = indices != nullptr ? *indices : out;
  ScanPlan p;
  Shape rowShape = sizesOf(in);
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) continue;
    p.len = rowShape[d];
    p.outStride = out.strides[d];
    p.indexStride = ix.strides[d];
    p.inStride = in.strides[d];
    rowShape[d] = 1;
  }
  p.rows = makeIterPlan(rowShape, {stridesOf(out), stridesOf(ix), stridesOf(in)});
  if (p.len == 0) p.rows.numel = 0;
  return p;
}

namespace scan {

/** Running product, accumulated in double (floating) or int64 (integers and bool, which write int64). */
template <typename T, typename O>
struct Prod {
  using In = T;
  using Out = O;
  using M = OpMathType<T>;
  using Acc = red::AccOf<M>;
  struct S {
    Acc v;
  };
  static constexpr bool kIndices = false;
  static TSGPU_HD S identity() { return S{Acc(1)}; }
  static TSGPU_HD S lift(M x, int64_t) { return S{static_cast<Acc>(x)}; }
  static TSGPU_HD S combine(S a, S b) { return S{a.v * b.v}; }
  static TSGPU_HD O value(S s) { return static_cast<O>(s.v); }
  static TSGPU_HD int64_t index(S) { return 0; }
};

/** Running log(sum(exp)), in the compute type: log(e^a + e^b) = max + log1p(e^(min - max)). */
template <typename T>
struct LogSumExp {
  using In = T;
  using Out = T;
  using M = OpMathType<T>;
  struct S {
    M v;
  };
  static constexpr bool kIndices = false;
  static TSGPU_HD S identity() { return S{sm::Limits<M>::lowest()}; }
  static TSGPU_HD S lift(M x, int64_t) { return S{x}; }
  static TSGPU_HD S combine(S a, S b) {
    if (sm::isNan(a.v) || sm::isNan(b.v)) return S{sm::isNan(a.v) ? a.v : b.v};
    const M hi = a.v > b.v ? a.v : b.v, lo = a.v > b.v ? b.v : a.v;
    if (lo == sm::Limits<M>::lowest()) return S{hi};  // also -inf with -inf, and inf with anything
    if (hi == sm::Limits<M>::highest()) return S{hi};
    return S{hi + sm::log1p(sm::exp(lo - hi))};
  }
  static TSGPU_HD T value(S s) { return static_cast<T>(s.v); }
  static TSGPU_HD int64_t index(S) { return 0; }
};

/**
 * Running max (IsMax) or min with where it was: a later element equal to the extreme takes its
 * place (PyTorch's cummax/cummin give the last index of a tie), and NaN beats everything (the
 * last NaN so far). index -1 marks the empty state.
 */
template <typename T, bool IsMax>
struct Extreme {
  using In = T;
  using Out = T;
  using M = OpMathType<T>;
  struct S {
    M v;
    int64_t i;
  };
  static constexpr bool kIndices = true;
  static TSGPU_HD S identity() { return S{M(0), -1}; }
  static TSGPU_HD S lift(M x, int64_t j) { return S{x, j}; }
  static TSGPU_HD S combine(S a, S b) {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    if (sm::isNan(b.v)) return b;
    if (sm::isNan(a.v)) return a;
    return (IsMax ? b.v >= a.v : b.v <= a.v) ? b : a;
  }
  static TSGPU_HD T value(S s) { return static_cast<T>(s.v); }
  static TSGPU_HD int64_t index(S s) { return s.i; }
};

}  // namespace scan

/** cumprod: floating types keep their dtype; integers and bool write int64, as PyTorch. */
template <typename E>
void cumprodKernel(OpCall& call) {
  const ScanPlan plan = makeScanPlan(call.out(0), nullptr, call.in(0), call.attrInt("dim"), call.name());
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point<OpMathType<T>>::value) {
      expectOutDtype(call, 0, call.in(0).dtype);
      E::template scan<scan::Prod<T, T>>(call, plan, call.out(0).template data<T>(), nullptr, call.in(0).template data<T>());
    } else {
      expectOutDtype(call, 0, DType::kInt64);
      E::template scan<scan::Prod<T, int64_t>>(call, plan, call.out(0).template data<int64_t>(), nullptr,
                                                call.in(0).template data<T>());
    }
  });
}

template <typename E>
void logcumsumexpKernel(OpCall& call) {
  const ScanPlan plan = makeScanPlan(call.out(0), nullptr, call.in(0), call.attrInt("dim"), call.name());
  expectOutDtype(call, 0, call.in(0).dtype);
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template scan<scan::LogSumExp<T>>(call, plan, call.out(0).template data<T>(), nullptr, call.in(0).template data<T>());
  });
}

template <typename E, bool IsMax>
void cumExtremeKernel(OpCall& call) {
  const ScanPlan plan = makeScanPlan(call.out(0), &call.out(1), call.in(0), call.attrInt("dim"), call.name());
  expectOutDtype(call, 0, call.in(0).dtype);
  expectOutDtype(call, 1, DType::kInt64);
  dispatchDtype<kNumericDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template scan<scan::Extreme<T, IsMax>>(call, plan, call.out(0).template data<T>(),
                                             call.out(1).template data<int64_t>(), call.in(0).template data<T>());
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_SCAN_KERNELS(X, E)                  \
  X(cumprod, (cumprodKernel<E>))                  \
  X(logcumsumexp, (logcumsumexpKernel<E>))        \
  X(cummax, (cumExtremeKernel<E, true>))          \
  X(cummin, (cumExtremeKernel<E, false>))
