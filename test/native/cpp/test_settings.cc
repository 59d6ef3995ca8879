// Unit tests of allocator settings parsing and byte-size parsing.
#include "base/errors.h"
#include "core/format.h"
#include "core/settings.h"
#include "harness.h"

using namespace tsgpu;

TEST(settings_accept_pytorch_keys) {
  AllocatorSettings s = parseAllocatorSettings(
      "max_split_size_mb:128, garbage_collection_threshold:0.6,expandable_segments:True");
  CHECK_EQ(s.maxSplitSizeBytes, 128ULL << 20);
  CHECK(s.garbageCollectionThreshold > 0.59 && s.garbageCollectionThreshold < 0.61);
  CHECK(s.expandableSegments);
  AllocatorSettings t = parseAllocatorSettings("expandable_segments:False", s);
  CHECK(!t.expandableSegments);
  CHECK_EQ(t.maxSplitSizeBytes, 128ULL << 20);  // kept from the base
  CHECK_EQ(parseAllocatorSettings("").maxSplitSizeBytes, AllocatorSettings().maxSplitSizeBytes);
}

TEST(settings_roundup_forms) {
  AllocatorSettings s = parseAllocatorSettings("roundup_power2_divisions:8");
  for (size_t d : s.roundupPower2Divisions) CHECK_EQ(d, 8u);
  // "256:1,512:2,>:4": intervals below 256 MiB get 1, [256, 512) gets 2, the rest 4.
  s = parseAllocatorSettings("roundup_power2_divisions:[256:1,512:2,>:4]");
  CHECK_EQ(s.divisionsFor(1ULL << 20), 1u);
  CHECK_EQ(s.divisionsFor(200ULL << 20), 1u);
  CHECK_EQ(s.divisionsFor(300ULL << 20), 2u);
  CHECK_EQ(s.divisionsFor(600ULL << 20), 4u);
  CHECK_EQ(s.divisionsFor(100ULL << 30), 4u);
}

TEST(settings_errors_name_the_key_or_value) {
  CHECK_THROWS(parseAllocatorSettings("foo:1"), ArgumentError, "unknown allocator setting 'foo'");
  CHECK_THROWS(parseAllocatorSettings("max_split_size_mb"), ArgumentError, "max_split_size_mb");
  CHECK_THROWS(parseAllocatorSettings("max_split_size_mb:20"), ArgumentError, "must be > 20");
  CHECK_THROWS(parseAllocatorSettings("max_split_size_mb:-5"), ArgumentError, "max_split_size_mb:-5");
  CHECK_THROWS(parseAllocatorSettings("garbage_collection_threshold:1.5"), ArgumentError, "between 0.0 and 1.0");
  CHECK_THROWS(parseAllocatorSettings("garbage_collection_threshold:x"), ArgumentError, "expected a number");
  CHECK_THROWS(parseAllocatorSettings("roundup_power2_divisions:3"), ArgumentError, "power of 2");
  CHECK_THROWS(parseAllocatorSettings("roundup_power2_divisions:[100:2]"), ArgumentError, "powers of 2");
  CHECK_THROWS(parseAllocatorSettings("expandable_segments:maybe"), ArgumentError, "expandable_segments:maybe");
}

TEST(byte_sizes) {
  CHECK_EQ(parseByteSize("2GiB", "x"), 2ULL << 30);
  CHECK_EQ(parseByteSize("512MiB", "x"), 512ULL << 20);
  CHECK_EQ(parseByteSize("1.5 GB", "x"), 1500000000ULL);
  CHECK_EQ(parseByteSize("4096", "x"), 4096ULL);
  CHECK_THROWS(parseByteSize("lots", "LIMIT"), ArgumentError, "LIMIT 'lots'");
  CHECK_THROWS(parseByteSize("-1", "LIMIT"), ArgumentError, "LIMIT");
  CHECK_EQ(formatBytes(512), std::string("512 bytes"));
  CHECK_EQ(formatBytes(1536), std::string("1.50 KiB"));
  CHECK_EQ(formatBytes(256ULL << 20), std::string("256.00 MiB"));
  CHECK_EQ(formatBytes(1ULL << 30), std::string("1024.00 MiB"));
  CHECK_EQ(formatBytes(2ULL << 30), std::string("2.00 GiB"));
}
