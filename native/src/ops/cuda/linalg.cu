// The linear-algebra ops on CUDA: `gemm` through the CUDA gemm (cuBLAS or the
// built-in kernel) and `attention` (gemm for the scores, a masked softmax
// kernel with one block per row, gemm with V). Queued on call.stream.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <string>

#include "backends/cuda/cuda_check.h"
#include "base/errors.h"
#include "ops/common/attention_mask.h"
#include "ops/common/gemm_call.h"
#include "ops/gemm.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

void gemmOpCuda(OpCall& call) {
  const TensorView &a = call.in(0), &b = call.in(1);
  TensorView& out = call.out(0);
  gemm::checkGemmShapes(out, a, b, call.name());
  const int device = call.device.index;
  gemm::forEachGemm(out, a, b, call.attrDouble("alpha"), call.attrDouble("beta"), call.attrBool("allowTf32"),
                    call.name(), [&](const gemm::Problem& p) { gemm::gemmCuda(p, device, call.stream); });
}

constexpr int kSoftmaxThreads = 256;

template <typename M>
__device__ M blockReduce(M v, bool isMax, M* shared) {
  for (int o = 16; o > 0; o >>= 1) {
    const M other = __shfl_xor_sync(0xffffffffu, v, o);
    v = isMax ? (other > v ? other : v) : v + other;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kSoftmaxThreads / 32 ? shared[lane] : (isMax ? -static_cast<M>(INFINITY) : M(0));
    for (int o = 16; o > 0; o >>= 1) {
      const M other = __shfl_xor_sync(0xffffffffu, v, o);
      v = isMax ? (other > v ? other : v) : v + other;
    }
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  const M r = shared[0];
  __syncthreads();
  return r;
}

template <typename T>
__global__ void maskedSoftmaxKernel(T* w, int64_t rows, int64_t cols, int64_t rowsPerBatch, attention::MaskView mask,
                                    bool causal) {
  using M = OpMathType<T>;
  __shared__ M shared[kSoftmaxThreads / 32];
  const M ninf = -static_cast<M>(INFINITY);
  const int64_t maskCol = mask.present ? mask.strides[mask.ndim - 1] : 0;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    T* row = w + r * cols;
    const int64_t i = r % rowsPerBatch;
    const int64_t moff = mask.present ? attention::maskRowOffset(mask, r) : 0;
    auto value = [&](int64_t j) -> M {
      M v = static_cast<M>(row[j]);
      if (causal && j > i) return ninf;
      if (mask.present) {
        if (mask.isBool) {
          if (!static_cast<const bool*>(mask.data)[moff + j * maskCol]) return ninf;
        } else {
          v += static_cast<M>(static_cast<const T*>(mask.data)[moff + j * maskCol]);
        }
      }
      return v;
    };
    M mx = ninf;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const M v = value(j);
      mx = v > mx ? v : mx;
    }
    mx = blockReduce<M>(mx, true, shared);
    M sum = 0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += exp(value(j) - mx);
    sum = blockReduce<M>(sum, false, shared);
    const M inv = M(1) / sum;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) row[j] = static_cast<T>(exp(value(j) - mx) * inv);
  }
}

template <typename T>
void launchSoftmax(TensorView& w, const attention::MaskView& mask, bool causal, cudaStream_t stream) {
  const int64_t cols = w.sizes[w.ndim - 1];
  const int64_t rows = cols == 0 ? 0 : w.numel() / cols;
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(rows < 65535 * 16 ? rows : 65535 * 16);
  maskedSoftmaxKernel<T><<<blocks, kSoftmaxThreads, 0, stream>>>(w.data<T>(), rows, cols, w.sizes[w.ndim - 2], mask,
                                                                 causal);
  TSGPU_CUDA_CHECK(cudaGetLastError());
}

void attentionCuda(OpCall& call) {
  const TensorView &q = call.in(0), &k = call.in(1), &v = call.in(2), &mask = call.in(3);
  TensorView &out = call.out(0), &w = call.out(1);
  const TensorView kt = gemm::transposedLast(k);
  gemm::checkGemmShapes(w, q, kt, call.name());
  gemm::checkGemmShapes(out, w, v, call.name());
  const int device = call.device.index;
  const bool tf32 = call.attrBool("allowTf32");
  auto run = [&](const gemm::Problem& p) { gemm::gemmCuda(p, device, call.stream); };
  gemm::forEachGemm(w, q, kt, call.attrDouble("scale"), 0.0, tf32, call.name(), run);
  const attention::MaskView mv = attention::maskView(mask, w, call.name());
  const bool causal = call.attrBool("causal");
  auto stream = static_cast<cudaStream_t>(call.stream);
  switch (w.dtype) {
    case DType::kFloat32: launchSoftmax<float>(w, mv, causal, stream); break;
    case DType::kFloat64: launchSoftmax<double>(w, mv, causal, stream); break;
    case DType::kFloat16: launchSoftmax<Half>(w, mv, causal, stream); break;
    case DType::kBFloat16: launchSoftmax<BFloat16>(w, mv, causal, stream); break;
    default: gemm::scalarTypeOf(w.dtype, call.name());
  }
  gemm::forEachGemm(out, w, v, 1.0, 0.0, tf32, call.name(), run);
}

}  // namespace

TSGPU_REGISTER_KERNEL(gemm, kCuda, gemmOpCuda);
TSGPU_REGISTER_KERNEL(attention, kCuda, attentionCuda);

}  // namespace tsgpu
