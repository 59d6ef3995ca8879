// Allocator configuration, parsed from "key:value,key:value" strings as in
// PYTORCH_CUDA_ALLOC_CONF (here: TSGPU_CUDA_ALLOC_CONF, or
// torch.cuda.memory.setAllocatorSettings at run time).
//
// Accepted keys (same meaning as PyTorch's):
//   max_split_size_mb:N            blocks of at least N MiB are never split;
//                                  N must be > 20 (kLargeBuffer in MiB)
//   roundup_power2_divisions:N     round requests up to N equal divisions of
//                                  each power-of-two interval (N a power of 2)
//   roundup_power2_divisions:[256:1,512:2,>:4]
//                                  per-interval divisions; keys are sizes in
//                                  MiB (powers of two), ">" for all the rest
//   garbage_collection_threshold:F 0 < F < 1: with a memory fraction set, free
//                                  old cached blocks once reserved > F * limit
//   expandable_segments:True|False (default True where supported; see allocator.h)
//   reclaim_idle_segments:True|False
//                                  tsgpu only (default True): return idle whole
//                                  segments before growing; see allocator.h
// An unknown key or bad value throws ArgumentError naming it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace tsgpu {

/** Number of power-of-two intervals roundup_power2_divisions covers (1 MiB .. 64 GiB). */
constexpr size_t kRoundUpPowerOfTwoIntervals = 16;
/** First interval of roundup_power2_divisions starts at 1 MiB. */
constexpr size_t kRoundUpPowerOfTwoStartBytes = 1ULL << 20;

struct AllocatorSettings {
  /** Blocks this size or larger are not split; SIZE_MAX (default) disables the limit. */
  size_t maxSplitSizeBytes = std::numeric_limits<size_t>::max();
  /** Divisions per power-of-two interval, 0 or 1 meaning "no power-of-two rounding". */
  std::array<size_t, kRoundUpPowerOfTwoIntervals> roundupPower2Divisions{};
  /** 0 disables; otherwise a fraction in (0, 1) of the allowed memory. */
  double garbageCollectionThreshold = 0.0;
  /**
   * One segment per pool that grows in place (on by default where the
   * backend can map memory into reserved address space: CUDA with a driver
   * that has the virtual memory API; elsewhere ordinary segments are used).
   * See allocator.h for why this default differs from PyTorch's.
   */
  bool expandableSegments = true;
  /** tsgpu's extension (not in PyTorch): release idle whole segments before growing. */
  bool reclaimIdleSegments = true;

  /** Divisions that apply to a request of `size` bytes. */
  size_t divisionsFor(size_t size) const;
};

/**
 * Parses `config` and applies it on top of `base` (keys not mentioned keep
 * their value from `base`). Throws ArgumentError naming the bad key or value.
 */
AllocatorSettings parseAllocatorSettings(const std::string& config,
                                         const AllocatorSettings& base = AllocatorSettings());

/** Renders settings back into the "key:value,..." form (for display). */
std::string formatAllocatorSettings(const AllocatorSettings& s);

}  // namespace tsgpu
