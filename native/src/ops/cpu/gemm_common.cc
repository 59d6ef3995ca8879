// The device-independent parts of gemm: names, layouts, BLAS call plans and
// argument checks (used by the CPU and the CUDA gemm).
#include "ops/gemm.h"
#include "ops/gemm_plan.h"

#include <algorithm>
#include <climits>
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

namespace {

Matrix swapped(const Matrix& m) {
  Matrix t = m;
  t.rowStride = m.colStride;
  t.colStride = m.rowStride;
  return t;
}

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

bool planBlas(const Problem& p, BlasCall* call) {
  bool ct = false, at = false, bt = false;
  int64_t ldc = 0, lda = 0, ldb = 0;
  if (!blasLayout(p.m, p.n, p.c.rowStride, p.c.colStride, &ct, &ldc)) return false;
  int64_t m = p.m, n = p.n;
  Matrix a = p.a, b = p.b, c = p.c;
  if (ct) {
    std::swap(m, n);
    a = swapped(p.b);
    b = swapped(p.a);
    c = swapped(p.c);
    if (!blasLayout(m, n, c.rowStride, c.colStride, &ct, &ldc) || ct) return false;
  }
  if (!blasLayout(m, p.k, a.rowStride, a.colStride, &at, &lda)) return false;
  if (!blasLayout(p.k, n, b.rowStride, b.colStride, &bt, &ldb)) return false;
  for (int64_t v : {m, n, p.k, lda, ldb, ldc})
    if (!fitsInt(v)) return false;
  *call = {at,
           bt,
           static_cast<int>(m),
           static_cast<int>(n),
           static_cast<int>(p.k),
           static_cast<int>(std::max<int64_t>(lda, 1)),
           static_cast<int>(std::max<int64_t>(ldb, 1)),
           static_cast<int>(std::max<int64_t>(ldc, 1)),
           a,
           b,
           c};
  return true;
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
