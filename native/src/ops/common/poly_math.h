// Branch-free float32 math written with polynomials, so that a loop over it
// vectorizes (the cpu kernels of ops/cpu/vec_kernels.inc) and so that cpu
// and cuda compute the same values (philox.h's Box–Muller uses log and
// sincos2pi on both). Every function is within about two float32 ulps of
// the exact value over its whole domain (test/native/cpp/poly_math_test.cc
// measures it against double precision), keeps NaN, and saturates as the
// exact function does: exp overflows to inf and underflows through the
// subnormals to 0. The coefficients are least-squares fits on Chebyshev
// nodes, rounded to float.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "base/host_device.h"

namespace tsgpu {
namespace pm {

/** 1.5 * 2^23: adding and subtracting it rounds a float of magnitude < 2^22 to the nearest integer. */
constexpr float kRoundMagic = 12582912.0f;

/** |x| (clears the sign bit; NaN stays NaN). */
TSGPU_HD float absf(float x) { return detail::bitsFloat(detail::floatBits(x) & 0x7fffffffu); }

/**
 * exp(a + b) where a + b need not be representable: b is a correction of a
 * (the low part of a sum or product) or any value of magnitude below about
 * 4; the reduction subtracts n ln2 from a exactly and adds b after. exp(x)
 * is expParts(x, 0).
 */
TSGPU_HD float expParts(float a, float b) {
  const float s = a + b;
  float c = s > 88.8f ? 88.8f : s;  // beyond, exp overflows; keeps 2^n's exponent in range
  c = c < -104.0f ? -104.0f : c;    // below the smallest subnormal; NaN passes both
  const float t = c * 1.44269504088896341f + kRoundMagic;
  const float n = t - kRoundMagic;
  const int32_t ni = static_cast<int32_t>(detail::floatBits(t) - detail::floatBits(kRoundMagic));  // n as an integer
  // a - n ln2 in two steps (ln2's leading bits times n, and a minus that, are exact), then b.
  float r = a - n * 0.693145751953125f;
  r = r - n * 1.428606765330187045e-06f;
  r = r + b;
  float p = 1.98264955543e-4f;
  p = p * r + 1.39460212085e-3f;
  p = p * r + 8.33342969418e-3f;
  p = p * r + 4.16662693024e-2f;
  p = p * r + 1.66666656733e-1f;
  p = p * r + 0.5f;
  p = p * (r * r) + r + 1.0f;
  // 2^n as two factors, each a normal float, so that 2^-150 .. 2^128 all work.
  const int32_t n1 = ni >> 1;
  const int32_t n2 = ni - n1;
  const float s1 = detail::bitsFloat(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = detail::bitsFloat(static_cast<uint32_t>(n2 + 127) << 23);
  const float v = s > 88.8f ? INFINITY : p * s1 * s2;
  return s < -104.0f ? 0.0f : v;
}

/** exp(x). */
TSGPU_HD float exp(float x) { return expParts(x, 0.0f); }

/** log(x) for positive normal x (the uniforms of Box–Muller; no subnormal, zero or negative input). */
TSGPU_HD float logPositive(float x) {
  const uint32_t u = detail::floatBits(x);
  int32_t e = static_cast<int32_t>(u >> 23) - 127;
  float m = detail::bitsFloat((u & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool high = m > 1.41421356237f;
  m = high ? m * 0.5f : m;  // [sqrt(1/2), sqrt(2))
  e += high ? 1 : 0;
  const float f = m - 1.0f;
  const float ef = static_cast<float>(e);
  float p = -7.36286789179e-2f;
  p = p * f + 1.26203268766e-1f;
  p = p * f + -1.32021039724e-1f;
  p = p * f + 1.42271146178e-1f;
  p = p * f + -1.66213706136e-1f;
  p = p * f + 1.99998259544e-1f;
  p = p * f + -2.50008523464e-1f;
  p = p * f + 3.33333551884e-1f;
  const float f2 = f * f;
  const float tail = ef * 1.428606765330187045e-06f + (f2 * f * p - 0.5f * f2);
  return (tail + f) + ef * 0.693145751953125f;
}

/**
 * log(x) for every float: logPositive's polynomial, subnormals scaled by 2^23 first; log(0) = -inf,
 * log(inf) = inf, NaN for NaN and below 0. Branch-free (selects), so a loop of it vectorizes.
 */
TSGPU_HD float logAny(float x) {
  const bool sub = x < 1.17549435e-38f;  // subnormal, zero or negative: only the subnormals use the scaled value
  const float r = logPositive(sub ? x * 8388608.0f : x) - (sub ? 15.9423851528787f : 0.0f);  // 23 ln 2
  const float inf = detail::bitsFloat(0x7f800000u);
  const float nan = detail::bitsFloat(0x7fc00000u);
  const float big = x == inf ? inf : r;
  const float low = x == 0.0f ? -inf : big;
  return (x < 0.0f || x != x) ? nan : low;
}

/**
 * tanh(x): an odd polynomial in x below |x| = 0.625 (no cancellation near 0), 1 - 2 / (exp(2|x|) + 1) with
 * x's sign above (1 where exp overflows); NaN stays NaN, tanh(-0) = -0. Branch-free.
 */
TSGPU_HD float tanh(float x) {
  const float a = absf(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z + -5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z + -3.33332819422e-1f;
  const float small = p * z * a + a;
  const float big = 1.0f - 2.0f / (exp(a + a) + 1.0f);
  // Both of |x|, then x's sign (so that tanh(-0) is -0).
  const float m = a >= 0.625f ? big : small;
  return detail::bitsFloat(detail::floatBits(m) | (detail::floatBits(x) & 0x80000000u));
}

/** sin(2 pi u) and cos(2 pi u): the reduction to [-1/8, 1/8] of a turn is exact for |u| < 2^20. */
TSGPU_HD void sincos2pi(float u, float* s, float* c) {
  const float t = u * 4.0f + kRoundMagic;
  const float q = t - kRoundMagic;
  const uint32_t quadrant = detail::floatBits(t) - detail::floatBits(kRoundMagic);
  const float r = u - q * 0.25f;  // [-1/8, 1/8]
  const float r2 = r * r;
  float ps = -75.4305725098f;
  ps = ps * r2 + 81.5933151245f;
  ps = ps * r2 + -41.3416671753f;
  ps = ps * r2 + 6.28318548203f;
  const float sr = ps * r;
  float pc = 59.1900215149f;
  pc = pc * r2 + -85.4425277710f;
  pc = pc * r2 + 64.9393234253f;
  pc = pc * r2 + -19.7392082214f;
  const float cr = pc * r2 + 1.0f;
  // Turn by quadrant quarter turns: (sin, cos) -> (cos, -sin) -> (-sin, -cos) -> (-cos, sin).
  const bool swap = (quadrant & 1u) != 0;
  const float sv = swap ? cr : sr;
  const float cv = swap ? sr : cr;
  *s = (quadrant & 2u) != 0 ? -sv : sv;
  *c = ((quadrant + 1u) & 2u) != 0 ? -cv : cv;
}

/** erf(z) / z on |z| <= 1, a polynomial in z^2 (the value at 0 is 2 / sqrt(pi)). */
TSGPU_HD float erfOverZ(float z2) {
  float pa = -5.66799542867e-4f;
  pa = pa * z2 + 4.92742005736e-3f;
  pa = pa * z2 + -2.67208945006e-2f;
  pa = pa * z2 + 1.12805791199e-1f;
  pa = pa * z2 + -3.76123905182e-1f;
  return pa * z2 + 1.12837910652f;
}

/**
 * erfc(a) for a >= 0: exp(-a^2 + Q(a)) with Q fitted on [1/2, 4.5] (a below 1/2 is taken as 1/2, which
 * the callers do not use), and 0 beyond 4.5, where erfc is below 2e-10. NaN stays NaN.
 */
TSGPU_HD float erfcOuter(float a) {
  float b = a < 0.5f ? 0.5f : a;
  b = b > 4.5f ? 4.5f : b;
  // b^2 = hi + lo exactly: hi from b's leading 12 bits.
  const float bh = detail::bitsFloat(detail::floatBits(b) & 0xfffff000u);
  const float hi = bh * bh;
  const float lo = (b + bh) * (b - bh);
  const float t = b - 2.5f;
  float q = -6.93129180718e-8f;
  q = q * t + 3.84226552796e-8f;
  q = q * t + 2.04525304071e-6f;
  q = q * t + -1.36367552841e-5f;
  q = q * t + 7.64366341173e-5f;
  q = q * t + -4.19298652560e-4f;
  q = q * t + 2.16604559682e-3f;
  q = q * t + -1.08592798933e-2f;
  q = q * t + 5.61060681939e-2f;
  q = q * t + -3.52680504322e-1f;
  q = q * t + -1.55681526661f;
  const float erfc = expParts(-hi, q - lo);
  return a > 4.5f ? 0.0f : erfc;
}

/**
 * 1 + erf(z), accurate in relative terms also where erf(z) is near -1:
 * 1 + z P(z^2) on [-1/2, 1], and outside it erfcOuter(|z|).
 */
TSGPU_HD float onePlusErf(float z) {
  const float az = absf(z);
  const float inner = 1.0f + z * erfOverZ(z * z);
  const float erfc = erfcOuter(az);
  const float outer = z > 0.0f ? 2.0f - erfc : erfc;
  // Below -1/2 the sum 1 + z P(z^2) would cancel: the erfc form is used there.
  const float innerLimit = z > 0.0f ? 1.0f : 0.5f;
  return az < innerLimit ? inner : outer;
}

/**
 * erf(z): z + z P(z^2) inside [-1, 1] (P fitted for erf's relative error, P(0) = 2/sqrt(pi) - 1, so that
 * the last rounding is of a sum whose first term is exact), ±(1 - erfc(|z|)) outside; ±1 beyond 4.5;
 * NaN stays NaN.
 */
TSGPU_HD float erf(float z) {
  const float az = absf(z);
  const float z2 = z * z;
  float p = 7.898014882812276e-05f;
  p = p * z2 + -8.0242904368788e-04f;
  p = p * z2 + 5.190045572817326e-03f;
  p = p * z2 + -2.6854803785681725e-02f;
  p = p * z2 + 1.1283612251281738e-01f;
  p = p * z2 + -3.761262893676758e-01f;
  p = p * z2 + 1.2837916612625122e-01f;
  const float inner = z + z * p;
  const float outer = 1.0f - erfcOuter(az);
  const float signedOuter = z < 0.0f ? -outer : outer;
  return az < 1.0f ? inner : signedOuter;
}

/** Arguments up to this magnitude take tan's reduction by pi/2 in double (exact enough); beyond, libm's tan. */
constexpr float kTanReducedMax = 1.0e5f;

/**
 * tan(x) for |x| <= kTanReducedMax (NaN and the infinities give NaN): x - k pi/2 in double (pi/2 in two
 * parts, the first times k exact), then r + r^3 Q(r^2) on [-pi/4, pi/4] and, for odd k, -1 / that.
 * Host code only (the reduction is in double).
 */
inline float tanReduced(float x) {
  const double xd = static_cast<double>(x);
  const double k = __builtin_rint(xd * 0.63661977236758134308);
  // k = 0 keeps x itself (its sign too: -0 stays -0).
  const double rd = k == 0.0 ? xd : (xd - k * 1.5707963267341256) - k * 6.077100506506192e-11;
  const float r = static_cast<float>(rd);
  const float r2 = r * r;
  float q = 4.318146500736475e-3f;
  q = q * r2 + 2.143796009477228e-4f;
  q = q * r2 + 1.073072012513876e-2f;
  q = q * r2 + 2.1325865760445595e-2f;
  q = q * r2 + 5.405068397521973e-2f;
  q = q * r2 + 1.3332754373550415e-1f;
  q = q * r2 + 3.3333346247673035e-1f;
  const float t = r + r * r2 * q;
  const double half = k * 0.5;
  return half != __builtin_floor(half) ? -1.0f / t : t;  // odd k: -cot(r)
}

/** gelu(x) = x/2 (1 + erf(x / sqrt 2)). */
TSGPU_HD float geluErf(float x) { return 0.5f * x * onePlusErf(x * 0.707106781186547524f); }

/**
 * gelu's tanh approximation x/2 (1 + tanh(y)), y = sqrt(2/pi) (x + 0.044715 x^3),
 * written as x / (1 + exp(-2y)), which has no cancellation where tanh(y) is near -1.
 */
TSGPU_HD float geluTanh(float x) {
  const float y = 0.797884560802865356f * (x + 0.044715f * x * x * x);
  return x / (1.0f + exp(-2.0f * y));
}

/**
 * atan2(y, x) where y / x is defined (not 0/0, inf/inf, nor NaN in either: the caller gives those to libm,
 * see atan2Special): atan of the ratio min/max of |x| and |y| as t + t^3 P(t^2) on [0, 1], turned by pi/2
 * (when |y| > |x|) and by pi (for x < 0) in two-part constants, with y's sign. Within about 3 float ulps.
 */
TSGPU_HD float atan2Regular(float y, float x) {
  const float ax = absf(x), ay = absf(y);
  const bool steep = ay > ax;
  const float t = (steep ? ax : ay) / (steep ? ay : ax);
  const float t2 = t * t;
  float p = -1.7890612361952662e-03f;
  p = p * t2 + 1.0897884145379066e-02f;
  p = p * t2 + -3.115503303706646e-02f;
  p = p * t2 + 5.7945046573877335e-02f;
  p = p * t2 + -8.403480052947998e-02f;
  p = p * t2 + 1.0952533036470413e-01f;
  p = p * t2 + -1.4264392852783203e-01f;
  p = p * t2 + 1.9998574256896973e-01f;
  p = p * t2 + -3.3333301544189453e-01f;
  float a = t + t * t2 * p;
  // pi/2 and pi as a float and the float of the rest.
  a = steep ? (1.57079637f - a) + -4.37113883e-08f : a;
  a = x < 0.0f ? (3.14159274f - a) + -8.74227766e-08f : a;
  return (detail::floatBits(y) & 0x80000000u) != 0u ? -a : a;  // y's sign, -0 included
}

/** Whether atan2(y, x) is one atan2Regular leaves out: y / x is NaN (0/0, inf/inf, a NaN). */
TSGPU_HD bool atan2Special(float y, float x) {
  const float ax = absf(x), ay = absf(y);
  const float r = (ay > ax ? ax : ay) / (ay > ax ? ay : ax);
  return r != r;
}

}  // namespace pm
}  // namespace tsgpu
