// cuBLAS and cuBLASLt loaded at run time with dlopen (never linked), so the
// addon loads where they are missing and says why. Plain C++: the few cuBLAS
// types the gemm needs are declared here with cuBLAS's values.
//
// Candidates: $TSGPU_CUBLAS_LIBRARY, libcublas.so.13, libcublas.so.12,
// libcublas.so in the loader's path, then /usr/local/cuda/lib64 and
// $CUDA_HOME/lib64; libcublasLt likewise (cuBLAS needs it and loads it
// itself; we load it to report its version).
#pragma once

#include <cstdint>
#include <string>

namespace tsgpu {
namespace cublas {

using Handle = void*;  // cublasHandle_t
using Status = int;    // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS

constexpr int kOpN = 0, kOpT = 1;                  // cublasOperation_t
constexpr int kR32F = 0, kR64F = 1, kR16F = 2, kR16BF = 14;  // cudaDataType
constexpr int kCompute32F = 68, kCompute32FPedantic = 69, kCompute32FFastTf32 = 77, kCompute64F = 70;  // cublasComputeType_t
constexpr int kGemmDefault = -1;                   // cublasGemmAlgo_t
constexpr int kDefaultMath = 0;                    // cublasMath_t

struct Api {
  bool loaded = false;
  std::string path;       // the cuBLAS file that loaded
  std::string ltPath;     // the cuBLASLt file that loaded ("" if none)
  int version = 0;        // cublasGetProperty major*10000 + minor*100 + patch (0 when unknown)
  std::string whyNot;     // when !loaded: every place looked and the loader's errors

  Status (*create)(Handle*) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  Status (*setStream)(Handle, void* stream) = nullptr;
  Status (*setMathMode)(Handle, int mode) = nullptr;
  Status (*gemmEx)(Handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* a, int atype,
                   int lda, const void* b, int btype, int ldb, const void* beta, void* c, int ctype, int ldc,
                   int computeType, int algo) = nullptr;
  Status (*gemmStridedBatchedEx)(Handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* a,
                                 int atype, int lda, long long strideA, const void* b, int btype, int ldb,
                                 long long strideB, const void* beta, void* c, int ctype, int ldc, long long strideC,
                                 int batchCount, int computeType, int algo) = nullptr;
  const char* (*statusString)(Status) = nullptr;  // cublasGetStatusString, when present
};

/** cuBLAS, loaded on first call (thread-safe); check `loaded` and `whyNot`. */
const Api& api();

/** The handle for CUDA device `device` (created on first use, with the current device set to it). */
Handle handleFor(int device);

/** "CUBLAS_STATUS_…" text for s. */
std::string statusText(Status s);

}  // namespace cublas
}  // namespace tsgpu
