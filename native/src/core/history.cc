#include "core/history.h"

#include <chrono>

namespace tsgpu {

const char* actionName(TraceEntry::Action action) {
  switch (action) {
    case TraceEntry::kAlloc: return "alloc";
    case TraceEntry::kFreeRequested: return "free_requested";
    case TraceEntry::kFreeCompleted: return "free_completed";
    case TraceEntry::kSegmentAlloc: return "segment_alloc";
    case TraceEntry::kSegmentFree: return "segment_free";
    case TraceEntry::kOom: return "oom";
    case TraceEntry::kSnapshot: return "snapshot";
  }
  return "unknown";
}

int64_t nowMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

void History::configure(bool enabled, size_t maxEntries, bool clear) {
  if (clear || maxEntries != maxEntries_) {
    // Keep the newest entries that still fit.
    std::vector<TraceEntry> old = clear ? std::vector<TraceEntry>() : entries();
    ring_.clear();
    next_ = 0;
    size_t start = old.size() > maxEntries ? old.size() - maxEntries : 0;
    for (size_t i = start; i < old.size(); ++i) ring_.push_back(std::move(old[i]));
  }
  enabled_ = enabled && maxEntries > 0;
  maxEntries_ = maxEntries;
}

void History::record(TraceEntry entry) {
  if (!enabled_) return;
  if (ring_.size() < maxEntries_) {
    ring_.push_back(std::move(entry));
  } else {
    ring_[next_] = std::move(entry);
    next_ = (next_ + 1) % maxEntries_;
  }
}

std::vector<TraceEntry> History::entries() const {
  std::vector<TraceEntry> out;
  out.reserve(ring_.size());
  for (size_t i = 0; i < ring_.size(); ++i) out.push_back(ring_[(next_ + i) % ring_.size()]);
  return out;
}

void History::clear() {
  ring_.clear();
  next_ = 0;
}

}  // namespace tsgpu
