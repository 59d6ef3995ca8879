// The caching allocator: PyTorch's CUDACachingAllocator semantics over any
// tsgpu::Backend (cpu, cuda, or the address-range policy backend).
//
// Design
// ------
// Raw device allocations are slow (cudaMalloc synchronizes the device), so
// memory is requested from the backend in "segments" and carved into
// "blocks" that are handed out and taken back without touching the backend.
//
//  * Every request is rounded up to a multiple of kMinBlockSize (512 bytes),
//    or, with roundup_power2_divisions, to the next of N equal steps between
//    two powers of two.
//  * Requests of at most kSmallSize (1 MiB) come from the small pool, whose
//    segments are kSmallBuffer (2 MiB). Larger ones come from the large pool:
//    a request below kMinLargeAlloc (10 MiB) gets a kLargeBuffer (20 MiB)
//    segment, a larger one a segment rounded up to kRoundLarge (2 MiB).
//  * Each pool keeps its free blocks ordered by (size, address): a request
//    takes the smallest free block that fits (best fit). This runtime has one
//    stream per device, so "best fit per (device, stream)" is per device.
//  * A block larger than needed is split when the rest is still useful: in
//    the small pool when at least kMinBlockSize remains, in the large pool
//    when more than kSmallSize remains and the block is below
//    max_split_size. A freed block merges with free neighbours of the same
//    segment. Blocks of max_split_size or more are never split and are only
//    reused by requests that would waste less than kLargeBuffer of them.
//  * When the backend has no memory left: free cached blocks that are large
//    enough (or the oversize ones, largest first) and retry; then free every
//    cached whole segment and retry; then ask the free-memory callback (the
//    binding collects JavaScript garbage and frees the storages of
//    unreachable tensors) and retry; only then throw OutOfMemoryError.
//  * With a per-process memory fraction, reserved memory never exceeds
//    fraction * total; with garbage_collection_threshold, cached whole
//    segments that were not reused for longest are freed first once reserved
//    memory passes threshold * allowed.
//  * Statistics are updated at exactly the points where PyTorch updates
//    them, so every key has PyTorch's meaning.
//
// Where this allocator differs from PyTorch, and why:
//  * expandable_segments is on by default (PyTorch: off) wherever the backend
//    can map memory into reserved address space: CUDA through the driver's
//    virtual memory API (cuMemAddressReserve/cuMemCreate/cuMemMap/
//    cuMemSetAccess, loaded from libcuda.so.1 with dlopen, see
//    backends/cuda_vmm.h) and the policy backend of trace replays. Each pool
//    then has one segment: a reservation the size of the device, backed by
//    2 MiB granules mapped at its end as needed; a request that no free
//    block fits grows the free tail in place (or maps a new block after the
//    last one), and emptyCache / the OOM path unmap the free tail. Measured
//    on the ResNet-50 AMP trace (bench/results/alloc_cuda_0*.json, H200):
//      setting                           peak reserved   ratio   device calls
//      PyTorch (and both settings off)   3.636 GB        1.169   103 mallocs
//      reclaim_idle_segments (below)     3.200 GB        1.028   108 + 34 frees
//      expandable_segments               3.125 GB        1.011   140 maps
//    (policy replay; blocks of an expandable segment split at 512 bytes as
//    in PyTorch) so expandable segments hold the least. Their price is on first touch
//    only: mapping costs a cuMemCreate per granule (21 us per allocation on
//    average over the trace, against 3.9 us), while the cached path is the
//    same (about 0.5 us from JavaScript). Where mapping is not available
//    (cpu, or a driver without the API) ordinary segments are used, with:
//  * reclaim_idle_segments (on by default; "reclaim_idle_segments:False"
//    restores PyTorch's behaviour): before a new segment is requested, if
//    the pool holds whole free segments totalling at least the new
//    segment's size, the smallest of them are returned to the device until
//    that much is released. PyTorch keeps them until an allocation fails, so
//    a large request arriving while memory is idle but in the wrong sizes
//    grows the reservation. With "expandable_segments:False" this takes the
//    ResNet-50 trace from 1.169 to 1.028. Statistics keep PyTorch's
//    meaning; only num_device_free and the reserved_* values differ.
//    Both settings off reproduce PyTorch's numbers exactly.
//  * There are no streams or events, so nothing waits for stream uses, and
//    num_sync_all_streams counts full cache flushes (emptyCache, OOM path).
//  * After the cache flush, a free-memory callback lets the JavaScript
//    garbage collector release unreachable tensors before the OOM error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/backend.h"
#include "base/errors.h"
#include "core/history.h"
#include "core/settings.h"
#include "core/stats.h"

namespace tsgpu {

constexpr size_t kMinBlockSize = 512;         // bytes: every block is a multiple of this
constexpr size_t kSmallSize = 1ULL << 20;     // 1 MiB: largest request served by the small pool
constexpr size_t kSmallBuffer = 2ULL << 20;   // 2 MiB: segment size of the small pool
constexpr size_t kLargeBuffer = 20ULL << 20;  // 20 MiB: segment for large requests below kMinLargeAlloc
constexpr size_t kMinLargeAlloc = 10ULL << 20;  // 10 MiB: from here segments are sized to the request
constexpr size_t kRoundLarge = 2ULL << 20;    // 2 MiB: rounding of segments for large requests

struct BlockPool;

/** A contiguous range of a segment, either handed out or cached. */
struct Block {
  size_t size = 0;            // bytes in this block (a multiple of kMinBlockSize)
  size_t requestedSize = 0;   // bytes the caller asked for while allocated; 0 when free
  BlockPool* pool = nullptr;  // the pool (small or large) this block belongs to
  char* ptr = nullptr;        // device address of the first byte
  bool allocated = false;     // true while handed out to a caller
  Block* prev = nullptr;      // block just below in the same segment, null at the segment start
  Block* next = nullptr;      // block just above in the same segment, null at the segment end
  uint64_t gcCountBase = 0;   // pool's free-block search count when cached (its age for GC)
  Context context;            // stack of the code that allocated it (history on), else null
  bool expandable = false;    // part of the pool's expandable segment (never released whole)

  // Blocks of an expandable segment count as split: no path may hand them
  // back with rawFree; only the free tail is unmapped (releaseExpandableTail).
  bool isSplit() const { return expandable || prev != nullptr || next != nullptr; }
};

/** Orders cached blocks by size, then address: lower_bound gives best fit. */
struct BlockSizeLess {
  bool operator()(const Block* a, const Block* b) const {
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

/** The free blocks of one pool. */
struct BlockPool {
  explicit BlockPool(bool small) : isSmall(small) {}
  std::set<Block*, BlockSizeLess> blocks;  // cached (free) blocks
  const bool isSmall;                      // true for the small pool
  uint64_t freeBlockSearches = 0;          // get-free-block calls, the clock for GC ages
  // The expandable segment (expandable_segments:True): one reserved address
  // range whose first esMapped bytes are backed by memory, carved into the
  // chain of blocks that ends at esTail.
  char* esBase = nullptr;
  size_t esReserved = 0;
  size_t esMapped = 0;
  Block* esTail = nullptr;
};

/** What emptyCache could and could not give back to the device. */
struct EmptyCacheReport {
  uint64_t releasedBytes = 0;     // bytes returned to the backend
  uint64_t releasedSegments = 0;  // segments returned to the backend
  uint64_t keptBytes = 0;         // bytes still reserved afterwards
  uint64_t keptSegments = 0;      // segments still reserved afterwards
  uint64_t keptAllocatedBytes = 0;  // of keptBytes, bytes held by live allocations
  std::string reason;             // why the kept segments stay ("" when none)
};

class CachingAllocator {
 public:
  /** `backend` must outlive the allocator. `deviceLabel` names it in messages. */
  CachingAllocator(Backend* backend, std::string deviceLabel);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /**
   * Returns a block of at least `size` bytes (nullptr for size 0). Throws
   * OutOfMemoryError when even the retries fail; earlier state is intact.
   */
  Block* malloc(size_t size, Context context = nullptr);

  /** Returns a block to the cache (no-op for nullptr). */
  void free(Block* block);

  /** Frees every cached whole segment; reports what stayed and why. */
  EmptyCacheReport emptyCache();

  DeviceStats stats() const;
  void resetPeakStats();
  void resetAccumulatedStats();

  /** Replaces the settings; the stats' max_split_size follows. */
  void setSettings(const AllocatorSettings& settings);
  AllocatorSettings settings() const;

  /** Caps reserved memory at fraction * total device memory (0 < f <= 1). */
  void setMemoryFraction(double fraction);
  double memoryFraction() const;

  /**
   * Called once per failed allocation after the cache flush; it may free
   * blocks (re-entering free()) and returns true if it may have freed any.
   */
  void setFreeMemoryCallback(std::function<bool()> callback);

  void recordHistory(bool enabled, size_t maxEntries, bool clear);
  bool historyEnabled() const;
  Snapshot snapshot() const;

  Backend* backend() const { return backend_; }
  const std::string& deviceLabel() const { return label_; }

  /** Size a request is rounded to (exposed for tests). */
  size_t roundSize(size_t size) const;
  /** Segment size the allocator requests for a rounded size (exposed for tests). */
  static size_t allocationSize(size_t roundedSize);

 private:
  struct AllocParams {
    size_t size = 0;       // rounded request
    size_t allocSize = 0;  // segment size if a new segment is needed
    BlockPool* pool = nullptr;
    StatTypes statTypes{};
    Block* block = nullptr;  // the block found or created
  };

  /**
   * The statistics a block of `pool` counts in (all, and its pool). Inline,
   * so callers keep the flags in registers: returned through memory, the
   * byte-wise stores and the wider load after them stalled every malloc and free.
   */
  StatTypes statTypesFor(const BlockPool& pool) const {
    static_assert(kAggregate == 0 && kSmallPool == 1 && kLargePool == 2, "stat type order");
    return StatTypes{{true, pool.isSmall, !pool.isSmall}};
  }
  bool getFreeBlock(AllocParams& p);
  bool allocBlock(AllocParams& p, bool isRetry);
  bool useExpandable() const { return settings_.expandableSegments && backend_->mapGranularity() > 0; }
  bool growExpandable(AllocParams& p);
  void releaseExpandableTail(BlockPool& pool, EmptyCacheReport* report);
  bool releaseAvailableCachedBlocks(const AllocParams& p);
  void releaseIdleSegmentsForGrowth(const AllocParams& p);
  bool releaseCachedBlocks(EmptyCacheReport* report);
  void releaseBlocks(BlockPool& pool, EmptyCacheReport* report);
  void releaseBlock(Block* block);
  void garbageCollectCachedBlocks();
  Block* allocFoundBlock(AllocParams& p, size_t origSize, bool splitRemainder, Context context);
  bool shouldSplit(const Block* block, size_t size) const;
  void freeBlock(Block* block);
  size_t tryMergeBlocks(Block* dst, Block* src, BlockPool& pool);
  void insertIntoPool(Block* block);
  // Bookkeeping memory is recycled: an allocation and a free of a small
  // block (every small op) then make no heap allocation of their own.
  /** A blank Block (a recycled one when there is one). */
  Block* newBlock();
  /** Keeps a Block that left every set for newBlock(). */
  void recycleBlock(Block* block);
  /** Takes a cached block out of its pool, keeping the set's node for the next insertIntoPool. */
  void removeFromPool(Block* block);
  void addActive(Block* block);
  void removeActive(Block* block);
  [[noreturn]] void throwOutOfMemory(size_t origSize, size_t allocSize, Context context);

  Backend* backend_;
  std::string label_;
  mutable std::recursive_mutex mutex_;
  BlockPool largeBlocks_{false};
  BlockPool smallBlocks_{true};
  std::unordered_set<Block*> activeBlocks_;
  std::vector<Block*> spareBlocks_;                        // see newBlock()
  std::set<Block*, BlockSizeLess>::node_type sparePoolNode_;  // a node for insertIntoPool
  std::unordered_set<Block*>::node_type spareActiveNode_;     // a node for addActive
  DeviceStats stats_;
  AllocatorSettings settings_;
  size_t totalAllocatedMemory_ = 0;  // bytes reserved from the backend
  bool fractionSet_ = false;
  double fraction_ = 1.0;
  size_t allowedMemoryMaximum_ = 0;
  std::function<bool()> freeMemoryCallback_;
  bool inFreeMemoryCallback_ = false;
  History history_;
};

}  // namespace tsgpu
