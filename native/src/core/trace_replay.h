// Replays an allocation trace (["a", id, bytes] / ["f", id, bytes] events)
// through a caching allocator and measures it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/allocator.h"

namespace tsgpu {

struct TraceEvent {
  bool alloc = true;   // true for "a", false for "f"
  uint64_t id = 0;     // identifies the allocation a free refers to
  uint64_t bytes = 0;  // requested size
};

struct ReplayResult {
  int64_t peakAllocated = 0;  // allocated_bytes.all.peak
  int64_t peakReserved = 0;   // reserved_bytes.all.peak
  int64_t numDeviceAlloc = 0;
  int64_t numDeviceFree = 0;
  int64_t numAllocs = 0;
  int64_t numFrees = 0;
  double nsPerAlloc = 0;
  double nsPerFree = 0;
  int64_t ooms = 0;           // allocations that failed (replay continues)
};

/** Replays `events`; frees whatever the trace left allocated at the end. */
ReplayResult replayTrace(CachingAllocator& allocator, const std::vector<TraceEvent>& events);

}  // namespace tsgpu
