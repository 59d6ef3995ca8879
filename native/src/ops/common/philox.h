// Philox4x32-10, the counter-based generator behind every random op: the
// numbers depend only on (seed, counter), so cpu and cuda kernels produce
// the same values and need no state. Counter c is word (c & 3) of Philox
// block c >> 2 under key seed. An op reserves counters with
// OpCall::randomCounters(n) and gives element i the counter offset + i.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/host_device.h"
#include "ops/common/poly_math.h"

namespace tsgpu {
namespace philox {

/** The four 32-bit words of Philox4x32-10 block `block` under key `seed`. */
TSGPU_HD void block(uint64_t seed, uint64_t block, uint32_t out[4]) {
  uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/** 32 random bits for `counter`. */
TSGPU_HD uint32_t bits(uint64_t seed, uint64_t counter) {
  uint32_t w[4];
  block(seed, counter >> 2, w);
  return w[counter & 3];
}

/** Uniform float in [0, 1) from 32 bits (24 of them used). */
TSGPU_HD float toUniformFloat(uint32_t x) { return static_cast<float>(x >> 8) * (1.0f / 16777216.0f); }

/** Uniform double in [0, 1) from two words (53 bits used). */
TSGPU_HD double toUniformDouble(uint32_t hi, uint32_t lo) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 21) ^ (lo >> 11);
  return static_cast<double>(x & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/** Uniform float in [0, 1) for `counter`. */
TSGPU_HD float uniformFloat(uint64_t seed, uint64_t counter) { return toUniformFloat(bits(seed, counter)); }

/** Uniform double in [0, 1) for `counter` (uses words of counter and counter ^ 1 of its block). */
TSGPU_HD double uniformDouble(uint64_t seed, uint64_t counter) {
  uint32_t w[4];
  block(seed, counter >> 2, w);
  const unsigned lane = static_cast<unsigned>(counter & 3);
  return toUniformDouble(w[lane], w[lane ^ 1u]);
}

/** Uniform floats in [0, 1) for the four counters of `blk` (4*blk .. 4*blk+3). */
TSGPU_HD void uniform4(uint64_t seed, uint64_t blk, float out[4]) {
  uint32_t w[4];
  block(seed, blk, w);
  for (int k = 0; k < 4; ++k) out[k] = toUniformFloat(w[k]);
}

/** Box–Muller's two uniforms from two words: u1 in (0, 1) (its log is finite), u2 in [0, 1). */
template <typename T>
TSGPU_HD void boxMullerUniforms(uint32_t w1, uint32_t w2, T* u1, T* u2) {
  *u1 = (static_cast<T>(static_cast<int32_t>(w1 >> 8)) + T(0.5)) * T(1.0 / 16777216.0);
  *u2 = static_cast<T>(static_cast<int32_t>(w2 >> 8)) * T(1.0 / 16777216.0);
}

/**
 * The standard normals of words (w1, w2) by Box–Muller, both branches:
 * r cos(2 pi u2) and r sin(2 pi u2), r = sqrt(-2 log u1). In float the
 * log and the sine/cosine are poly_math.h's, the same on cpu (scalar and
 * vectorized) and cuda; in double they are the C library's.
 */
TSGPU_HD void boxMuller(uint32_t w1, uint32_t w2, float* z1, float* z2) {
  float u1, u2, s, c;
  boxMullerUniforms(w1, w2, &u1, &u2);
  const float r = sqrtf(-2.0f * pm::logPositive(u1));
  pm::sincos2pi(u2, &s, &c);
  *z1 = r * c;
  *z2 = r * s;
}

TSGPU_HD void boxMuller(uint32_t w1, uint32_t w2, double* z1, double* z2) {
  double u1, u2;
  boxMullerUniforms(w1, w2, &u1, &u2);
  const double r = ::sqrt(-2.0 * ::log(u1));
  const double theta = 6.283185307179586476925 * u2;
  *z1 = r * ::cos(theta);
  *z2 = r * ::sin(theta);
}

/** Standard normals for the four counters of `blk`: lanes (0, 1) and (2, 3) each share two words. */
template <typename T>
TSGPU_HD void normal4(uint64_t seed, uint64_t blk, T out[4]) {
  uint32_t w[4];
  block(seed, blk, w);
  boxMuller(w[0], w[1], &out[0], &out[1]);
  boxMuller(w[2], w[3], &out[2], &out[3]);
}

}  // namespace philox
}  // namespace tsgpu
