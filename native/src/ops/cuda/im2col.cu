// im2col and col2im on cuda (ops/common/im2col_kernels.h): one thread per
// output element in a grid-stride loop; col2im gathers (no atomics), so its
// sums are the cpu's. Queued on the call's stream.
#include "ops/common/dispatch.h"
#include "ops/common/im2col_kernels.h"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

template <typename T>
__global__ void im2colKernel(ColGeometry g, const T* x, T* out, T pad) {
  const int64_t n = g.colNumel();
  TSGPU_GRID_STRIDE(i, n) {
    const int64_t src = im2colSource(g, i);
    out[i] = src < 0 ? pad : x[src];
  }
}

template <typename T>
__global__ void col2imKernel(ColGeometry g, const T* col, T* out) {
  const int64_t n = g.imageNumel();
  TSGPU_GRID_STRIDE(i, n) { out[i] = static_cast<T>(col2imSum<T, OpMathType<T>>(g, col, i)); }
}

void im2colCuda(OpCall& call) {
  const ColGeometry g = colGeometry(call, true);
  const int64_t n = g.colNumel();
  if (n == 0) return;
  const double padValue = call.attrDouble("padValue");
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T pad = static_cast<T>(static_cast<OpMathType<T>>(padValue));
    im2colKernel<T><<<cuda::gridFor(n), cuda::kBlockThreads, 0, cuda::streamOf(call)>>>(
        g, call.in(0).template data<T>(), call.out(0).template data<T>(), pad);
  });
  cuda::checkLaunch(call);
}

void col2imCuda(OpCall& call) {
  const ColGeometry g = colGeometry(call, false);
  const int64_t n = g.imageNumel();
  if (n == 0) return;
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    col2imKernel<T><<<cuda::gridFor(n), cuda::kBlockThreads, 0, cuda::streamOf(call)>>>(
        g, call.in(0).template data<T>(), call.out(0).template data<T>());
  });
  cuda::checkLaunch(call);
}

}  // namespace

TSGPU_REGISTER_KERNEL(im2col, kCuda, im2colCuda);
TSGPU_REGISTER_KERNEL(col2im, kCuda, col2imCuda);

}  // namespace ops
}  // namespace tsgpu
