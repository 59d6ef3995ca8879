// The linear-algebra ops on CPU: `gemm` (behind matmul, mm, bmm, addmm,
// linear, outer) and `attention` (scaled dot-product attention: scores by
// gemm, mask and softmax per row on the thread pool, then gemm with V).
#include <cmath>
#include <algorithm>
#include <limits>
#include <vector>

#include "base/errors.h"
#include "ops/common/attention_mask.h"
#include "ops/common/gemm_call.h"
#include "ops/gemm.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace {

/**
 * FLOPs per piece of a long CPU gemm between interrupt checks: about 0.05 s on
 * a many-core machine, 0.5 s on one core. Each piece repacks B, so pieces stay large.
 */
constexpr double kFlopsPerPiece = 64e9;

/**
 * Runs p in pieces of at most about kFlopsPerPiece (whole matrices of the
 * batch, or equal blocks of at least 256 rows), checking for an interrupt before each.
 */
void gemmInterruptible(const OpCall& call, const gemm::Problem& p) {
  const double perMatrix = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  if (perMatrix * static_cast<double>(p.batch) <= kFlopsPerPiece) {
    call.checkInterrupt();
    return gemm::gemmCpu(p);
  }
  const size_t bytes = static_cast<size_t>(gemm::scalarTypeBytes(p.type));
  if (p.batch > 1) {
    const int64_t per = std::max<int64_t>(1, static_cast<int64_t>(kFlopsPerPiece / perMatrix));
    for (int64_t b0 = 0; b0 < p.batch; b0 += per) {
      gemm::Problem q = p;
      q.batch = std::min(per, p.batch - b0);
      q.a.data = static_cast<char*>(p.a.data) + b0 * p.a.batchStride * static_cast<int64_t>(bytes);
      q.b.data = static_cast<char*>(p.b.data) + b0 * p.b.batchStride * static_cast<int64_t>(bytes);
      q.c.data = static_cast<char*>(p.c.data) + b0 * p.c.batchStride * static_cast<int64_t>(bytes);
      gemmInterruptible(call, q);
    }
    return;
  }
  const int64_t pieces = static_cast<int64_t>(std::ceil(perMatrix / kFlopsPerPiece));
  const int64_t rows = std::max<int64_t>(256, (p.m + pieces - 1) / pieces);
  for (int64_t i0 = 0; i0 < p.m; i0 += rows) {
    gemm::Problem q = p;
    q.m = std::min(rows, p.m - i0);
    q.a.data = static_cast<char*>(p.a.data) + i0 * p.a.rowStride * static_cast<int64_t>(bytes);
    q.c.data = static_cast<char*>(p.c.data) + i0 * p.c.rowStride * static_cast<int64_t>(bytes);
    call.checkInterrupt();
    gemm::gemmCpu(q);
  }
}

void gemmOpCpu(OpCall& call) {
  const TensorView &a = call.in(0), &b = call.in(1);
  TensorView& out = call.out(0);
  gemm::checkGemmShapes(out, a, b, call.name());
  gemm::forEachGemm(out, a, b, call.attrDouble("alpha"), call.attrDouble("beta"), false, call.name(),
                    [&](const gemm::Problem& p) { gemmInterruptible(call, p); });
}

template <typename T>
void maskedSoftmaxRows(TensorView& w, const attention::MaskView& mask, bool causal) {
  using M = OpMathType<T>;
  const M ninf = -std::numeric_limits<M>::infinity();
  const int64_t cols = w.sizes[w.ndim - 1], rowsPerBatch = w.sizes[w.ndim - 2];
  const int64_t rows = cols == 0 ? 0 : w.numel() / cols;
  T* base = w.data<T>();
  const int64_t maskCol = mask.present ? mask.strides[mask.ndim - 1] : 0;
  parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
    std::vector<M> x(static_cast<size_t>(cols));
    for (int64_t r = r0; r < r1; ++r) {
      T* row = base + r * cols;  // the weights output is contiguous
      const int64_t i = r % rowsPerBatch;
      const int64_t moff = mask.present ? attention::maskRowOffset(mask, r) : 0;
      M mx = ninf;
      for (int64_t j = 0; j < cols; ++j) {
        M v = static_cast<M>(row[j]);
        if (causal && j > i) v = ninf;
        if (mask.present) {
          if (mask.isBool) {
            if (!static_cast<const bool*>(mask.data)[moff + j * maskCol]) v = ninf;
          } else {
            v += static_cast<M>(static_cast<const T*>(mask.data)[moff + j * maskCol]);
          }
        }
        x[j] = v;
        mx = std::max(mx, v);
      }
      M sum = 0;
      for (int64_t j = 0; j < cols; ++j) {
        x[j] = std::exp(x[j] - mx);
        sum += x[j];
      }
      const M inv = M(1) / sum;
      for (int64_t j = 0; j < cols; ++j) row[j] = static_cast<T>(x[j] * inv);
    }
  });
}

void attentionCpu(OpCall& call) {
  const TensorView &q = call.in(0), &k = call.in(1), &v = call.in(2), &mask = call.in(3);
  TensorView &out = call.out(0), &w = call.out(1);
  const TensorView kt = gemm::transposedLast(k);
  gemm::checkGemmShapes(w, q, kt, call.name());
  gemm::checkGemmShapes(out, w, v, call.name());
  gemm::forEachGemm(w, q, kt, call.attrDouble("scale"), 0.0, false, call.name(),
                    [&](const gemm::Problem& p) { gemmInterruptible(call, p); });
  call.checkInterrupt();
  const attention::MaskView mv = attention::maskView(mask, w, call.name());
  const bool causal = call.attrBool("causal");
  switch (w.dtype) {
    case DType::kFloat32: maskedSoftmaxRows<float>(w, mv, causal); break;
    case DType::kFloat64: maskedSoftmaxRows<double>(w, mv, causal); break;
    case DType::kFloat16: maskedSoftmaxRows<Half>(w, mv, causal); break;
    case DType::kBFloat16: maskedSoftmaxRows<BFloat16>(w, mv, causal); break;
    default: gemm::scalarTypeOf(w.dtype, call.name());
  }
  call.checkInterrupt();
  gemm::forEachGemm(out, w, v, 1.0, 0.0, false, call.name(),
                    [&](const gemm::Problem& p) { gemmInterruptible(call, p); });
}

}  // namespace

TSGPU_REGISTER_KERNEL(gemm, kCpu, gemmOpCpu);
TSGPU_REGISTER_KERNEL(attention, kCpu, attentionCpu);

}  // namespace tsgpu
