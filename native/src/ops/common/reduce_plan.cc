// Reduction plans (see reduce_plan.h).
#include "ops/common/reduce_plan.h"

#include <string>

#include "base/errors.h"
#include "ops/common/operands.h"

namespace tsgpu {
namespace ops {

std::vector<bool> reducedDims(const std::vector<int64_t>& dims, int ndim, const char* op) {
  std::vector<bool> reduced(static_cast<size_t>(ndim), dims.empty());
  for (int64_t d : dims) {
    const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
    if (d < lo || d > hi)
      throw ArgumentError(std::string(op) + ": dim " + std::to_string(d) + " is out of range for a tensor of " +
                          std::to_string(ndim) + " dims (expected " + std::to_string(lo) + " to " +
                          std::to_string(hi) + ")");
    if (ndim == 0) continue;
    const size_t k = static_cast<size_t>(d < 0 ? d + ndim : d);
    if (reduced[k])
      throw ArgumentError(std::string(op) + ": dim " + std::to_string(k) + " appears more than once in dims");
    reduced[k] = true;
  }
  return reduced;
}

ReducePlan makeReducePlan(const TensorView& in, const std::vector<const TensorView*>& outputs,
                          const std::vector<bool>& reduced, const char* op) {
  const Shape inShape = sizesOf(in), inStrides = stridesOf(in);
  Shape kept = inShape, red = inShape;
  int numReduced = 0;
  for (size_t d = 0; d < inShape.size(); ++d) {
    if (reduced[d]) {
      kept[d] = 1;
      ++numReduced;
    } else {
      red[d] = 1;
    }
  }
  std::vector<Shape> outerStrides;
  for (const TensorView* out : outputs) {
    Shape s(inShape.size(), 0);
    if (out->ndim == in.ndim) {
      for (size_t d = 0; d < inShape.size(); ++d) {
        if (out->sizes[d] != kept[d]) goto mismatch;
        s[d] = out->strides[d];
      }
    } else if (out->ndim == in.ndim - numReduced) {
      int k = 0;
      for (size_t d = 0; d < inShape.size(); ++d) {
        if (reduced[d]) continue;
        if (out->sizes[k] != kept[d]) goto mismatch;
        s[d] = out->strides[k++];
      }
    } else {
      goto mismatch;
    }
    outerStrides.push_back(s);
    continue;
  mismatch:
    throw ArgumentError(std::string(op) + ": output of shape " + shapeString(sizesOf(*out)) +
                        " does not fit the reduction of " + shapeString(inShape) + " to " + shapeString(kept));
  }
  outerStrides.push_back(inStrides);
  ReducePlan p;
  p.numOutputs = static_cast<int>(outputs.size());
  p.outer = makeIterPlan(kept, outerStrides);
  p.inner = makeIterPlan(red, {inStrides});
  return p;
}

}  // namespace ops
}  // namespace tsgpu
