#include "runtime/device_registry.h"

#include <cctype>
#include <cstdlib>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "runtime/op_registry.h"
#include "runtime/queued_backend.h"

namespace tsgpu {

#ifndef TSGPU_WITH_CUDA
const CudaAvailability& cudaAvailability() {
  static const CudaAvailability a = [] {
    CudaAvailability r;
    r.reason = "built without CUDA";
    return r;
  }();
  return a;
}

std::unique_ptr<Backend> makeCudaBackend(int) {
  throw Error("TSGPU_CUDA", "CUDA is not available: built without CUDA");
}
#endif

namespace {

/** False when TSGPU_LAUNCH_QUEUE=0 or CUDA_LAUNCH_BLOCKING=1 (launches on the calling thread, errors at once). */
bool launchQueueWanted() {
  const char* queue = std::getenv("TSGPU_LAUNCH_QUEUE");
  const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
  if (queue != nullptr && std::string(queue) == "0") return false;
  if (blocking != nullptr && std::string(blocking) == "1") return false;
  return true;
}

/** At process exit: every device's launch queue finishes its calls and ends its thread. */
void stopLaunchQueuesAtExit() { DeviceRegistry::instance().stopLaunchQueues(); }

}  // namespace

void DeviceRegistry::stopLaunchQueues() {
  std::vector<LaunchQueue*> queues;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& kv : devices_)
      if (kv.second->queue) queues.push_back(kv.second->queue.get());
  }
  for (LaunchQueue* q : queues) q->stop();
}

DeviceRegistry& DeviceRegistry::instance() {
  static DeviceRegistry* registry = new DeviceRegistry();  // never destroyed: outlives every tensor
  return *registry;
}

DeviceRegistry::DeviceRegistry() {
  const char* env = std::getenv("TSGPU_CUDA_ALLOC_CONF");
  if (env != nullptr && *env != '\0') {
    try {
      settings_ = parseAllocatorSettings(env);
    } catch (const ArgumentError& e) {
      // Reported on first use of any device; see get().
      settings_ = AllocatorSettings();
      envError_ = std::string("TSGPU_CUDA_ALLOC_CONF: ") + e.what();
    }
  }
}

std::string DeviceRegistry::canonicalize(const std::string& device) const {
  if (device == "cpu") return "cpu";
  if (device == "cuda" || device.rfind("cuda:", 0) == 0) {
    int index = 0;
    if (device != "cuda") {
      std::string digits = device.substr(5);
      bool ok = !digits.empty() && digits.size() < 6;
      for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
      if (!ok)
        throw ArgumentError("invalid device '" + device + "': expected \"cpu\", \"cuda\" or \"cuda:N\"");
      index = std::atoi(digits.c_str());
    }
    const CudaAvailability& a = cudaAvailability();
    if (!a.available) throw Error("TSGPU_CUDA", "CUDA is not available: " + a.reason);
    if (index >= a.deviceCount)
      throw Error("TSGPU_CUDA", "invalid device '" + device + "': this machine has " +
                                    std::to_string(a.deviceCount) + " CUDA device" +
                                    (a.deviceCount == 1 ? "" : "s"));
    return "cuda:" + std::to_string(index);
  }
  throw ArgumentError("invalid device '" + device + "': expected \"cpu\", \"cuda\" or \"cuda:N\"");
}

Device& DeviceRegistry::get(const std::string& device) {
  std::string name = canonicalize(device);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!envError_.empty()) throw ArgumentError(envError_);
  auto it = devices_.find(name);
  if (it != devices_.end()) return *it->second;
  auto d = std::make_unique<Device>();
  d->name = name;
  if (name == "cpu") {
    d->kind = DeviceKind::kCpu;
    d->backend = std::make_unique<CpuBackend>(CpuBackend::limitFromEnvironment());
  } else {
    d->kind = DeviceKind::kCuda;
    d->index = std::atoi(name.c_str() + 5);
    std::unique_ptr<Backend> cuda = makeCudaBackend(d->index);
    if (launchQueueWanted()) {
      // Registered after the CUDA runtime's exit handlers (the backend has initialized it), so it runs first.
      static const bool stopsAtExit = std::atexit(stopLaunchQueuesAtExit) == 0;
      (void)stopsAtExit;
      d->queue = std::make_unique<LaunchQueue>(cuda.get(), runKernel);
      d->backend = std::make_unique<QueuedBackend>(std::move(cuda), d->queue.get());
    } else {
      d->backend = std::move(cuda);
    }
  }
  d->allocator = std::make_unique<CachingAllocator>(d->backend.get(), name);
  d->allocator->setSettings(settings_);
  Device& ref = *d;
  devices_.emplace(name, std::move(d));
  return ref;
}

std::vector<std::string> DeviceRegistry::names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  out.push_back("cpu");
  for (const auto& kv : devices_)
    if (kv.first != "cpu") out.push_back(kv.first);
  return out;
}

void DeviceRegistry::setSettings(const AllocatorSettings& settings) {
  std::lock_guard<std::mutex> lock(mutex_);
  settings_ = settings;
  envError_.clear();
  for (auto& kv : devices_) kv.second->allocator->setSettings(settings);
}

AllocatorSettings DeviceRegistry::settings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return settings_;
}

}  // namespace tsgpu
