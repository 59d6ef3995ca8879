// Which device a tensor or a kernel is on: a kind and an index. Plain data,
// usable from every layer (core, backends, runtime, ops, binding).
#pragma once

#include <cstdint>
#include <string>

#include "base/host_device.h"

namespace tsgpu {

/** Which kind of memory and kernels a device has. */
enum class DeviceKind : int8_t {
  kCpu = 0,     // host memory; kernels run on the calling thread (and the thread pool)
  kCuda = 1,    // NVIDIA GPU memory; kernels are queued on the device's stream
  kPolicy = 2,  // address ranges only, no memory behind them (allocator tests, trace replay); no kernels
};

/** Number of device kinds (kernels are registered per kind). */
constexpr int kNumDeviceKinds = 3;

/** A device: its kind and its index (the CUDA ordinal; 0 for cpu). */
struct DeviceId {
  DeviceKind kind = DeviceKind::kCpu;
  int index = 0;
  TSGPU_HD bool operator==(const DeviceId& o) const { return kind == o.kind && index == o.index; }
  TSGPU_HD bool operator!=(const DeviceId& o) const { return !(*this == o); }
};

/** "cpu", "cuda", "policy" (host only). */
inline const char* deviceKindName(DeviceKind k) {
  switch (k) {
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kCuda: return "cuda";
    case DeviceKind::kPolicy: return "policy";
  }
  return "unknown";
}

/** The name users write: "cpu", "cuda:0" (host only). */
inline std::string deviceName(DeviceId d) {
  if (d.kind == DeviceKind::kCuda) return "cuda:" + std::to_string(d.index);
  return deviceKindName(d.kind);
}

}  // namespace tsgpu
