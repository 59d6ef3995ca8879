// Tensor storage: one allocator block per tensor, kept in a slab so that the
// binding can hand JavaScript a small integer handle (an index with a
// generation tag) instead of an object per tensor. A storage is freed by
// whichever comes first — dispose(), a sweep after garbage collection, or
// the end of the process — exactly once: a stale handle (its slot freed and
// perhaps reused) is recognised by its generation and rejected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "core/allocator.h"

namespace tsgpu {

struct StorageRecord {
  double id = 0;                          // unique id given by the caller (what liveTensors shows)
  CachingAllocator* allocator = nullptr;  // the device's allocator
  Block* block = nullptr;                 // null for zero-byte storages
  size_t nbytes = 0;                      // bytes the tensor uses
  std::string device;                     // "cpu", "cuda:0", ...
  uint32_t deviceSlot = 0;                // the binding's index of the device
  uint8_t dtype = 0;                      // a DType code (base/dtype.h) of the tensor that made it
  uint8_t generation = 0;                 // bumped each time the slot is freed
  bool live = false;                      // false while the slot is on the free list
  void* owner = nullptr;                  // opaque to the core: the binding's weak reference to the JS owner
  int32_t cell = 0;                       // execution count of the notebook cell current when it was made (0: none)
  Context site;                           // stack of the code that made it, when the caller captured one

  void* data() const { return block ? static_cast<void*>(block->ptr) : nullptr; }
};

class StorageTable {
 public:
  /** Handles are index | generation << kIndexBits: a non-negative 31-bit integer. */
  using Handle = int32_t;
  static constexpr int kIndexBits = 24;
  static constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
  static constexpr uint32_t kGenerationMask = 0x7f;

  /**
   * Allocates `nbytes` from `allocator` and registers the storage, tagged
   * with the current cell and `context` as its site; returns its handle.
   * Throws OutOfMemoryError (nothing is registered then).
   */
  Handle create(CachingAllocator* allocator, size_t nbytes, const std::string& device, uint32_t deviceSlot,
                uint8_t dtype, double id, Context context);
  /** The live record behind `h`, or nullptr for a released or unknown handle. */
  StorageRecord* find(Handle h) {
    const uint32_t index = static_cast<uint32_t>(h) & kIndexMask;
    if (h < 0 || index >= records_.size()) return nullptr;
    StorageRecord& r = records_[index];
    return r.live && r.generation == ((static_cast<uint32_t>(h) >> kIndexBits) & kGenerationMask) ? &r : nullptr;
  }
  /** Frees the storage's block and its slot; false if `h` was already released. */
  bool release(Handle h);
  /** Calls f(handle, record) for every live storage, in slot order. */
  template <typename F>
  void forEachLive(F f) {
    for (uint32_t i = 0; i < records_.size(); ++i)
      if (records_[i].live) f(handleOf(i), records_[i]);
  }
  /** Number of live storages. */
  size_t size() const { return live_; }
  /** Tags storages created from now on with `cell` (a notebook cell's execution count; 0 for none). */
  void setCurrentCell(int32_t cell) { currentCell_ = cell; }
  int32_t currentCell() const { return currentCell_; }

 private:
  Handle handleOf(uint32_t index) const {
    return static_cast<Handle>(index | (static_cast<uint32_t>(records_[index].generation) << kIndexBits));
  }
  std::vector<StorageRecord> records_;
  std::vector<uint32_t> freeSlots_;
  size_t live_ = 0;
  int32_t currentCell_ = 0;
};

}  // namespace tsgpu
