// From an OpCall's views to an IterPlan: the output first, then each input
// broadcast to the output's shape by strides (binding guarantee: the op's
// TypeScript function computed the output shape; inputs align to its right).
#pragma once

#include <initializer_list>
#include <vector>

#include "ops/common/broadcast.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace ops {

inline Shape sizesOf(const TensorView& v) { return Shape(v.sizes, v.sizes + (v.ndim > 0 ? v.ndim : 0)); }
inline Shape stridesOf(const TensorView& v) { return Shape(v.strides, v.strides + (v.ndim > 0 ? v.ndim : 0)); }

/**
 * The inputs of an elementwise call, as the kernels write them:
 * `run(call, out, {&a, &b}, f)` (a braced list, so no heap allocation).
 */
using ViewList = std::initializer_list<const TensorView*>;

/** True when out and every input are dense row-major views of one shape (a flat loop reads them all). */
inline bool denseSameShape(const TensorView& out, ViewList inputs) {
  if (!out.isContiguous()) return false;
  for (const TensorView* in : inputs) {
    if (in->ndim != out.ndim) return false;
    for (int d = 0; d < out.ndim; ++d)
      if (in->sizes[d] != out.sizes[d]) return false;
    if (!in->isContiguous()) return false;
  }
  return true;
}

/** Plan over out's shape for out and `inputs` (each broadcast to it; `op` names errors). */
inline IterPlan planFor(const TensorView& out, ViewList inputs, const char* op) {
  if (inputs.size() + 1 <= static_cast<size_t>(kMaxOperands) && denseSameShape(out, inputs)) {
    // What makeIterPlan gives for dense operands of one shape, without building the shape vectors.
    IterPlan p;
    p.numOperands = static_cast<int>(inputs.size()) + 1;
    p.numel = out.numel();
    if (p.numel != 1) {
      p.ndim = 1;
      p.sizes[0] = p.numel;
      for (int k = 0; k < p.numOperands; ++k) p.strides[k][0] = 1;
    }
    return p;
  }
  const Shape shape = sizesOf(out);
  std::vector<Shape> strides;
  strides.reserve(inputs.size() + 1);
  strides.push_back(stridesOf(out));
  for (const TensorView* in : inputs) strides.push_back(expandStrides(sizesOf(*in), stridesOf(*in), shape, op));
  return makeIterPlan(shape, strides);
}

}  // namespace ops
}  // namespace tsgpu
