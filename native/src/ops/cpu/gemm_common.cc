// The device-independent parts of gemm: names, layouts and argument checks.
#include "ops/gemm.h"

#include <stdexcept>
#include <string>

namespace tsgpu {
namespace gemm {

const char* scalarTypeName(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat32: return "float32";
    case ScalarType::kFloat64: return "float64";
    case ScalarType::kFloat16: return "float16";
    case ScalarType::kBFloat16: return "bfloat16";
  }
  return "unknown";
}

int scalarTypeBytes(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat32: return 4;
    case ScalarType::kFloat64: return 8;
    case ScalarType::kFloat16:
    case ScalarType::kBFloat16: return 2;
  }
  return 0;
}

Matrix contiguousMatrix(void* data, int64_t rows, int64_t cols) {
  Matrix m;
  m.data = data;
  m.rowStride = cols;
  m.colStride = 1;
  m.batchStride = rows * cols;
  return m;
}

bool blasLayout(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride, bool* transposed, int64_t* ld) {
  const int64_t r = rows < 1 ? 1 : rows, c = cols < 1 ? 1 : cols;
  // Row-major: unit column stride (or a single column), rows at least a row apart.
  if (colStride == 1 || c == 1) {
    if (r == 1 || rowStride >= c) {
      *transposed = false;
      *ld = r == 1 ? c : rowStride;
      return true;
    }
  }
  // Column-major: unit row stride (or a single row), columns at least a column apart.
  if (rowStride == 1 || r == 1) {
    if (c == 1 || colStride >= r) {
      *transposed = true;
      *ld = c == 1 ? r : colStride;
      return true;
    }
  }
  return false;
}

void validate(const Problem& p) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("gemm: " + what);
  };
  need(p.batch >= 0 && p.m >= 0 && p.n >= 0 && p.k >= 0,
       "expected non-negative sizes for batch, m, n, k, got " + std::to_string(p.batch) + ", " + std::to_string(p.m) +
           ", " + std::to_string(p.n) + ", " + std::to_string(p.k));
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  need(p.c.data != nullptr, "expected a data pointer for C, got null");
  if (p.k == 0) return;
  need(p.a.data != nullptr, "expected a data pointer for A, got null");
  need(p.b.data != nullptr, "expected a data pointer for B, got null");
}

}  // namespace gemm
}  // namespace tsgpu
