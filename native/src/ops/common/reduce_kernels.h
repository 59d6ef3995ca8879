// The reduction op kernels, written once for both devices (as
// elementwise_kernels.h): each reads dims and attributes, builds the plan,
// picks the reducer and the output's element type, and calls
// E::template reduce<T, O, Store>(call, in, outputs, plan, reducer).
//
// Output dtypes (chosen by the op's TypeScript function, checked here):
// sum/prod of integers or bool give int64; argmax/argmin give int64;
// all/any give bool (uint8 for uint8); everything else keeps the input's dtype.
#pragma once

#include <string>
#include <vector>

#include "base/errors.h"
#include "ops/common/dispatch.h"
#include "ops/common/reduce_plan.h"
#include "ops/common/reduce_store.h"
#include "ops/common/reducers.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** Throws unless output `i` has dtype `want`. */
inline void expectOutDtype(const OpCall& call, size_t i, DType want) {
  if (call.outputs[i].dtype != want)
    throw ArgumentError(std::string(call.name()) + ": expected an output of dtype " + dtypeName(want) + ", got " +
                        dtypeName(call.outputs[i].dtype));
}

/** The plan of a reduction over attribute `dims` (every dim when empty) into all outputs. */
inline ReducePlan reducePlanOf(OpCall& call, const std::vector<int64_t>& dims) {
  std::vector<const TensorView*> outs;
  for (TensorView& o : call.outputs) outs.push_back(&o);
  return makeReducePlan(call.in(0), outs, reducedDims(dims, call.in(0).ndim, call.name()), call.name());
}

inline std::vector<TensorView*> outputsOf(OpCall& call) {
  std::vector<TensorView*> outs;
  for (TensorView& o : call.outputs) outs.push_back(&o);
  return outs;
}

/** Reducer Red<M> (M = compute type) into an output of the input's dtype. */
template <typename E, DtypeSet Set, template <typename> class Red>
void sameDtypeReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, call.attrInts("dims"));
  expectOutDtype(call, 0, call.in(0).dtype);
  dispatchDtype<Set>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template reduce<T, T>(call, call.in(0), outputsOf(call), plan, Red<OpMathType<T>>{});
  });
}

/** sum / prod: floating types keep their dtype, integers and bool accumulate into int64. */
template <typename E, template <typename> class Red>
void accumulateReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, call.attrInts("dims"));
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    if constexpr (std::is_floating_point<M>::value) {
      expectOutDtype(call, 0, call.in(0).dtype);
      E::template reduce<T, T>(call, call.in(0), outputsOf(call), plan, Red<M>{});
    } else {
      expectOutDtype(call, 0, DType::kInt64);
      E::template reduce<T, int64_t>(call, call.in(0), outputsOf(call), plan, Red<M>{});
    }
  });
}

template <typename M>
using Amax = red::Extreme<M, true>;
template <typename M>
using Amin = red::Extreme<M, false>;
template <typename M>
using All = red::Logical<M, true>;
template <typename M>
using Any = red::Logical<M, false>;
template <typename M>
using ArgMax = red::ArgExtreme<M, true>;
template <typename M>
using ArgMin = red::ArgExtreme<M, false>;

/** all / any: bool output (uint8 for a uint8 input, as PyTorch). */
template <typename E, template <typename> class Red>
void logicalReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, call.attrInts("dims"));
  const bool byte = call.in(0).dtype == DType::kUInt8;
  expectOutDtype(call, 0, byte ? DType::kUInt8 : DType::kBool);
  if (byte) return E::template reduce<uint8_t, uint8_t>(call, call.in(0), outputsOf(call), plan, Red<uint8_t>{});
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template reduce<T, bool>(call, call.in(0), outputsOf(call), plan, Red<OpMathType<T>>{});
  });
}

/** var / std with `correction`. */
template <typename E, bool Sqrt>
void varianceReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, call.attrInts("dims"));
  expectOutDtype(call, 0, call.in(0).dtype);
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    red::Variance<OpMathType<T>> r;
    r.correction = call.attrDouble("correction");
    r.takeSqrt = Sqrt;
    E::template reduce<T, T>(call, call.in(0), outputsOf(call), plan, r);
  });
}

template <typename E>
void normReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, call.attrInts("dims"));
  expectOutDtype(call, 0, call.in(0).dtype);
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    red::Norm<OpMathType<T>> r;
    r.p = call.attrDouble("p");
    E::template reduce<T, T>(call, call.in(0), outputsOf(call), plan, r);
  });
}

/** argmax / argmin over `dims` (all dims: the index into the flattened tensor). */
template <typename E, template <typename> class Red>
void argReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, call.attrInts("dims"));
  expectOutDtype(call, 0, DType::kInt64);
  if (plan.innerNumel() == 0) throw ArgumentError(std::string(call.name()) + ": cannot reduce an empty dimension");
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template reduce<T, int64_t, ReduceStore::kIndex>(call, call.in(0), outputsOf(call), plan,
                                                         Red<OpMathType<T>>{});
  });
}

/** max / min along `dim`: values (input dtype) and indices (int64). */
template <typename E, template <typename> class Red>
void valuesIndicesReduce(OpCall& call) {
  const ReducePlan plan = reducePlanOf(call, {call.attrInt("dim")});
  expectOutDtype(call, 0, call.in(0).dtype);
  expectOutDtype(call, 1, DType::kInt64);
  if (plan.innerNumel() == 0) throw ArgumentError(std::string(call.name()) + ": cannot reduce an empty dimension");
  dispatchDtype<kAllDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template reduce<T, T, ReduceStore::kValueAndIndex>(call, call.in(0), outputsOf(call), plan,
                                                           Red<OpMathType<T>>{});
  });
}

/** amax / amin refuse empty reductions, as PyTorch does. */
template <typename E, template <typename> class Red>
void extremeReduce(OpCall& call) {
  if (call.in(0).numel() == 0 && call.out(0).numel() > 0)
    throw ArgumentError(std::string(call.name()) + ": cannot reduce an empty dimension (no identity)");
  sameDtypeReduce<E, kAllDtypes, Red>(call);
}

}  // namespace ops
}  // namespace tsgpu

/** X(op, kernel expression) for every reduction; E is the engine. */
#define TSGPU_REDUCE_KERNELS(X, E)                                  \
  X(sum, (accumulateReduce<E, red::Sum>))                           \
  X(prod, (accumulateReduce<E, red::Prod>))                         \
  X(mean, (sameDtypeReduce<E, kFloatDtypes, red::Mean>))            \
  X(amax, (extremeReduce<E, Amax>))                                 \
  X(amin, (extremeReduce<E, Amin>))                                 \
  X(all, (logicalReduce<E, All>))                                   \
  X(any, (logicalReduce<E, Any>))                                   \
  X(var, (varianceReduce<E, false>))                                \
  X(std, (varianceReduce<E, true>))                                 \
  X(norm, (normReduce<E>))                                          \
  X(logsumexp, (sameDtypeReduce<E, kFloatDtypes, red::LogSumExp>))  \
  X(argmax, (argReduce<E, ArgMax>))                                 \
  X(argmin, (argReduce<E, ArgMin>))                                 \
  X(maxDim, (valuesIndicesReduce<E, ArgMax>))                       \
  X(minDim, (valuesIndicesReduce<E, ArgMin>))
