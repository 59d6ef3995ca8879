// Returning memory to the backend (cache flushes, garbage collection of
// cached segments, emptyCache), settings, snapshots and the OOM message.
#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "core/allocator.h"
#include "core/format.h"

namespace tsgpu {

CachingAllocator::~CachingAllocator() {
  // Return every cached segment; blocks still handed out are leaked on
  // purpose (their owners may still use them during process teardown).
  try {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    releaseCachedBlocks(nullptr);
  } catch (...) {
  }
  for (Block* b : spareBlocks_) delete b;
}

bool CachingAllocator::releaseAvailableCachedBlocks(const AllocParams& p) {
  const size_t maxSplit = settings_.maxSplitSizeBytes;
  if (maxSplit == std::numeric_limits<size_t>::max()) return false;
  BlockPool& pool = *p.pool;
  Block key;
  key.size = p.size < maxSplit ? maxSplit : p.size;
  key.ptr = nullptr;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end()) {
    // No single block is large enough: free oversize blocks, largest first.
    if (it == pool.blocks.begin()) return false;
    size_t released = 0;
    --it;
    while (released < key.size && (*it)->size >= maxSplit) {
      auto cur = it;
      bool isFirst = cur == pool.blocks.begin();
      if (!isFirst) --it;
      const size_t size = (*cur)->size;
      if (!(*cur)->isSplit()) {
        releaseBlock(*cur);
        released += size;
      }
      if (isFirst) break;
    }
    if (released < key.size) return false;
  } else {
    if ((*it)->isSplit()) return false;
    releaseBlock(*it);
  }
  return true;
}

void CachingAllocator::releaseIdleSegmentsForGrowth(const AllocParams& p) {
  // Whole free segments of this pool, smallest first: the ones least able
  // to serve large requests go back first.
  std::vector<Block*> idle;
  size_t idleBytes = 0;
  for (Block* b : p.pool->blocks) {
    if (!b->isSplit()) {
      idle.push_back(b);
      idleBytes += b->size;
    }
  }
  if (idleBytes < p.allocSize) return;  // releasing could not make room: keep the cache
  std::sort(idle.begin(), idle.end(), BlockSizeLess());
  size_t released = 0;
  for (Block* b : idle) {
    if (released >= p.allocSize) break;
    released += b->size;
    releaseBlock(b);
  }
}

bool CachingAllocator::releaseCachedBlocks(EmptyCacheReport* report) {
  backend_->synchronize();
  stats_.num_sync_all_streams += 1;
  releaseBlocks(largeBlocks_, report);
  releaseBlocks(smallBlocks_, report);
  releaseExpandableTail(largeBlocks_, report);
  releaseExpandableTail(smallBlocks_, report);
  return true;
}

void CachingAllocator::releaseExpandableTail(BlockPool& pool, EmptyCacheReport* report) {
  Block* tail = pool.esTail;
  if (tail == nullptr || tail->allocated) return;
  // Only whole granules past the last byte in use can go.
  const size_t gran = backend_->mapGranularity();
  const size_t offset = static_cast<size_t>(tail->ptr - pool.esBase);
  const size_t start = (offset + gran - 1) / gran * gran;
  const size_t end = offset + tail->size;
  if (gran == 0 || start >= end) return;
  const size_t release = end - start;
  backend_->unmapRange(pool.esBase + start, release);
  totalAllocatedMemory_ -= release;
  pool.esMapped = start;
  stats_.num_device_free += 1;
  const bool gone = start == offset;
  const bool segmentGone = gone && tail->prev == nullptr;
  StatTypes types = statTypesFor(pool);
  for (size_t t = 0; t < kNumStatTypes; ++t) {
    if (!types[t]) continue;
    stats_.reserved_bytes[t].decrease(static_cast<int64_t>(release));
    stats_.inactive_split_bytes[t].decrease(static_cast<int64_t>(release));
    if (gone) stats_.inactive_split[t].decrease(1);
    if (segmentGone) stats_.segment[t].decrease(1);
  }
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kSegmentFree;
    e.address = reinterpret_cast<uintptr_t>(pool.esBase + start);
    e.size = release;
    e.timeUs = nowMicros();
    history_.record(std::move(e));
  }
  if (report) {
    report->releasedBytes += release;
    if (segmentGone) report->releasedSegments += 1;
  }
  pool.blocks.erase(tail);
  if (gone) {
    pool.esTail = tail->prev;
    if (tail->prev) tail->prev->next = nullptr;
    delete tail;
  } else {
    tail->size = start - offset;
    insertIntoPool(tail);
  }
}

void CachingAllocator::releaseBlocks(BlockPool& pool, EmptyCacheReport* report) {
  auto it = pool.blocks.begin();
  while (it != pool.blocks.end()) {
    Block* block = *it;
    ++it;
    if (!block->isSplit()) {
      if (report) {
        report->releasedBytes += block->size;
        report->releasedSegments += 1;
      }
      releaseBlock(block);
    }
  }
}

void CachingAllocator::releaseBlock(Block* block) {
  backend_->rawFree(block->ptr, block->size);
  totalAllocatedMemory_ -= block->size;
  StatTypes types = statTypesFor(*block->pool);
  for (size_t t = 0; t < kNumStatTypes; ++t) {
    if (!types[t]) continue;
    stats_.segment[t].decrease(1);
    stats_.reserved_bytes[t].decrease(static_cast<int64_t>(block->size));
  }
  if (block->size >= settings_.maxSplitSizeBytes) stats_.oversize_segments.decrease(1);
  stats_.num_device_free += 1;
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kSegmentFree;
    e.address = reinterpret_cast<uintptr_t>(block->ptr);
    e.size = block->size;
    e.timeUs = nowMicros();
    history_.record(std::move(e));
  }
  block->pool->blocks.erase(block);
  delete block;
}

void CachingAllocator::garbageCollectCachedBlocks() {
  // As PyTorch: free cached whole large segments that have waited longest
  // (more free-block searches than the average) until reserved memory is
  // back under the threshold.
  const size_t threshold =
      static_cast<size_t>(settings_.garbageCollectionThreshold * static_cast<double>(allowedMemoryMaximum_));
  if (totalAllocatedMemory_ <= threshold) return;
  const size_t target = totalAllocatedMemory_ - threshold;
  size_t reclaimed = 0;
  uint64_t totalAge = 0;
  int freeable = 0;
  for (Block* b : largeBlocks_.blocks) {
    if (!b->isSplit()) {
      totalAge += largeBlocks_.freeBlockSearches - b->gcCountBase;
      ++freeable;
    }
  }
  if (freeable == 0) return;
  bool freed = true;
  while (reclaimed < target && freed && freeable > 0) {
    const double ageThreshold = static_cast<double>(totalAge) / freeable;
    freed = false;
    auto it = largeBlocks_.blocks.begin();
    while (it != largeBlocks_.blocks.end()) {
      Block* block = *it;
      ++it;
      const uint64_t age = largeBlocks_.freeBlockSearches - block->gcCountBase;
      if (!block->isSplit() && static_cast<double>(age) >= ageThreshold) {
        freed = true;
        reclaimed += block->size;
        totalAge -= age;
        --freeable;
        releaseBlock(block);
      }
    }
  }
}

EmptyCacheReport CachingAllocator::emptyCache() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  EmptyCacheReport report;
  releaseCachedBlocks(&report);
  // What remains: segments that still contain live blocks.
  uint64_t freeInKept = 0;
  for (Block* b : activeBlocks_) {
    report.keptAllocatedBytes += b->size;
    if (b->prev == nullptr) report.keptSegments += 1;
  }
  for (BlockPool* pool : {&largeBlocks_, &smallBlocks_})
    for (Block* b : pool->blocks) {
      freeInKept += b->size;
      if (b->prev == nullptr) report.keptSegments += 1;
    }
  report.keptBytes = totalAllocatedMemory_;
  if (report.keptSegments > 0) {
    report.reason = std::to_string(report.keptSegments) + " segment" + (report.keptSegments == 1 ? "" : "s") +
                    " (" + formatBytes(report.keptBytes) + ") still hold live tensors (" +
                    formatBytes(report.keptAllocatedBytes) + " allocated); their free parts (" +
                    formatBytes(freeInKept) +
                    ") can only be released once those tensors are disposed or garbage collected";
  }
  return report;
}

DeviceStats CachingAllocator::stats() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::resetPeakStats() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  stats_.resetPeak();
}

void CachingAllocator::resetAccumulatedStats() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  stats_.resetAccumulated();
}

void CachingAllocator::setSettings(const AllocatorSettings& settings) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  settings_ = settings;
  stats_.max_split_size = static_cast<int64_t>(settings_.maxSplitSizeBytes);
}

AllocatorSettings CachingAllocator::settings() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return settings_;
}

void CachingAllocator::setMemoryFraction(double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0))
    throw ArgumentError("invalid memory fraction " + std::to_string(fraction) + ": allowed range is 0 to 1");
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  fraction_ = fraction;
  fractionSet_ = true;
  allowedMemoryMaximum_ = static_cast<size_t>(fraction * static_cast<double>(backend_->memInfo().totalBytes));
}

double CachingAllocator::memoryFraction() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return fraction_;
}

void CachingAllocator::setFreeMemoryCallback(std::function<bool()> callback) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  freeMemoryCallback_ = std::move(callback);
}

void CachingAllocator::recordHistory(bool enabled, size_t maxEntries, bool clear) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  history_.configure(enabled, maxEntries, clear);
}

bool CachingAllocator::historyEnabled() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return history_.enabled();
}

Snapshot CachingAllocator::snapshot() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  Snapshot snap;
  std::map<uintptr_t, const Block*> heads;
  for (const Block* b : activeBlocks_)
    if (b->prev == nullptr) heads[reinterpret_cast<uintptr_t>(b->ptr)] = b;
  for (const BlockPool* pool : {&largeBlocks_, &smallBlocks_})
    for (const Block* b : pool->blocks)
      if (b->prev == nullptr) heads[reinterpret_cast<uintptr_t>(b->ptr)] = b;
  for (const auto& kv : heads) {
    SegmentInfo seg;
    seg.address = kv.first;
    seg.segmentType = kv.second->pool->isSmall ? "small" : "large";
    for (const Block* b = kv.second; b != nullptr; b = b->next) {
      BlockInfo info;
      info.address = reinterpret_cast<uintptr_t>(b->ptr);
      info.size = b->size;
      info.requestedSize = b->requestedSize;
      info.state = b->allocated ? "active_allocated" : "inactive";
      info.context = b->context;
      seg.totalSize += b->size;
      if (b->allocated) {
        seg.allocatedSize += b->size;
        seg.activeSize += b->size;
        seg.requestedSize += b->requestedSize;
      }
      seg.blocks.push_back(std::move(info));
    }
    snap.segments.push_back(std::move(seg));
  }
  snap.trace = history_.entries();
  return snap;
}

void CachingAllocator::throwOutOfMemory(size_t origSize, size_t allocSize, Context context) {
  stats_.num_ooms += 1;
  MemInfo info = backend_->memInfo();
  const uint64_t allocated = static_cast<uint64_t>(stats_.allocated_bytes[kAggregate].current);
  const uint64_t reserved = static_cast<uint64_t>(stats_.reserved_bytes[kAggregate].current);
  const uint64_t unallocated = reserved > allocated ? reserved - allocated : 0;
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kOom;
    e.size = origSize;
    e.timeUs = nowMicros();
    e.context = std::move(context);
    history_.record(std::move(e));
  }
  std::string msg = "Out of memory on device " + label_ + ". Tried to allocate " + formatBytes(origSize) +
                    ". Device " + label_ + " has a total capacity of " + formatBytes(info.totalBytes) +
                    " of which " + formatBytes(info.freeBytes) + " is free.";
  if (fractionSet_) {
    msg += " The per-process memory fraction " + std::to_string(fraction_).substr(0, 4) + " allows " +
           formatBytes(allowedMemoryMaximum_) + " of reserved memory, and a new segment of " +
           formatBytes(allocSize) + " would exceed it.";
  }
  msg += " Of the allocated memory " + formatBytes(allocated) + " is allocated by tensors and " +
         formatBytes(unallocated) +
         " is reserved but unallocated. Try %empty_cache, %reset, or dispose() of tensors you no longer "
         "need; if reserved but unallocated memory is large try "
         "setAllocatorSettings('max_split_size_mb:...') to avoid fragmentation.";
  throw OutOfMemoryError(msg, label_, origSize, info.totalBytes, info.freeBytes, allocated, unallocated);
}

}  // namespace tsgpu
