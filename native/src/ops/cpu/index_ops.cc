// gather, scatter, scatterAdd and scatterReduce on cpu
// (ops/common/index_kernels.h): the index's elements split over the thread
// pool, except scatterAdd and scatterReduce, whose targets may repeat and
// which therefore run on one thread (in index order, as PyTorch's do).
#include "ops/common/index_kernels.h"
#include "ops/common/strided_walker.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

struct CpuIndex {
  static constexpr DtypeSet kAtomicAddDtypes = kNumericDtypes;
  template <int N, typename F>
  static void forEach(const OpCall& call, const IterPlan& plan, bool parallel, const F& f) {
    auto body = [&](int64_t b, int64_t e) {
      call.checkInterrupt();
      walkElements<N>(plan, b, e, [&](const int64_t* off) { f(off); });
    };
    if (parallel) parallel_for(0, plan.numel, 32768, body);
    else body(0, plan.numel);
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_INDEX_KERNELS(TSGPU_REGISTER_CPU, CpuIndex)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
