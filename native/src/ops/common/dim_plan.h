// Ops that work along one dim (softmax, logSoftmax, cumsum): the rows are
// every position of the other dims (a plan with operands out, in), and each
// row is `len` elements `outStride` / `inStride` apart.
#pragma once

#include <cstdint>
#include <string>

#include "base/errors.h"
#include "ops/common/operands.h"
#include "ops/common/reduce_plan.h"

namespace tsgpu {
namespace ops {

struct DimPlan {
  IterPlan rows;  // operands: out, in
  int64_t len = 1;
  int64_t outStride = 0;
  int64_t inStride = 0;
};

/** The plan of `op` along `dim` (negative counts from the end) of `in`, writing `out` of the same shape. */
inline DimPlan makeDimPlan(const TensorView& out, const TensorView& in, int64_t dim, const char* op) {
  const std::vector<bool> reduced = reducedDims({dim}, in.ndim, op);
  if (sizesOf(out) != sizesOf(in))
    throw ArgumentError(std::string(op) + ": expected an output of shape " + shapeString(sizesOf(in)) + ", got " +
                        shapeString(sizesOf(out)));
  DimPlan p;
  Shape rowShape = sizesOf(in);
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) continue;
    p.len = rowShape[d];
    p.outStride = out.strides[d];
    p.inStride = in.strides[d];
    rowShape[d] = 1;
  }
  p.rows = makeIterPlan(rowShape, {stridesOf(out), stridesOf(in)});
  if (p.len == 0) p.rows.numel = 0;
  return p;
}

}  // namespace ops
}  // namespace tsgpu
