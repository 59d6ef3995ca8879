// sort and topk (one op, `sort`, with k: the first k of each sorted row),
// written once for both devices. Rows run along `dim`; NaN sorts as the
// largest value, as in PyTorch. Outputs: values (self's dtype) and indices
// (int64), both with self's shape except k elements along dim.
//   E::template sortRows<T>(call, plan, k, descending, values, indices, self)
#pragma once

#include <string>

#include "base/errors.h"
#include "ops/common/dim_plan.h"
#include "ops/common/dispatch.h"
#include "ops/common/scalar_math.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** Rows of self along dim, with the strides of both outputs along dim. */
struct SortPlan {
  IterPlan rows;  // operands: values, indices, self
  int64_t len = 0, inStride = 0, valueStride = 0, indexStride = 0;
};

/** a comes before b in ascending order (NaN last). */
template <typename M>
TSGPU_HD bool sortsBefore(M a, M b, bool descending) {
  if (sm::isNan(a)) return descending && !sm::isNan(b);
  if (sm::isNan(b)) return !descending;
  return descending ? a > b : a < b;
}

template <typename E>
void sortKernel(OpCall& call) {
  const TensorView& self = call.in(0);
  TensorView& values = call.out(0);
  TensorView& indices = call.out(1);
  const std::vector<bool> along = reducedDims({call.attrInt("dim")}, self.ndim, call.name());
  int64_t len = 1;
  int d = -1;
  for (int k = 0; k < self.ndim; ++k)
    if (along[static_cast<size_t>(k)]) d = k, len = self.sizes[k];
  const int64_t k = call.attrInt("k") < 0 ? len : call.attrInt("k");
  if (k > len) throw ArgumentError(std::string(call.name()) + ": k (" + std::to_string(k) + ") is larger than the dim (" + std::to_string(len) + ")");
  if (indices.dtype != DType::kInt64 || values.dtype != self.dtype)
    throw ArgumentError(std::string(call.name()) + ": expected values of dtype " + dtypeName(self.dtype) + " and int64 indices");
  Shape rowShape = sizesOf(self), outShape = sizesOf(self);
  if (d >= 0) rowShape[static_cast<size_t>(d)] = 1, outShape[static_cast<size_t>(d)] = k;
  if (sizesOf(values) != outShape || sizesOf(indices) != outShape)
    throw ArgumentError(std::string(call.name()) + ": expected outputs of shape " + shapeString(outShape));
  SortPlan p;
  p.len = len;
  if (d >= 0) p.inStride = self.strides[d], p.valueStride = values.strides[d], p.indexStride = indices.strides[d];
  p.rows = makeIterPlan(rowShape, {stridesOf(values), stridesOf(indices), stridesOf(self)});
  if (k == 0 || len == 0) return;
  const bool descending = call.attrBool("descending");
  dispatchDtype<kNumericDtypes>(self.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template sortRows<T>(call, p, k, descending, values.template data<T>(), indices.template data<int64_t>(),
                            self.template data<T>());
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_SORT_KERNELS(X, E) X(sort, (sortKernel<E>))

namespace tsgpu {
namespace ops {

/** Which element of each sorted row (NaN largest, ties in index order) the selection ops take. */
enum class SelectRule { kKth, kMedian, kNanmedian };

/**
 * kthvalue, medianDim, nanmedianDim: values (self's dtype) and indices (int64), self's shape with size 1
 * along dim, <- per row the element at one sorted position: kthvalue the k-th (k from 1); medianDim the
 * lower middle, or the row's first NaN when it has one; nanmedianDim the lower middle of the elements
 * that are not NaN (of all of them when every one is). The element and index a stable sort would put
 * there. CPU only (the TypeScript functions sort on cuda).
 *   E::template selectRows<T>(call, plan, rule, k, values, indices, self)
 */
template <typename E, SelectRule Rule>
void selectKernel(OpCall& call) {
  const TensorView& self = call.in(0);
  TensorView& values = call.out(0);
  TensorView& indices = call.out(1);
  const std::vector<bool> along = reducedDims({call.attrInt("dim")}, self.ndim, call.name());
  int64_t len = 1;
  int d = -1;
  for (int k = 0; k < self.ndim; ++k)
    if (along[static_cast<size_t>(k)]) d = k, len = self.sizes[k];
  if (len == 0) throw ArgumentError(std::string(call.name()) + ": the dim to select along has no elements");
  const int64_t k = Rule == SelectRule::kKth ? call.attrInt("k") : 1;
  if (k < 1 || k > len)
    throw ArgumentError(std::string(call.name()) + ": selected number k out of range for dimension " + std::to_string(d < 0 ? 0 : d));
  if (indices.dtype != DType::kInt64 || values.dtype != self.dtype)
    throw ArgumentError(std::string(call.name()) + ": expected values of dtype " + dtypeName(self.dtype) + " and int64 indices");
  Shape rowShape = sizesOf(self);
  if (d >= 0) rowShape[static_cast<size_t>(d)] = 1;
  if (sizesOf(values) != rowShape || sizesOf(indices) != rowShape)
    throw ArgumentError(std::string(call.name()) + ": expected outputs of shape " + shapeString(rowShape));
  SortPlan p;
  p.len = len;
  if (d >= 0) p.inStride = self.strides[d];
  p.rows = makeIterPlan(rowShape, {stridesOf(values), stridesOf(indices), stridesOf(self)});
  dispatchDtype<kNumericDtypes>(self.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    E::template selectRows<T>(call, p, Rule, k, values.template data<T>(), indices.template data<int64_t>(),
                              self.template data<T>());
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_SELECT_KERNELS(X, E)                              \
  X(kthvalue, (selectKernel<E, SelectRule::kKth>))              \
  X(medianDim, (selectKernel<E, SelectRule::kMedian>))          \
  X(nanmedianDim, (selectKernel<E, SelectRule::kNanmedian>))
