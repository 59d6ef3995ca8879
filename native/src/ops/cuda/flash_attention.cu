// The ops `flashAttention` and `flashAttentionBackward` on CUDA: checks of
// the operands, the kernel parameters, and the choice between the
// tensor-core kernels (float16 / bfloat16 with 16-byte aligned rows) and the
// simple ones (float32, float64, anything else) of flash_kernels.cuh.
// Queued on call.stream; nothing S×S is allocated.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "backends/cuda/cuda_check.h"
#include "base/errors.h"
#include "ops/common/flash_shape.h"
#include "ops/cuda/flash_kernels.cuh"
#include "ops/cuda/launch.cuh"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

namespace fl = ops::cuda::flash;

/** The kernels' parameters for q, k and v (checked by attention::flashShape). */
fl::Params paramsOf(const OpCall& call, const TensorView& q, const TensorView& k, const TensorView& v) {
  const attention::FlashShape s = attention::flashShape(call, q, k, v);
  if (s.batch > 65535)
    attention::flashFail(call, "expected at most 65535 batch entries (batch × heads), got " + std::to_string(s.batch));
  fl::Params p;
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.batch = static_cast<int>(s.batch);
  p.L = s.L;
  p.S = s.S;
  p.D = s.D;
  p.nbd = s.nbd;
  for (int d = 0; d < s.nbd; ++d) {
    p.bsizes[d] = s.bsizes[d];
    p.qB[d] = s.qB[d];
    p.kB[d] = s.kB[d];
    p.vB[d] = s.vB[d];
  }
  p.qRow = s.qRow;
  p.kRow = s.kRow;
  p.vRow = s.vRow;
  p.scale = static_cast<float>(call.attrDouble("scale"));
  p.scaleLog2 = p.scale * fl::kLog2e;
  p.scaleExact = call.attrDouble("scale");
  p.causal = call.attrBool("causal");
  return p;
}

/** Whether the tensor-core kernels can read these operands: 16-bit, 16-byte aligned rows and batch entries. */
bool mmaReady(const fl::Params& p, const TensorView& q, const TensorView& k, const TensorView& v) {
  if (q.dtype != DType::kFloat16 && q.dtype != DType::kBFloat16) return false;
  if (p.D % 8 != 0) return false;
  for (const TensorView* t : {&q, &k, &v}) {
    if (reinterpret_cast<uintptr_t>(t->data()) % 16 != 0) return false;
    for (int d = 0; d < t->ndim - 1; ++d)
      if (t->sizes[d] > 1 && t->strides[d] % 8 != 0) return false;
  }
  return true;
}

/** Head dim padded for the tensor-core kernels. */
int paddedDim(int D) { return D <= 32 ? 32 : D <= 64 ? 64 : 128; }

template <typename K>
void setSmem(K kernel, size_t bytes) {
  TSGPU_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

template <typename T, int DP>
void forwardMma(const fl::Params& p, cudaStream_t stream) {
  constexpr int BM = 16 * fl::kWarps, LD = DP + 8;
  const size_t smem = static_cast<size_t>(BM + 4 * fl::kBN) * LD * sizeof(uint16_t);
  setSmem(fl::flashForwardMma<T, DP>, smem);
  const dim3 grid((p.L + BM - 1) / BM, p.batch);
  fl::flashForwardMma<T, DP><<<grid, fl::kWarps * 32, smem, stream>>>(p);
}

template <typename T>
void forwardMmaDispatch(const fl::Params& p, cudaStream_t stream) {
  switch (paddedDim(p.D)) {
    case 32: forwardMma<T, 32>(p, stream); break;
    case 64: forwardMma<T, 64>(p, stream); break;
    default: forwardMma<T, 128>(p, stream); break;
  }
}

unsigned warpGrid(int64_t rows) {
  const int64_t blocks = (rows * 32 + ops::cuda::kBlockThreads - 1) / ops::cuda::kBlockThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > ops::cuda::kMaxBlocks ? ops::cuda::kMaxBlocks : blocks);
}

template <typename T, typename A>
void forwardSimple(const fl::Params& p, cudaStream_t stream) {
  fl::flashForwardSimple<T, A><<<warpGrid(static_cast<int64_t>(p.batch) * p.L), ops::cuda::kBlockThreads, 0, stream>>>(p);
}

void flashAttentionCuda(OpCall& call) {
  const TensorView &q = call.in(0), &k = call.in(1), &v = call.in(2);
  TensorView &out = call.out(0), &lse = call.out(1);
  fl::Params p = paramsOf(call, q, k, v);
  attention::checkFlashOutputs(call, attention::flashShape(call, q, k, v), q, out, lse);
  p.outW = out.data();
  p.lse = lse.data<float>();
  if (p.L == 0 || p.batch == 0) return;
  auto stream = ops::cuda::streamOf(call);
  const bool mma = mmaReady(p, q, k, v);
  switch (q.dtype) {
    case DType::kFloat16:
      if (mma) forwardMmaDispatch<__half>(p, stream);
      else forwardSimple<__half, float>(p, stream);
      break;
    case DType::kBFloat16:
      if (mma) forwardMmaDispatch<__nv_bfloat16>(p, stream);
      else forwardSimple<__nv_bfloat16, float>(p, stream);
      break;
    case DType::kFloat32: forwardSimple<float, float>(p, stream); break;
    case DType::kFloat64: forwardSimple<double, double>(p, stream); break;
    default: attention::flashFail(call, std::string("dtype ") + dtypeName(q.dtype) + " is not supported");
  }
  ops::cuda::checkLaunch(call);
}

template <typename T, int DP, int BM>
void backwardMma(const fl::Params& p, cudaStream_t stream) {
  constexpr int LD = DP + 8;
  const size_t smem = static_cast<size_t>(2 * fl::kBN + 2 * BM) * LD * sizeof(uint16_t) +
                      static_cast<size_t>(fl::kBN) * (BM + 8) * sizeof(uint16_t) + 2 * BM * sizeof(float);
  setSmem(fl::flashBackwardMma<T, DP, BM>, smem);
  const dim3 grid((p.S + fl::kBN - 1) / fl::kBN, p.batch);
  fl::flashBackwardMma<T, DP, BM><<<grid, fl::kWarps * 32, smem, stream>>>(p);
}

template <typename T>
void backwardMmaDispatch(const fl::Params& p, cudaStream_t stream) {
  const int64_t n = static_cast<int64_t>(p.batch) * p.L * p.D;
  TSGPU_CUDA_CHECK(cudaMemsetAsync(p.dqAcc, 0, n * sizeof(float), stream));
  switch (paddedDim(p.D)) {
    case 32: backwardMma<T, 32, 64>(p, stream); break;
    case 64: backwardMma<T, 64, 64>(p, stream); break;
    default: backwardMma<T, 128, 32>(p, stream); break;
  }
  fl::flashDqCast<T><<<ops::cuda::gridFor(n), ops::cuda::kBlockThreads, 0, stream>>>(p);
}

template <typename T, typename A>
void backwardSimple(const fl::Params& p, cudaStream_t stream) {
  fl::flashBackwardSimple<T, A, true><<<warpGrid(static_cast<int64_t>(p.batch) * p.S), ops::cuda::kBlockThreads, 0,
                                        stream>>>(p);
  fl::flashBackwardSimple<T, A, false><<<warpGrid(static_cast<int64_t>(p.batch) * p.L), ops::cuda::kBlockThreads, 0,
                                         stream>>>(p);
}

template <typename T>
void delta(const fl::Params& p, cudaStream_t stream) {
  fl::flashDelta<T><<<warpGrid(static_cast<int64_t>(p.batch) * p.L), ops::cuda::kBlockThreads, 0, stream>>>(p);
}

void flashAttentionBackwardCuda(OpCall& call) {
  const TensorView &gout = call.in(0), &q = call.in(1), &k = call.in(2), &v = call.in(3), &out = call.in(4),
                   &lse = call.in(5);
  TensorView &dq = call.out(0), &dk = call.out(1), &dv = call.out(2), &work = call.out(3);
  fl::Params p = paramsOf(call, q, k, v);
  attention::checkFlashBackward(call, attention::flashShape(call, q, k, v), q);
  const int64_t rowsL = static_cast<int64_t>(p.batch) * p.L;
  p.dout = gout.data();
  p.out = out.data();
  p.lse = const_cast<float*>(lse.data<float>());
  p.dq = dq.data();
  p.dk = dk.data();
  p.dv = dv.data();
  p.delta = work.data<float>();
  p.dqAcc = p.delta + rowsL;
  if (p.batch == 0) return;
  auto stream = ops::cuda::streamOf(call);
  if (p.L == 0 || p.S == 0) {
    TSGPU_CUDA_CHECK(cudaMemsetAsync(dq.data(), 0, dq.numel() * dtypeSize(dq.dtype), stream));
    TSGPU_CUDA_CHECK(cudaMemsetAsync(dk.data(), 0, dk.numel() * dtypeSize(dk.dtype), stream));
    TSGPU_CUDA_CHECK(cudaMemsetAsync(dv.data(), 0, dv.numel() * dtypeSize(dv.dtype), stream));
    return;
  }
  const bool mma = mmaReady(p, q, k, v);
  switch (q.dtype) {
    case DType::kFloat16:
      if (mma) {
        delta<__half>(p, stream);
        backwardMmaDispatch<__half>(p, stream);
      } else {
        backwardSimple<__half, float>(p, stream);
      }
      break;
    case DType::kBFloat16:
      if (mma) {
        delta<__nv_bfloat16>(p, stream);
        backwardMmaDispatch<__nv_bfloat16>(p, stream);
      } else {
        backwardSimple<__nv_bfloat16, float>(p, stream);
      }
      break;
    case DType::kFloat32:
      backwardSimple<float, float>(p, stream);
      break;
    case DType::kFloat64:
      backwardSimple<double, double>(p, stream);
      break;
    default: attention::flashFail(call, std::string("dtype ") + dtypeName(q.dtype) + " is not supported");
  }
  ops::cuda::checkLaunch(call);
}

}  // namespace

TSGPU_REGISTER_KERNEL(flashAttention, kCuda, flashAttentionCuda);
TSGPU_REGISTER_KERNEL(flashAttentionBackward, kCuda, flashAttentionBackwardCuda);

}  // namespace tsgpu
