// From an OpCall's views to an IterPlan: the output first, then each input
// broadcast to the output's shape by strides (binding guarantee: the op's
// TypeScript function computed the output shape; inputs align to its right).
#pragma once

#include <vector>

#include "ops/common/broadcast.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace ops {

inline Shape sizesOf(const TensorView& v) { return Shape(v.sizes, v.sizes + (v.ndim > 0 ? v.ndim : 0)); }
inline Shape stridesOf(const TensorView& v) { return Shape(v.strides, v.strides + (v.ndim > 0 ? v.ndim : 0)); }

/** Plan over out's shape for out and `inputs` (each broadcast to it; `op` names errors). */
inline IterPlan planFor(const TensorView& out, const std::vector<const TensorView*>& inputs, const char* op) {
  const Shape shape = sizesOf(out);
  std::vector<Shape> strides;
  strides.reserve(inputs.size() + 1);
  strides.push_back(stridesOf(out));
  for (const TensorView* in : inputs) strides.push_back(expandStrides(sizesOf(*in), stridesOf(*in), shape, op));
  return makeIterPlan(shape, strides);
}

}  // namespace ops
}  // namespace tsgpu
