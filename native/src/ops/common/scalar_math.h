// Math functions overloaded for float and double, callable from host and
// device code, so one functor body serves every floating dtype (half and
// bfloat16 compute in float). Integer overloads exist where PyTorch defines
// the op on integers (abs, floor, ceil, round are identities there).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/host_device.h"

namespace tsgpu {
namespace ops {
namespace sm {

#define TSGPU_SM_UNARY(name, ffn, dfn)                          \
  TSGPU_HD float name(float x) { return ::ffn(x); }             \
  TSGPU_HD double name(double x) { return ::dfn(x); }
TSGPU_SM_UNARY(exp, expf, exp)
TSGPU_SM_UNARY(expm1, expm1f, expm1)
TSGPU_SM_UNARY(log, logf, log)
TSGPU_SM_UNARY(log1p, log1pf, log1p)
TSGPU_SM_UNARY(log2, log2f, log2)
TSGPU_SM_UNARY(sqrt, sqrtf, sqrt)
TSGPU_SM_UNARY(sin, sinf, sin)
TSGPU_SM_UNARY(cos, cosf, cos)
TSGPU_SM_UNARY(tanh, tanhf, tanh)
TSGPU_SM_UNARY(erf, erff, erf)
TSGPU_SM_UNARY(floor, floorf, floor)
TSGPU_SM_UNARY(ceil, ceilf, ceil)
TSGPU_SM_UNARY(trunc, truncf, trunc)
TSGPU_SM_UNARY(rint, rintf, rint)
TSGPU_SM_UNARY(fabs, fabsf, fabs)
#undef TSGPU_SM_UNARY

TSGPU_HD float pow(float x, float y) { return ::powf(x, y); }
TSGPU_HD double pow(double x, double y) { return ::pow(x, y); }
TSGPU_HD float fmod(float x, float y) { return ::fmodf(x, y); }
TSGPU_HD double fmod(double x, double y) { return ::fmod(x, y); }
TSGPU_HD float copysign(float x, float y) { return ::copysignf(x, y); }
TSGPU_HD double copysign(double x, double y) { return ::copysign(x, y); }

/** True for NaN; always false for integers. */
template <typename T>
TSGPU_HD bool isNan(T x) {
  return x != x;
}

/**
 * Limits<T>::lowest() / highest(): -inf / +inf for floating types, the
 * smallest / largest value for integers (identities of max and min).
 */
template <typename T>
struct Limits;
#define TSGPU_SM_LIMITS(T, lo, hi)                     \
  template <>                                          \
  struct Limits<T> {                                   \
    TSGPU_HD static T lowest() { return lo; }          \
    TSGPU_HD static T highest() { return hi; }         \
  };
TSGPU_SM_LIMITS(float, -INFINITY, INFINITY)
TSGPU_SM_LIMITS(double, -static_cast<double>(INFINITY), static_cast<double>(INFINITY))
TSGPU_SM_LIMITS(bool, false, true)
TSGPU_SM_LIMITS(int8_t, -128, 127)
TSGPU_SM_LIMITS(uint8_t, 0, 255)
TSGPU_SM_LIMITS(int16_t, -32768, 32767)
TSGPU_SM_LIMITS(int32_t, -2147483647 - 1, 2147483647)
TSGPU_SM_LIMITS(int64_t, -9223372036854775807LL - 1, 9223372036854775807LL)
#undef TSGPU_SM_LIMITS

}  // namespace sm
}  // namespace ops
}  // namespace tsgpu
