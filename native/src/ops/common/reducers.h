// Reduction functors shared by the CPU and CUDA reduce engines. A reducer
// has an accumulator type Acc and
//   init()                 the identity
//   step(acc, x, index)    folds element x (compute type) found at linear
//                          index `index` of the reduced elements
//   combine(a, b)          merges two partial results, `a` covering the
//                          earlier indices (ties keep a's index)
//   result(acc, count)     the value written to the output
//   index(acc)             (arg-reducers only) the index written to `indices`
// Floating inputs accumulate in double, integers in int64 (PyTorch's sum of
// integers is int64; the op's TypeScript function picks the output dtype).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/common/scalar_math.h"

namespace tsgpu {
namespace ops {
namespace red {

/** double for floating compute types, int64 for integers and bool. */
template <typename M>
using AccOf = typename std::conditional<std::is_floating_point<M>::value, double, int64_t>::type;

template <typename M>
struct Sum {
  using Acc = AccOf<M>;
  TSGPU_HD Acc init() const { return Acc(0); }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const { return a + static_cast<Acc>(x); }
  TSGPU_HD Acc combine(Acc a, Acc b) const { return a + b; }
  TSGPU_HD Acc result(Acc a, int64_t) const { return a; }
};

template <typename M>
struct Mean : Sum<M> {
  using Acc = AccOf<M>;
  TSGPU_HD double result(Acc a, int64_t n) const { return static_cast<double>(a) / static_cast<double>(n); }
};

template <typename M>
struct Prod {
  using Acc = AccOf<M>;
  TSGPU_HD Acc init() const { return Acc(1); }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const { return a * static_cast<Acc>(x); }
  TSGPU_HD Acc combine(Acc a, Acc b) const { return a * b; }
  TSGPU_HD Acc result(Acc a, int64_t) const { return a; }
};

/** amax / amin (IsMax picks which); NaN wins, as in PyTorch. */
template <typename M, bool IsMax>
struct Extreme {
  using Acc = M;
  TSGPU_HD Acc init() const { return IsMax ? sm::Limits<M>::lowest() : sm::Limits<M>::highest(); }
  TSGPU_HD Acc combine(Acc a, Acc b) const {
    if (sm::isNan(a)) return a;
    if (sm::isNan(b)) return b;
    return IsMax ? (b > a ? b : a) : (b < a ? b : a);
  }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const { return combine(a, x); }
  TSGPU_HD Acc result(Acc a, int64_t) const { return a; }
};

/** all (IsAll) / any over truthiness. */
template <typename M, bool IsAll>
struct Logical {
  using Acc = bool;
  TSGPU_HD Acc init() const { return IsAll; }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const { return IsAll ? (a && static_cast<bool>(x)) : (a || static_cast<bool>(x)); }
  TSGPU_HD Acc combine(Acc a, Acc b) const { return IsAll ? (a && b) : (a || b); }
  TSGPU_HD Acc result(Acc a, int64_t) const { return a; }
};

/** A value and where it was found: max/min with indices, argmax/argmin. */
template <typename M>
struct ValueIndex {
  M value;
  int64_t index;
};

/** max/min with the index of the first extreme (first NaN when there is one), as PyTorch. */
template <typename M, bool IsMax>
struct ArgExtreme {
  using Acc = ValueIndex<M>;
  TSGPU_HD Acc init() const { return {IsMax ? sm::Limits<M>::lowest() : sm::Limits<M>::highest(), -1}; }
  TSGPU_HD static bool better(M x, M y) {  // x strictly beats y
    if (sm::isNan(x)) return !sm::isNan(y);
    if (sm::isNan(y)) return false;
    return IsMax ? x > y : x < y;
  }
  TSGPU_HD Acc combine(Acc a, Acc b) const {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    if (better(b.value, a.value)) return b;
    if (better(a.value, b.value)) return a;
    return b.index < a.index ? b : a;  // equal: the first occurrence
  }
  TSGPU_HD Acc step(Acc a, M x, int64_t i) const { return (a.index < 0 || better(x, a.value)) ? Acc{x, i} : a; }
  TSGPU_HD M result(Acc a, int64_t) const { return a.value; }
  TSGPU_HD int64_t index(Acc a) const { return a.index; }
};

/** Welford's running mean and sum of squared deviations (var / std with a correction). */
struct Moments {
  double mean;
  double m2;
  int64_t n;
};

template <typename M>
struct Variance {
  using Acc = Moments;
  double correction = 1;
  bool takeSqrt = false;
  TSGPU_HD Acc init() const { return {0.0, 0.0, 0}; }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const {
    const double v = static_cast<double>(x);
    const int64_t n = a.n + 1;
    const double delta = v - a.mean;
    const double mean = a.mean + delta / static_cast<double>(n);
    return {mean, a.m2 + delta * (v - mean), n};
  }
  TSGPU_HD Acc combine(Acc a, Acc b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const double delta = b.mean - a.mean;
    const double fb = static_cast<double>(b.n) / static_cast<double>(n);
    return {a.mean + delta * fb, a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * fb, n};
  }
  TSGPU_HD double result(Acc a, int64_t) const {
    const double denom = static_cast<double>(a.n) - correction;
    const double var = denom > 0 ? a.m2 / denom : (a.m2 / 0.0);  // PyTorch: nan (0/0) or inf
    return takeSqrt ? sm::sqrt(var) : var;
  }
};

/** p-norm: p = inf (max |x|), -inf (min |x|), 0 (count of nonzeros), else (sum |x|^p)^(1/p). */
template <typename M>
struct Norm {
  using Acc = double;
  double p = 2;
  TSGPU_HD Acc init() const { return p == -static_cast<double>(INFINITY) ? static_cast<double>(INFINITY) : 0.0; }
  TSGPU_HD Acc combine(Acc a, Acc b) const {
    if (p == static_cast<double>(INFINITY)) return (sm::isNan(a) || a > b) ? a : b;
    if (p == -static_cast<double>(INFINITY)) return (sm::isNan(a) || a < b) ? a : b;
    return a + b;
  }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const {
    const double v = sm::fabs(static_cast<double>(x));
    if (p == 0) return a + (v != 0 ? 1.0 : 0.0);
    if (p == 1) return a + v;
    if (p == 2) return a + v * v;
    if (p == static_cast<double>(INFINITY) || p == -static_cast<double>(INFINITY)) return combine(a, v);
    return a + sm::pow(v, p);
  }
  TSGPU_HD double result(Acc a, int64_t) const {
    if (p == 0 || p == 1 || p == static_cast<double>(INFINITY) || p == -static_cast<double>(INFINITY)) return a;
    if (p == 2) return sm::sqrt(a);
    return sm::pow(a, 1.0 / p);
  }
};

/** log(sum(exp(x))) with a running maximum (stable for large x). */
struct MaxSum {
  double max;
  double sum;
};

template <typename M>
struct LogSumExp {
  using Acc = MaxSum;
  TSGPU_HD Acc init() const { return {-static_cast<double>(INFINITY), 0.0}; }
  TSGPU_HD Acc combine(Acc a, Acc b) const {
    if (a.max == -static_cast<double>(INFINITY)) return b;
    if (b.max == -static_cast<double>(INFINITY)) return a;
    if (sm::isNan(a.max) || sm::isNan(b.max)) return {a.max + b.max, 0.0};
    const double m = a.max > b.max ? a.max : b.max;
    return {m, a.sum * sm::exp(a.max - m) + b.sum * sm::exp(b.max - m)};
  }
  TSGPU_HD Acc step(Acc a, M x, int64_t) const { return combine(a, {static_cast<double>(x), 1.0}); }
  TSGPU_HD double result(Acc a, int64_t) const {
    if (a.max == static_cast<double>(INFINITY)) return a.max;
    return a.max + sm::log(a.sum);
  }
};

}  // namespace red
}  // namespace ops
}  // namespace tsgpu
