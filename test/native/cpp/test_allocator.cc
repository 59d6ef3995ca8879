// Unit tests of the caching allocator over the policy backend.
#include <string>
#include <vector>

#include "core/allocator.h"
#include "backends/policy/policy_backend.h"
#include "core/trace_replay.h"
#include "harness.h"

using namespace tsgpu;

namespace {

constexpr size_t MiB = 1ULL << 20;

int64_t cur(const StatArray& a, StatType t = kAggregate) { return a[t].current; }

std::string joinLog(const PolicyBackend& b) {
  std::string s;
  for (const auto& l : b.log()) s += l + ";";
  return s;
}

}  // namespace

TEST(rounding_follows_pytorch) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  CHECK_EQ(a.roundSize(1), 512u);
  CHECK_EQ(a.roundSize(512), 512u);
  CHECK_EQ(a.roundSize(513), 1024u);
  CHECK_EQ(a.roundSize(4000000), 4000256u);
  CHECK_EQ(CachingAllocator::allocationSize(512), kSmallBuffer);
  CHECK_EQ(CachingAllocator::allocationSize(MiB), kSmallBuffer);
  CHECK_EQ(CachingAllocator::allocationSize(MiB + 512), kLargeBuffer);
  CHECK_EQ(CachingAllocator::allocationSize(10 * MiB - 512), kLargeBuffer);
  CHECK_EQ(CachingAllocator::allocationSize(10 * MiB), 10 * MiB);
  CHECK_EQ(CachingAllocator::allocationSize(11 * MiB + 512), 12 * MiB);
}

TEST(roundup_power2_divisions) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  a.setSettings(parseAllocatorSettings("roundup_power2_divisions:4"));
  CHECK_EQ(a.roundSize(1258291), 1310720u);  // 1.2 MiB -> 1.25 MiB
  CHECK_EQ(a.roundSize(MiB), MiB);            // powers of two stay
  CHECK_EQ(a.roundSize(1000), 1024u);         // below 512*4: plain 512 rounding
  CHECK_EQ(a.roundSize(3 * MiB + 1), 3 * MiB + MiB / 2);  // steps of 512 KiB between 2 and 4 MiB
}

TEST(small_requests_share_a_2mib_segment) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  Block* x = a.malloc(100);
  Block* y = a.malloc(1000);
  DeviceStats s = a.stats();
  CHECK_EQ(s.num_device_alloc, 1);
  CHECK_EQ(cur(s.segment, kSmallPool), 1);
  CHECK_EQ(cur(s.reserved_bytes, kSmallPool), static_cast<int64_t>(kSmallBuffer));
  CHECK_EQ(cur(s.allocated_bytes, kSmallPool), 512 + 1024);
  CHECK_EQ(cur(s.requested_bytes), 1100);
  CHECK_EQ(cur(s.allocated_bytes, kLargePool), 0);
  CHECK(y->ptr == x->ptr + 512);  // carved right after x
  a.free(x);
  a.free(y);
  s = a.stats();
  CHECK_EQ(cur(s.allocated_bytes), 0);
  CHECK_EQ(cur(s.inactive_split), 0);  // merged back into one whole segment
  CHECK_EQ(a.snapshot().segments.size(), 1u);
  CHECK_EQ(a.snapshot().segments[0].blocks.size(), 1u);
}

TEST(split_and_merge_update_inactive_split) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  Block* x = a.malloc(4000000);
  DeviceStats s = a.stats();
  CHECK_EQ(cur(s.reserved_bytes, kLargePool), static_cast<int64_t>(kLargeBuffer));
  CHECK_EQ(cur(s.allocated_bytes), 4000256);
  CHECK_EQ(cur(s.inactive_split), 1);
  CHECK_EQ(cur(s.inactive_split_bytes), static_cast<int64_t>(kLargeBuffer) - 4000256);
  Block* y = a.malloc(4000000);  // from the remainder: the split block shrinks
  s = a.stats();
  CHECK_EQ(s.num_device_alloc, 1);
  CHECK_EQ(cur(s.inactive_split), 1);
  CHECK_EQ(cur(s.inactive_split_bytes), static_cast<int64_t>(kLargeBuffer) - 2 * 4000256);
  a.free(x);  // x's block is inactive and split: two inactive pieces
  s = a.stats();
  CHECK_EQ(cur(s.inactive_split), 2);
  CHECK_EQ(cur(s.inactive_split_bytes), static_cast<int64_t>(kLargeBuffer) - 4000256);
  a.free(y);  // everything merges: one whole free segment
  s = a.stats();
  CHECK_EQ(cur(s.inactive_split), 0);
  CHECK_EQ(cur(s.inactive_split_bytes), 0);
  CHECK_EQ(s.inactive_split[kAggregate].peak, 2);
  CHECK_EQ(a.snapshot().segments[0].blocks.size(), 1u);
}

TEST(large_remainder_of_one_mib_or_less_is_not_split) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  Block* x = a.malloc(11 * MiB);  // 12 MiB segment, 1 MiB left: not split
  CHECK_EQ(x->size, 12 * MiB);
  CHECK_EQ(a.stats().allocated_bytes[kAggregate].current, static_cast<int64_t>(12 * MiB));
  CHECK_EQ(a.stats().requested_bytes[kAggregate].current, static_cast<int64_t>(11 * MiB));
  a.free(x);
}

TEST(best_fit_takes_the_smallest_block_that_fits) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  Block* big = a.malloc(16 * MiB);
  Block* mid = a.malloc(12 * MiB);
  Block* huge = a.malloc(30 * MiB);
  char* midPtr = mid->ptr;
  a.free(big);
  a.free(mid);
  a.free(huge);
  Block* x = a.malloc(11 * MiB);
  CHECK(x->ptr == midPtr);
  CHECK_EQ(a.stats().num_device_alloc, 3);
  a.free(x);
}

TEST(stats_arithmetic_and_resets) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  Block* x = a.malloc(1000);
  Block* y = a.malloc(3000);
  a.free(x);
  DeviceStats s = a.stats();
  CHECK_EQ(s.allocation[kAggregate].current, 1);
  CHECK_EQ(s.allocation[kAggregate].peak, 2);
  CHECK_EQ(s.allocation[kAggregate].allocated, 2);
  CHECK_EQ(s.allocation[kAggregate].freed, 1);
  CHECK_EQ(s.allocated_bytes[kAggregate].allocated, 1024 + 3072);
  CHECK_EQ(s.allocated_bytes[kAggregate].freed, 1024);
  CHECK_EQ(s.requested_bytes[kSmallPool].current, 3000);
  CHECK_EQ(s.active_bytes[kAggregate].current, 3072);
  a.resetPeakStats();
  CHECK_EQ(a.stats().allocation[kAggregate].peak, 1);
  a.resetAccumulatedStats();
  s = a.stats();
  CHECK_EQ(s.allocation[kAggregate].allocated, 0);
  CHECK_EQ(s.allocation[kAggregate].freed, 0);
  CHECK_EQ(s.num_device_alloc, 0);
  CHECK_EQ(s.allocation[kAggregate].current, 1);
  a.free(y);
  EmptyCacheReport r = a.emptyCache();
  CHECK_EQ(r.releasedSegments, 1u);
  CHECK_EQ(r.releasedBytes, kSmallBuffer);
  CHECK_EQ(r.keptSegments, 0u);
  CHECK_EQ(a.stats().num_device_free, 1);
  CHECK_EQ(a.stats().num_sync_all_streams, 1);
  CHECK_EQ(a.stats().max_split_size, -1);
}

TEST(oom_retry_order_flushes_cache_then_calls_back) {
  PolicyBackend backend(40 * MiB);
  CachingAllocator a(&backend, "policy");
  std::vector<std::string> order;
  Block* held = a.malloc(24 * MiB);
  Block* cached = a.malloc(12 * MiB);
  a.free(cached);
  a.setFreeMemoryCallback([&]() {
    order.push_back("callback:" + joinLog(backend));
    a.free(held);  // what the JS garbage collector would do
    held = nullptr;
    return true;
  });
  backend.clearLog();
  Block* x = a.malloc(20 * MiB);  // 24 held + 12 cached + 20 > 40
  CHECK(x != nullptr);
  // The first attempt fails, the cached 12 MiB segment is released and the
  // retry still fails; only then the callback runs and frees `held`, whose
  // block the allocation then reuses.
  CHECK_EQ(order.size(), 1u);
  CHECK_EQ(order[0], std::string("callback:fail 20971520;free 12582912;fail 20971520;"));
  DeviceStats s = a.stats();
  CHECK_EQ(s.num_ooms, 0);
  CHECK_EQ(s.num_alloc_retries, 1);
  CHECK_EQ(s.num_device_alloc, 2);
  if (x) a.free(x);
}

TEST(oom_throws_with_numbers_and_keeps_state) {
  PolicyBackend backend(40 * MiB);
  CachingAllocator a(&backend, "policy");
  int calls = 0;
  a.setFreeMemoryCallback([&]() {
    ++calls;
    return false;
  });
  Block* held = a.malloc(30 * MiB);
  bool thrown = false;
  try {
    a.malloc(20 * MiB);
  } catch (const OutOfMemoryError& e) {
    thrown = true;
    std::string m = e.what();
    CHECK(m.find("Tried to allocate 20.00 MiB") != std::string::npos);
    CHECK(m.find("total capacity of 40.00 MiB of which 10.00 MiB is free") != std::string::npos);
    CHECK(m.find("30.00 MiB is allocated by tensors and 0 bytes is reserved but unallocated") != std::string::npos);
    CHECK_EQ(e.requested, 20 * MiB);
    CHECK_EQ(e.code(), std::string("TSGPU_OOM"));
  }
  CHECK(thrown);
  CHECK_EQ(calls, 1);
  CHECK_EQ(a.stats().num_ooms, 1);
  CHECK_EQ(a.stats().allocated_bytes[kAggregate].current, static_cast<int64_t>(30 * MiB));
  Block* small = a.malloc(100);  // still usable
  CHECK(small != nullptr);
  a.free(small);
  a.free(held);
}

TEST(transient_backend_failure_is_retried) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  backend.failNextAllocs(1);
  Block* x = a.malloc(MiB * 4);
  CHECK(x != nullptr);
  CHECK_EQ(a.stats().num_alloc_retries, 1);
  a.free(x);
}

TEST(max_split_size_keeps_oversize_blocks_whole) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  a.setSettings(parseAllocatorSettings("max_split_size_mb:40,reclaim_idle_segments:False"));
  CHECK_EQ(a.stats().max_split_size, static_cast<int64_t>(40 * MiB));
  Block* big = a.malloc(50 * MiB);
  DeviceStats s = a.stats();
  CHECK_EQ(s.oversize_allocations.current, 1);
  CHECK_EQ(s.oversize_segments.current, 1);
  char* bigPtr = big->ptr;
  a.free(big);
  Block* small = a.malloc(25 * MiB);  // below max_split: may not take the oversize block
  CHECK(small->ptr != bigPtr);
  CHECK_EQ(a.stats().num_device_alloc, 2);
  Block* near = a.malloc(48 * MiB);  // oversize, wastes < 20 MiB: reuses it whole, unsplit
  CHECK(near->ptr == bigPtr);
  CHECK_EQ(near->size, 50 * MiB);
  CHECK_EQ(a.stats().inactive_split[kAggregate].current, 0);
  a.free(near);
  Block* far = a.malloc(41 * MiB);  // would waste >= 20 MiB? 50 < 41 + 20: reuses too
  CHECK(far->ptr == bigPtr);
  a.free(far);
  a.free(small);
}

TEST(max_split_size_releases_oversize_cache_first) {
  PolicyBackend backend(100 * MiB);
  CachingAllocator a(&backend, "policy");
  a.setSettings(parseAllocatorSettings("max_split_size_mb:40"));
  Block* x = a.malloc(50 * MiB);
  a.free(x);
  backend.clearLog();
  Block* y = a.malloc(60 * MiB);
  CHECK(y != nullptr);
  CHECK_EQ(joinLog(backend), std::string("fail 62914560;free 52428800;alloc 62914560;"));
  a.free(y);
}

TEST(memory_fraction_caps_reserved_memory) {
  PolicyBackend backend(100 * MiB);
  CachingAllocator a(&backend, "policy");
  a.setMemoryFraction(0.5);
  Block* x = a.malloc(40 * MiB);
  bool thrown = false;
  try {
    a.malloc(20 * MiB);
  } catch (const OutOfMemoryError& e) {
    thrown = true;
    CHECK(std::string(e.what()).find("per-process memory fraction") != std::string::npos);
  }
  CHECK(thrown);
  CHECK_THROWS(a.setMemoryFraction(1.5), ArgumentError, "allowed range");
  a.free(x);
}

TEST(garbage_collection_threshold_frees_old_cached_segments) {
  PolicyBackend backend(100 * MiB);
  CachingAllocator a(&backend, "policy");
  a.setSettings(parseAllocatorSettings("garbage_collection_threshold:0.5"));
  a.setMemoryFraction(1.0);
  Block* x = a.malloc(30 * MiB);
  Block* y = a.malloc(30 * MiB);
  a.free(x);
  a.free(y);
  Block* z = a.malloc(40 * MiB);  // 60 MiB reserved > 50: the cached segments go first
  CHECK_EQ(a.stats().num_device_free, 2);
  CHECK_EQ(a.stats().reserved_bytes[kAggregate].current, static_cast<int64_t>(40 * MiB));
  a.free(z);
}

TEST(history_records_events_in_a_ring) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  a.recordHistory(true, 3, false);
  Block* x = a.malloc(100);  // segment_alloc, alloc
  a.free(x);                 // free_requested, free_completed
  Snapshot s = a.snapshot();
  CHECK_EQ(s.trace.size(), 3u);
  CHECK_EQ(std::string(actionName(s.trace[0].action)), std::string("alloc"));
  CHECK_EQ(std::string(actionName(s.trace[2].action)), std::string("free_completed"));
  CHECK_EQ(s.segments.size(), 1u);
  CHECK_EQ(s.segments[0].segmentType, std::string("small"));
}

TEST(trace_replay_measures_peaks) {
  PolicyBackend backend;
  CachingAllocator a(&backend, "policy");
  std::vector<TraceEvent> ev = {{true, 1, 4000000}, {true, 2, 100}, {false, 1, 4000000}, {true, 3, 30 * MiB}};
  ReplayResult r = replayTrace(a, ev);
  CHECK_EQ(r.peakAllocated, 4000256 + 512 + static_cast<int64_t>(30 * MiB) - 4000256);
  CHECK_EQ(r.peakReserved, static_cast<int64_t>(kLargeBuffer + kSmallBuffer + 30 * MiB));
  CHECK_EQ(r.numAllocs, 3);
  CHECK_EQ(r.numFrees, 1);
}

TEST(reclaim_idle_segments_returns_smallest_idle_segments_before_growing) {
  for (bool reclaim : {true, false}) {
    PolicyBackend backend;
    CachingAllocator a(&backend, "policy");
    a.setSettings(parseAllocatorSettings(reclaim ? "" : "reclaim_idle_segments:False"));
    Block* x = a.malloc(12 * MiB);
    Block* y = a.malloc(14 * MiB);
    Block* z = a.malloc(30 * MiB);
    a.free(x);
    a.free(y);
    a.free(z);
    backend.clearLog();
    Block* w = a.malloc(40 * MiB);  // fits no cached block; 56 MiB are idle
    if (reclaim) {
      // 12 + 14 < 40, so the 30 MiB segment goes too; smallest first.
      CHECK_EQ(joinLog(backend), std::string("free 12582912;free 14680064;free 31457280;alloc 41943040;"));
      CHECK_EQ(a.stats().reserved_bytes[kAggregate].peak, static_cast<int64_t>(56 * MiB));
    } else {
      CHECK_EQ(joinLog(backend), std::string("alloc 41943040;"));
      CHECK_EQ(a.stats().reserved_bytes[kAggregate].peak, static_cast<int64_t>(96 * MiB));
    }
    a.free(w);
    Block* v = a.malloc(100 * MiB);  // idle 40 MiB < 100 MiB: nothing is released
    CHECK_EQ(a.stats().num_device_free, reclaim ? 3 : 0);
    a.free(v);
  }
}

static uintptr_t addr(const char* p) { return reinterpret_cast<uintptr_t>(p); }

// Expandable segments: one reserved range per pool that grows in place by
// whole granules (2 MiB on the policy backend, as on Hopper) and gives back
// only its unused tail.
TEST(expandable_segment_grows_in_place_and_releases_its_tail) {
  PolicyBackend backend(1ULL << 40, "policy", /*canMap=*/true);
  CachingAllocator a(&backend, "policy");
  a.setSettings(parseAllocatorSettings("expandable_segments:True"));
  Block* x = a.malloc(30 * MiB);
  const uintptr_t base = addr(x->ptr);
  Block* y = a.malloc(3 * MiB);  // right after x: the segment grows, no new segment
  CHECK_EQ(addr(y->ptr), addr(x->ptr) + 30 * MiB);
  DeviceStats s = a.stats();
  CHECK_EQ(s.segment[kAggregate].current, 1);
  CHECK_EQ(s.reserved_bytes[kAggregate].current, static_cast<int64_t>(34 * MiB));  // 30 + 3 rounded up to 4
  CHECK_EQ(backend.used(), 34 * MiB);
  a.free(x);
  // As in PyTorch, an expandable segment splits any rest of 512 bytes or
  // more: y holds 3 MiB and the 1 MiB after it stays free. x's 30 MiB are
  // free but too small, so z starts in that 1 MiB and the segment grows.
  CHECK_EQ(y->size, 3 * MiB);
  Block* z = a.malloc(40 * MiB);
  CHECK_EQ(addr(z->ptr), addr(y->ptr) + 3 * MiB);
  CHECK_EQ(a.stats().reserved_bytes[kAggregate].current, static_cast<int64_t>(74 * MiB));
  a.free(z);
  EmptyCacheReport r = a.emptyCache();  // the tail past y goes back; x's hole stays mapped below y
  CHECK_EQ(r.releasedBytes, 40 * MiB);
  CHECK_EQ(a.stats().reserved_bytes[kAggregate].current, static_cast<int64_t>(34 * MiB));
  CHECK_EQ(backend.used(), 34 * MiB);
  a.free(y);
  a.emptyCache();
  s = a.stats();
  CHECK_EQ(s.reserved_bytes[kAggregate].current, 0);
  CHECK_EQ(s.segment[kAggregate].current, 0);
  CHECK_EQ(s.inactive_split[kAggregate].current, 0);
  CHECK_EQ(s.inactive_split_bytes[kAggregate].current, 0);
  CHECK_EQ(backend.used(), 0u);
  Block* again = a.malloc(2 * MiB);  // the large pool's reservation is reused from its start
  CHECK_EQ(addr(again->ptr), base);
  a.free(again);
}

TEST(expandable_segment_out_of_memory_flushes_then_fails) {
  PolicyBackend backend(64 * MiB, "policy", /*canMap=*/true);
  CachingAllocator a(&backend, "policy");
  a.setSettings(parseAllocatorSettings("expandable_segments:True"));
  Block* x = a.malloc(40 * MiB);
  const uintptr_t base = addr(x->ptr);
  bool threw = false;
  try {
    a.malloc(30 * MiB);
  } catch (const OutOfMemoryError&) {
    threw = true;
  }
  CHECK(threw);
  CHECK_EQ(a.stats().num_ooms, 1);
  a.free(x);
  Block* y = a.malloc(60 * MiB);  // x's free space is the tail: it grows to 60 MiB in place
  CHECK_EQ(addr(y->ptr), base);
  CHECK_EQ(backend.used(), 60 * MiB);
  a.free(y);
}

TEST(expandable_segments_fall_back_to_ordinary_segments_without_mapping) {
  PolicyBackend backend;  // cannot map: as the cpu backend, or a driver without virtual memory
  CachingAllocator a(&backend, "policy");
  CHECK(a.settings().expandableSegments);  // the default
  Block* x = a.malloc(3 * MiB);
  CHECK_EQ(a.stats().reserved_bytes[kAggregate].current, static_cast<int64_t>(kLargeBuffer));
  a.free(x);
}
