// Strided batched matrix multiply over raw pointers, the kernel layer under
// matmul/mm/bmm/addmm/linear/outer and attention:
//
//   C[i] = alpha · A[i] · B[i] + beta · C[i]      for i in [0, batch)
//
// A[i] is m×k, B[i] is k×n, C[i] is m×n; every matrix is described by its data
// pointer and element strides (rows, columns, batch; a batch stride of 0
// broadcasts one matrix over the batch). With beta == 0, C is not read (NaN in
// C does not leak through), as in BLAS. float16 and bfloat16 accumulate in
// float32; float64 in float64.
//
// CPU: BLAS loaded at run time for float32/float64 (see
// backends/cpu/blas_loader.h), a blocked, threaded, vectorized kernel of our
// own otherwise; float16/bfloat16 are widened to float32 around the float32
// path. CUDA: cuBLAS loaded at run time (tf32 when allowed), a tiled kernel of
// our own where cuBLAS cannot be loaded; cudaBackendDescription() says which
// and why, and the TypeScript layer shows that once as a warning.
#pragma once

#include <cstdint>
#include <string>

namespace tsgpu {
namespace gemm {

/** The element types gemm accepts. */
enum class ScalarType : uint8_t { kFloat32, kFloat64, kFloat16, kBFloat16 };

/** A name for messages: "float32", "float64", "float16", "bfloat16". */
const char* scalarTypeName(ScalarType t);

/** Bytes per element of t. */
int scalarTypeBytes(ScalarType t);

/** One operand: element strides of its rows, its columns and its batch index. */
struct Matrix {
  void* data = nullptr;
  int64_t rowStride = 0;
  int64_t colStride = 1;
  int64_t batchStride = 0;
};

/** A whole gemm call. */
struct Problem {
  ScalarType type = ScalarType::kFloat32;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  Matrix a, b, c;
  double alpha = 1.0, beta = 0.0;
  /** CUDA float32 only: let the GPU use TF32 tensor cores (torch.backends.cuda.matmul.allowTf32). */
  bool allowTf32 = false;
};

/** A row-major-contiguous matrix of `rows`×`cols` at `data`, batch stride rows·cols. */
Matrix contiguousMatrix(void* data, int64_t rows, int64_t cols);

/**
 * How a BLAS call would see a rows×cols matrix with these strides: one of them
 * is 1 and the other covers the extent (or the matrix is a single row or
 * column). Sets *transposed (the matrix is stored column-major) and *ld (the
 * leading dimension) and returns true; false when BLAS cannot address it.
 */
bool blasLayout(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride, bool* transposed, int64_t* ld);

/**
 * Throws std::invalid_argument naming the field when sizes are negative or a
 * pointer is missing for a non-empty operand.
 */
void validate(const Problem& p);

/** Runs p on the CPU (BLAS when loaded and usable, the blocked kernel otherwise). */
void gemmCpu(const Problem& p);

/** Runs p on the CPU with the blocked kernel of our own, whatever BLAS is loaded (any strides). */
void gemmCpuBlocked(const Problem& p);

/** What the CPU float32/float64 gemm runs on and why, e.g. "OpenBLAS 0.3.21 … (/usr/lib/…/libopenblas.so.0)". */
std::string cpuBackendDescription();

/** The instruction set the blocked kernel uses here: "avx512", "avx2" or "generic". */
const char* blockedKernelIsa();

#if defined(TSGPU_WITH_CUDA)
/**
 * Enqueues p on `stream` (a cudaStream_t) of CUDA device `device`; does not
 * synchronize. All operands must be on that device, and each must satisfy
 * blasLayout (make it contiguous first otherwise): std::invalid_argument says which.
 */
void gemmCuda(const Problem& p, int device, void* stream);

/**
 * The CUDA gemm's engine: "cuBLAS <version> (<path>)" or "built-in kernel: <why cuBLAS is unavailable>".
 * Loads cuBLAS on first call.
 */
std::string cudaBackendDescription();

/** Runs p with the built-in CUDA kernel even when cuBLAS is loaded (for tests). */
void gemmCudaBuiltin(const Problem& p, int device, void* stream);
#endif

}  // namespace gemm
}  // namespace tsgpu
