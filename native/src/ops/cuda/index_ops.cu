// gather, scatter, scatterAdd and scatterReduce on cuda
// (ops/common/index_kernels.h): one thread per index element, offsets from
// OffsetCalc; scatterAdd and scatterReduce combine atomically on every dtype
// (ops/common/atomic_ops.h: hardware atomics where CUDA has them, a
// compare-and-swap loop otherwise). Queued on the call's stream.
#include "ops/common/index_kernels.h"
#include "ops/common/offset_calc.h"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

template <int N, typename F>
__global__ void forEachKernel(uint32_t n, OffsetCalc<N, uint32_t> calc, F f) {
  for (int64_t i = cuda::globalThread(); i < n; i += cuda::gridThreads()) {
    int64_t off[N];
    calc.get(static_cast<uint32_t>(i), off);
    f(off);
  }
}

struct CudaIndex {
  static constexpr DtypeSet kAtomicAddDtypes = kNumericDtypes;
  template <int N, typename F>
  static void forEach(const OpCall& call, const IterPlan& plan, bool, const F& f) {
    if (plan.numel == 0) return;
    if (!fitsIndex32(plan))
      throw ArgumentError(std::string(call.name()) + ": an index of 2^31 or more elements is not supported on cuda");
    forEachKernel<N><<<cuda::gridFor(plan.numel), cuda::kBlockThreads, 0, cuda::streamOf(call)>>>(
        static_cast<uint32_t>(plan.numel), OffsetCalc<N, uint32_t>(plan), f);
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_INDEX_KERNELS(TSGPU_REGISTER_CUDA, CudaIndex)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
