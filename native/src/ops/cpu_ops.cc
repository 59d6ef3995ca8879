// CPU reference kernels: simple, exact loops that the CUDA kernels are
// checked against.
#include <cmath>

#include "ops/ops.h"

namespace tsgpu {
namespace cpu {

void binary(ops::Binary op, float* out, const float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = ops::apply(op, a[i], b[i]);
}

void binaryScalar(ops::Binary op, float* out, const float* a, float scalar, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = ops::apply(op, a[i], scalar);
}

void matmul(float* out, const float* a, const float* b, size_t m, size_t k, size_t n) {
  for (size_t i = 0; i < m * n; ++i) out[i] = 0.0f;
  for (size_t i = 0; i < m; ++i) {
    float* row = out + i * n;
    for (size_t p = 0; p < k; ++p) {
      const float av = a[i * k + p];
      const float* brow = b + p * n;
      for (size_t j = 0; j < n; ++j) row[j] += av * brow[j];
    }
  }
}

void sum(float* out, const float* a, size_t n) {
  double acc = 0.0;  // double accumulation: the reference should not drift
  for (size_t i = 0; i < n; ++i) acc += a[i];
  out[0] = static_cast<float>(acc);
}

}  // namespace cpu
}  // namespace tsgpu
