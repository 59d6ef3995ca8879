// Host memory backend: malloc-based, optionally capped by TSGPU_CPU_MEMORY_LIMIT
// ("2GiB", "512MiB", plain bytes) so that out-of-memory handling can be
// exercised for real on any machine.
#pragma once

#include <cstdint>
#include <mutex>

#include "core/backend.h"

namespace tsgpu {

class CpuBackend : public Backend {
 public:
  /** `limitBytes` 0 means no limit (physical RAM is the capacity). */
  explicit CpuBackend(uint64_t limitBytes);
  /** Reads the limit from TSGPU_CPU_MEMORY_LIMIT; throws ArgumentError if it is malformed. */
  static uint64_t limitFromEnvironment();

  DeviceKind kind() const override { return DeviceKind::kCpu; }
  std::string deviceName() const override { return "cpu"; }
  void* rawAlloc(size_t bytes) override;
  void rawFree(void* ptr, size_t bytes) override;
  MemInfo memInfo() override;
  DeviceProperties properties() override;

  uint64_t limit() const { return limit_; }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
  std::mutex mutex_;
};

/** Bytes of physical memory of this machine. */
uint64_t physicalMemoryBytes();

}  // namespace tsgpu
