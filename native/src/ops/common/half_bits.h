// Bit-exact conversions between float and the two 16-bit float formats
// (IEEE binary16 "half" and bfloat16), round-to-nearest-even as PyTorch and
// CUDA's __float2half_rn / __float2bfloat16_rn do. Usable on host and device.
#pragma once

#include <cstdint>
#include <cstring>

#include "ops/host_device.h"

namespace tsgpu {
namespace ops {

/** Reinterprets the bits of `from` as type To (same size). */
template <typename To, typename From>
TSGPU_HD To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast needs equal sizes");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

/** binary16 bits → float (exact: every half is a float). */
TSGPU_HD float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t bits = static_cast<uint32_t>(h & 0x7fffu) << 13;  // exponent and mantissa in float position
  const uint32_t exponent = bits & 0x0f800000u;
  bits += (127u - 15u) << 23;                                  // rebias
  if (exponent == 0x0f800000u) {
    bits += (128u - 16u) << 23;                                // inf / NaN keep an all-ones exponent
  } else if (exponent == 0) {
    bits += 1u << 23;                                          // zero or subnormal: renormalize
    bits = bitCast<uint32_t>(bitCast<float>(bits) - bitCast<float>(113u << 23));
  }
  return bitCast<float>(bits | sign);
}

/** float → binary16 bits, round to nearest even; overflow gives ±inf, NaN stays NaN. */
TSGPU_HD uint16_t floatToHalfBits(float f) {
  uint32_t x = bitCast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)  // inf or NaN (quiet NaN keeps its top mantissa bits)
    return static_cast<uint16_t>(sign | 0x7c00u | (x > 0x7f800000u ? (0x200u | ((x >> 13) & 0x3ffu)) : 0u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 puts the half's subnormal ULP
    // (2^-24) at the float's last mantissa bit, so float addition rounds for us.
    const float shifted = bitCast<float>(x) + 0.5f;
    return static_cast<uint16_t>(sign | (bitCast<uint32_t>(shifted) - 0x3f000000u));
  }
  const uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias the exponent (-112 << 23) and round half to even
  return static_cast<uint16_t>(sign | (x >> 13));
}

/** bfloat16 bits → float (exact). */
TSGPU_HD float bfloat16BitsToFloat(uint16_t b) { return bitCast<float>(static_cast<uint32_t>(b) << 16); }

/** float → bfloat16 bits, round to nearest even; NaN stays a quiet NaN. */
TSGPU_HD uint16_t floatToBfloat16Bits(float f) {
  const uint32_t x = bitCast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  const uint32_t odd = (x >> 16) & 1u;
  return static_cast<uint16_t>((x + 0x7fffu + odd) >> 16);
}

}  // namespace ops
}  // namespace tsgpu
