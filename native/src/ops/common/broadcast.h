// Shape arithmetic shared by every elementwise and reduction kernel:
// broadcasting (PyTorch's rules: align trailing dims; a dim of 1 stretches),
// and an iteration plan that folds N operands' strides over the output shape
// into as few dims as possible (size-1 dims dropped, contiguous runs merged)
// so the loops (CPU: StridedWalker, CUDA: OffsetCalc) do little index work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsgpu {
namespace ops {

using Shape = std::vector<int64_t>;

/** "[2, 3]" for error messages. */
std::string shapeString(const Shape& shape);

/** Product of the sizes (1 for a scalar shape). */
int64_t shapeNumel(const Shape& shape);

/**
 * The broadcast of two shapes; throws ArgumentError
 * "OP: shapes [2, 3] and [4] cannot be broadcast" (OP = `op`).
 */
Shape broadcastShapes(const Shape& a, const Shape& b, const std::string& op);

/** The broadcast of any number of shapes (same error, naming the first two that clash). */
Shape broadcastShapes(const std::vector<Shape>& shapes, const std::string& op);

/**
 * Strides (in elements) that read an operand of `shape`/`strides` as if it had
 * `outShape`: leading and stretched dims get stride 0. `shape` must broadcast
 * to `outShape` (checked; same error as broadcastShapes).
 */
Shape expandStrides(const Shape& shape, const Shape& strides, const Shape& outShape, const std::string& op);

/** Row-major contiguous strides of `shape`. */
Shape contiguousStrides(const Shape& shape);

/** Most operands an iteration plan carries (outputs and inputs together). */
constexpr int kMaxOperands = 6;
/** Most dims after coalescing; more is an error naming the shape. */
constexpr int kMaxIterDims = 16;

/**
 * Iteration over `sizes` for `numOperands` operands. Dim 0 is the innermost
 * (fastest varying) dim, the reverse of the tensor's order, so that loops walk
 * dim 0 in their inner loop. strides[k][d] is operand k's stride in elements.
 */
struct IterPlan {
  int ndim = 0;
  int numOperands = 0;
  int64_t numel = 1;
  int64_t sizes[kMaxIterDims] = {};
  int64_t strides[kMaxOperands][kMaxIterDims] = {};

  /** True when every operand's innermost stride is 1 over a single dim (a flat loop). */
  bool isContiguous() const;
  /** Operand k's innermost stride (0 for a scalar plan). */
  int64_t innerStride(int k) const { return ndim == 0 ? 0 : strides[k][0]; }
};

/**
 * Builds a plan for `outShape` and the operands' strides already expanded to
 * `outShape` (see expandStrides), dropping size-1 dims and merging dims that
 * are contiguous in every operand.
 */
IterPlan makeIterPlan(const Shape& outShape, const std::vector<Shape>& operandStrides);

}  // namespace ops
}  // namespace tsgpu
