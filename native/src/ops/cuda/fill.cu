// fill and arange on CUDA (outputs may be strided views).
#include "ops/cuda/launch.cuh"
#include "ops/view_index.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

template <typename T>
__global__ void fillKernel(TensorView out, int64_t n, T value, bool dense) {
  T* o = out.data<T>();
  TSGPU_GRID_STRIDE(i, n) { o[dense ? i : viewindex::offsetOf(out, i)] = value; }
}

template <typename T>
__global__ void arangeKernel(TensorView out, int64_t n, double start, double step, bool dense) {
  T* o = out.data<T>();
  TSGPU_GRID_STRIDE(i, n) {
    // Rounded multiply and add, never a fused multiply-add: the values equal the CPU's bit for bit.
    o[dense ? i : viewindex::offsetOf(out, i)] = castValue<T>(__dadd_rn(start, __dmul_rn(step, static_cast<double>(i))));
  }
}

void fillCuda(OpCall& call) {
  const TensorView& out = call.out(0);
  const int64_t n = out.numel();
  if (n == 0) return;
  const double v = call.attrDouble("value");
  visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    fillKernel<T><<<ops::cuda::gridFor(n), ops::cuda::kBlockThreads, 0, ops::cuda::streamOf(call)>>>(
        out, n, castValue<T>(v), out.isContiguous());
  });
  ops::cuda::checkLaunch(call);
}

void arangeCuda(OpCall& call) {
  const TensorView& out = call.out(0);
  const int64_t n = out.numel();
  if (n == 0) return;
  const double start = call.attrDouble("start"), step = call.attrDouble("step");
  visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    arangeKernel<T><<<ops::cuda::gridFor(n), ops::cuda::kBlockThreads, 0, ops::cuda::streamOf(call)>>>(
        out, n, start, step, out.isContiguous());
  });
  ops::cuda::checkLaunch(call);
}

}  // namespace

TSGPU_REGISTER_KERNEL(fill, kCuda, fillCuda);
TSGPU_REGISTER_KERNEL(arange, kCuda, arangeCuda);

}  // namespace tsgpu
