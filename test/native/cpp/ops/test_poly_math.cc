// poly_math.h against double precision: exp over its whole range (overflow,
// the subnormals, inf and NaN), log of every Box–Muller uniform and of every float, tanh, sin/cos of
// every Box–Muller angle, gelu (erf and tanh) over [-12, 12] and at the edges,
// erf over [-6, 6] and tan over the range it reduces in double.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "../harness.h"
#include "ops/common/poly_math.h"

using namespace tsgpu;

namespace {

/** Fails with the worst case when the relative error exceeds `bound`. */
void checkWorst(const char* what, double worst, double at, double bound) {
  if (worst > bound) {
    std::ostringstream os;
    os << what << ": relative error " << worst << " at " << at << " exceeds " << bound;
    harness::fail(__FILE__, __LINE__, os.str());
  }
}

constexpr double kUlp = 5.960464477539063e-8;  // 2^-24

}  // namespace

TEST(poly_exp_within_two_ulps_and_saturates) {
  double worst = 0, at = 0;
  for (float x = -87.0f; x < 88.7f; x += 7.7e-4f) {
    const double ref = std::exp(static_cast<double>(x));
    const double e = std::fabs(pm::exp(x) - ref) / ref;
    if (e > worst) worst = e, at = x;
  }
  checkWorst("exp", worst, at, 2 * kUlp);
  CHECK(std::isinf(pm::exp(88.8f)) && std::isinf(pm::exp(1e30f)) && std::isinf(pm::exp(INFINITY)));
  CHECK(pm::exp(-104.5f) == 0.0f && pm::exp(-1e30f) == 0.0f && pm::exp(-INFINITY) == 0.0f);
  CHECK(std::isnan(pm::exp(NAN)));
  CHECK(pm::exp(0.0f) == 1.0f);
  // The subnormals: within one unit of the last place of the smallest subnormal's scale.
  for (float x = -103.9f; x < -87.4f; x += 0.05f) CHECK(std::fabs(pm::exp(x) - std::exp(static_cast<double>(x))) <= 1.5e-45);
  // Largest finite results.
  CHECK(std::fabs(pm::exp(88.7f) / std::exp(static_cast<double>(88.7f)) - 1) < 2 * kUlp);
  // A correction term beyond the reduction's range.
  CHECK(std::fabs(pm::expParts(-19.5f, -2.25f) / std::exp(-21.75) - 1) < 2 * kUlp);
}

TEST(poly_log_of_every_uniform) {
  double worst = 0, at = 0;
  for (uint32_t k = 0; k < (1u << 24); k += 3) {
    const float u = (static_cast<float>(k) + 0.5f) * (1.0f / 16777216.0f);
    if (u == 1.0f) continue;
    const double ref = std::log(static_cast<double>(u));
    const double e = std::fabs(pm::logPositive(u) - ref) / std::fabs(ref);
    if (e > worst) worst = e, at = u;
  }
  checkWorst("log", worst, at, 2 * kUlp);
  CHECK(pm::logPositive(1.0f) == 0.0f);
  CHECK(std::fabs(pm::logPositive(1e30f) / std::log(1e30) - 1) < 2 * kUlp);
}

TEST(poly_log_of_every_float_within_two_ulps_and_tanh_within_three) {
  double worst = 0, at = 0;
  // Every 97th float bit pattern from the smallest subnormal to the largest finite value.
  for (uint32_t b = 1; b < 0x7f800000u; b += 97) {
    float x;
    std::memcpy(&x, &b, sizeof x);
    const double ref = std::log(static_cast<double>(x));
    const double e = std::fabs(pm::logAny(x) - ref) / std::fmax(std::fabs(ref), 1e-30);
    if (ref != 0 && e > worst) worst = e, at = x;
  }
  checkWorst("logAny", worst, at, 2 * kUlp);
  CHECK(pm::logAny(1.0f) == 0.0f && pm::logAny(0.0f) == -INFINITY && pm::logAny(-0.0f) == -INFINITY);
  CHECK(pm::logAny(INFINITY) == INFINITY && std::isnan(pm::logAny(-1.0f)) && std::isnan(pm::logAny(NAN)) && std::isnan(pm::logAny(-INFINITY)));
  worst = 0, at = 0;
  for (float x = -12.0f; x < 12.0f; x += 1.3e-4f) {
    const double ref = std::tanh(static_cast<double>(x));
    const double e = std::fabs(pm::tanh(x) - ref) / std::fmax(std::fabs(ref), 1e-30);
    if (ref != 0 && e > worst) worst = e, at = x;
  }
  checkWorst("tanh", worst, at, 3 * kUlp);  // just above 0.625, 1 - 2 / (e^2x + 1) loses a bit to cancellation
  CHECK(pm::tanh(100.0f) == 1.0f && pm::tanh(-INFINITY) == -1.0f && std::isnan(pm::tanh(NAN)));
  CHECK(pm::tanh(0.0f) == 0.0f && std::signbit(pm::tanh(-0.0f)) && pm::tanh(1e-30f) == 1e-30f);
}

TEST(poly_sincos2pi_of_every_angle) {
  double worst = 0, at = 0;
  for (uint32_t k = 0; k < (1u << 24); k += 3) {
    const float u = static_cast<float>(k) * (1.0f / 16777216.0f);
    float s, c;
    pm::sincos2pi(u, &s, &c);
    const double a = 6.283185307179586 * u;
    const double e = std::fmax(std::fabs(s - std::sin(a)), std::fabs(c - std::cos(a)));
    if (e > worst) worst = e, at = u;
  }
  checkWorst("sincos2pi (absolute)", worst, at, 2 * kUlp);
  float s, c;
  pm::sincos2pi(0.25f, &s, &c);
  CHECK(s == 1.0f && c == 0.0f);
  pm::sincos2pi(-0.375f, &s, &c);
  CHECK(std::fabs(s + std::sqrt(0.5)) < 1e-7 && std::fabs(c + std::sqrt(0.5)) < 1e-7);
}

TEST(poly_gelu_erf_and_tanh_against_double) {
  double worstErf = 0, atErf = 0, worstTanh = 0, atTanh = 0;
  for (float x = -6.2f; x < 12.0f; x += 1.3e-4f) {
    const double xd = x;
    const double refErf = 0.5 * xd * std::erfc(-xd / std::sqrt(2.0));
    const double y = std::sqrt(2 / M_PI) * (xd + 0.044715 * xd * xd * xd);
    const double refTanh = xd / (1 + std::exp(-2 * y));
    // Relative error, with an absolute floor at float's smallest normal.
    const double eErf = std::fabs(pm::geluErf(x) - refErf) / std::fmax(std::fabs(refErf), 1.2e-38);
    const double eTanh = std::fabs(pm::geluTanh(x) - refTanh) / std::fmax(std::fabs(refTanh), 1.2e-38);
    if (eErf > worstErf) worstErf = eErf, atErf = x;
    if (x > -3.0f && eTanh > worstTanh) worstTanh = eTanh, atTanh = x;
  }
  // Below x = -4 both are tiny and their relative error grows with x^2 (the conditioning of the input's rounding).
  checkWorst("gelu erf", worstErf, atErf, 4e-6);
  checkWorst("gelu tanh", worstTanh, atTanh, 1e-6);
  double worstNear = 0, atNear = 0;
  for (float x = -3.0f; x < 8.0f; x += 1.1e-4f) {
    // With the argument rounded to float as the function does (the rest is the conditioning of erfc).
    const double xd = x;
    const double refErf = 0.5 * xd * std::erfc(-static_cast<double>(x * 0.707106781186547524f));
    const double e = std::fabs(pm::geluErf(x) - refErf) / std::fmax(std::fabs(refErf), 1e-30);
    if (e > worstNear) worstNear = e, atNear = x;
  }
  checkWorst("gelu erf on [-3, 8]", worstNear, atNear, 8 * kUlp);
  CHECK(pm::geluErf(INFINITY) == INFINITY && std::isnan(pm::geluErf(-INFINITY)) && std::isnan(pm::geluErf(NAN)));
  CHECK(pm::geluTanh(INFINITY) == INFINITY && std::isnan(pm::geluTanh(-INFINITY)) && std::isnan(pm::geluTanh(NAN)));
  CHECK(pm::geluErf(-50.0f) == 0.0f && pm::geluTanh(-50.0f) == 0.0f && pm::geluErf(1e30f) == 1e30f);
  CHECK(pm::geluErf(0.0f) == 0.0f && std::fabs(pm::geluErf(1e-30f) - 5e-31f) < 1e-37f);
}

TEST(poly_erf_within_three_ulps_and_saturates) {
  double worst = 0, at = 0;
  for (float x = -6.0f; x < 6.0f; x += 3.1e-5f) {
    const double ref = std::erf(static_cast<double>(x));
    const double e = std::fabs(pm::erf(x) - ref) / std::fmax(std::fabs(ref), 1e-37);
    if (e > worst) worst = e, at = x;
  }
  checkWorst("erf", worst, at, 3 * kUlp);
  for (float x = 1e-30f; x < 1e-3f; x *= 1.37f) checkWorst("erf of small", std::fabs(pm::erf(x) / std::erf(static_cast<double>(x)) - 1), x, 2 * kUlp);
  CHECK(pm::erf(0.0f) == 0.0f && std::signbit(pm::erf(-0.0f)));
  CHECK(pm::erf(INFINITY) == 1.0f && pm::erf(-INFINITY) == -1.0f && pm::erf(10.0f) == 1.0f && std::isnan(pm::erf(NAN)));
}

TEST(poly_tan_within_three_ulps_over_its_reduced_range) {
  double worst = 0, at = 0;
  // Every 97th float of [-4, 4], then sparser steps up to the reduction's limit.
  for (float x = -4.0f; x < 4.0f; x = std::nextafter(x, 5.0f)) {
    for (int s = 0; s < 96 && x < 4.0f; ++s) x = std::nextafter(x, 5.0f);
    const double ref = std::tan(static_cast<double>(x));
    const double e = std::fabs(pm::tanReduced(x) - ref) / std::fmax(std::fabs(ref), 1e-37);
    if (e > worst) worst = e, at = x;
  }
  for (float x = 4.0f; x <= pm::kTanReducedMax; x *= 1.0001f) {
    for (float v : {x, -x}) {
      const double ref = std::tan(static_cast<double>(v));
      const double e = std::fabs(pm::tanReduced(v) - ref) / std::fmax(std::fabs(ref), 1e-37);
      if (e > worst) worst = e, at = v;
    }
  }
  checkWorst("tan", worst, at, 3 * kUlp);
  CHECK(pm::tanReduced(0.0f) == 0.0f && std::signbit(pm::tanReduced(-0.0f)));
  // The float nearest pi/2 and its neighbour: large results of opposite signs, as libm's.
  const float h = 1.57079637f;
  CHECK(std::fabs(pm::tanReduced(h) / std::tan(static_cast<double>(h)) - 1) < 3 * kUlp);
  const float below = std::nextafter(h, 0.0f);
  CHECK(std::fabs(pm::tanReduced(below) / std::tan(static_cast<double>(below)) - 1) < 3 * kUlp);
}

TEST(poly_atan2_within_four_ulps_in_every_quadrant) {
  double worst = 0;
  float atY = 0, atX = 0;
  const float mags[] = {0.0f, 1e-40f, 1e-30f, 1e-6f, 0.3f, 1.0f, 1.7f, 40.0f, 3e7f, 1e38f};
  for (float my : mags) {
    for (float mx : mags) {
      for (int k = 0; k < 400; ++k) {
        // Points around each pair of magnitudes and of every sign, the ratio swept through [0, inf).
        const float y = my * (0.5f + k / 400.0f) * ((k & 1) ? -1.0f : 1.0f);
        const float x = mx * (1.5f - k / 800.0f) * ((k & 2) ? -1.0f : 1.0f);
        if (pm::atan2Special(y, x)) continue;
        const double ref = std::atan2(static_cast<double>(y), static_cast<double>(x));
        const double e = std::fabs(pm::atan2Regular(y, x) - ref) / std::fmax(std::fabs(ref), 1e-37);
        if (e > worst) worst = e, atY = y, atX = x;
      }
    }
  }
  if (worst > 4 * kUlp) {
    std::ostringstream os;
    os << "atan2: relative error " << worst << " at (" << atY << ", " << atX << ")";
    harness::fail(__FILE__, __LINE__, os.str());
  }
  // Signed zeros and the axes, as libm's.
  CHECK(pm::atan2Regular(0.0f, 1.0f) == 0.0f && std::signbit(pm::atan2Regular(-0.0f, 1.0f)));
  CHECK(pm::atan2Regular(0.0f, -1.0f) == 3.14159274f && pm::atan2Regular(-0.0f, -1.0f) == -3.14159274f);
  CHECK(pm::atan2Regular(2.0f, 0.0f) == 1.57079637f && pm::atan2Regular(-2.0f, -0.0f) == -1.57079637f);
  CHECK(pm::atan2Regular(1.0f, INFINITY) == 0.0f && pm::atan2Regular(-1.0f, -INFINITY) == -3.14159274f);
  CHECK(pm::atan2Special(0.0f, 0.0f) && pm::atan2Special(INFINITY, -INFINITY) && pm::atan2Special(NAN, 1.0f) && pm::atan2Special(1.0f, NAN));
  CHECK(!pm::atan2Special(INFINITY, 1.0f) && !pm::atan2Special(0.0f, -0.0f + 1e-45f));
}
