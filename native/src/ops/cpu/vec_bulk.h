// Elementwise functors with a vectorized cpu loop (vec_kernels.h): the cpu
// engine (elementwise.h) hands a contiguous run of float32 to the loop, and
// a run of float16/bfloat16 through a float buffer, so every float dtype and
// layout gets the same values. Other functors and float64 keep the scalar loop.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/dtype.h"
#include "ops/common/binary_functors.h"
#include "ops/common/unary_functors.h"
#include "ops/cpu/vec_kernels.h"

namespace tsgpu {
namespace ops {
namespace cpu {

/** VecBulk<F>::run(f, x, y, n) computes y = f(x) over n floats, when kHas (f: for functors with members, logit's bounds). */
template <typename F>
struct VecBulk {
  static constexpr bool kHas = false;
};

/** A functor without members whose loop is vecKernels().LOOP. */
#define TSGPU_VEC_BULK(FUNCTOR, LOOP)                                                                            \
  template <>                                                                                                 \
  struct VecBulk<fn::FUNCTOR> {                                                                               \
    static constexpr bool kHas = true;                                                                        \
    static void run(const fn::FUNCTOR&, const float* x, float* y, int64_t n) { vec::vecKernels().LOOP(x, y, n); } \
  };
TSGPU_VEC_BULK(GeluExact, geluErf)
TSGPU_VEC_BULK(GeluTanh, geluTanh)
TSGPU_VEC_BULK(Erf, erf)
TSGPU_VEC_BULK(Tan, tan)
TSGPU_VEC_BULK(Exp, exp)
TSGPU_VEC_BULK(Sigmoid, sigmoid)
TSGPU_VEC_BULK(Silu, silu)
TSGPU_VEC_BULK(Tanh, tanh)
TSGPU_VEC_BULK(Log, log)
#undef TSGPU_VEC_BULK

template <>
struct VecBulk<fn::Logit<float>> {
  static constexpr bool kHas = true;
  static void run(const fn::Logit<float>& f, const float* x, float* y, int64_t n) {
    vec::vecKernels().logit(x, y, n, f.bounds.lo, f.bounds.hi);
  }
};

/** VecBulk2<F>::run(a, b, y, n) computes y = F(a, b) over n floats, when kHas (two-input functors). */
template <typename F>
struct VecBulk2 {
  static constexpr bool kHas = false;
};

template <>
struct VecBulk2<fn::Atan2> {
  static constexpr bool kHas = true;
  static void run(const float* a, const float* b, float* y, int64_t n) { vec::vecKernels().atan2(a, b, y, n); }
};

/** float32 and the 16-bit floats, which compute in float. */
template <typename T>
constexpr bool kFloatStorage =
    std::is_same<T, float>::value || std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;

/** Elements of a 16-bit float run converted per step. */
constexpr int64_t kBulkBuffer = 1024;

/** y[i] = F(x[i]) for a contiguous run of element type T (float or 16-bit float), with F's vector loop. */
template <typename F, typename T>
void runBulk(const F& f, const T* x, T* y, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {
    VecBulk<F>::run(f, x, y, n);
  } else {
    float buf[kBulkBuffer];
    for (int64_t b = 0; b < n; b += kBulkBuffer) {
      const int64_t m = n - b < kBulkBuffer ? n - b : kBulkBuffer;
      for (int64_t i = 0; i < m; ++i) buf[i] = static_cast<float>(x[b + i]);
      VecBulk<F>::run(f, buf, buf, m);
      for (int64_t i = 0; i < m; ++i) y[b + i] = static_cast<T>(buf[i]);
    }
  }
}

/** y[i] = F(a[i], b[i]) for contiguous runs of element type T (float or 16-bit float), with F's vector loop. */
template <typename F, typename T>
void runBulk2(const T* a, const T* b, T* y, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {
    VecBulk2<F>::run(a, b, y, n);
  } else {
    float bufA[kBulkBuffer], bufB[kBulkBuffer];
    for (int64_t s = 0; s < n; s += kBulkBuffer) {
      const int64_t m = n - s < kBulkBuffer ? n - s : kBulkBuffer;
      for (int64_t i = 0; i < m; ++i) bufA[i] = static_cast<float>(a[s + i]), bufB[i] = static_cast<float>(b[s + i]);
      VecBulk2<F>::run(bufA, bufB, bufA, m);
      for (int64_t i = 0; i < m; ++i) y[s + i] = static_cast<T>(bufA[i]);
    }
  }
}

}  // namespace cpu
}  // namespace ops
}  // namespace tsgpu
