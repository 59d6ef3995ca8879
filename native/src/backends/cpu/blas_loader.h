// A CBLAS library loaded at run time with dlopen (never linked), so the addon
// runs where none is installed and uses whichever the machine has.
//
// Candidates, in order: $TSGPU_BLAS_LIBRARY (a file name or path), then
// libopenblas.so.0 (Debian's libopenblas0), libopenblas.so, libblas.so.3
// (when it exports cblas_sgemm, as OpenBLAS's and BLIS's do), libmkl_rt.so.
// TSGPU_BLAS_LIBRARY=none disables BLAS, leaving the built-in kernel.
#pragma once

#include <string>

namespace tsgpu {
namespace cpu {

/** The CBLAS entry points gemm needs (row-major order = 101, no-trans = 111, trans = 112). */
using SgemmFn = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha, const float* a, int lda,
                         const float* b, int ldb, float beta, float* c, int ldc);
using DgemmFn = void (*)(int order, int transA, int transB, int m, int n, int k, double alpha, const double* a,
                         int lda, const double* b, int ldb, double beta, double* c, int ldc);

constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;

struct BlasLibrary {
  bool loaded = false;
  /** The file dlopen resolved (e.g. /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0). */
  std::string path;
  /** The library's own description (openblas_get_config) or its name. */
  std::string vendor;
  /** Every candidate tried and why it was rejected; empty parts when the first one loaded. */
  std::string searched;
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  /** The library's thread-count setter, when it has one (openblas_set_num_threads, MKL_Set_Num_Threads). */
  void (*setThreads)(int) = nullptr;
};

/** The process's BLAS, loaded on first call (thread-safe). */
const BlasLibrary& blas();

/**
 * Makes the BLAS use n threads (a no-op when it is already set to n or has no
 * setter). Call outside parallel regions.
 */
void blasUseThreads(int n);

/** One line for users: "OpenBLAS 0.3.21 … (/path)" or "no BLAS: <what was searched>". */
std::string blasDescription();

}  // namespace cpu
}  // namespace tsgpu
