// layerNorm and rmsNorm on cpu (ops/common/norm_kernels.h): rows split over
// the thread pool; two passes for the statistics, one to write (and
// layerNorm's mean and rstd of each row).
#include <cmath>

#include "ops/common/norm_kernels.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

struct CpuNorm {
  template <typename T, bool Rms>
  static void rows(const OpCall& call, int64_t rows, int64_t n, const T* x, const T* w, const T* b, T* y, double eps,
                   NormStat<T>* meanOut, NormStat<T>* rstdOut) {
    using M = OpMathType<T>;
    using S = NormStat<T>;
    const int64_t grain = n >= 16384 ? 1 : 16384 / n;
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      call.checkInterrupt();
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x + r * n;
        T* yr = y + r * n;
        S mean = 0, sq = 0;
        if (!Rms) {
          for (int64_t j = 0; j < n; ++j) mean += static_cast<S>(static_cast<M>(xr[j]));
          mean /= static_cast<S>(n);
        }
        for (int64_t j = 0; j < n; ++j) {
          const S d = static_cast<S>(static_cast<M>(xr[j])) - mean;
          sq += d * d;
        }
        const S rstd = S(1) / std::sqrt(sq / static_cast<S>(n) + static_cast<S>(eps));
        if (meanOut) meanOut[r] = mean;
        if (rstdOut) rstdOut[r] = rstd;
        for (int64_t j = 0; j < n; ++j) {
          S v = (static_cast<S>(static_cast<M>(xr[j])) - mean) * rstd;
          if (w) v *= static_cast<S>(static_cast<M>(w[j]));
          if (b) v += static_cast<S>(static_cast<M>(b[j]));
          yr[j] = static_cast<T>(static_cast<M>(v));
        }
      }
    });
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_NORM_KERNELS(TSGPU_REGISTER_CPU, CpuNorm)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
