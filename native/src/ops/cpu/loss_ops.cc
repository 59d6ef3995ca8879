// The fused cross entropy (forward and backward) and the softmax /
// logSoftmax backward on cpu (ops/common/loss_kernels.h): rows split over the
// thread pool. The forward reads each row once for its maximum, once for the
// sum of exponentials and the sums the smoothing needs; the backward reads it
// once and writes the gradient.
#include <cmath>

#include "ops/common/loss_kernels.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

/** Rows of n elements a chunk of the pool takes at least (about 16K elements). */
int64_t rowGrain(int64_t n) { return n >= 16384 ? 1 : 16384 / n; }

/** Throws PyTorch's error for a target outside [0, C) that is not ignoreIndex (checked before any row runs). */
template <typename T>
void checkTargets(const OpCall& call, const CeArgs<T>& a) {
  for (int64_t r = 0; r < a.rows; ++r) {
    const int64_t y = a.target[r];
    if (y != a.ignoreIndex && (y < 0 || y >= a.classes))
      throw ArgumentError(std::string(call.name()) + ": Target " + std::to_string(y) + " is out of bounds (expected 0 <= target < " +
                          std::to_string(a.classes) + " or ignoreIndex " + std::to_string(a.ignoreIndex) + ")");
  }
}

/** Σ_c w_c (C without weights). */
template <typename T>
LossAcc<T> weightTotal(const CeArgs<T>& a) {
  using A = LossAcc<T>;
  if (!a.weight) return static_cast<A>(a.classes);
  A s = 0;
  for (int64_t c = 0; c < a.classes; ++c) s += static_cast<A>(static_cast<OpMathType<T>>(a.weight[c]));
  return s;
}

struct CpuLoss {
  template <typename T>
  static void crossEntropy(const OpCall& call, const CeArgs<T>& a) {
    using A = LossAcc<T>;
    using M = OpMathType<T>;
    checkTargets(call, a);
    const int64_t n = a.classes;
    const A wsum = weightTotal(a);
    const auto val = [](T v) { return static_cast<A>(static_cast<M>(v)); };
    parallel_for(0, a.rows, rowGrain(n), [&](int64_t r0, int64_t r1) {
      call.checkInterrupt();
      for (int64_t r = r0; r < r1; ++r) {
        const T* x = a.x + r * n;
        A mx = -INFINITY;
        for (int64_t c = 0; c < n; ++c) {
          const A v = val(x[c]);
          if (std::isnan(v) || v > mx) mx = v;
        }
        const A shift = std::isinf(mx) ? A(0) : mx;  // all -inf rows: lse = -inf, as PyTorch's
        A se = 0, sx = 0;
        for (int64_t c = 0; c < n; ++c) {
          const A v = val(x[c]);
          se += std::exp(v - shift);
          if (a.smoothing > 0) sx += a.weight ? val(a.weight[c]) * v : v;
        }
        const A lse = shift + std::log(se);
        a.lse[r] = lse;
        const int64_t y = a.target[r];
        if (y == a.ignoreIndex) {
          a.loss[r] = 0;
          continue;
        }
        const A wy = a.weight ? val(a.weight[y]) : A(1);
        A loss = (A(1) - a.smoothing) * wy * (lse - val(x[y]));
        if (a.smoothing > 0) loss += a.smoothing / static_cast<A>(n) * (wsum * lse - sx);
        a.loss[r] = loss;
      }
    });
  }

  template <typename T>
  static void crossEntropyGrad(const OpCall& call, const CeArgs<T>& a, const LossAcc<T>* gradLoss, T* out) {
    using A = LossAcc<T>;
    using M = OpMathType<T>;
    checkTargets(call, a);
    const int64_t n = a.classes;
    const A wsum = weightTotal(a);
    const A eps = a.smoothing, perClass = a.smoothing / static_cast<A>(n);
    const auto val = [](T v) { return static_cast<A>(static_cast<M>(v)); };
    parallel_for(0, a.rows, rowGrain(n), [&](int64_t r0, int64_t r1) {
      call.checkInterrupt();
      for (int64_t r = r0; r < r1; ++r) {
        const T* x = a.x + r * n;
        T* g = out + r * n;
        const int64_t y = a.target[r];
        if (y == a.ignoreIndex) {
          for (int64_t c = 0; c < n; ++c) g[c] = static_cast<T>(M(0));
          continue;
        }
        const A go = gradLoss[r], lse = a.lse[r];
        const A wy = a.weight ? val(a.weight[y]) : A(1);
        const A pScale = go * ((A(1) - eps) * wy + perClass * wsum);
        for (int64_t c = 0; c < n; ++c) {
          A d = pScale * std::exp(val(x[c]) - lse);
          if (eps > 0) d -= go * perClass * (a.weight ? val(a.weight[c]) : A(1));
          if (c == y) d -= go * (A(1) - eps) * wy;
          g[c] = static_cast<T>(static_cast<M>(d));
        }
      }
    });
  }

  template <typename T, bool Log>
  static void softmaxGrad(const OpCall& call, int64_t rows, int64_t n, const T* grad, const T* y, T* out) {
    using A = LossAcc<T>;
    using M = OpMathType<T>;
    const auto val = [](T v) { return static_cast<A>(static_cast<M>(v)); };
    parallel_for(0, rows, rowGrain(n), [&](int64_t r0, int64_t r1) {
      call.checkInterrupt();
      for (int64_t r = r0; r < r1; ++r) {
        const T* g = grad + r * n;
        const T* yr = y + r * n;
        T* o = out + r * n;
        A s = 0;
        for (int64_t c = 0; c < n; ++c) s += Log ? val(g[c]) : val(g[c]) * val(yr[c]);
        for (int64_t c = 0; c < n; ++c) {
          const A d = Log ? val(g[c]) - std::exp(val(yr[c])) * s : val(yr[c]) * (val(g[c]) - s);
          o[c] = static_cast<T>(static_cast<M>(d));
        }
      }
    });
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_LOSS_KERNELS(TSGPU_REGISTER_CPU, CpuLoss)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
