#include "core/trace_replay.h"

#include <chrono>
#include <unordered_map>

namespace tsgpu {

ReplayResult replayTrace(CachingAllocator& allocator, const std::vector<TraceEvent>& events) {
  using Clock = std::chrono::steady_clock;
  ReplayResult r;
  std::unordered_map<uint64_t, Block*> live;
  live.reserve(events.size());
  std::chrono::nanoseconds allocTime{0}, freeTime{0};
  for (const TraceEvent& e : events) {
    if (e.alloc) {
      auto t0 = Clock::now();
      Block* b = nullptr;
      try {
        b = allocator.malloc(e.bytes);
      } catch (const OutOfMemoryError&) {
        ++r.ooms;
      }
      allocTime += Clock::now() - t0;
      ++r.numAllocs;
      if (b) live[e.id] = b;
    } else {
      auto it = live.find(e.id);
      if (it == live.end()) continue;
      auto t0 = Clock::now();
      allocator.free(it->second);
      freeTime += Clock::now() - t0;
      ++r.numFrees;
      live.erase(it);
    }
  }
  DeviceStats s = allocator.stats();
  r.peakAllocated = s.allocated_bytes[kAggregate].peak;
  r.peakReserved = s.reserved_bytes[kAggregate].peak;
  r.numDeviceAlloc = s.num_device_alloc;
  r.numDeviceFree = s.num_device_free;
  r.nsPerAlloc = r.numAllocs ? static_cast<double>(allocTime.count()) / r.numAllocs : 0;
  r.nsPerFree = r.numFrees ? static_cast<double>(freeTime.count()) / r.numFrees : 0;
  for (auto& kv : live) allocator.free(kv.second);
  return r;
}

}  // namespace tsgpu
