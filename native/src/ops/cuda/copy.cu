// copy on CUDA: out <- src with dtype conversion and any strides; a plain
// device-to-device copy when both are contiguous of one dtype. Queued on
// the call's stream.
#include "base/errors.h"
#include "ops/cuda/launch.h"
#include "ops/view_index.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

template <typename To, typename From>
__global__ void copyKernel(TensorView out, TensorView src, int64_t n, bool outDense, bool srcDense) {
  To* o = out.data<To>();
  const From* s = src.data<From>();
  TSGPU_GRID_STRIDE(i, n) {
    const int64_t so = srcDense ? i : viewindex::offsetOf(src, i);
    const int64_t oo = outDense ? i : viewindex::offsetOf(out, i);
    o[oo] = castValue<To>(s[so]);
  }
}

constexpr int kDenseUnroll = 4;  // elements a thread converts per pass, all loaded before any is stored

/** Both contiguous (a cast): kDenseUnroll elements a thread, a block width apart, loads before stores. */
template <typename To, typename From>
__global__ void denseCopyKernel(To* o, const From* s, int64_t n) {
  const int64_t width = blockDim.x;
  const int64_t step = static_cast<int64_t>(gridDim.x) * width * kDenseUnroll;
  for (int64_t base = blockIdx.x * width * kDenseUnroll + threadIdx.x; base < n; base += step) {
    To r[kDenseUnroll];
#pragma unroll
    for (int j = 0; j < kDenseUnroll; ++j)
      if (base + j * width < n) r[j] = castValue<To>(s[base + j * width]);
#pragma unroll
    for (int j = 0; j < kDenseUnroll; ++j)
      if (base + j * width < n) o[base + j * width] = r[j];
  }
}

void copyCuda(OpCall& call) {
  TensorView& out = call.out(0);
  const TensorView& src = call.in(0);
  if (out.numel() != src.numel() || out.ndim != src.ndim)
    throw ArgumentError(std::string("copy: source has ") + std::to_string(src.numel()) + " elements in " +
                        std::to_string(src.ndim) + " dims, destination " + std::to_string(out.numel()) + " in " +
                        std::to_string(out.ndim));
  const int64_t n = out.numel();
  if (n == 0) return;
  cudaStream_t stream = cudalaunch::streamOf(call.stream);
  if (out.dtype == src.dtype && out.isContiguous() && src.isContiguous()) {
    TSGPU_CUDA_CHECK(cudaMemcpyAsync(out.data(), src.data(), static_cast<size_t>(n) * out.elementSize(),
                                     cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const bool dense = out.isContiguous() && src.isContiguous();
  visitDType(out.dtype, [&](auto to) {
    visitDType(src.dtype, [&](auto from) {
      using To = decltype(to);
      using From = decltype(from);
      if (dense) {
        denseCopyKernel<To, From><<<cudalaunch::blocksFor((n + kDenseUnroll - 1) / kDenseUnroll), cudalaunch::kThreads,
                                    0, stream>>>(out.data<To>(), src.data<From>(), n);
        return;
      }
      copyKernel<decltype(to), decltype(from)><<<cudalaunch::blocksFor(n), cudalaunch::kThreads, 0, stream>>>(
          out, src, n, out.isContiguous(), src.isContiguous());
    });
  });
  TSGPU_CUDA_CHECK_LAUNCH();
}

}  // namespace

TSGPU_REGISTER_KERNEL(copy, kCuda, copyCuda);

}  // namespace tsgpu
