// batchNormForward / batchNormBackward on cpu (ops/common/batch_norm_kernels.h):
// channels split over the thread pool; each channel's sums in double (two
// passes for the statistics: the mean, then the squared deviations from it),
// then one pass writing out (x * alpha + beta) or gradInput.
#include <cmath>

#include "ops/common/batch_norm_kernels.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

/** Calls f(run, length) for each of channel c's runs of elements (offsets into a [N, C, inner] tensor). */
template <typename F>
inline void forChannelRuns(const BnGeometry& g, int64_t c, F&& f) {
  for (int64_t n = 0; n < g.outer; ++n) f((n * g.channels + c) * g.inner, g.inner);
}

template <typename T>
inline double asDouble(T v) {
  return static_cast<double>(static_cast<OpMathType<T>>(v));
}

/** Channels a chunk of the pool, about 64K elements each. */
inline int64_t channelGrain(const BnGeometry& g) {
  const int64_t per = g.count() > 0 ? g.count() : 1;
  return per >= 65536 ? 1 : 65536 / per;
}

struct CpuBatchNorm {
  template <typename T, typename P>
  static void forward(const OpCall& call, const BnForward<T, P>& a) {
    using S = BnStat<T>;
    using M = OpMathType<T>;
    const BnGeometry g = a.g;
    const int64_t count = g.count();
    parallel_for(0, g.channels, channelGrain(g), [&](int64_t c0, int64_t c1) {
      call.checkInterrupt();
      for (int64_t c = c0; c < c1; ++c) {
        double mean, invstd;
        if (a.training) {
          double sum = 0;
          forChannelRuns(g, c, [&](int64_t o, int64_t len) {
            for (int64_t i = 0; i < len; ++i) sum += asDouble(a.x[o + i]);
          });
          mean = sum / static_cast<double>(count);
          double sq = 0;
          forChannelRuns(g, c, [&](int64_t o, int64_t len) {
            for (int64_t i = 0; i < len; ++i) {
              const double d = asDouble(a.x[o + i]) - mean;
              sq += d * d;
            }
          });
          const double var = sq / static_cast<double>(count);
          invstd = 1.0 / std::sqrt(var + a.eps);
          bnUpdateRunning<P, double>(a.runMean, a.runVar, c, mean, var, count, a.momentum);
        } else {
          mean = asDouble(a.runMean[c]);
          invstd = 1.0 / std::sqrt(asDouble(a.runVar[c]) + a.eps);
        }
        a.mean[c] = static_cast<S>(mean);
        a.invstd[c] = static_cast<S>(invstd);
        const double w = a.w ? asDouble(a.w[c]) : 1.0;
        const double b = a.b ? asDouble(a.b[c]) : 0.0;
        const M alpha = static_cast<M>(invstd * w);
        const M beta = static_cast<M>(b - mean * invstd * w);
        forChannelRuns(g, c, [&](int64_t o, int64_t len) {
          const T* xr = a.x + o;
          T* yr = a.y + o;
          for (int64_t i = 0; i < len; ++i) yr[i] = static_cast<T>(static_cast<M>(xr[i]) * alpha + beta);
        });
      }
    });
  }

  template <typename T, typename P>
  static void backward(const OpCall& call, const BnBackward<T, P>& a) {
    using S = BnStat<T>;
    using M = OpMathType<T>;
    const BnGeometry g = a.g;
    const int64_t count = g.count();
    parallel_for(0, g.channels, channelGrain(g), [&](int64_t c0, int64_t c1) {
      call.checkInterrupt();
      for (int64_t c = c0; c < c1; ++c) {
        const double mean = static_cast<double>(a.mean[c]);
        const double invstd = static_cast<double>(a.invstd[c]);
        double sumDy = 0, dot = 0;
        forChannelRuns(g, c, [&](int64_t o, int64_t len) {
          for (int64_t i = 0; i < len; ++i) {
            const double d = asDouble(a.dy[o + i]);
            sumDy += d;
            dot += d * (asDouble(a.x[o + i]) - mean);
          }
        });
        a.db[c] = static_cast<S>(sumDy);
        a.dw[c] = static_cast<S>(dot * invstd);
        if (!a.dx) continue;
        const double w = a.w ? asDouble(a.w[c]) : 1.0;
        const M scale = static_cast<M>(invstd * w);
        if (a.training && count > 0) {
          // dx = w * invstd * (dy - mean(dy) - (x - mean) * invstd^2 * mean(dy * (x - mean))).
          const M k = static_cast<M>(dot / static_cast<double>(count) * invstd * invstd);
          const M gm = static_cast<M>(sumDy / static_cast<double>(count));
          const M mu = static_cast<M>(mean);
          forChannelRuns(g, c, [&](int64_t o, int64_t len) {
            for (int64_t i = 0; i < len; ++i) {
              const M xv = static_cast<M>(a.x[o + i]);
              a.dx[o + i] = static_cast<T>((static_cast<M>(a.dy[o + i]) - gm - (xv - mu) * k) * scale);
            }
          });
        } else {
          forChannelRuns(g, c, [&](int64_t o, int64_t len) {
            for (int64_t i = 0; i < len; ++i) a.dx[o + i] = static_cast<T>(static_cast<M>(a.dy[o + i]) * scale);
          });
        }
      }
    });
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_BATCH_NORM_KERNELS(TSGPU_REGISTER_CPU, CpuBatchNorm)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
