#include "core/stats.h"

#include <algorithm>

#include "base/errors.h"

namespace tsgpu {

namespace {

template <typename F>
void forEachArray(DeviceStats& s, F f) {
  for (StatArray* a : {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
                       &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes})
    for (Stat& st : *a) f(st);
  f(s.oversize_allocations);
  f(s.oversize_segments);
}

void addStat(std::vector<std::pair<std::string, int64_t>>& out, const std::string& prefix, const Stat& s) {
  out.emplace_back(prefix + ".current", s.current);
  out.emplace_back(prefix + ".peak", s.peak);
  out.emplace_back(prefix + ".allocated", s.allocated);
  out.emplace_back(prefix + ".freed", s.freed);
}

}  // namespace

void DeviceStats::resetAccumulated() {
  forEachArray(*this, [](Stat& s) { s.resetAccumulated(); });
  num_alloc_retries = 0;
  num_ooms = 0;
  num_sync_all_streams = 0;
  num_device_alloc = 0;
  num_device_free = 0;
}

void DeviceStats::resetPeak() {
  forEachArray(*this, [](Stat& s) { s.resetPeak(); });
}

std::vector<std::pair<std::string, int64_t>> flattenStats(const DeviceStats& s) {
  std::vector<std::pair<std::string, int64_t>> out;
  const std::pair<const char*, const StatArray*> arrays[] = {
      {"allocation", &s.allocation},
      {"segment", &s.segment},
      {"active", &s.active},
      {"inactive_split", &s.inactive_split},
      {"allocated_bytes", &s.allocated_bytes},
      {"reserved_bytes", &s.reserved_bytes},
      {"active_bytes", &s.active_bytes},
      {"inactive_split_bytes", &s.inactive_split_bytes},
      {"requested_bytes", &s.requested_bytes},
  };
  const char* pools[] = {"all", "small_pool", "large_pool"};
  for (const auto& a : arrays)
    for (size_t t = 0; t < kNumStatTypes; ++t) addStat(out, std::string(a.first) + "." + pools[t], (*a.second)[t]);
  out.emplace_back("num_alloc_retries", s.num_alloc_retries);
  out.emplace_back("num_ooms", s.num_ooms);
  out.emplace_back("num_sync_all_streams", s.num_sync_all_streams);
  out.emplace_back("num_device_alloc", s.num_device_alloc);
  out.emplace_back("num_device_free", s.num_device_free);
  out.emplace_back("max_split_size", s.max_split_size);
  addStat(out, "oversize_allocations", s.oversize_allocations);
  addStat(out, "oversize_segments", s.oversize_segments);
  std::sort(out.begin(), out.end());
  return out;
}

int64_t statValue(const DeviceStats& stats, const std::string& key) {
  for (const auto& kv : flattenStats(stats))
    if (kv.first == key) return kv.second;
  throw ArgumentError("unknown memory statistic '" + key + "'");
}

}  // namespace tsgpu
