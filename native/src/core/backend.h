// The backend interface: the few raw operations a device must offer so that
// the caching allocator (native/src/core) and the tensor ops can use it.
//
// A backend knows nothing about caching, pools or statistics: the caching
// policy lives once, in core/allocator, above every backend. Backends must not
// throw for out-of-memory; they report it by returning nullptr from rawAlloc.
// Other failures (a broken driver, an invalid pointer) may throw a
// tsgpu::Error (see base/errors.h).
//
// The interface belongs to core (the allocator is written against it); the
// implementations live in backends/{cpu,cuda,policy}, and the device
// registry (runtime/) puts a backend and an allocator together per device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/device.h"

namespace tsgpu {


/** Free and total bytes of a device, as cudaMemGetInfo reports them. */
struct MemInfo {
  uint64_t freeBytes = 0;   // bytes the device could still hand out
  uint64_t totalBytes = 0;  // capacity of the device (or of the configured limit)
};

/** Static properties of a device (a subset of cudaDeviceProp). */
struct DeviceProperties {
  std::string name;              // marketing name, e.g. "NVIDIA H200" or "cpu"
  uint64_t totalMemory = 0;      // bytes of memory, as in torch's total_memory
  int major = 0;                 // compute capability major (0 on cpu)
  int minor = 0;                 // compute capability minor (0 on cpu)
  int multiProcessorCount = 0;   // SMs on a GPU, logical cores on cpu
  int64_t l2CacheSize = 0;       // bytes of L2 cache (0 when unknown)
  int warpSize = 0;              // threads per warp (0 on cpu)
  int maxThreadsPerBlock = 0;    // CUDA limit (0 on cpu)
  int64_t sharedMemoryPerBlock = 0;  // bytes (0 on cpu)
  bool isIntegrated = false;     // true for integrated GPUs
};

class Backend {
 public:
  virtual ~Backend() = default;

  /** Required. The kind of memory this backend manages. */
  virtual DeviceKind kind() const = 0;

  /** Required. Device name as users write it: "cpu", "cuda:0", "policy". */
  virtual std::string deviceName() const = 0;

  /**
   * Required. Allocates `bytes` of raw device memory (one "segment" for the
   * allocator). Returns nullptr when the device is out of memory; never
   * throws for that case. May throw tsgpu::Error for other failures.
   */
  virtual void* rawAlloc(size_t bytes) = 0;

  /** Required. Returns memory obtained from rawAlloc (`bytes` is its size). */
  virtual void rawFree(void* ptr, size_t bytes) = 0;

  /**
   * Optional. Copies host → device. Default: std::memcpy, which is right for
   * host-addressable backends (cpu). The policy backend throws.
   */
  virtual void copyHostToDevice(void* dst, const void* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
  }

  /** Optional. Copies device → host. Default: std::memcpy. */
  virtual void copyDeviceToHost(void* dst, const void* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
  }

  /** Optional. Copies device → device on this backend. Default: std::memcpy. */
  virtual void copyDeviceToDevice(void* dst, const void* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
  }

  /**
   * Optional. The stream that kernels and copies of this device are queued on
   * (a cudaStream_t on CUDA); every op of the device runs on it, so memory
   * freed after an op can be reused by the next op without waiting.
   * Default: nullptr (synchronous devices).
   */
  virtual void* stream() { return nullptr; }

  /**
   * Optional. Makes this device current on the calling thread before its
   * kernels are launched (cudaSetDevice). Default: nothing to do.
   */
  virtual void activate() {}

  /**
   * Optional. Waits until all work queued on the device has finished.
   * Default: nothing to wait for (synchronous backends).
   */
  virtual void synchronize() {}

  /**
   * Optional (expandable segments). Granularity in bytes of mapRange, or 0
   * when the backend cannot map memory into a reserved address range, in
   * which case expandable_segments falls back to ordinary segments.
   */
  virtual size_t mapGranularity() { return 0; }

  /** Optional. Reserves `bytes` of address space with no memory behind it; nullptr on failure. */
  virtual void* reserveAddress(size_t) { return nullptr; }

  /**
   * Optional. Backs [addr, addr + bytes) of a reserved range with memory
   * (multiples of mapGranularity). Returns false when the device is out of memory.
   */
  virtual bool mapRange(void*, size_t) { return false; }

  /** Optional. Returns the memory behind a range given to mapRange; the address range stays reserved. */
  virtual void unmapRange(void*, size_t) {}

  /** Required. Free and total memory of the device right now. */
  virtual MemInfo memInfo() = 0;

  /** Required. Static device properties. */
  virtual DeviceProperties properties() = 0;
};

}  // namespace tsgpu
