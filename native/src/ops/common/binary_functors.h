// Functors for elementwise ops of two or three inputs, shared by the CPU and
// CUDA kernels. `T` is the compute type (see unary_functors.h). Integer and
// floating behaviour follow PyTorch: floor division and remainder take the
// sign of the divisor, maximum/minimum propagate NaN.
//
// Integer division by zero (DivTrunc, DivFloor, Remainder) gives 0. The CPU
// ops refuse it before running, as PyTorch's do (ops/math.ts); on CUDA,
// where checking would wait for the device, PyTorch documents the result as
// undefined ("may return any value"; its kernels return the hardware's
// all-ones patterns, e.g. -1 for int32 and 4294967295 for int64); the
// zero-divisor guards proposed for those kernels (PyTorch pull requests
// 178016 and 180781) give 0 as well. 0 is the same for every dtype and path.
#pragma once

#include <type_traits>

#include "ops/common/scalar_math.h"

namespace tsgpu {
namespace ops {
namespace fn {

/** a + alpha * b (alpha = 1 by default). */
template <typename T>
struct Add {
  T alpha = T(1);
  TSGPU_HD T operator()(T a, T b) const { return a + alpha * b; }
};

/** a - alpha * b. */
template <typename T>
struct Sub {
  T alpha = T(1);
  TSGPU_HD T operator()(T a, T b) const { return a - alpha * b; }
};

struct Mul {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a && b;
    else return static_cast<T>(a * b);
  }
};

/** True division (floating types only: integer inputs are promoted first). */
struct Div {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    return a / b;
  }
};

/** Division rounded toward zero (roundingMode "trunc"). */
struct DivTrunc {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return b == T(0) ? T(0) : static_cast<T>(a / b);
    } else {
      return sm::trunc(a / b);
    }
  }
};

/** Division rounded toward -inf (roundingMode "floor"), Python's //. */
struct DivFloor {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      if (b == T(0)) return T(0);
      T q = static_cast<T>(a / b);
      if (std::is_signed<T>::value && (a % b != 0) && ((a < T(0)) != (b < T(0)))) --q;
      return q;
    } else {
      if (b == T(0)) return a / b;
      const T mod = sm::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return sm::copysign(T(0), a / b);
      const T fl = sm::floor(div);
      return (div - fl > static_cast<T>(0.5)) ? fl + T(1) : fl;
    }
  }
};

/** Python-style modulus: the result has the sign of b. */
struct Remainder {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      if (b == T(0)) return T(0);
      T r = static_cast<T>(a % b);
      if (std::is_signed<T>::value && r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
      return r;
    } else {
      T r = sm::fmod(a, b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
      return r;
    }
  }
};

/** a ** b; integers by repeated squaring (negative exponents give 0 unless |a| == 1). */
struct Pow {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      if (std::is_signed<T>::value && b < T(0)) {
        if (a == T(1)) return T(1);
        if (a == static_cast<T>(-1)) return (b % 2 == 0) ? T(1) : static_cast<T>(-1);
        return T(0);
      }
      T result = T(1), base = a;
      for (T e = b; e != T(0); e = static_cast<T>(e >> 1)) {
        if (e & T(1)) result = static_cast<T>(result * base);
        base = static_cast<T>(base * base);
      }
      return result;
    } else {
      return sm::pow(a, b);
    }
  }
};

/**
 * C's fmod: the remainder of truncated division, with the sign of a. Integer
 * division by zero gives 0 (see the top of this file).
 */
struct Fmod {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      if (b == T(0)) return T(0);
      return static_cast<T>(a % b);
    } else {
      return sm::fmod(a, b);
    }
  }
};

/** atan2(a, b): the angle of the point (b, a). */
struct Atan2 {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const { return sm::atan2(a, b); }
};

/** sqrt(a^2 + b^2) without overflow in between. */
struct Hypot {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const { return sm::hypot(a, b); }
};

/** |a| with the sign of b (-0.0 and NaN's sign bits count). */
struct Copysign {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const { return sm::copysign(a, b); }
};

#define TSGPU_BITWISE_FUNCTOR(Name, op, boolExpr)                         \
  struct Name {                                                          \
    template <typename T>                                                \
    TSGPU_HD T operator()(T a, T b) const {                              \
      if constexpr (std::is_same<T, bool>::value) return boolExpr;       \
      else return static_cast<T>(a op b);                                \
    }                                                                    \
  };
TSGPU_BITWISE_FUNCTOR(BitwiseAnd, &, a && b)
TSGPU_BITWISE_FUNCTOR(BitwiseOr, |, a || b)
TSGPU_BITWISE_FUNCTOR(BitwiseXor, ^, a != b)
#undef TSGPU_BITWISE_FUNCTOR

/** a << b as PyTorch's: 0 when b is negative or at least the width of T. */
struct BitwiseLeftShift {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    using U = typename std::make_unsigned<T>::type;
    if (b < T(0) || static_cast<int64_t>(b) >= static_cast<int64_t>(sizeof(T) * 8)) return T(0);
    return static_cast<T>(static_cast<U>(a) << static_cast<int>(b));
  }
};

/** a >> b (arithmetic for signed types) as PyTorch's: the sign fill when b is negative or too large. */
struct BitwiseRightShift {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    constexpr int bits = static_cast<int>(sizeof(T) * 8);
    if (b < T(0) || static_cast<int64_t>(b) >= bits) {
      if constexpr (std::is_signed<T>::value) return a < T(0) ? static_cast<T>(-1) : T(0);
      else return T(0);
    }
    return static_cast<T>(a >> static_cast<int>(b));
  }
};

struct Maximum {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if (sm::isNan(a)) return a;
    if (sm::isNan(b)) return b;
    return a > b ? a : b;
  }
};

struct Minimum {
  template <typename T>
  TSGPU_HD T operator()(T a, T b) const {
    if (sm::isNan(a)) return a;
    if (sm::isNan(b)) return b;
    return a < b ? a : b;
  }
};

#define TSGPU_BOOL_FUNCTOR(Name, expr)        \
  struct Name {                               \
    template <typename T>                     \
    TSGPU_HD bool operator()(T a, T b) const { \
      return expr;                            \
    }                                         \
  };
TSGPU_BOOL_FUNCTOR(Eq, a == b)
TSGPU_BOOL_FUNCTOR(Ne, a != b)
TSGPU_BOOL_FUNCTOR(Lt, a < b)
TSGPU_BOOL_FUNCTOR(Le, a <= b)
TSGPU_BOOL_FUNCTOR(Gt, a > b)
TSGPU_BOOL_FUNCTOR(Ge, a >= b)
TSGPU_BOOL_FUNCTOR(LogicalAnd, static_cast<bool>(a) && static_cast<bool>(b))
TSGPU_BOOL_FUNCTOR(LogicalOr, static_cast<bool>(a) || static_cast<bool>(b))
TSGPU_BOOL_FUNCTOR(LogicalXor, static_cast<bool>(a) != static_cast<bool>(b))
#undef TSGPU_BOOL_FUNCTOR

/** where(cond, a, b). */
struct Where {
  template <typename T>
  TSGPU_HD T operator()(bool cond, T a, T b) const {
    return cond ? a : b;
  }
};

/** lerp(start, end, weight) with PyTorch's two-sided formula (exact at both ends). */
struct Lerp {
  template <typename T>
  TSGPU_HD T operator()(T start, T end, T weight) const {
    const T diff = end - start;
    return (weight < static_cast<T>(0.5)) ? start + weight * diff : end - diff * (T(1) - weight);
  }
};

/** self + value * t1 * t2. */
template <typename T>
struct Addcmul {
  T value = T(1);
  TSGPU_HD T operator()(T self, T t1, T t2) const { return self + value * t1 * t2; }
};

/** self + value * t1 / t2. */
template <typename T>
struct Addcdiv {
  T value = T(1);
  TSGPU_HD T operator()(T self, T t1, T t2) const { return self + value * (t1 / t2); }
};

/** clamp with tensor bounds: min(max(x, lo), hi), NaN in x stays NaN. */
struct ClampTensor {
  template <typename T>
  TSGPU_HD T operator()(T x, T lo, T hi) const {
    if (sm::isNan(x)) return x;
    const T r = x < lo ? lo : x;
    return r > hi ? hi : r;
  }
};

}  // namespace fn
}  // namespace ops
}  // namespace tsgpu
