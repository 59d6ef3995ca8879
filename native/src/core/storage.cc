#include "core/storage.h"

#include "base/errors.h"

namespace tsgpu {

StorageTable::Handle StorageTable::create(CachingAllocator* allocator, size_t nbytes, const std::string& device,
                                          uint32_t deviceSlot, uint8_t dtype, double id, Context context) {
  if (freeSlots_.empty() && records_.size() > kIndexMask)
    throw Error("TSGPU_INTERNAL", "more than 16777215 live tensors");
  Block* block = allocator->malloc(nbytes, context);  // throws before anything is registered
  uint32_t index;
  if (!freeSlots_.empty()) {
    index = freeSlots_.back();
    freeSlots_.pop_back();
  } else {
    index = static_cast<uint32_t>(records_.size());
    records_.emplace_back();
  }
  StorageRecord& rec = records_[index];
  rec.id = id;
  rec.allocator = allocator;
  rec.block = block;
  rec.nbytes = nbytes;
  if (rec.device != device) rec.device = device;
  rec.deviceSlot = deviceSlot;
  rec.dtype = dtype;
  rec.live = true;
  rec.owner = nullptr;
  rec.cell = currentCell_;
  rec.site = std::move(context);
  ++live_;
  return handleOf(index);
}

bool StorageTable::release(Handle h) {
  StorageRecord* rec = find(h);
  if (rec == nullptr) return false;
  Block* block = rec->block;
  CachingAllocator* allocator = rec->allocator;
  rec->live = false;
  rec->block = nullptr;
  rec->owner = nullptr;
  rec->site.reset();
  rec->generation = static_cast<uint8_t>((rec->generation + 1) & kGenerationMask);
  freeSlots_.push_back(static_cast<uint32_t>(h) & kIndexMask);
  --live_;
  allocator->free(block);  // may re-enter (history, callbacks) only after the slot is consistent
  return true;
}

}  // namespace tsgpu
