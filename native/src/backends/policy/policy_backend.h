// A backend that hands out address ranges without any memory behind them.
// It lets the allocator core run in unit tests and replay traces larger than
// this machine's memory, and it can be told to fail, to test the OOM path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"

namespace tsgpu {

class PolicyBackend : public Backend {
 public:
  /**
   * `capacity` is the total bytes it will hand out at once (default 1 TiB).
   * With `canMap`, it also offers expandable segments (reserve/map/unmap in
   * 2 MiB granules), as the CUDA backend does on a driver with the virtual
   * memory API; trace replays use that, unit tests choose.
   */
  explicit PolicyBackend(uint64_t capacity = 1ULL << 40, std::string name = "policy", bool canMap = false);

  DeviceKind kind() const override { return DeviceKind::kPolicy; }
  std::string deviceName() const override { return name_; }
  void* rawAlloc(size_t bytes) override;
  void rawFree(void* ptr, size_t bytes) override;
  void copyHostToDevice(void*, const void*, size_t) override;
  void copyDeviceToHost(void*, const void*, size_t) override;
  void copyDeviceToDevice(void*, const void*, size_t) override;
  size_t mapGranularity() override { return canMap_ ? 2ULL << 20 : 0; }
  void* reserveAddress(size_t bytes) override;
  bool mapRange(void* addr, size_t bytes) override;
  void unmapRange(void* addr, size_t bytes) override;
  MemInfo memInfo() override;
  DeviceProperties properties() override;

  /** The next `n` rawAlloc calls fail (return nullptr) whatever the capacity. */
  void failNextAllocs(int n) { failNext_ = n; }
  void setCapacity(uint64_t capacity) { capacity_ = capacity; }
  uint64_t used() const { return used_; }
  int allocCalls() const { return allocCalls_; }
  int freeCalls() const { return freeCalls_; }
  /** Every call in order: "alloc 20971520", "fail 20971520", "free 2097152". */
  const std::vector<std::string>& log() const { return log_; }
  void clearLog() { log_.clear(); }

 private:
  std::string name_;
  uint64_t capacity_;
  bool canMap_;
  uint64_t used_ = 0;
  uint64_t nextAddress_ = 1ULL << 32;  // never 0, never reused
  int failNext_ = 0;
  int allocCalls_ = 0;
  int freeCalls_ = 0;
  std::vector<std::string> log_;
};

}  // namespace tsgpu
