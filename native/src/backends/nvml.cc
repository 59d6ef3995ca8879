// NVML through dlopen: the few entry points queryGpuProcesses needs, with
// NVML's C types declared here (the header is not needed to build).
#include "backends/nvml.h"

#include <dlfcn.h>

#include <mutex>

namespace tsgpu {

namespace {

using nvmlReturn = int;
using nvmlDevice = void*;
constexpr nvmlReturn kSuccess = 0;
constexpr nvmlReturn kInsufficientSize = 7;

struct NvmlMemory { unsigned long long total, free, used; };
// nvmlProcessInfo_t of the _v2 and _v3 calls (v1 has only pid and usedGpuMemory).
struct NvmlProcessV2 { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; };
struct NvmlProcessV1 { unsigned int pid; unsigned long long usedGpuMemory; };

struct Nvml {
  void* lib = nullptr;
  std::string error;
  nvmlReturn (*init)() = nullptr;
  const char* (*errorString)(nvmlReturn) = nullptr;
  nvmlReturn (*count)(unsigned int*) = nullptr;
  nvmlReturn (*handle)(unsigned int, nvmlDevice*) = nullptr;
  nvmlReturn (*name)(nvmlDevice, char*, unsigned int) = nullptr;
  nvmlReturn (*uuid)(nvmlDevice, char*, unsigned int) = nullptr;
  nvmlReturn (*memory)(nvmlDevice, NvmlMemory*) = nullptr;
  nvmlReturn (*processesV2)(nvmlDevice, unsigned int*, NvmlProcessV2*) = nullptr;
  nvmlReturn (*processesV1)(nvmlDevice, unsigned int*, NvmlProcessV1*) = nullptr;

  std::string describe(nvmlReturn r) const {
    return errorString ? std::string(errorString(r)) + " (NVML error " + std::to_string(r) + ")" : "NVML error " + std::to_string(r);
  }
};

template <typename F>
void bind(void* lib, F& fn, const char* name, const char* fallback = nullptr) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn && fallback) fn = reinterpret_cast<F>(dlsym(lib, fallback));
}

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n.lib) {
      const char* e = dlerror();
      n.error = std::string("NVML could not be loaded: ") + (e ? e : "dlopen(libnvidia-ml.so.1) failed") +
                " (it comes with the NVIDIA driver; this machine has no GPU driver installed)";
      return;
    }
    bind(n.lib, n.init, "nvmlInit_v2", "nvmlInit");
    bind(n.lib, n.errorString, "nvmlErrorString");
    bind(n.lib, n.count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    bind(n.lib, n.handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    bind(n.lib, n.name, "nvmlDeviceGetName");
    bind(n.lib, n.uuid, "nvmlDeviceGetUUID");
    bind(n.lib, n.memory, "nvmlDeviceGetMemoryInfo");
    bind(n.lib, n.processesV2, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
    if (!n.processesV2) bind(n.lib, n.processesV1, "nvmlDeviceGetComputeRunningProcesses");
    if (!n.init || !n.count || !n.handle || !n.memory || (!n.processesV2 && !n.processesV1)) {
      n.error = "libnvidia-ml.so.1 lacks the NVML functions needed (nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetMemoryInfo, "
                "nvmlDeviceGetComputeRunningProcesses)";
      return;
    }
    nvmlReturn r = n.init();
    if (r != kSuccess) n.error = "nvmlInit failed: " + n.describe(r);
  });
  return n;
}

template <typename Info>
std::vector<GpuProcess> listProcesses(nvmlReturn (*fn)(nvmlDevice, unsigned int*, Info*), nvmlDevice dev, const Nvml& n,
                                      std::string& error) {
  std::vector<Info> infos(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned int count = static_cast<unsigned int>(infos.size());
    nvmlReturn r = fn(dev, &count, infos.data());
    if (r == kInsufficientSize) { infos.resize(count + 8); continue; }
    if (r != kSuccess) { error = "nvmlDeviceGetComputeRunningProcesses failed: " + n.describe(r); return {}; }
    std::vector<GpuProcess> out;
    for (unsigned int i = 0; i < count; ++i) {
      GpuProcess p;
      p.pid = infos[i].pid;
      // NVML_VALUE_NOT_AVAILABLE is all ones: the driver could not attribute memory to the process.
      p.usedBytes = infos[i].usedGpuMemory == ~0ULL ? -1 : static_cast<int64_t>(infos[i].usedGpuMemory);
      out.push_back(p);
    }
    return out;
  }
  error = "the process list kept growing while NVML was asked for it";
  return {};
}

}  // namespace

GpuProcessReport queryGpuProcesses() {
  GpuProcessReport report;
  const Nvml& n = nvml();
  if (!n.error.empty()) { report.reason = n.error; return report; }
  unsigned int count = 0;
  nvmlReturn r = n.count(&count);
  if (r != kSuccess) { report.reason = "nvmlDeviceGetCount failed: " + n.describe(r); return report; }
  if (count == 0) { report.reason = "NVML reports no GPU"; return report; }
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice dev = nullptr;
    r = n.handle(i, &dev);
    if (r != kSuccess) { report.reason = "nvmlDeviceGetHandleByIndex(" + std::to_string(i) + ") failed: " + n.describe(r); return report; }
    GpuProcessDevice d;
    d.index = i;
    char text[96] = {0};
    if (n.name && n.name(dev, text, sizeof text) == kSuccess) d.name = text;
    char id[96] = {0};
    if (n.uuid && n.uuid(dev, id, sizeof id) == kSuccess) d.uuid = id;
    NvmlMemory mem{};
    if (n.memory(dev, &mem) == kSuccess) { d.total = mem.total; d.used = mem.used; d.free = mem.free; }
    std::string error;
    d.processes = n.processesV2 ? listProcesses(n.processesV2, dev, n, error) : listProcesses(n.processesV1, dev, n, error);
    if (!error.empty()) { report.reason = error; return report; }
    report.devices.push_back(std::move(d));
  }
  report.available = true;
  return report;
}

}  // namespace tsgpu
