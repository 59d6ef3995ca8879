#include "core/summary.h"

#include <cstdio>
#include <vector>

namespace tsgpu {

namespace {

constexpr int kWidth = 75;  // inner width; "|" on both sides makes 77

std::string repeat(char c, int n) { return std::string(static_cast<size_t>(n), c); }

std::string ljust(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// Python's floor division for the (non-negative in practice) stat values.
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

using Formatter = std::string (*)(int64_t, int64_t);

}  // namespace

std::string summaryFormatSize(int64_t size, int64_t prefSize) {
  static const char* prefixes[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const char* prefix = prefixes[0];
  double pref = static_cast<double>(prefSize);
  for (int i = 1; i < 6; ++i) {
    if (pref < 768 * 1024) break;
    prefix = prefixes[i];
    size = floorDiv(size, 1024);
    pref /= 1024;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%6lld %s", static_cast<long long>(size), prefix);
  return buf;
}

std::string summaryFormatCount(int64_t count, int64_t prefCount) {
  static const char* prefixes[] = {" ", "K", "M"};
  const char* prefix = prefixes[0];
  double pref = static_cast<double>(prefCount);
  for (int i = 1; i < 3; ++i) {
    if (pref < 750 * 1000) break;
    prefix = prefixes[i];
    count = floorDiv(count, 1000);
    pref /= 1000;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%7lld %s ", static_cast<long long>(count), prefix);
  return buf;
}

std::string formatMemorySummary(const DeviceStats& stats, const SummaryOptions& opt) {
  const std::string gpu = opt.cuda ? "GPU" : "CPU";
  struct Metric {
    const StatArray* values;
    std::string name;
    Formatter format;
  };
  const std::vector<Metric> metrics = {
      {&stats.allocated_bytes, "Allocated memory", summaryFormatSize},
      {&stats.active_bytes, "Active memory", summaryFormatSize},
      {&stats.requested_bytes, "Requested memory", summaryFormatSize},
      {&stats.reserved_bytes, gpu + " reserved memory", summaryFormatSize},
      {&stats.inactive_split_bytes, "Non-releasable memory", summaryFormatSize},
      {&stats.allocation, "Allocations", summaryFormatCount},
      {&stats.active, "Active allocs", summaryFormatCount},
      {&stats.segment, gpu + " reserved segments", summaryFormatCount},
      {&stats.inactive_split, "Non-releasable allocs", summaryFormatCount},
  };

  std::vector<std::string> lines;
  lines.push_back(repeat('=', kWidth));
  std::string title = opt.cuda ? "tsgpu CUDA memory summary, device ID " + std::to_string(opt.deviceIndex)
                               : "tsgpu memory summary, device " + opt.deviceName;
  // PyTorch: " {_:16} PyTorch CUDA memory summary, device ID {device:<17d} "
  lines.push_back(ljust(" " + repeat(' ', 16) + " " + title, kWidth));
  lines.push_back(repeat('-', kWidth));
  if (opt.cuda) {
    lines.push_back("  " + repeat(' ', 9) + " CUDA OOMs: " + ljust(std::to_string(stats.num_ooms), 12) + " | " +
                    repeat(' ', 6) + " cudaMalloc retries: " + ljust(std::to_string(stats.num_alloc_retries), 8) +
                    "  ");
  } else {
    lines.push_back("  " + repeat(' ', 9) + "  CPU OOMs: " + ljust(std::to_string(stats.num_ooms), 12) + " | " +
                    repeat(' ', 6) + "     malloc retries: " + ljust(std::to_string(stats.num_alloc_retries), 8) +
                    "  ");
  }
  lines.push_back(repeat('=', kWidth));
  lines.push_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");

  for (const Metric& m : metrics) {
    lines.push_back(repeat('-', kWidth));
    std::vector<std::pair<size_t, std::string>> rows = {{kAggregate, m.name}};
    if (!opt.abbreviated) {
      rows.push_back({kLargePool, "      from large pool"});
      rows.push_back({kSmallPool, "      from small pool"});
    }
    const Stat& pref = (*m.values)[kAggregate];
    for (const auto& row : rows) {
      const Stat& s = (*m.values)[row.first];
      lines.push_back(" " + ljust(row.second, 21) + " | " + m.format(s.current, pref.current) + " | " +
                      m.format(s.peak, pref.peak) + " | " + m.format(s.allocated, pref.allocated) + " | " +
                      m.format(s.freed, pref.freed) + " ");
    }
  }
  const std::pair<const Stat*, std::string> oversize[] = {
      {&stats.oversize_allocations, "Oversize allocations"},
      {&stats.oversize_segments, "Oversize " + gpu + " segments"},
  };
  for (const auto& o : oversize) {
    lines.push_back(repeat('-', kWidth));
    const Stat& s = *o.first;
    lines.push_back(" " + ljust(o.second, 21) + " | " + summaryFormatCount(s.current, s.current) + " | " +
                    summaryFormatCount(s.peak, s.peak) + " | " + summaryFormatCount(s.allocated, s.allocated) +
                    " | " + summaryFormatCount(s.freed, s.freed) + " ");
  }
  lines.push_back(repeat('=', kWidth));

  std::string out;
  for (const std::string& line : lines) out += "|" + line + "|\n";
  return out;
}

}  // namespace tsgpu
