#include "core/storage.h"

#include <algorithm>

namespace tsgpu {

StorageRecord& StorageTable::create(CachingAllocator* allocator, size_t nbytes, const std::string& device,
                                    const std::string& dtype, std::vector<int64_t> shape, Context context) {
  Block* block = allocator->malloc(nbytes, std::move(context));
  StorageRecord rec;
  rec.id = nextId_++;
  rec.allocator = allocator;
  rec.block = block;
  rec.nbytes = nbytes;
  rec.device = device;
  rec.dtype = dtype;
  rec.shape = std::move(shape);
  auto result = records_.emplace(rec.id, std::move(rec));
  return result.first->second;
}

bool StorageTable::release(uint64_t id) {
  auto it = records_.find(id);
  if (it == records_.end()) return false;
  StorageRecord rec = std::move(it->second);
  records_.erase(it);
  rec.allocator->free(rec.block);
  return true;
}

StorageRecord* StorageTable::find(uint64_t id) {
  auto it = records_.find(id);
  return it == records_.end() ? nullptr : &it->second;
}

std::vector<StorageRecord> StorageTable::live(const std::string& device) const {
  std::vector<StorageRecord> out;
  for (const auto& kv : records_)
    if (device.empty() || kv.second.device == device) out.push_back(kv.second);
  std::sort(out.begin(), out.end(), [](const StorageRecord& a, const StorageRecord& b) { return a.id < b.id; });
  return out;
}

}  // namespace tsgpu
