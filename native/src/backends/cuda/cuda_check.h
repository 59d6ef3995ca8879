// The one check for CUDA runtime calls: a failing call throws CudaError with
// the statement text, file and line. Include only from .cu files.
#pragma once

#include <cuda_runtime.h>

#include "backends/cuda/cuda_backend.h"

namespace tsgpu {

[[noreturn]] inline void throwCudaError(cudaError_t err, const char* statement, const char* file, int line) {
  throw CudaError(cudaGetErrorName(err), cudaGetErrorString(err), statement, file, line);
}

}  // namespace tsgpu

#define TSGPU_CUDA_CHECK(stmt)                                                   \
  do {                                                                           \
    cudaError_t tsgpu_cuda_err_ = (stmt);                                        \
    if (tsgpu_cuda_err_ != cudaSuccess) {                                        \
      cudaGetLastError(); /* clear a sticky-free error so later calls work */    \
      ::tsgpu::throwCudaError(tsgpu_cuda_err_, #stmt, __FILE__, __LINE__);       \
    }                                                                            \
  } while (0)
