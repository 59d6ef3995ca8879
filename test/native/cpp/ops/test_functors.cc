// Scalar functors: PyTorch's semantics at the edges (signs of floor division
// and remainder, NaN propagation, integer pow, round half to even, clamp).
#include <cmath>
#include <cstdint>

#include "../harness.h"
#include "ops/common/binary_functors.h"
#include "ops/common/unary_functors.h"

using namespace tsgpu::ops;

namespace {
bool near(double a, double b, double tol = 1e-6) { return std::fabs(a - b) <= tol * (1 + std::fabs(b)); }
}  // namespace

TEST(functors_unary_float_values) {
  CHECK(near(fn::Exp()(1.0), std::exp(1.0)));
  CHECK(near(fn::Sigmoid()(0.0f), 0.5));
  CHECK(near(fn::Silu()(2.0), 2.0 / (1 + std::exp(-2.0))));
  CHECK(near(fn::GeluExact()(1.0), 0.8413447460685429));
  CHECK(near(fn::GeluTanh()(1.0), 0.8411919906082768));
  CHECK(near(fn::Rsqrt()(4.0f), 0.5));
  CHECK(near(fn::Log2()(8.0), 3.0));
  CHECK(near(fn::Softplus()(1.0), std::log1p(std::exp(1.0))));
  fn::Softplus sp;
  sp.beta = 2.0;
  sp.threshold = 1.0;
  CHECK_EQ(sp(3.0), 3.0);  // 2 * 3 > 1: linear
  CHECK(near(sp(0.25), std::log1p(std::exp(0.5)) / 2));
  CHECK_EQ(fn::Round()(2.5), 2.0);
  CHECK_EQ(fn::Round()(3.5f), 4.0f);
  CHECK_EQ(fn::Round()(-0.5), -0.0);
  CHECK_EQ(fn::Floor()(-1.5), -2.0);
  CHECK_EQ(fn::Ceil()(-1.5f), -1.0f);
}

TEST(functors_unary_nan_and_integers) {
  CHECK(std::isnan(fn::Relu()(NAN)));
  CHECK_EQ(fn::Relu()(-3.0f), 0.0f);
  CHECK_EQ(fn::Sign()(NAN), 0.0f);  // sign(NaN) is 0, as PyTorch's
  CHECK_EQ(fn::Sign()(-4.0), -1.0);
  CHECK_EQ(fn::Sign()(int32_t(7)), 1);
  CHECK_EQ(fn::Sign()(int64_t(0)), 0);
  CHECK_EQ(fn::Abs()(int8_t(-5)), 5);
  CHECK_EQ(fn::Neg()(int64_t(3)), -3);
  CHECK_EQ(fn::LogicalNot()(0.0f), true);
  CHECK_EQ(fn::LogicalNot()(int32_t(3)), false);
  fn::Clamp<float> c;
  c.lo = -1.0f;
  c.hi = 2.0f;
  CHECK_EQ(c(-3.0f), -1.0f);
  CHECK_EQ(c(5.0f), 2.0f);
  CHECK(std::isnan(c(NAN)));
  fn::Clamp<int32_t> ci;
  ci.hi = 4;
  CHECK_EQ(ci(-100), -100);
  CHECK_EQ(ci(100), 4);
  fn::Clamp<float> inverted;  // min > max: PyTorch gives max
  inverted.lo = 3.0f;
  inverted.hi = 1.0f;
  CHECK_EQ(inverted(2.0f), 1.0f);
}

TEST(functors_division_and_remainder_signs) {
  CHECK_EQ(fn::DivFloor()(7, -2), -4);
  CHECK_EQ(fn::DivFloor()(-7, 2), -4);
  CHECK_EQ(fn::DivFloor()(7, 2), 3);
  CHECK_EQ(fn::DivTrunc()(-7, 2), -3);
  CHECK_EQ(fn::DivFloor()(-7.0, 2.0), -4.0);
  CHECK_EQ(fn::DivFloor()(7.5f, -2.0f), -4.0f);
  CHECK_EQ(fn::DivTrunc()(-7.5, 2.0), -3.0);
  CHECK(std::isinf(fn::DivFloor()(1.0, 0.0)));
  CHECK_EQ(fn::Remainder()(-7, 3), 2);
  CHECK_EQ(fn::Remainder()(7, -3), -2);
  CHECK_EQ(fn::Remainder()(-7.5, 2.0), 0.5);
  CHECK_EQ(fn::Remainder()(7.5f, -2.0f), -0.5f);
  CHECK_EQ(fn::Remainder()(uint8_t(7), uint8_t(3)), 1);
  CHECK_EQ(fn::DivFloor()(uint8_t(7), uint8_t(2)), 3);
  // Integer division by zero is 0 (the value the cuda kernels give; the cpu ops refuse it before running).
  CHECK_EQ(fn::DivFloor()(5, 0), 0);
  CHECK_EQ(fn::DivFloor()(-5, 0), 0);
  CHECK_EQ(fn::DivTrunc()(int64_t(-9), int64_t(0)), 0);
  CHECK_EQ(fn::DivTrunc()(uint8_t(200), uint8_t(0)), 0);
  CHECK_EQ(fn::Remainder()(int8_t(-7), int8_t(0)), 0);
  CHECK_EQ(fn::Remainder()(uint8_t(7), uint8_t(0)), 0);
  CHECK_EQ(fn::Remainder()(int64_t(1) << 40, int64_t(0)), 0);
}

TEST(functors_pow_and_extrema) {
  CHECK_EQ(fn::Pow()(int64_t(3), int64_t(4)), 81);
  CHECK_EQ(fn::Pow()(int32_t(-2), int32_t(3)), -8);
  CHECK_EQ(fn::Pow()(int32_t(2), int32_t(-1)), 0);
  CHECK_EQ(fn::Pow()(int32_t(-1), int32_t(-3)), -1);
  CHECK_EQ(fn::Pow()(uint8_t(2), uint8_t(9)), 0);  // wraps like PyTorch's uint8
  CHECK(near(fn::Pow()(2.0, 0.5), std::sqrt(2.0)));
  CHECK(std::isnan(fn::Maximum()(1.0f, NAN)));
  CHECK(std::isnan(fn::Minimum()(static_cast<double>(NAN), 1.0)));
  CHECK_EQ(fn::Maximum()(int32_t(-1), int32_t(2)), 2);
  CHECK_EQ(fn::Minimum()(3.0, -2.0), -2.0);
}

TEST(functors_comparison_logical_ternary) {
  CHECK(fn::Lt()(1.0f, 2.0f));
  CHECK(!fn::Eq()(NAN, NAN));
  CHECK(fn::Ne()(NAN, NAN));
  CHECK(fn::Ge()(int64_t(2), int64_t(2)));
  CHECK(fn::LogicalAnd()(2.0, -1.0));
  CHECK(!fn::LogicalAnd()(0, 5));
  CHECK(fn::LogicalOr()(0, 5));
  CHECK(fn::LogicalXor()(0.0f, 5.0f));
  CHECK_EQ(fn::Where()(true, 1.5, 2.5), 1.5);
  CHECK_EQ(fn::Where()(false, int8_t(1), int8_t(-2)), -2);
  CHECK_EQ(fn::Lerp()(1.0, 3.0, 0.25), 1.5);
  CHECK_EQ(fn::Lerp()(1.0, 3.0, 1.0), 3.0);  // exact at the end
  fn::Addcmul<double> am;
  am.value = 0.5;
  CHECK_EQ(am(1.0, 2.0, 3.0), 4.0);
  fn::Addcdiv<float> ad;
  ad.value = 2.0f;
  CHECK_EQ(ad(1.0f, 3.0f, 2.0f), 4.0f);
  fn::Add<int32_t> add;
  add.alpha = 3;
  CHECK_EQ(add(1, 2), 7);
  fn::Sub<double> sub;
  sub.alpha = 0.5;
  CHECK_EQ(sub(1.0, 4.0), -1.0);
  CHECK_EQ(fn::ClampTensor()(5.0, 0.0, 2.0), 2.0);
}

TEST(functors_inverse_trig_erfinv_fmod_bitwise) {
  // erfinv: accurate to double precision (the Newton steps), ±inf at ±1, NaN outside [-1, 1].
  CHECK(near(fn::Erfinv()(0.5), 0.47693627620446987, 1e-15));
  CHECK(near(fn::Erfinv()(-0.999), -2.326753765513525, 1e-13));
  CHECK(near(fn::Erf()(fn::Erfinv()(0.3)), 0.3, 1e-15));
  CHECK(std::isinf(fn::Erfinv()(1.0)) && fn::Erfinv()(-1.0f) < 0);
  CHECK(std::isnan(fn::Erfinv()(1.5)));
  CHECK(near(fn::Atan2()(1.0, -1.0), 3 * std::atan(1.0)));
  CHECK(near(fn::Hypot()(3.0f, 4.0f), 5.0));
  CHECK(std::signbit(fn::Copysign()(2.0, -0.0)));
  // fmod has the sign of the dividend; an integer divisor of 0 gives 0.
  CHECK_EQ(fn::Fmod()(int32_t(-7), int32_t(3)), -1);
  CHECK_EQ(fn::Fmod()(int32_t(7), int32_t(0)), 0);
  CHECK(near(fn::Fmod()(-7.5, 2.0), -1.5));
  // Shifts out of range: 0 to the left, the sign fill to the right (PyTorch's).
  CHECK_EQ(fn::BitwiseLeftShift()(int64_t(1), int64_t(70)), 0);
  CHECK_EQ(fn::BitwiseLeftShift()(int64_t(3), int64_t(-1)), 0);
  CHECK_EQ(fn::BitwiseRightShift()(int8_t(-8), int8_t(9)), -1);
  CHECK_EQ(fn::BitwiseRightShift()(uint8_t(200), uint8_t(3)), 25);
  CHECK_EQ(fn::BitwiseAnd()(int32_t(12), int32_t(10)), 8);
  CHECK_EQ(fn::BitwiseXor()(true, true), false);
  CHECK_EQ(fn::BitwiseNot()(int16_t(0)), -1);
  CHECK_EQ(fn::BitwiseNot()(true), false);
}
