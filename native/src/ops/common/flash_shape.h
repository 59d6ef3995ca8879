// The operand checks of the flash-attention ops (`flashAttention`,
// `flashAttentionBackward`), shared by the CPU and CUDA kernels: query
// [batch..., L, D], key and value [batch..., S, D] of one dtype and one batch
// shape (any batch and row strides, a contiguous last dim), D <= 128.
#pragma once

#include <cstdint>
#include <string>

#include "base/errors.h"
#include "runtime/op_registry.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace attention {

constexpr int kFlashMaxHeadDim = 128;
constexpr int kFlashMaxBatchDims = 6;

/** Sizes and strides (in elements) of the three operands. */
struct FlashShape {
  int64_t batch = 1;  // product of the batch sizes
  int L = 0, S = 0, D = 0;
  int nbd = 0;  // batch dims, outermost first
  int64_t bsizes[kFlashMaxBatchDims] = {};
  int64_t qB[kFlashMaxBatchDims] = {}, kB[kFlashMaxBatchDims] = {}, vB[kFlashMaxBatchDims] = {};
  int64_t qRow = 0, kRow = 0, vRow = 0;

  /** Offset of flattened batch entry b in a tensor of batch strides st. */
  int64_t offset(const int64_t* st, int64_t b) const {
    int64_t off = 0;
    for (int d = nbd - 1; d >= 0; --d) {
      off += (b % bsizes[d]) * st[d];
      b /= bsizes[d];
    }
    return off;
  }
};

[[noreturn]] inline void flashFail(const OpCall& call, const std::string& what) {
  throw ArgumentError(std::string(call.name()) + ": " + what);
}

/** Checks q, k and v; throws ArgumentError naming the op and the problem. */
inline FlashShape flashShape(const OpCall& call, const TensorView& q, const TensorView& k, const TensorView& v) {
  const int nd = q.ndim;
  if (nd < 2 || k.ndim != nd || v.ndim != nd) flashFail(call, "expected query, key and value of one rank >= 2");
  if (nd - 2 > kFlashMaxBatchDims)
    flashFail(call, "expected at most 6 batch dimensions, got " + std::to_string(nd - 2));
  if (k.dtype != q.dtype || v.dtype != q.dtype) flashFail(call, "expected query, key and value of one dtype");
  FlashShape s;
  s.L = static_cast<int>(q.sizes[nd - 2]);
  s.S = static_cast<int>(k.sizes[nd - 2]);
  s.D = static_cast<int>(q.sizes[nd - 1]);
  if (k.sizes[nd - 1] != s.D || v.sizes[nd - 1] != s.D || v.sizes[nd - 2] != s.S)
    flashFail(call, "expected key [..., S, D] and value [..., S, D] for query [..., L, D]");
  if (s.D > kFlashMaxHeadDim) flashFail(call, "expected a head dim of at most 128, got " + std::to_string(s.D));
  for (const TensorView* t : {&q, &k, &v})
    if (t->sizes[nd - 1] > 1 && t->strides[nd - 1] != 1)
      flashFail(call, "expected query, key and value with a contiguous last dim");
  s.nbd = nd - 2;
  for (int d = 0; d < nd - 2; ++d) {
    if (k.sizes[d] != q.sizes[d] || v.sizes[d] != q.sizes[d])
      flashFail(call, "expected query, key and value of one batch shape");
    s.bsizes[d] = q.sizes[d];
    s.qB[d] = q.strides[d];
    s.kB[d] = k.strides[d];
    s.vB[d] = v.strides[d];
    s.batch *= q.sizes[d];
  }
  s.qRow = q.strides[nd - 2];
  s.kRow = k.strides[nd - 2];
  s.vRow = v.strides[nd - 2];
  return s;
}

/** Checks the outputs of flashAttention: out of q's shape and dtype, logsumexp float32 [..., L]. */
inline void checkFlashOutputs(const OpCall& call, const FlashShape& s, const TensorView& q, const TensorView& out,
                              const TensorView& lse) {
  if (out.dtype != q.dtype || out.numel() != s.batch * s.L * s.D)
    flashFail(call, "expected out [..., L, D] of query's dtype");
  if (lse.dtype != DType::kFloat32 || lse.numel() != s.batch * s.L)
    flashFail(call, "expected a float32 logsumexp [..., L]");
}

/** Checks the operands of flashAttentionBackward beyond q, k and v (inputs 0, 4, 5; outputs 0-3). */
inline void checkFlashBackward(const OpCall& call, const FlashShape& s, const TensorView& q) {
  const TensorView &gout = call.in(0), &out = call.in(4), &lse = call.in(5);
  const int64_t rowsL = s.batch * s.L, rowsS = s.batch * s.S;
  if (!gout.isContiguous() || !out.isContiguous() || !lse.isContiguous() || gout.dtype != q.dtype ||
      out.dtype != q.dtype || lse.dtype != DType::kFloat32 || gout.numel() != rowsL * s.D ||
      out.numel() != rowsL * s.D || lse.numel() != rowsL)
    flashFail(call, "expected contiguous gradOut and out [..., L, D] of query's dtype and a float32 logsumexp [..., L]");
  for (int i = 0; i < 3; ++i)
    if (call.outputs[i].dtype != q.dtype) flashFail(call, "expected gradients of query's dtype");
  if (call.outputs[0].numel() != rowsL * s.D || call.outputs[1].numel() != rowsS * s.D ||
      call.outputs[2].numel() != rowsS * s.D || call.outputs[3].dtype != DType::kFloat32 ||
      call.outputs[3].numel() < rowsL * (s.D + 1))
    flashFail(call, "expected gradients of the shapes of query, key and value and a float32 workspace of [..., L, D + 1]");
}

}  // namespace attention
}  // namespace tsgpu
