// The dtype table and the 16-bit float conversions.
#include <cmath>
#include <cstring>
#include <limits>

#include "base/dtype.h"
#include "harness.h"

using namespace tsgpu;

TEST(dtype_table_names_sizes_kinds) {
  CHECK_EQ(kNumDTypes, 10);
  CHECK_EQ(std::string(dtypeName(DType::kBFloat16)), std::string("bfloat16"));
  CHECK_EQ(dtypeSize(DType::kFloat64), size_t(8));
  CHECK_EQ(dtypeSize(DType::kBool), size_t(1));
  CHECK(dtypeKind(DType::kUInt8) == DTypeKind::kInt);
  CHECK(isFloating(DType::kFloat16));
  CHECK(!isFloating(DType::kInt64));
  CHECK(dtypeOf<Half>() == DType::kFloat16);
  CHECK((std::is_same<CppType<DType::kInt32>, int32_t>::value));
  for (int c = 0; c < kNumDTypes; ++c) CHECK(isDTypeCode(c));
  CHECK(!isDTypeCode(kNumDTypes));
}

static float halfOf(float f) { return static_cast<float>(Half(f)); }

TEST(half_rounds_to_nearest_even) {
  CHECK_EQ(Half(1.0f).bits, 0x3c00);
  CHECK_EQ(Half(-2.0f).bits, 0xc000);
  CHECK_EQ(Half(65504.0f).bits, 0x7bff);                // largest finite
  CHECK_EQ(Half(65519.0f).bits, 0x7bff);                // rounds down
  CHECK_EQ(Half(65520.0f).bits, 0x7c00);                // halfway to even: inf
  CHECK_EQ(Half(1.0f + 1.0f / 2048).bits, 0x3c00);      // halfway between 1 and 1+2^-10: even (1)
  CHECK_EQ(Half(1.0f + 3.0f / 2048).bits, 0x3c02);      // halfway, rounds up to even
  CHECK_EQ(Half(std::ldexp(1.0f, -24)).bits, 0x0001);   // smallest subnormal
  CHECK_EQ(Half(std::ldexp(1.0f, -25)).bits, 0x0000);   // halfway to zero: even (0)
  CHECK_EQ(Half(std::ldexp(1.5f, -25)).bits, 0x0001);
  CHECK_EQ(Half(std::ldexp(1.0f, -14)).bits, 0x0400);   // smallest normal
  CHECK(std::isnan(halfOf(std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isinf(halfOf(std::numeric_limits<float>::infinity())));
  CHECK_EQ(halfOf(0.1f), 0.0999755859375f);
}

TEST(half_round_trips_every_value) {
  int bad = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float f = halfBitsToFloat(bits);
    if (std::isnan(f)) continue;
    if (floatToHalfBits(f) != bits) ++bad;
  }
  CHECK_EQ(bad, 0);
}

TEST(bfloat16_rounds_to_nearest_even) {
  CHECK_EQ(BFloat16(1.0f).bits, 0x3f80);
  CHECK_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
  CHECK_EQ(BFloat16(1.0f + 1.0f / 256).bits, 0x3f80);   // halfway: even
  CHECK_EQ(BFloat16(1.0f + 3.0f / 256).bits, 0x3f82);
  CHECK(std::isnan(static_cast<float>(BFloat16(std::numeric_limits<float>::quiet_NaN()))));
  int bad = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bfloat16BitsToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f) && floatToBFloat16Bits(f) != b) ++bad;
  }
  CHECK_EQ(bad, 0);
}
