// Allocation and free paths of the caching allocator (see allocator.h for
// the design). Releasing memory, snapshots and the OOM message are in
// allocator_release.cc.
#include "core/allocator.h"

#include <limits>

namespace tsgpu {

namespace {

bool isPowerOfTwo(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

size_t powerOfTwoFloor(size_t v) {
  size_t r = 1;
  while (r <= v / 2) r <<= 1;
  return r;
}

size_t log2Floor(size_t v) {
  size_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

// Rounds up to the next of `divisions` equal steps between the powers of two
// around `size` (PyTorch's roundup_power2_next_division).
size_t roundupPower2NextDivision(size_t size, size_t divisions) {
  if (isPowerOfTwo(size)) return size;
  size_t floor = powerOfTwoFloor(size);
  size_t step = floor >> log2Floor(divisions);
  if (step == 0) return floor << 1;
  size_t rounded = size & ~(step - 1);
  return rounded == size ? size : rounded + step;
}

}  // namespace

CachingAllocator::CachingAllocator(Backend* backend, std::string deviceLabel)
    : backend_(backend), label_(std::move(deviceLabel)) {
  setSettings(AllocatorSettings());
}

size_t CachingAllocator::roundSize(size_t size) const {
  if (size < kMinBlockSize) return kMinBlockSize;
  size_t divisions = settings_.divisionsFor(size);
  if (divisions > 1 && size > kMinBlockSize * divisions) return roundupPower2NextDivision(size, divisions);
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

size_t CachingAllocator::allocationSize(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

template <typename F>
static void forEachSelected(const StatTypes& types, F f) {
  for (size_t i = 0; i < kNumStatTypes; ++i)
    if (types[i]) f(i);
}

Block* CachingAllocator::malloc(size_t origSize, Context context) {
  if (origSize == 0) return nullptr;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  AllocParams p;
  p.size = roundSize(origSize);
  p.pool = p.size <= kSmallSize ? &smallBlocks_ : &largeBlocks_;
  p.allocSize = allocationSize(p.size);
  p.statTypes = statTypesFor(*p.pool);

  bool found = getFreeBlock(p);
  if (!found) {
    if (fractionSet_ && settings_.garbageCollectionThreshold > 0.0) garbageCollectCachedBlocks();
    if (useExpandable()) {
      // Grow the pool's one segment in place; if the device is full, free
      // the cache (ordinary segments and the unused tail) and try again.
      found = growExpandable(p) || (releaseCachedBlocks(nullptr) && growExpandable(p));
    } else {
    if (settings_.reclaimIdleSegments) releaseIdleSegmentsForGrowth(p);
    found = allocBlock(p, false) ||
            // Free cached blocks big enough for this request, then retry.
            (releaseAvailableCachedBlocks(p) && allocBlock(p, false)) ||
            // Free every cached whole segment, then retry.
            (releaseCachedBlocks(nullptr) && allocBlock(p, true));
    }
  }
  if (!found && freeMemoryCallback_ && !inFreeMemoryCallback_) {
    // Differs from PyTorch: let the garbage collector release unreachable
    // tensors (they free blocks through free()), then look again.
    inFreeMemoryCallback_ = true;
    bool mayHaveFreed = false;
    try {
      mayHaveFreed = freeMemoryCallback_();
    } catch (...) {
      inFreeMemoryCallback_ = false;
      throw;
    }
    inFreeMemoryCallback_ = false;
    if (mayHaveFreed) {
      found = getFreeBlock(p) || (useExpandable() ? growExpandable(p) : allocBlock(p, true)) ||
              (releaseCachedBlocks(nullptr) && (useExpandable() ? growExpandable(p) : allocBlock(p, true)));
    }
  }
  if (!found) throwOutOfMemory(origSize, p.allocSize, context);
  bool split = shouldSplit(p.block, p.size);
  return allocFoundBlock(p, origSize, split, std::move(context));
}

bool CachingAllocator::getFreeBlock(AllocParams& p) {
  BlockPool& pool = *p.pool;
  if (fractionSet_ && settings_.garbageCollectionThreshold > 0.0) ++pool.freeBlockSearches;
  Block key;
  key.size = p.size;
  key.ptr = nullptr;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end()) return false;
  const size_t maxSplit = settings_.maxSplitSizeBytes;
  // Do not hand out an oversize block for a request below max_split_size.
  if (p.size < maxSplit && (*it)->size >= maxSplit) return false;
  // An oversize request may take an oversize block only if little is wasted.
  if (p.size >= maxSplit && (*it)->size >= p.size + kLargeBuffer) return false;
  p.block = *it;
  auto node = pool.blocks.extract(it);  // by position; removeFromPool would look the block up again
  if (sparePoolNode_.empty()) sparePoolNode_ = std::move(node);
  return true;
}

bool CachingAllocator::allocBlock(AllocParams& p, bool isRetry) {
  const size_t size = p.allocSize;
  if (isRetry) stats_.num_alloc_retries += 1;
  if (fractionSet_ && totalAllocatedMemory_ + size > allowedMemoryMaximum_) return false;
  void* ptr = backend_->rawAlloc(size);
  if (ptr == nullptr) return false;
  totalAllocatedMemory_ += size;
  Block* block = new Block();
  block->size = size;
  block->pool = p.pool;
  block->ptr = static_cast<char*>(ptr);
  p.block = block;
  forEachSelected(p.statTypes, [&](size_t t) {
    stats_.segment[t].increase(1);
    stats_.reserved_bytes[t].increase(static_cast<int64_t>(size));
  });
  if (size >= settings_.maxSplitSizeBytes) stats_.oversize_segments.increase(1);
  stats_.num_device_alloc += 1;
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kSegmentAlloc;
    e.address = reinterpret_cast<uintptr_t>(ptr);
    e.size = size;
    e.timeUs = nowMicros();
    history_.record(std::move(e));
  }
  return true;
}

bool CachingAllocator::growExpandable(AllocParams& p) {
  const size_t gran = backend_->mapGranularity();
  BlockPool& pool = *p.pool;
  if (pool.esBase == nullptr) {
    // Reserve address space for the whole device once; memory comes later.
    const size_t total = static_cast<size_t>(backend_->memInfo().totalBytes);
    const size_t reserve = (total + gran - 1) / gran * gran;
    void* base = backend_->reserveAddress(reserve);
    if (base == nullptr) return false;
    pool.esBase = static_cast<char*>(base);
    pool.esReserved = reserve;
    pool.esMapped = 0;
  }
  Block* tail = pool.esTail;
  const bool tailFree = tail != nullptr && !tail->allocated;
  const size_t have = tailFree ? tail->size : 0;
  if (p.size <= have) return false;  // the tail is big enough but not eligible (max_split_size rules)
  const size_t grow = (p.size - have + gran - 1) / gran * gran;
  if (pool.esMapped + grow > pool.esReserved) return false;
  if (fractionSet_ && totalAllocatedMemory_ + grow > allowedMemoryMaximum_) return false;
  char* at = pool.esBase + pool.esMapped;
  if (!backend_->mapRange(at, grow)) return false;
  const bool newSegment = tail == nullptr;
  totalAllocatedMemory_ += grow;
  pool.esMapped += grow;
  stats_.num_device_alloc += 1;
  forEachSelected(p.statTypes, [&](size_t t) {
    if (newSegment) stats_.segment[t].increase(1);
    stats_.reserved_bytes[t].increase(static_cast<int64_t>(grow));
    stats_.inactive_split_bytes[t].increase(static_cast<int64_t>(grow));
    if (!tailFree) stats_.inactive_split[t].increase(1);
  });
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kSegmentAlloc;  // PyTorch records segment_map; the same event in our names
    e.address = reinterpret_cast<uintptr_t>(at);
    e.size = grow;
    e.timeUs = nowMicros();
    history_.record(std::move(e));
  }
  if (tailFree) {
    pool.blocks.erase(tail);
    tail->size += grow;
    insertIntoPool(tail);
  } else {
    Block* b = new Block();
    b->size = grow;
    b->pool = &pool;
    b->ptr = at;
    b->expandable = true;
    b->prev = tail;
    if (tail) tail->next = b;
    pool.esTail = b;
    insertIntoPool(b);
  }
  return getFreeBlock(p);
}

bool CachingAllocator::shouldSplit(const Block* block, size_t size) const {
  size_t remaining = block->size - size;
  // As in PyTorch: an expandable segment splits off any remainder of at least
  // kMinBlockSize, so blocks keep their 512-byte rounding (a 4,000,000-byte
  // request holds 4,000,256 bytes, not the two 2 MiB granules mapped for it).
  if (block->pool->isSmall || block->expandable) return remaining >= kMinBlockSize;
  return size < settings_.maxSplitSizeBytes && remaining > kSmallSize;
}

Block* CachingAllocator::allocFoundBlock(AllocParams& p, size_t origSize, bool splitRemainder, Context context) {
  Block* block = p.block;
  BlockPool& pool = *p.pool;
  const bool alreadySplit = block->isSplit();
  if (splitRemainder) {
    // The front of the block is handed out; the rest goes back to the pool.
    Block* remaining = block;
    block = newBlock();
    block->size = p.size;
    block->pool = &pool;
    block->ptr = remaining->ptr;
    block->prev = remaining->prev;
    block->expandable = remaining->expandable;
    if (block->prev) block->prev->next = block;
    block->next = remaining;
    remaining->prev = block;
    remaining->ptr += p.size;
    remaining->size -= p.size;
    insertIntoPool(remaining);
    if (alreadySplit) {
      // An inactive split block shrinks by the size handed out.
      forEachSelected(p.statTypes, [&](size_t t) {
        stats_.inactive_split_bytes[t].decrease(static_cast<int64_t>(block->size));
      });
    } else {
      // A whole segment becomes split: its free rest is now non-releasable.
      forEachSelected(p.statTypes, [&](size_t t) {
        stats_.inactive_split_bytes[t].increase(static_cast<int64_t>(remaining->size));
        stats_.inactive_split[t].increase(1);
      });
    }
  } else if (alreadySplit) {
    // An inactive split block becomes active as a whole.
    forEachSelected(p.statTypes, [&](size_t t) {
      stats_.inactive_split_bytes[t].decrease(static_cast<int64_t>(block->size));
      stats_.inactive_split[t].decrease(1);
    });
  }
  block->allocated = true;
  block->requestedSize = origSize;
  block->context = history_.enabled() ? std::move(context) : nullptr;
  addActive(block);
  forEachSelected(p.statTypes, [&](size_t t) {
    stats_.allocation[t].increase(1);
    stats_.allocated_bytes[t].increase(static_cast<int64_t>(block->size));
    stats_.active[t].increase(1);
    stats_.active_bytes[t].increase(static_cast<int64_t>(block->size));
    stats_.requested_bytes[t].increase(static_cast<int64_t>(origSize));
  });
  if (block->size >= settings_.maxSplitSizeBytes) stats_.oversize_allocations.increase(1);
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kAlloc;
    e.address = reinterpret_cast<uintptr_t>(block->ptr);
    e.size = block->size;
    e.requested = origSize;
    e.timeUs = nowMicros();
    e.context = block->context;
    history_.record(std::move(e));
  }
  return block;
}

void CachingAllocator::free(Block* block) {
  if (block == nullptr) return;
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  block->allocated = false;
  StatTypes types = statTypesFor(*block->pool);
  forEachSelected(types, [&](size_t t) {
    stats_.allocation[t].decrease(1);
    stats_.allocated_bytes[t].decrease(static_cast<int64_t>(block->size));
  });
  if (block->size >= settings_.maxSplitSizeBytes) stats_.oversize_allocations.decrease(1);
  if (history_.enabled()) {
    TraceEntry e;
    e.action = TraceEntry::kFreeRequested;
    e.address = reinterpret_cast<uintptr_t>(block->ptr);
    e.size = block->size;
    e.requested = block->requestedSize;
    e.timeUs = nowMicros();
    e.context = block->context;
    history_.record(e);
    e.action = TraceEntry::kFreeCompleted;
    history_.record(std::move(e));
  }
  freeBlock(block);
}

void CachingAllocator::freeBlock(Block* block) {
  const size_t originalSize = block->size;
  const size_t requested = block->requestedSize;
  BlockPool& pool = *block->pool;
  int64_t netInactiveBlocks = 0;
  int64_t netInactiveBytes = 0;
  Block* candidates[2] = {block->prev, block->next};
  for (Block* candidate : candidates) {
    size_t subsumed = tryMergeBlocks(block, candidate, pool);
    if (subsumed > 0) {
      netInactiveBlocks -= 1;
      netInactiveBytes -= static_cast<int64_t>(subsumed);
    }
  }
  removeActive(block);
  block->requestedSize = 0;
  block->context = nullptr;
  insertIntoPool(block);
  if (block->isSplit()) {
    netInactiveBlocks += 1;
    netInactiveBytes += static_cast<int64_t>(block->size);
  }
  StatTypes types = statTypesFor(pool);
  forEachSelected(types, [&](size_t t) {
    if (netInactiveBlocks > 0) stats_.inactive_split[t].increase(netInactiveBlocks);
    else if (netInactiveBlocks < 0) stats_.inactive_split[t].decrease(-netInactiveBlocks);
    if (netInactiveBytes > 0) stats_.inactive_split_bytes[t].increase(netInactiveBytes);
    else if (netInactiveBytes < 0) stats_.inactive_split_bytes[t].decrease(-netInactiveBytes);
    stats_.active[t].decrease(1);
    stats_.active_bytes[t].decrease(static_cast<int64_t>(originalSize));
    stats_.requested_bytes[t].decrease(static_cast<int64_t>(requested));
  });
}

size_t CachingAllocator::tryMergeBlocks(Block* dst, Block* src, BlockPool& pool) {
  if (src == nullptr || src->allocated) return 0;
  if (dst->prev == src) {
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  const size_t subsumed = src->size;
  dst->size += subsumed;
  if (pool.esTail == src) pool.esTail = dst;
  removeFromPool(src);
  recycleBlock(src);
  return subsumed;
}

/** Inserts `value` into a set, in the spare node when there is one (no heap allocation then). */
template <typename Set>
static void insertReusing(Set& set, typename Set::node_type& spare, typename Set::value_type value) {
  if (spare.empty()) {
    set.insert(value);
    return;
  }
  spare.value() = value;
  auto r = set.insert(std::move(spare));  // leaves the spare empty when inserted
  if (!r.inserted) spare = std::move(r.node);
}

/** Removes `value` from a set, keeping its node as the spare when there is none. */
template <typename Set>
static void eraseKeeping(Set& set, typename Set::node_type& spare, typename Set::value_type value) {
  auto node = set.extract(value);
  if (spare.empty()) spare = std::move(node);
}

void CachingAllocator::insertIntoPool(Block* block) {
  block->gcCountBase = block->pool->freeBlockSearches;
  insertReusing(block->pool->blocks, sparePoolNode_, block);
}

void CachingAllocator::removeFromPool(Block* block) { eraseKeeping(block->pool->blocks, sparePoolNode_, block); }

Block* CachingAllocator::newBlock() {
  if (spareBlocks_.empty()) return new Block();
  Block* b = spareBlocks_.back();
  spareBlocks_.pop_back();
  return b;
}

void CachingAllocator::recycleBlock(Block* block) {
  constexpr size_t kMaxSpareBlocks = 64;
  if (spareBlocks_.size() >= kMaxSpareBlocks) {
    delete block;
    return;
  }
  *block = Block();
  spareBlocks_.push_back(block);
}

void CachingAllocator::addActive(Block* block) { insertReusing(activeBlocks_, spareActiveNode_, block); }

void CachingAllocator::removeActive(Block* block) { eraseKeeping(activeBlocks_, spareActiveNode_, block); }

}  // namespace tsgpu
