// A gemm problem as one row-major BLAS call, shared by the CPU (CBLAS) and
// CUDA (cuBLAS, column-major: it computes C^T = B^T·A^T from the same plan).
#pragma once

#include "ops/gemm.h"

namespace tsgpu {
namespace gemm {

/** Row-major BLAS arguments: C (m×n, ldc) = op(A) (m×k, lda) · op(B) (k×n, ldb). */
struct BlasCall {
  bool transA, transB;  // the operand is stored column-major
  int m, n, k, lda, ldb, ldc;
  Matrix a, b, c;  // data and batch strides of the operands as the call sees them
};

/**
 * Maps p to one row-major BLAS call (C^T = B^T·A^T when C is column-major);
 * false when an operand's strides fit no BLAS layout or a size exceeds int.
 */
bool planBlas(const Problem& p, BlasCall* call);

}  // namespace gemm
}  // namespace tsgpu
