// The CUDA driver's virtual memory API (cuMemAddressReserve, cuMemCreate,
// cuMemMap, cuMemSetAccess, ...), loaded from libcuda.so.1 with dlopen at run
// time: the addon never links the driver, so it builds and loads on machines
// without one (CI). Used by the CUDA backend for expandable segments.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace tsgpu {

class CudaVmm {
 public:
  /** Loads the driver entry points for device `index`; ok() says whether it worked. */
  explicit CudaVmm(int index);
  ~CudaVmm();
  CudaVmm(const CudaVmm&) = delete;
  CudaVmm& operator=(const CudaVmm&) = delete;

  bool ok() const { return granularity_ > 0; }
  /** Why the API is unavailable ("" when ok). */
  const std::string& reason() const { return reason_; }
  /** Bytes of one physical allocation (2 MiB on Hopper); 0 when unavailable. */
  size_t granularity() const { return granularity_; }

  /** Reserves address space; nullptr on failure. */
  void* reserve(size_t bytes);
  /**
   * Backs [addr, addr + bytes) with device memory, one physical allocation
   * per granule (so any whole granule can be unmapped later), readable and
   * writable by the device. False when the device is out of memory; throws
   * tsgpu::Error for other driver failures.
   */
  bool map(void* addr, size_t bytes);
  /** Unmaps and releases whole granules of [addr, addr + bytes). */
  void unmap(void* addr, size_t bytes);

 private:
  struct Api;
  Api* api_ = nullptr;
  void* lib_ = nullptr;
  int device_ = 0;
  size_t granularity_ = 0;
  std::string reason_;
  std::map<unsigned long long, unsigned long long> handles_;  // granule address → physical allocation handle
};

}  // namespace tsgpu
