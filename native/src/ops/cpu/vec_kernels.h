// The vectorized float32 loops behind the cpu fast paths of gelu, erf, exp, sigmoid, silu, tanh, log, logit, tan,
// atan2, softmax, sum, dot and normal (randn): one source (vec_kernels.inc) compiled once per
// instruction set (vec_kernels_{generic,avx2,avx512}.cc, flags in
// CMakeLists.txt) and picked at run time for the machine. Each loop works
// on one contiguous range on the calling thread; the ops split ranges over
// the thread pool. The math is ops/common/poly_math.h, so a tail that is not
// a multiple of the vector width gets the same values as the vector lanes.
#pragma once

#include <cstdint>

namespace tsgpu {
namespace vec {

struct VecKernels {
  /** "generic", "avx2" or "avx512". */
  const char* isa;
  /** y[i] = gelu(x[i]) with erf (x and y may be the same array). */
  void (*geluErf)(const float* x, float* y, int64_t n);
  /** y[i] = gelu(x[i]) with tanh's approximation. */
  void (*geluTanh)(const float* x, float* y, int64_t n);
  /** y[i] = erf(x[i]) (poly_math.h's erf; x and y may be the same array, as in the loops below). */
  void (*erf)(const float* x, float* y, int64_t n);
  /** y[i] = exp(x[i]) (poly_math.h's exp: 0 below -104, inf above 88.8, NaN stays NaN). */
  void (*exp)(const float* x, float* y, int64_t n);
  /** y[i] = 1 / (1 + exp(-x[i])). */
  void (*sigmoid)(const float* x, float* y, int64_t n);
  /** y[i] = x[i] / (1 + exp(-x[i])). */
  void (*silu)(const float* x, float* y, int64_t n);
  /** y[i] = tanh(x[i]) (poly_math.h's tanh). */
  void (*tanh)(const float* x, float* y, int64_t n);
  /** y[i] = log(x[i]) (poly_math.h's logAny: every float, NaN below 0). */
  void (*log)(const float* x, float* y, int64_t n);
  /** y[i] = log(c / (1 - c)), c = x[i] clamped to [lo, hi] (pass -inf, inf for no clamp; NaN stays NaN). */
  void (*logit)(const float* x, float* y, int64_t n, float lo, float hi);
  /** y[i] = tan(x[i]): poly_math.h's tanReduced, and libm's tan (in double) beyond its range. */
  void (*tan)(const float* x, float* y, int64_t n);
  /** out[i] = atan2(y[i], x[i]): poly_math.h's atan2Regular, libm's atan2 for 0/0, inf/inf and NaN. */
  void (*atan2)(const float* y, const float* x, float* out, int64_t n);
  /**
   * One row of n >= 1 elements: y = softmax(x), or log-softmax when `log`.
   * NaN anywhere makes the row NaN; a row of -inf is NaN (as PyTorch).
   */
  void (*softmaxRow)(const float* x, float* y, int64_t n, bool log);
  /** The sum of x[0 .. n): float lanes over blocks of 4096, each block's total added in double. */
  double (*sum)(const float* x, int64_t n);
  /** The sum of x[i] * y[i] over [0, n), accumulated as sum is (dot and vector-vector matmul). */
  double (*dot)(const float* x, const float* y, int64_t n);
  /**
   * out[i] = mean + std * z for i in [0, n), z the standard normal of counter
   * 4 * firstBlock + i (philox::normal4 of block firstBlock + i / 4, word i % 4).
   */
  void (*normal)(uint64_t seed, uint64_t firstBlock, float* out, int64_t n, float mean, float std);
};

const VecKernels& vecKernelsGeneric();
const VecKernels& vecKernelsAvx2();    // only call when the CPU has AVX2 and FMA
const VecKernels& vecKernelsAvx512();  // only call when the CPU has AVX-512F

/**
 * The kernels for this machine, picked once: avx512, avx2 or generic
 * (TSGPU_CPU_ISA=generic|avx2 caps the choice, for tests and comparisons).
 */
const VecKernels& vecKernels();

}  // namespace vec
}  // namespace tsgpu
