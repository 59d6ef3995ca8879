// Memory history: a bounded trace of allocator events (as PyTorch's
// _record_memory_history) and the structures of a memory snapshot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tsgpu {

/** One frame of the user's code that made an allocation (cell and line). */
struct Frame {
  std::string filename;  // e.g. "Cell In[4]" or a script path
  int line = 0;          // 1-based line in that cell or file
  int column = 0;        // 1-based column (0 when unknown)
  std::string name;      // function name ("" at top level)
  int cell = 0;          // execution count of the notebook cell (0 when not a cell)
};

/** A stack of frames, innermost first; shared between blocks and trace entries. */
using Context = std::shared_ptr<const std::vector<Frame>>;

/** One event in the trace, named as in PyTorch's snapshot "device_traces". */
struct TraceEntry {
  enum Action { kAlloc, kFreeRequested, kFreeCompleted, kSegmentAlloc, kSegmentFree, kOom, kSnapshot };
  Action action = kAlloc;  // what happened
  uint64_t address = 0;    // block or segment address (0 for oom)
  uint64_t size = 0;       // block or segment size in bytes (for oom: the request)
  uint64_t requested = 0;  // bytes the caller asked for (alloc/free), else 0
  int64_t timeUs = 0;      // microseconds since the epoch
  Context context;         // user stack for alloc/oom when recorded, else null
};

/** PyTorch's action names: "alloc", "free_requested", "segment_alloc", ... */
const char* actionName(TraceEntry::Action action);

/** A bounded ring of trace entries. Disabled (records nothing) by default. */
class History {
 public:
  /** Turns recording on (maxEntries > 0) or off (maxEntries == 0). */
  void configure(bool enabled, size_t maxEntries, bool clear);
  bool enabled() const { return enabled_; }
  size_t maxEntries() const { return maxEntries_; }
  void record(TraceEntry entry);
  /** Entries oldest first. */
  std::vector<TraceEntry> entries() const;
  void clear();

 private:
  bool enabled_ = false;
  size_t maxEntries_ = 0;
  size_t next_ = 0;  // next slot to overwrite once the ring is full
  std::vector<TraceEntry> ring_;
};

/** A block inside a segment, as in PyTorch's snapshot. */
struct BlockInfo {
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t requestedSize = 0;
  std::string state;  // "active_allocated" or "inactive"
  Context context;    // stack of the allocation, when history was on
};

/** A segment (one raw device allocation) with its blocks in address order. */
struct SegmentInfo {
  uint64_t address = 0;
  uint64_t totalSize = 0;
  uint64_t allocatedSize = 0;
  uint64_t activeSize = 0;
  uint64_t requestedSize = 0;
  std::string segmentType;  // "small" or "large"
  std::vector<BlockInfo> blocks;
};

struct Snapshot {
  std::vector<SegmentInfo> segments;  // sorted by address
  std::vector<TraceEntry> trace;      // oldest first
};

int64_t nowMicros();

}  // namespace tsgpu
