// The devices this process uses, each with its backend and its caching
// allocator, created on first use ("cpu", "cuda:0", ...).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/allocator.h"
#include "core/settings.h"
#include "runtime/launch_queue.h"

namespace tsgpu {

struct Device {
  std::string name;  // canonical name: "cpu" or "cuda:N"
  DeviceKind kind = DeviceKind::kCpu;
  int index = -1;    // CUDA ordinal, -1 for cpu
  std::unique_ptr<Backend> backend;  // on CUDA a QueuedBackend (runtime/queued_backend.h) around the CUDA backend
  /**
   * The thread that launches this device's queueable kernels (runtime/launch_queue.h); nullptr on cpu, and
   * on CUDA with TSGPU_LAUNCH_QUEUE=0 or CUDA_LAUNCH_BLOCKING=1 (every kernel launched by the calling thread).
   * Declared after `backend` and before `allocator`, so that it is destroyed after the allocator and before
   * the backend it launches on.
   */
  std::unique_ptr<LaunchQueue> queue;
  std::unique_ptr<CachingAllocator> allocator;
};

class DeviceRegistry {
 public:
  static DeviceRegistry& instance();

  /**
   * Canonical name for a user-written device: "cpu", "cuda" (= "cuda:0"),
   * "cuda:N". Throws ArgumentError for unknown names and Error(TSGPU_CUDA)
   * when CUDA is unavailable (with the reason) or N is out of range.
   */
  std::string canonicalize(const std::string& device) const;

  /** The device (created on first use); `device` may be any accepted spelling. */
  Device& get(const std::string& device);

  /** Names of the devices that have an allocator, "cpu" first. */
  std::vector<std::string> names() const;

  /** Finishes the calls of every device's launch queue and ends their threads (at process exit). */
  void stopLaunchQueues();

  /** Applies settings to every allocator, now and later. */
  void setSettings(const AllocatorSettings& settings);
  AllocatorSettings settings() const;

 private:
  DeviceRegistry();
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Device>> devices_;
  AllocatorSettings settings_;
  std::string envError_;  // a malformed TSGPU_CUDA_ALLOC_CONF, reported on use
};

}  // namespace tsgpu
