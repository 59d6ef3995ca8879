// From the `gemm` op's views to gemm problems (ops/gemm.h), shared by the
// CPU and CUDA kernels of gemm and attention.
//
// out [batch..., m, n] = alpha · self [batch..., m, k] · mat2 [batch..., k, n] + beta · out
//
// The inputs' batch dims broadcast over out's by strides (aligned right; a
// missing or size-1 dim repeats). Batch dims that step evenly in all three
// operands collapse into one strided batch; the rest are looped over, so a
// broadcast batch never needs a copy.
#pragma once

#include <stdexcept>
#include <string>

#include "base/errors.h"
#include "ops/gemm.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace gemm {

/** The gemm element type of a dtype; throws for dtypes gemm does not take. */
inline ScalarType scalarTypeOf(DType t, const char* op) {
  switch (t) {
    case DType::kFloat32: return ScalarType::kFloat32;
    case DType::kFloat64: return ScalarType::kFloat64;
    case DType::kFloat16: return ScalarType::kFloat16;
    case DType::kBFloat16: return ScalarType::kBFloat16;
    default: break;
  }
  throw ArgumentError(std::string(op) + ": dtype " + dtypeName(t) +
                              " is not supported (expected float32, float64, float16 or bfloat16)");
}

/** A matrix operand of `v` (its last two dims) with the batch dims of `out` (strides 0 where `v` broadcasts). */
struct BatchedOperand {
  int64_t rowStride, colStride;
  int64_t batchStrides[kMaxDims];  // per batch dim of out
  char* data;
};

inline BatchedOperand batchedOperand(const TensorView& v, const TensorView& out) {
  BatchedOperand o;
  o.rowStride = v.strides[v.ndim - 2];
  o.colStride = v.strides[v.ndim - 1];
  o.data = static_cast<char*>(v.data());
  const int nb = out.ndim - 2, vb = v.ndim - 2;
  for (int d = 0; d < nb; ++d) {
    const int k = d - (nb - vb);
    o.batchStrides[d] = (k < 0 || v.sizes[k] == 1) ? 0 : v.strides[k];
  }
  return o;
}

/**
 * Calls run(problem) once per group of batches that one strided batched gemm
 * can take. `out`, `a` (m×k) and `b` (k×n) have ndim >= 2.
 */
template <typename Run>
void forEachGemm(const TensorView& out, const TensorView& a, const TensorView& b, double alpha, double beta,
                 bool allowTf32, const char* op, Run run) {
  Problem p;
  p.type = scalarTypeOf(out.dtype, op);
  p.m = out.sizes[out.ndim - 2];
  p.n = out.sizes[out.ndim - 1];
  p.k = a.sizes[a.ndim - 1];
  p.alpha = alpha;
  p.beta = beta;
  p.allowTf32 = allowTf32;
  const BatchedOperand ops[3] = {batchedOperand(a, out), batchedOperand(b, out), batchedOperand(out, out)};
  const int nb = out.ndim - 2;
  // Collapse the innermost batch dims that step evenly in every operand.
  int inner = nb;  // batch dims [inner, nb) form the strided batch
  int64_t count = 1, strides[3] = {0, 0, 0};
  while (inner > 0) {
    const int d = inner - 1;
    const int64_t size = out.sizes[d];
    bool fits = true;
    for (int i = 0; i < 3 && count > 1; ++i) fits = fits && ops[i].batchStrides[d] == strides[i] * count;
    if (!fits && size != 1) break;
    if (count == 1) {
      for (int i = 0; i < 3; ++i) strides[i] = ops[i].batchStrides[d];
    }
    count *= size;
    --inner;
  }
  p.batch = count;
  Matrix* mats[3] = {&p.a, &p.b, &p.c};
  for (int i = 0; i < 3; ++i) {
    mats[i]->rowStride = ops[i].rowStride;
    mats[i]->colStride = ops[i].colStride;
    mats[i]->batchStride = strides[i];
  }
  const size_t bytes = dtypeSize(out.dtype);
  int64_t outer = 1;
  for (int d = 0; d < inner; ++d) outer *= out.sizes[d];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rest = o, off[3] = {0, 0, 0};
    for (int d = inner - 1; d >= 0; --d) {
      const int64_t idx = rest % out.sizes[d];
      rest /= out.sizes[d];
      for (int i = 0; i < 3; ++i) off[i] += idx * ops[i].batchStrides[d];
    }
    for (int i = 0; i < 3; ++i) mats[i]->data = ops[i].data + off[i] * static_cast<int64_t>(bytes);
    run(p);
  }
}

/** The view of v [..., r, c] as its transpose [..., c, r] (no copy). */
inline TensorView transposedLast(const TensorView& v) {
  TensorView t = v;
  const int a = t.ndim - 1, b = t.ndim - 2;
  const int64_t size = t.sizes[a], stride = t.strides[a];
  t.sizes[a] = t.sizes[b];
  t.strides[a] = t.strides[b];
  t.sizes[b] = size;
  t.strides[b] = stride;
  return t;
}

/** Checks the shapes of a gemm call: out [..., m, n], a [..., m, k], b [..., k, n]; throws naming them. */
inline void checkGemmShapes(const TensorView& out, const TensorView& a, const TensorView& b, const char* op) {
  auto shape = [](const TensorView& v) {
    std::string s = "[";
    for (int d = 0; d < v.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.sizes[d]);
    return s + "]";
  };
  const bool ok = out.ndim >= 2 && a.ndim >= 2 && b.ndim >= 2 && a.ndim <= out.ndim && b.ndim <= out.ndim &&
                  a.sizes[a.ndim - 2] == out.sizes[out.ndim - 2] && b.sizes[b.ndim - 1] == out.sizes[out.ndim - 1] &&
                  a.sizes[a.ndim - 1] == b.sizes[b.ndim - 2] && a.dtype == out.dtype && b.dtype == out.dtype;
  if (!ok)
    throw ArgumentError(std::string(op) + ": expected out [..., m, n] = [..., m, k] @ [..., k, n] of one dtype, got " +
                        shape(out) + " (" + dtypeName(out.dtype) + ") = " + shape(a) + " (" + dtypeName(a.dtype) +
                        ") @ " + shape(b) + " (" + dtypeName(b.dtype) + ")");
}

}  // namespace gemm
}  // namespace tsgpu
