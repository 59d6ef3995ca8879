// One functor per elementwise unary op, shared by the CPU and CUDA kernels.
// `T` is the compute type: float for float32/float16/bfloat16, double for
// float64, the integer type itself for integer ops. Attributes (softplus's
// beta, gelu's approximation, clamp's bounds) are members set by the kernel.
#pragma once

#include <type_traits>

#include "ops/common/scalar_math.h"

namespace tsgpu {
namespace ops {
namespace fn {

#define TSGPU_UNARY_FUNCTOR(Name, expr)                 \
  struct Name {                                         \
    template <typename T>                               \
    TSGPU_HD T operator()(T x) const {                  \
      return expr;                                      \
    }                                                   \
  };

TSGPU_UNARY_FUNCTOR(Neg, static_cast<T>(-x))
TSGPU_UNARY_FUNCTOR(Abs, x < T(0) ? static_cast<T>(-x) : x)
// sign(NaN) is 0, as PyTorch's.
TSGPU_UNARY_FUNCTOR(Sign, sm::isNan(x) ? T(0) : static_cast<T>((T(0) < x) - (x < T(0))))
TSGPU_UNARY_FUNCTOR(Exp, sm::exp(x))
TSGPU_UNARY_FUNCTOR(Expm1, sm::expm1(x))
TSGPU_UNARY_FUNCTOR(Log, sm::log(x))
TSGPU_UNARY_FUNCTOR(Log1p, sm::log1p(x))
TSGPU_UNARY_FUNCTOR(Log2, sm::log2(x))
TSGPU_UNARY_FUNCTOR(Sqrt, sm::sqrt(x))
TSGPU_UNARY_FUNCTOR(Rsqrt, T(1) / sm::sqrt(x))
TSGPU_UNARY_FUNCTOR(Reciprocal, T(1) / x)
TSGPU_UNARY_FUNCTOR(Square, x * x)
TSGPU_UNARY_FUNCTOR(Sin, sm::sin(x))
TSGPU_UNARY_FUNCTOR(Cos, sm::cos(x))
TSGPU_UNARY_FUNCTOR(Tanh, sm::tanh(x))
TSGPU_UNARY_FUNCTOR(Tan, sm::tan(x))
TSGPU_UNARY_FUNCTOR(Asin, sm::asin(x))
TSGPU_UNARY_FUNCTOR(Acos, sm::acos(x))
TSGPU_UNARY_FUNCTOR(Atan, sm::atan(x))
TSGPU_UNARY_FUNCTOR(Sinh, sm::sinh(x))
TSGPU_UNARY_FUNCTOR(Cosh, sm::cosh(x))
TSGPU_UNARY_FUNCTOR(Asinh, sm::asinh(x))
TSGPU_UNARY_FUNCTOR(Acosh, sm::acosh(x))
TSGPU_UNARY_FUNCTOR(Atanh, sm::atanh(x))
TSGPU_UNARY_FUNCTOR(Log10, sm::log10(x))
TSGPU_UNARY_FUNCTOR(Exp2, sm::exp2(x))
TSGPU_UNARY_FUNCTOR(Erf, sm::erf(x))
TSGPU_UNARY_FUNCTOR(Erfc, sm::erfc(x))
TSGPU_UNARY_FUNCTOR(Erfinv, sm::erfinv(x))
TSGPU_UNARY_FUNCTOR(Sigmoid, T(1) / (T(1) + sm::exp(-x)))
// relu keeps NaN, as PyTorch's clamp_min(0) does.
TSGPU_UNARY_FUNCTOR(Relu, (sm::isNan(x) || x > T(0)) ? x : T(0))
TSGPU_UNARY_FUNCTOR(Silu, x / (T(1) + sm::exp(-x)))
TSGPU_UNARY_FUNCTOR(GeluExact, static_cast<T>(0.5) * x * (T(1) + sm::erf(x * static_cast<T>(0.70710678118654752440))))
TSGPU_UNARY_FUNCTOR(GeluTanh, static_cast<T>(0.5) * x *
                                  (T(1) + sm::tanh(static_cast<T>(0.79788456080286535588) *
                                                   (x + static_cast<T>(0.044715) * x * x * x))))
#undef TSGPU_UNARY_FUNCTOR

/** ~x for integers, !x for bool. */
struct BitwiseNot {
  template <typename T>
  TSGPU_HD T operator()(T x) const {
    if constexpr (std::is_same<T, bool>::value) return !x;
    else return static_cast<T>(~x);
  }
};

// Rounding ops; identities on integers. Round is half to even, as torch.round.
#define TSGPU_ROUNDING_FUNCTOR(Name, f)                              \
  struct Name {                                                      \
    template <typename T>                                            \
    TSGPU_HD T operator()(T x) const {                               \
      if constexpr (std::is_integral<T>::value) return x;            \
      else return sm::f(x);                                          \
    }                                                                \
  };
TSGPU_ROUNDING_FUNCTOR(Floor, floor)
TSGPU_ROUNDING_FUNCTOR(Ceil, ceil)
TSGPU_ROUNDING_FUNCTOR(Trunc, trunc)
TSGPU_ROUNDING_FUNCTOR(Round, rint)
#undef TSGPU_ROUNDING_FUNCTOR

/** Logical not: the result is bool whatever the input dtype. */
struct LogicalNot {
  template <typename T>
  TSGPU_HD bool operator()(T x) const {
    return !static_cast<bool>(x);
  }
};

/** softplus(x) = log(1 + exp(beta x)) / beta, linear above `threshold` (in units of beta x). */
struct Softplus {
  double beta = 1.0;
  double threshold = 20.0;
  template <typename T>
  TSGPU_HD T operator()(T x) const {
    const T bx = x * static_cast<T>(beta);
    return bx > static_cast<T>(threshold) ? x : sm::log1p(sm::exp(bx)) / static_cast<T>(beta);
  }
};

/** leakyRelu(x) = x for x > 0, else negativeSlope * x; NaN stays NaN. T is the compute type. */
template <typename T>
struct LeakyRelu {
  T negativeSlope = T(0.01);
  // One multiply by a chosen factor (x * 1 is x exactly; NaN stays NaN): a select between two constants
  // vectorizes, where a multiply in one arm of the choice (which may raise a floating-point flag) does not.
  TSGPU_HD T operator()(T x) const { return x * (x > T(0) ? T(1) : negativeSlope); }
};

/** clamp(x, lo, hi) = min(max(x, lo), hi); NaN stays NaN; a missing bound is the type's limit. */
template <typename T>
struct Clamp {
  T lo = sm::Limits<T>::lowest();
  T hi = sm::Limits<T>::highest();
  TSGPU_HD T operator()(T x) const {
    if (sm::isNan(x)) return x;
    const T r = x < lo ? lo : x;
    return r > hi ? hi : r;
  }
};

/** logit(x) = log(c / (1 - c)), c = bounds(x) (PyTorch's eps: [eps, 1 - eps]; unbounded by default); NaN stays NaN. T is the compute type. */
template <typename T>
struct Logit {
  Clamp<T> bounds;
  TSGPU_HD T operator()(T x) const {
    const T c = bounds(x);
    return sm::log(c / (T(1) - c));
  }
};


}  // namespace fn
}  // namespace ops
}  // namespace tsgpu
