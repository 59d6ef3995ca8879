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
TSGPU_SM_UNARY(erfc, erfcf, erfc)
TSGPU_SM_UNARY(tan, tanf, tan)
TSGPU_SM_UNARY(asin, asinf, asin)
TSGPU_SM_UNARY(acos, acosf, acos)
TSGPU_SM_UNARY(atan, atanf, atan)
TSGPU_SM_UNARY(sinh, sinhf, sinh)
TSGPU_SM_UNARY(cosh, coshf, cosh)
TSGPU_SM_UNARY(asinh, asinhf, asinh)
TSGPU_SM_UNARY(acosh, acoshf, acosh)
TSGPU_SM_UNARY(atanh, atanhf, atanh)
TSGPU_SM_UNARY(log10, log10f, log10)
TSGPU_SM_UNARY(exp2, exp2f, exp2)
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
TSGPU_HD float atan2(float y, float x) { return ::atan2f(y, x); }
TSGPU_HD double atan2(double y, double x) { return ::atan2(y, x); }
TSGPU_HD float hypot(float x, float y) { return ::hypotf(x, y); }
TSGPU_HD double hypot(double x, double y) { return ::hypot(x, y); }

/**
 * The inverse of erf on [-1, 1] (±inf at ±1, NaN outside), in double: a
 * starting point from M. Giles' single-precision polynomial approximation
 * ("Approximating the erfinv function", GPU Computing Gems, 2011), refined by
 * two Newton steps on erf(r) - y, which bring it to double precision.
 */
TSGPU_HD double erfinvDouble(double y) {
  if (!(y >= -1.0 && y <= 1.0)) return y - y + static_cast<double>(NAN);  // NaN in, or |y| > 1
  if (y == 1.0) return static_cast<double>(INFINITY);
  if (y == -1.0) return -static_cast<double>(INFINITY);
  double w = -::log((1.0 - y) * (1.0 + y));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = ::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double r = p * y;
  for (int i = 0; i < 2; ++i) {
    const double d = 1.1283791670955126 * ::exp(-r * r);  // erf'(r) = 2/sqrt(pi) exp(-r^2)
    if (d == 0.0) break;
    r -= (::erf(r) - y) / d;
  }
  return r;
}
TSGPU_HD float erfinv(float y) { return static_cast<float>(erfinvDouble(static_cast<double>(y))); }
TSGPU_HD double erfinv(double y) { return erfinvDouble(y); }

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
