// Shared pieces of the CUDA kernels that work row by row on contiguous rows
// (softmax, logSoftmax, layerNorm, rmsNorm): the combine functors, the
// choice of a warp per row (rows up to kWarpRowMax elements, held in
// registers: E elements a lane) or a block per row (the row kept in shared
// memory when it fits in kRowCacheBytes, read again from global memory
// otherwise), and the grids of both.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/common/scalar_math.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/vec.cuh"
#include "ops/cuda/warp_reduce.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {

/** max that keeps NaN. */
struct MaxNan {
  template <typename M>
  __device__ M operator()(M a, M b) const {
    return (sm::isNan(a) || a > b) ? a : b;
  }
};

struct Plus {
  template <typename M>
  __device__ M operator()(M a, M b) const {
    return a + b;
  }
};

/** Longest row a warp handles (32 lanes x 32 elements in registers). */
constexpr int64_t kWarpRowMax = 1024;
/**
 * Most shared memory a block-per-row kernel keeps its row in: under the 48 KiB a block may use without
 * opting in, leaving room for the kernel's static shared memory (its combine slots).
 */
constexpr size_t kRowCacheBytes = 44 * 1024;
/** Threads of a block of the warp-per-row kernels (four rows at a time, as small blocks fill SMs evenly). */
constexpr int kWarpRowThreads = 128;

/** Calls f(std::integral_constant<int, E>) with E the smallest power of two with 32 * E >= n (n <= kWarpRowMax). */
template <typename F>
void withLaneElems(int64_t n, F&& f) {
  if (n <= 32) return f(std::integral_constant<int, 1>{});
  if (n <= 64) return f(std::integral_constant<int, 2>{});
  if (n <= 128) return f(std::integral_constant<int, 4>{});
  if (n <= 256) return f(std::integral_constant<int, 8>{});
  if (n <= 512) return f(std::integral_constant<int, 16>{});
  return f(std::integral_constant<int, 32>{});
}

/** Blocks of kWarpRowThreads for a warp per row (grid-stride over the rows beyond). */
inline unsigned warpRowBlocks(int64_t rows) {
  const int64_t perBlock = kWarpRowThreads / kWarp;
  int64_t b = (rows + perBlock - 1) / perBlock;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < (int64_t(1) << 20) ? b : (int64_t(1) << 20));
}

/** Blocks for a block per row. */
inline unsigned blockRowBlocks(int64_t rows) {
  return static_cast<unsigned>(rows < 1 ? 1 : (rows < (int64_t(1) << 20) ? rows : (int64_t(1) << 20)));
}

/** c(v[0], ..., v[E-1]) as a pairwise tree (short dependency chains); E a power of two. */
template <int E, typename M, typename C>
__device__ __forceinline__ M laneTree(const M (&v)[E], const C& c) {
  M t[E];
#pragma unroll
  for (int i = 0; i < E; ++i) t[i] = v[i];
#pragma unroll
  for (int s = E / 2; s > 0; s >>= 1) {
#pragma unroll
    for (int i = 0; i < s; ++i) t[i] = c(t[i], t[i + s]);
  }
  return t[0];
}

/** Row r of warp w (of the block's warps) for grid-stride row loops: for (r = firstWarpRow(); r < rows; r += warpRowStep()). */
__device__ __forceinline__ int64_t firstWarpRow() {
  return static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
}
__device__ __forceinline__ int64_t warpRowStep() { return static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarp); }

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
