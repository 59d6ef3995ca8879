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

/**
 * c(v[0], ..., v[E-1]) through four independent partial results (short dependency chains); E a power of
 * two. Every index is a constant after unrolling, so v stays in registers (a halving tree whose inner bound
 * is the loop variable left a 32-element copy in local memory).
 */
template <int E, typename M, typename C>
__device__ __forceinline__ M laneTree(const M (&v)[E], const C& c) {
  constexpr int P = E < 4 ? E : 4;
  M p[P];
#pragma unroll
  for (int k = 0; k < P; ++k) p[k] = v[k];
#pragma unroll
  for (int i = P; i < E; i += P) {
#pragma unroll
    for (int k = 0; k < P; ++k) p[k] = c(p[k], v[i + k]);
  }
  if constexpr (P == 1) {
    return p[0];
  } else if constexpr (P == 2) {
    return c(p[0], p[1]);
  } else {
    return c(c(p[0], p[1]), c(p[2], p[3]));
  }
}

/** Row r of warp w (of the block's warps) for grid-stride row loops: for (r = firstWarpRow(); r < rows; r += warpRowStep()). */
__device__ __forceinline__ int64_t firstWarpRow() {
  return static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
}
__device__ __forceinline__ int64_t warpRowStep() { return static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarp); }

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
