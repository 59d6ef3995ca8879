// Broadcasting and iteration plans (see broadcast.h).
#include "ops/common/broadcast.h"

#include <sstream>

#include "base/errors.h"

namespace tsgpu {
namespace ops {

std::string shapeString(const Shape& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

int64_t shapeNumel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

namespace {
[[noreturn]] void throwNotBroadcastable(const Shape& a, const Shape& b, const std::string& op) {
  throw ArgumentError(op + ": shapes " + shapeString(a) + " and " + shapeString(b) + " cannot be broadcast");
}
}  // namespace

Shape broadcastShapes(const Shape& a, const Shape& b, const std::string& op) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) throwNotBroadcastable(a, b, op);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcastShapes(const std::vector<Shape>& shapes, const std::string& op) {
  Shape out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i == 0) {
      out = shapes[0];
      continue;
    }
    try {
      out = broadcastShapes(out, shapes[i], op);
    } catch (const ArgumentError&) {
      // Name the earlier operand that clashes, not the running result.
      for (size_t j = 0; j < i; ++j) {
        try {
          broadcastShapes(shapes[j], shapes[i], op);
        } catch (const ArgumentError&) {
          throwNotBroadcastable(shapes[j], shapes[i], op);
        }
      }
      throwNotBroadcastable(out, shapes[i], op);
    }
  }
  return out;
}

Shape expandStrides(const Shape& shape, const Shape& strides, const Shape& outShape, const std::string& op) {
  if (shape.size() > outShape.size()) throwNotBroadcastable(shape, outShape, op);
  const size_t lead = outShape.size() - shape.size();
  Shape out(outShape.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == outShape[lead + i]) {
      out[lead + i] = shape[i] == 1 ? 0 : strides[i];
    } else if (shape[i] == 1) {
      out[lead + i] = 0;
    } else {
      throwNotBroadcastable(shape, outShape, op);
    }
  }
  return out;
}

Shape contiguousStrides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

bool IterPlan::isContiguous() const {
  if (ndim > 1) return false;
  if (ndim == 0) return true;
  for (int k = 0; k < numOperands; ++k)
    if (strides[k][0] != 1) return false;
  return true;
}

IterPlan makeIterPlan(const Shape& outShape, const std::vector<Shape>& operandStrides) {
  IterPlan p;
  if (operandStrides.size() > static_cast<size_t>(kMaxOperands))
    throw ArgumentError("iteration: " + std::to_string(operandStrides.size()) + " operands, at most " +
                        std::to_string(kMaxOperands) + " supported");
  p.numOperands = static_cast<int>(operandStrides.size());
  p.numel = shapeNumel(outShape);
  // Walk the tensor's dims from the last (innermost) to the first.
  for (size_t i = outShape.size(); i-- > 0;) {
    const int64_t size = outShape[i];
    if (size == 1) continue;
    if (p.ndim > 0) {
      const int d = p.ndim - 1;
      bool mergeable = true;
      for (int k = 0; k < p.numOperands && mergeable; ++k)
        mergeable = operandStrides[k][i] == p.strides[k][d] * p.sizes[d];
      if (mergeable) {
        p.sizes[d] *= size;
        continue;
      }
    }
    if (p.ndim == kMaxIterDims)
      throw ArgumentError("iteration: shape " + shapeString(outShape) + " needs more than " +
                          std::to_string(kMaxIterDims) + " dims after merging contiguous ones");
    p.sizes[p.ndim] = size;
    for (int k = 0; k < p.numOperands; ++k) p.strides[k][p.ndim] = operandStrides[k][i];
    ++p.ndim;
  }
  if (p.numel == 0) p.ndim = 1, p.sizes[0] = 0;
  return p;
}

}  // namespace ops
}  // namespace tsgpu
