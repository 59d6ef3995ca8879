// Counter-based random numbers shared by the CPU and CUDA kernels: element i
// of a draw depends only on (seed, offset + i), so both backends produce the
// same values (up to float rounding in log/sin/cos) and kernels need no state.
#pragma once

#include <cstdint>

#include "base/host_device.h"

namespace tsgpu {
namespace rng {

/** SplitMix64 finalizer of the counter mixed with the seed. */
TSGPU_HD uint64_t mix(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/** Uniform in [0, 1) with 24 random bits. */
TSGPU_HD float uniform(uint64_t seed, uint64_t counter) {
  return static_cast<float>(mix(seed, counter) >> 40) * (1.0f / 16777216.0f);
}

/**
 * Standard normal for element `i` by Box–Muller: elements 2j and 2j+1 share
 * the uniforms at counters offset+2j and offset+2j+1 (cos and sin branch).
 */
TSGPU_HD float normal(uint64_t seed, uint64_t offset, uint64_t i) {
  const uint64_t pair = offset + (i & ~1ULL);
  const float u1 = 1.0f - uniform(seed, pair);  // (0, 1]: log is finite
  const float u2 = uniform(seed, pair + 1);
  const float r = sqrtf(-2.0f * logf(u1));
  const float theta = 6.28318530717958647692f * u2;
  return (i & 1ULL) ? r * sinf(theta) : r * cosf(theta);
}

}  // namespace rng
}  // namespace tsgpu
