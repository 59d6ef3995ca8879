// gather, scatter, scatterAdd and scatterReduce, written once for both
// devices. Each element of `index` names a position along `dim`; the other
// dims line up (index may be smaller than self/src there, as PyTorch allows). The plan runs over the
// index's shape with the indexed operand's `dim` stride set to 0, so a
// functor adds index * dimStride itself. Indices outside [0, size) are
// skipped by the kernels (no memory is touched); the ops' TypeScript functions
// reject them on cpu with a message naming the index.
//
//   E::template forEach<N>(call, plan, parallel, f)   calls f(offsets) per element
#pragma once

#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/errors.h"
#include "base/host_device.h"
#include "ops/common/atomic_ops.h"
#include "ops/common/dispatch.h"
#include "ops/common/operands.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** out[o] = self[s + index[i] * selfDimStride]. Operands: out, index, self. */
template <typename T>
struct GatherF {
  T* out;
  const int64_t* index;
  const T* self;
  int64_t dimStride, dimSize;
  TSGPU_HD void operator()(const int64_t* off) const {
    const int64_t i = index[off[1]];
    if (i >= 0 && i < dimSize) out[off[0]] = self[off[2] + i * dimStride];
  }
};

/** The plain write of scatter (ScatterF's Op when targets are overwritten, not combined). */
struct Overwrite {};

/**
 * out[o + index[i] * outDimStride] = src[s], or combined with what is there
 * when Op is a combiner of atomic_ops.h (CombineSum for scatterAdd).
 * Operands: out, index, src.
 */
template <typename T, typename Op>
struct ScatterF {
  T* out;
  const int64_t* index;
  const T* src;  // nullptr: write `value`
  T value;
  int64_t dimStride, dimSize;
  TSGPU_HD void operator()(const int64_t* off) const {
    const int64_t i = index[off[1]];
    if (i < 0 || i >= dimSize) return;
    const T v = src ? src[off[2]] : value;
    T* p = out + off[0] + i * dimStride;
    if constexpr (std::is_same<Op, Overwrite>::value) *p = v;
    else combineAt<Op>(p, v);
  }
};

/**
 * Normalizes `dim` and checks index's shape: it must have self's number of
 * dims and be no larger than self in every dim but `dim`, and no larger than
 * `src` (when given) in every dim (PyTorch's rules for gather and scatter).
 */
inline int64_t checkIndexShapes(const char* op, const TensorView& self, const TensorView& index, const TensorView* src,
                                int64_t dim) {
  const int nd = index.ndim;
  const int dims = nd > 0 ? nd : 1;
  if (self.ndim != nd || (src && src->ndim != nd))
    throw ArgumentError(std::string(op) + ": expected index with as many dims as self (" + std::to_string(self.ndim) +
                        "), got " + std::to_string(nd));
  if (dim < -dims || dim >= dims)
    throw ArgumentError(std::string(op) + ": dim " + std::to_string(dim) + " is out of range for " +
                        std::to_string(nd) + " dims");
  if (dim < 0) dim += dims;
  for (int d = 0; d < nd; ++d) {
    if ((d != dim && index.sizes[d] > self.sizes[d]) || (src && index.sizes[d] > src->sizes[d]))
      throw ArgumentError(std::string(op) + ": index of shape " + shapeString(sizesOf(index)) +
                          " does not fit self of shape " + shapeString(sizesOf(self)) + " in dim " + std::to_string(d));
  }
  return dim;
}

/** Plan over index's shape for (a, index, b) with operand `zeroed`'s `dim` stride set to 0 (b may be absent). */
inline IterPlan indexPlan(const TensorView& a, const TensorView& index, const TensorView* b, int64_t dim, int zeroed) {
  std::vector<Shape> strides{stridesOf(a), stridesOf(index), b ? stridesOf(*b) : Shape(static_cast<size_t>(index.ndim), 0)};
  if (index.ndim > 0) strides[static_cast<size_t>(zeroed)][static_cast<size_t>(dim)] = 0;
  return makeIterPlan(sizesOf(index), strides);
}

inline void expectIndexDtype(const OpCall& call, const TensorView& index) {
  if (index.dtype != DType::kInt64)
    throw ArgumentError(std::string(call.name()) + ": expected an int64 index, got " + dtypeName(index.dtype));
}

/** gather(self, index): out has index's shape. */
template <typename E>
void gatherKernel(OpCall& call) {
  const TensorView& self = call.in(0);
  const TensorView& index = call.in(1);
  expectIndexDtype(call, index);
  const int64_t dim = checkIndexShapes(call.name(), self, index, nullptr, call.attrInt("dim"));
  const IterPlan p = indexPlan(call.out(0), index, &self, dim, 2);
  dispatchDtype<kAllDtypes>(self.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherF<T> f{call.out(0).template data<T>(), index.template data<int64_t>(), self.template data<T>(),
                 index.ndim > 0 ? self.strides[dim] : 0, index.ndim > 0 ? self.sizes[dim] : 1};
    E::template forEach<3>(call, p, true, f);
  });
}

/** The index, the source (a tensor or a number) and the normalized dim of a scatter op, and its plan. */
struct ScatterArgs {
  const TensorView& index;
  const TensorView* src;  // nullptr: the number call.scalar(2)
  int64_t dim;
  IterPlan plan;
  int64_t dimStride, dimSize;
};

inline ScatterArgs scatterArgs(const OpCall& call, const TensorView& out) {
  const TensorView& index = call.in(1);
  expectIndexDtype(call, index);
  const TensorView* src = call.isScalar(2) ? nullptr : &call.in(2);
  const int64_t dim = checkIndexShapes(call.name(), out, index, src, call.attrInt("dim"));
  return {index, src, dim, indexPlan(out, index, src, dim, 0), index.ndim > 0 ? out.strides[dim] : 0,
          index.ndim > 0 ? out.sizes[dim] : 1};
}

/** Runs ScatterF<T, Op> over the plan (in parallel only for plain writes, whose targets do not combine). */
template <typename E, typename T, typename Op>
void scatterWith(OpCall& call, TensorView& out, const ScatterArgs& a, bool parallel) {
  ScatterF<T, Op> f{out.template data<T>(), a.index.template data<int64_t>(),
                    a.src ? a.src->template data<T>() : nullptr,
                    static_cast<T>(static_cast<OpMathType<T>>(a.src ? 0.0 : call.scalar(2))), a.dimStride, a.dimSize};
  E::template forEach<3>(call, a.plan, parallel, f);
}

/** scatter / scatterAdd into out (in place: out is self), from src (a tensor or a number). */
template <typename E, typename Op>
void scatterKernel(OpCall& call) {
  TensorView& out = call.out(0);
  const ScatterArgs a = scatterArgs(call, out);
  constexpr bool plain = std::is_same<Op, Overwrite>::value;
  constexpr DtypeSet set = plain ? kAllDtypes : E::kAtomicAddDtypes;
  dispatchDtype<set>(out.dtype, call.name(), [&](auto tag) {
    scatterWith<E, typename decltype(tag)::type, Op>(call, out, a, plain);
  });
}

/** The reductions the scatterReduce kernel runs ('mean' is a sum that its TypeScript function divides by counts). */
enum class ScatterReduction { kSum, kProd, kAmax, kAmin };

inline ScatterReduction scatterReductionOf(const OpCall& call) {
  const std::string& r = call.attrString("reduce");
  if (r == "sum") return ScatterReduction::kSum;
  if (r == "prod") return ScatterReduction::kProd;
  if (r == "amax") return ScatterReduction::kAmax;
  if (r == "amin") return ScatterReduction::kAmin;
  throw ArgumentError(std::string(call.name()) + ": expected 'sum', 'prod', 'amax' or 'amin' for reduce, got '" + r +
                      "'");
}

/** The identity of a reduction in T: what targets start from when self is not included. */
template <typename T>
T scatterIdentity(ScatterReduction r) {
  using M = OpMathType<T>;
  switch (r) {
    case ScatterReduction::kSum: return static_cast<T>(M(0));
    case ScatterReduction::kProd: return static_cast<T>(M(1));
    case ScatterReduction::kAmax:
      if constexpr (std::is_floating_point<M>::value) return static_cast<T>(-std::numeric_limits<M>::infinity());
      else return std::numeric_limits<T>::lowest();
    case ScatterReduction::kAmin:
      if constexpr (std::is_floating_point<M>::value) return static_cast<T>(std::numeric_limits<M>::infinity());
      else return std::numeric_limits<T>::max();
  }
  return T{};
}

/**
 * scatterReduce into out (in place: out is self) with reduce 'sum', 'prod',
 * 'amax' or 'amin'; without includeSelf the targets are first set to the
 * reduction's identity (a separate pass, so every target is reset before any
 * is combined). Targets may repeat: one thread on cpu, atomics on cuda.
 */
template <typename E>
void scatterReduceKernel(OpCall& call) {
  TensorView& out = call.out(0);
  const ScatterArgs a = scatterArgs(call, out);
  const ScatterReduction r = scatterReductionOf(call);
  const bool includeSelf = call.attrBool("includeSelf");
  dispatchDtype<kAllDtypes>(out.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!includeSelf) {
      ScatterF<T, Overwrite> reset{out.template data<T>(), a.index.template data<int64_t>(), nullptr,
                                   scatterIdentity<T>(r), a.dimStride, a.dimSize};
      E::template forEach<3>(call, a.plan, false, reset);
    }
    switch (r) {
      case ScatterReduction::kSum: return scatterWith<E, T, CombineSum>(call, out, a, false);
      case ScatterReduction::kProd: return scatterWith<E, T, CombineProd>(call, out, a, false);
      case ScatterReduction::kAmax: return scatterWith<E, T, CombineMax>(call, out, a, false);
      case ScatterReduction::kAmin: return scatterWith<E, T, CombineMin>(call, out, a, false);
    }
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_INDEX_KERNELS(X, E)                 \
  X(gather, (gatherKernel<E>))                    \
  X(scatter, (scatterKernel<E, Overwrite>))       \
  X(scatterAdd, (scatterKernel<E, CombineSum>))   \
  X(scatterReduce, (scatterReduceKernel<E>))
