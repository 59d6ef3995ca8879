// Unit tests of the memory summary's number formatting and layout.
#include <sstream>

#include "core/summary.h"
#include "harness.h"

using namespace tsgpu;

TEST(summary_format_size_steps_like_pytorch) {
  CHECK_EQ(summaryFormatSize(0, 0), std::string("     0 B  "));
  CHECK_EQ(summaryFormatSize(512, 512), std::string("   512 B  "));
  CHECK_EQ(summaryFormatSize(786431, 786431), std::string("786431 B  "));
  CHECK_EQ(summaryFormatSize(786432, 786432), std::string("   768 KiB"));
  CHECK_EQ(summaryFormatSize(4000256, 4000256), std::string("  3906 KiB"));
  CHECK_EQ(summaryFormatSize(0, 4000256), std::string("     0 KiB"));
  CHECK_EQ(summaryFormatSize(1073741824, 1073741824), std::string("  1024 MiB"));
  CHECK_EQ(summaryFormatSize(3LL << 40, 3LL << 40), std::string("  3072 GiB"));
}

TEST(summary_format_count_steps_like_pytorch) {
  CHECK_EQ(summaryFormatCount(0, 0), std::string("      0   "));
  CHECK_EQ(summaryFormatCount(749999, 749999), std::string(" 749999   "));
  CHECK_EQ(summaryFormatCount(750000, 750000), std::string("    750 K "));
  CHECK_EQ(summaryFormatCount(9200000, 9200000), std::string("   9200 K "));
  CHECK_EQ(summaryFormatCount(800000000, 800000000), std::string("    800 M "));
}

TEST(summary_lines_are_77_characters) {
  DeviceStats s;
  s.allocated_bytes[kAggregate].increase(123456789);
  s.num_ooms = 3;
  for (bool cuda : {true, false})
    for (bool abbreviated : {true, false}) {
      SummaryOptions o;
      o.cuda = cuda;
      o.abbreviated = abbreviated;
      o.deviceName = "cpu";
      std::istringstream in(formatMemorySummary(s, o));
      std::string line;
      int n = 0;
      while (std::getline(in, line)) {
        CHECK_EQ(line.size(), 77u);
        ++n;
      }
      CHECK_EQ(n, abbreviated ? 6 + 9 * 2 + 5 : 6 + 9 * 4 + 5);
    }
}
