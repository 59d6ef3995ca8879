// Allocator statistics with the same names and arithmetic as PyTorch's
// c10::CachingDeviceAllocator::DeviceStats, so torch.memory.stats() reads
// exactly like torch.cuda.memory_stats().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tsgpu {

/** One statistic: its current value, peak, and accumulated increases/decreases. */
struct Stat {
  int64_t current = 0;    // value now
  int64_t peak = 0;       // highest value since the last resetPeak
  int64_t allocated = 0;  // sum of all increases since the last resetAccumulated
  int64_t freed = 0;      // sum of all decreases since the last resetAccumulated

  void increase(int64_t amount) {
    current += amount;
    if (current > peak) peak = current;
    allocated += amount;
  }
  void decrease(int64_t amount) {
    current -= amount;
    freed += amount;
  }
  void resetAccumulated() { allocated = 0; freed = 0; }
  void resetPeak() { peak = current; }
};

/** Index into a StatArray, as PyTorch's StatType. */
enum StatType : size_t { kAggregate = 0, kSmallPool = 1, kLargePool = 2, kNumStatTypes = 3 };

/** One Stat per pool type: all, small_pool, large_pool. */
using StatArray = std::array<Stat, kNumStatTypes>;

/** Which entries of a StatArray an event touches ("all" plus one pool). */
using StatTypes = std::array<bool, kNumStatTypes>;

struct DeviceStats {
  StatArray allocation;            // number of allocated blocks
  StatArray segment;               // number of device allocations (segments)
  StatArray active;                // number of active (allocated or awaiting free) blocks
  StatArray inactive_split;        // number of free blocks that are part of a split segment
  StatArray allocated_bytes;       // bytes in allocated blocks
  StatArray reserved_bytes;        // bytes in segments
  StatArray active_bytes;          // bytes in active blocks
  StatArray inactive_split_bytes;  // bytes in inactive split blocks (non-releasable)
  StatArray requested_bytes;       // bytes callers asked for (before rounding)

  int64_t num_alloc_retries = 0;     // device allocations retried after a cache flush
  int64_t num_ooms = 0;              // out-of-memory errors thrown
  int64_t num_sync_all_streams = 0;  // full synchronizations (cache flushes)
  int64_t num_device_alloc = 0;      // raw device allocations (cudaMalloc, malloc)
  int64_t num_device_free = 0;       // raw device frees (cudaFree, free)

  Stat oversize_allocations;  // allocations of blocks >= max_split_size
  Stat oversize_segments;     // segments >= max_split_size
  int64_t max_split_size = -1;  // bytes; -1 when unlimited, as PyTorch reports SIZE_MAX

  void resetAccumulated();
  void resetPeak();
};

/**
 * Flattens stats into PyTorch's flat key names ("allocated_bytes.all.current",
 * "num_ooms", ...), sorted by key as torch.cuda.memory_stats() returns them.
 */
std::vector<std::pair<std::string, int64_t>> flattenStats(const DeviceStats& stats);

/** Looks up one flattened key; throws ArgumentError for an unknown key. */
int64_t statValue(const DeviceStats& stats, const std::string& key);

}  // namespace tsgpu
