// The shape side of a reduction: which dims are reduced, and two iteration
// plans — `outer` over the kept elements (operands: each output, then the
// input) and `inner` over the reduced elements of one output (operand: the
// input). An output may have the keepdim shape (reduced dims of size 1) or
// the kept dims only.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/common/broadcast.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace ops {

struct ReducePlan {
  IterPlan outer;  // operands: outputs..., input
  IterPlan inner;  // operand: input
  int numOutputs = 1;
  /** Kept elements (outputs' numel) and reduced elements per output. */
  int64_t outerNumel() const { return outer.numel; }
  int64_t innerNumel() const { return inner.numel; }
};

/**
 * Normalizes `dims` for a tensor of `ndim` dims (negative dims count from the
 * end; empty means every dim); throws ArgumentError naming `op` for a dim out
 * of range or given twice.
 */
std::vector<bool> reducedDims(const std::vector<int64_t>& dims, int ndim, const char* op);

/** The plan for reducing `in` over `reduced` into `outputs`; throws when an output's shape does not fit. */
ReducePlan makeReducePlan(const TensorView& in, const std::vector<const TensorView*>& outputs,
                          const std::vector<bool>& reduced, const char* op);

}  // namespace ops
}  // namespace tsgpu
