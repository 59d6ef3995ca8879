// cumprod, logcumsumexp, cummax and cummin on cpu (ops/common/scan_kernels.h):
// rows split over the thread pool, each scanned from its first element on.
#include "ops/common/scan_kernels.h"
#include "ops/common/strided_walker.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

struct CpuScan {
  template <typename Op>
  static void scan(const OpCall& call, const ScanPlan& p, typename Op::Out* out, int64_t* indices,
                   const typename Op::In* in) {
    using M = typename Op::M;
    const int64_t grain = p.len >= 4096 ? 1 : 4096 / (p.len > 0 ? p.len : 1);
    parallel_for(0, p.rows.numel, grain, [&](int64_t b, int64_t e) {
      call.checkInterrupt();
      walkElements<3>(p.rows, b, e, [&](const int64_t* off) {
        typename Op::S s = Op::identity();
        for (int64_t j = 0; j < p.len; ++j) {
          s = Op::combine(s, Op::lift(static_cast<M>(in[off[2] + j * p.inStride]), j));
          out[off[0] + j * p.outStride] = Op::value(s);
          if constexpr (Op::kIndices) indices[off[1] + j * p.indexStride] = Op::index(s);
        }
      });
    });
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_SCAN_KERNELS(TSGPU_REGISTER_CPU, CpuScan)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
