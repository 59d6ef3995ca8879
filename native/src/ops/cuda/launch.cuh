// Launch helpers shared by every CUDA kernel of the runtime (elementwise,
// reductions, copy, fill, random, ...): grid sizes for grid-stride loops, the
// call's stream, and the launch check (no synchronization: work is queued on
// the device's stream and runs in stream order).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/cuda_check.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {
namespace cuda {

constexpr int kBlockThreads = 256;
/** Enough blocks to fill an H200 many times over; grid-stride loops cover the rest. */
constexpr int64_t kMaxBlocks = 132 * 32;

/** Blocks of kBlockThreads for n items, perThread a thread, at most maxBlocks (grid-stride loops do the rest). */
inline unsigned gridFor(int64_t n, int64_t perThread = 1, int64_t maxBlocks = kMaxBlocks) {
  int64_t blocks = (n + kBlockThreads * perThread - 1) / (kBlockThreads * perThread);
  if (blocks < 1) blocks = 1;
  if (blocks > maxBlocks) blocks = maxBlocks;
  return static_cast<unsigned>(blocks);
}

inline cudaStream_t streamOf(const OpCall& call) { return static_cast<cudaStream_t>(call.stream); }

/** Throws CudaError naming the op when the last launch failed. */
inline void checkLaunch(const OpCall& call) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throwCudaError(err, call.name(), __FILE__, __LINE__);
}

/** Grid-stride index helpers for kernels. */
__device__ __forceinline__ int64_t globalThread() { return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ int64_t gridThreads() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu

/** for (int64_t i = <global thread>; i < n; i += <threads of the grid>) */
#define TSGPU_GRID_STRIDE(i, n) \
  for (int64_t i = ::tsgpu::ops::cuda::globalThread(); i < (n); i += ::tsgpu::ops::cuda::gridThreads())
