// The processes using each GPU, from NVML (libnvidia-ml.so.1), loaded with
// dlopen on first use and never linked: a build or a machine without the
// NVIDIA driver gets a reason instead of a failure to load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsgpu {

struct GpuProcess {
  uint32_t pid = 0;
  /** Bytes of device memory the process uses; -1 when NVML cannot tell (e.g. in a container). */
  int64_t usedBytes = -1;
};

struct GpuProcessDevice {
  uint32_t index = 0;  // NVML's device index
  std::string name;
  std::string uuid;
  uint64_t total = 0, used = 0, free = 0;
  std::vector<GpuProcess> processes;
};

struct GpuProcessReport {
  bool available = false;
  /** Why NVML could not answer ("" when it did). */
  std::string reason;
  std::vector<GpuProcessDevice> devices;
};

/** Asks NVML for every GPU's memory and compute processes. */
GpuProcessReport queryGpuProcesses();

}  // namespace tsgpu
