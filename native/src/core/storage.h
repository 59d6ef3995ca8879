// Tensor storage: one allocator block per tensor, with the metadata that
// torch.memory.liveTensors() reports. Owned by id so that the binding can
// free a storage from dispose(), a finalizer or a garbage-collection sweep,
// whichever comes first, exactly once.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"

namespace tsgpu {

struct StorageRecord {
  uint64_t id = 0;                          // unique, increasing from 1
  CachingAllocator* allocator = nullptr;    // the device's allocator
  Block* block = nullptr;                   // null for zero-byte storages
  size_t nbytes = 0;                        // bytes the tensor uses
  std::string device;                       // "cpu", "cuda:0", ...
  std::string dtype;                        // "float32", ...
  std::vector<int64_t> shape;               // tensor shape at creation

  void* data() const { return block ? static_cast<void*>(block->ptr) : nullptr; }
};

class StorageTable {
 public:
  /** Allocates and registers a storage; throws OutOfMemoryError. */
  StorageRecord& create(CachingAllocator* allocator, size_t nbytes, const std::string& device,
                        const std::string& dtype, std::vector<int64_t> shape, Context context);
  /** Frees the storage's block and forgets it; false if it was already released. */
  bool release(uint64_t id);
  /** The live record, or nullptr once released. */
  StorageRecord* find(uint64_t id);
  /** Copies of the live records, oldest first; device "" means all. */
  std::vector<StorageRecord> live(const std::string& device) const;
  size_t size() const { return records_.size(); }

 private:
  uint64_t nextId_ = 1;
  std::unordered_map<uint64_t, StorageRecord> records_;
};

}  // namespace tsgpu
