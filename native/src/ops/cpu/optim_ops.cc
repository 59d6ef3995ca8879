// adamStep and sgdStep on cpu (ops/common/optim_kernels.h): each parameter's
// elements split over the thread pool, every list read and written once.
#include "ops/common/optim_kernels.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

struct CpuOptim {
  template <typename T, int D, typename F>
  static void apply(const OpCall& call, const MultiTensor<T, D>& mt, const F& f) {
    using A = OptimAcc<T>;
    using M = OpMathType<T>;
    for (size_t k = 0; k < mt.numel.size(); ++k) {
      T* ptrs[D];
      for (int l = 0; l < D; ++l) ptrs[l] = mt.lists[l][k];
      parallel_for(0, mt.numel[k], 32768, [&](int64_t i0, int64_t i1) {
        call.checkInterrupt();
        for (int64_t i = i0; i < i1; ++i) {
          A v[D];
          for (int l = 0; l < D; ++l) v[l] = static_cast<A>(static_cast<M>(ptrs[l][i]));
          f(v);
          for (int l = 0; l < D; ++l)
            if (l != 1) ptrs[l][i] = static_cast<T>(static_cast<M>(v[l]));  // list 1 (the gradients) is read only
        }
      });
    }
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_OPTIM_KERNELS(TSGPU_REGISTER_CPU, CpuOptim)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
