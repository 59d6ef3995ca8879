// Warp- and block-wide combination of reduction accumulators of any type
// (a double, an int64, a value with its index, Welford moments, ...): values
// move between lanes with warp shuffles, word by word; a block combines its
// warps' results through shared memory. Combination order is a tree, so a
// reducer's combine() must not depend on which side holds the earlier
// elements beyond what it checks itself (the arg-reducers compare indices).
#pragma once

#include <cstring>

namespace tsgpu {
namespace ops {
namespace cuda {

constexpr int kWarp = 32;

/** v of lane (lane + delta) of the warp (every lane of the warp must call it). */
template <typename Acc>
__device__ __forceinline__ Acc shuffleDown(const Acc& v, unsigned delta) {
  constexpr int kWords = (sizeof(Acc) + 3) / 4;
  unsigned w[kWords] = {};
  memcpy(w, &v, sizeof(Acc));
#pragma unroll
  for (int k = 0; k < kWords; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], delta);
  Acc r;
  memcpy(&r, w, sizeof(Acc));
  return r;
}

/** Combines the accumulators of a warp's lanes with `combine(a, b)`; lane 0 gets the result. */
template <typename Acc, typename C>
__device__ __forceinline__ Acc warpCombine(Acc acc, const C& combine) {
#pragma unroll
  for (unsigned d = kWarp / 2; d > 0; d >>= 1) acc = combine(acc, shuffleDown(acc, d));
  return acc;
}

/**
 * Combines one accumulator per thread of the block (blockDim.x a multiple of
 * 32, at most 1024); thread 0 gets the result. `shared` holds 32 accumulators;
 * the block must reach this call together. `identity` fills missing warps.
 */
template <typename Acc, typename C>
__device__ __forceinline__ Acc blockCombine(Acc acc, const C& combine, Acc identity, Acc* shared) {
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  acc = warpCombine(acc, combine);
  __syncthreads();  // shared may still be read by an earlier call
  if (lane == 0) shared[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < blockDim.x / kWarp ? shared[lane] : identity;
    acc = warpCombine(acc, combine);
  }
  return acc;
}

/** The combined value on every thread of the block (blockCombine, then a broadcast through shared). */
template <typename Acc, typename C>
__device__ __forceinline__ Acc blockCombineAll(Acc acc, const C& combine, Acc identity, Acc* shared) {
  acc = blockCombine(acc, combine, identity, shared);
  __syncthreads();
  if (threadIdx.x == 0) shared[0] = acc;
  __syncthreads();
  return shared[0];
}

/** The combined value on every lane of the warp (butterfly). */
template <typename Acc, typename C>
__device__ __forceinline__ Acc warpCombineAll(Acc acc, const C& combine) {
  constexpr int kWords = (sizeof(Acc) + 3) / 4;
#pragma unroll
  for (unsigned d = kWarp / 2; d > 0; d >>= 1) {
    unsigned w[kWords] = {};
    memcpy(w, &acc, sizeof(Acc));
#pragma unroll
    for (int k = 0; k < kWords; ++k) w[k] = __shfl_xor_sync(0xffffffffu, w[k], d);
    Acc other;
    memcpy(&other, w, sizeof(Acc));
    acc = combine(acc, other);
  }
  return acc;
}

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
