// float <-> half / bfloat16 conversions of base/dtype.h: round trips of every 16-bit pattern
// and round-to-nearest-even against a brute-force search over the format.
#include <cmath>
#include <cstdint>
#include <random>

#include "../harness.h"
#include "base/dtype.h"

using namespace tsgpu;

namespace {

/** Nearest 16-bit pattern to `f` by search over the positive patterns (ties to even). */
template <typename ToFloat>
uint16_t nearestBySearch(float f, ToFloat toFloat, uint16_t infBits) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  uint32_t lo = 0, hi = infBits;  // toFloat(lo) <= a < toFloat(hi) after the search
  if (a >= toFloat(infBits)) return sign | infBits;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (toFloat(static_cast<uint16_t>(mid)) <= a) lo = mid; else hi = mid;
  }
  const double dl = a - toFloat(static_cast<uint16_t>(lo));
  double dh = toFloat(static_cast<uint16_t>(hi)) - a;
  if (hi == infBits) {
    // Overflow threshold: half-way to the next (virtual) value above the largest finite.
    dh = toFloat(static_cast<uint16_t>(lo)) + (toFloat(static_cast<uint16_t>(lo)) - toFloat(static_cast<uint16_t>(lo - 1))) / 2 - a;
    return sign | (dh <= 0 ? (dh == 0 && (lo & 1) == 0 ? lo : infBits) : lo);
  }
  uint32_t pick = dl < dh ? lo : (dh < dl ? hi : ((lo & 1) == 0 ? lo : hi));
  return static_cast<uint16_t>(sign | pick);
}

}  // namespace

TEST(half_bits_round_trip_every_pattern) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = halfBitsToFloat(static_cast<uint16_t>(h));
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    if (nan) {
      if (!std::isnan(f) || !std::isnan(halfBitsToFloat(floatToHalfBits(f)))) ++bad;
    } else if (floatToHalfBits(f) != h) {
      ++bad;
    }
  }
  CHECK_EQ(bad, 0);
}

TEST(half_bits_known_values) {
  CHECK_EQ(floatToHalfBits(1.0f), 0x3c00);
  CHECK_EQ(floatToHalfBits(-2.0f), 0xc000);
  CHECK_EQ(floatToHalfBits(65504.0f), 0x7bff);
  CHECK_EQ(floatToHalfBits(65519.0f), 0x7bff);
  CHECK_EQ(floatToHalfBits(65520.0f), 0x7c00);
  CHECK_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);
  CHECK_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);        // tie to even (0)
  CHECK_EQ(floatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);        // 1.5 ulp: tie to even (2)
  CHECK_EQ(floatToHalfBits(-0.0f), 0x8000);
  CHECK_EQ(floatToHalfBits(INFINITY), 0x7c00);
  CHECK(std::isnan(halfBitsToFloat(floatToHalfBits(NAN))));
  CHECK_EQ(halfBitsToFloat(0x3555), 0.333251953125f);
  CHECK_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
}

TEST(half_bits_round_to_nearest_even_random) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> expo(-30, 17);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    float f = std::ldexp(mant(gen), expo(gen)) * (i & 1 ? -1.0f : 1.0f);
    if (i % 7 == 0) {  // exact ties: a half value plus half its ulp
      const uint16_t h = static_cast<uint16_t>(gen() % 0x7bff);
      const float v = halfBitsToFloat(h), next = halfBitsToFloat(static_cast<uint16_t>(h + 1));
      f = v + (next - v) / 2;
    }
    const uint16_t want = nearestBySearch(f, [](uint16_t b) { return static_cast<double>(halfBitsToFloat(b)); }, 0x7c00);
    if (floatToHalfBits(f) != want) ++bad;
  }
  CHECK_EQ(bad, 0);
}

TEST(bfloat16_bits_conversions) {
  CHECK_EQ(floatToBFloat16Bits(1.0f), 0x3f80);
  CHECK_EQ(floatToBFloat16Bits(-3.0f), 0xc040);
  CHECK_EQ(bfloat16BitsToFloat(0x3f80), 1.0f);
  CHECK(std::isnan(bfloat16BitsToFloat(floatToBFloat16Bits(NAN))));
  CHECK_EQ(floatToBFloat16Bits(INFINITY), 0x7f80);
  int bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bfloat16BitsToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f) && floatToBFloat16Bits(f) != b) ++bad;
  }
  CHECK_EQ(bad, 0);
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (int i = 0; i < 100000; ++i) {
    float f = u(gen);
    if (i % 5 == 0) {  // exact ties between neighbours
      const uint16_t b = static_cast<uint16_t>(gen() % 0x7f7f);
      const float v = bfloat16BitsToFloat(b), next = bfloat16BitsToFloat(static_cast<uint16_t>(b + 1));
      f = v + (next - v) / 2;
    }
    const uint16_t want = nearestBySearch(f, [](uint16_t x) { return static_cast<double>(bfloat16BitsToFloat(x)); }, 0x7f80);
    if (floatToBFloat16Bits(f) != want) ++bad;
  }
  CHECK_EQ(bad, 0);
}
