// Launch helpers of the runtime's own CUDA kernels (copy, fill, arange,
// random): a grid-stride loop size and the launch check.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/cuda_check.h"

namespace tsgpu {
namespace cudalaunch {

constexpr int kThreads = 256;

/** Blocks for n work items with a grid-stride loop (at most 65536 blocks). */
inline unsigned blocksFor(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

/** The call's stream. */
inline cudaStream_t streamOf(void* s) { return static_cast<cudaStream_t>(s); }

}  // namespace cudalaunch
}  // namespace tsgpu

/** Checks the launch just made (does not synchronize). */
#define TSGPU_CUDA_CHECK_LAUNCH() TSGPU_CUDA_CHECK(cudaGetLastError())

/** for (int64_t i = <global thread>; i < n; i += <grid>) */
#define TSGPU_GRID_STRIDE(i, n)                                                           \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
