// CUDA backend: raw device memory through the CUDA runtime. Every runtime
// call goes through TSGPU_CUDA_CHECK, except cudaMalloc's out-of-memory,
// which is reported to the allocator as nullptr (its retry path handles it).
#include <cuda_runtime.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_vmm.h"

#include <dlfcn.h>

#include <memory>

namespace tsgpu {

namespace {

// What cudaAvailability says when the driver library cannot be loaded at all.
const char* const kNoDriver = "no NVIDIA driver on this machine (libcuda.so.1 not found)";

// Whether the driver library (libcuda.so.1) loads. Without it the runtime
// reports "CUDA driver version is insufficient for CUDA runtime version",
// which reads as if a driver were there but old.
bool driverLibraryLoads() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;
  dlclose(lib);
  return true;
}

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(int index) : index_(index) {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    // One stream per device for every kernel and copy: work is ordered on it,
    // so the allocator may hand freed memory to the next op at once. Never
    // destroyed (the backend lives as long as the process).
    TSGPU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }

  void* stream() override { return stream_; }
  // Every op activates its device: ask which is current first (a thread-local
  // read in the runtime), so the common case makes no cudaSetDevice call.
  void activate() override {
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current == index_) return;
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
  }

  DeviceKind kind() const override { return DeviceKind::kCuda; }
  std::string deviceName() const override { return "cuda:" + std::to_string(index_); }

  void* rawAlloc(size_t bytes) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    void* ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear the error so the retry starts clean
      return nullptr;
    }
    TSGPU_CUDA_CHECK(err);
    return ptr;
  }

  void rawFree(void* ptr, size_t) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    TSGPU_CUDA_CHECK(cudaFree(ptr));
  }

  // Expandable segments through the driver's virtual memory API, loaded on
  // first use; 0 (ordinary segments) when the driver does not offer it.
  size_t mapGranularity() override { return vmm().granularity(); }
  void* reserveAddress(size_t bytes) override { return vmm().reserve(bytes); }
  bool mapRange(void* addr, size_t bytes) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    return vmm().map(addr, bytes);
  }
  void unmapRange(void* addr, size_t bytes) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    TSGPU_CUDA_CHECK(cudaDeviceSynchronize());  // nothing may still use the memory
    vmm().unmap(addr, bytes);
  }

  void copyHostToDevice(void* dst, const void* src, size_t bytes) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    // Returns once `src` has been read (pageable memory is staged), so the
    // caller may reuse it; the copy is ordered before later kernels.
    TSGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
  }

  void copyDeviceToHost(void* dst, const void* src, size_t bytes) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    // Reads of values to the host are where the stream is waited for.
    TSGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    TSGPU_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void copyDeviceToDevice(void* dst, const void* src, size_t bytes) override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    TSGPU_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
  }

  void synchronize() override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    TSGPU_CUDA_CHECK(cudaDeviceSynchronize());
  }

  MemInfo memInfo() override {
    TSGPU_CUDA_CHECK(cudaSetDevice(index_));
    size_t freeBytes = 0, totalBytes = 0;
    TSGPU_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    MemInfo info;
    info.freeBytes = freeBytes;
    info.totalBytes = totalBytes;
    return info;
  }

  DeviceProperties properties() override {
    cudaDeviceProp prop{};
    TSGPU_CUDA_CHECK(cudaGetDeviceProperties(&prop, index_));
    DeviceProperties p;
    p.name = prop.name;
    p.totalMemory = prop.totalGlobalMem;
    p.major = prop.major;
    p.minor = prop.minor;
    p.multiProcessorCount = prop.multiProcessorCount;
    p.l2CacheSize = prop.l2CacheSize;
    p.warpSize = prop.warpSize;
    p.maxThreadsPerBlock = prop.maxThreadsPerBlock;
    p.sharedMemoryPerBlock = static_cast<int64_t>(prop.sharedMemPerBlock);
    p.isIntegrated = prop.integrated != 0;
    return p;
  }

 private:
  CudaVmm& vmm() {
    if (!vmm_) {
      TSGPU_CUDA_CHECK(cudaSetDevice(index_));
      TSGPU_CUDA_CHECK(cudaFree(nullptr));  // the primary context exists and is current
      vmm_.reset(new CudaVmm(index_));
    }
    return *vmm_;
  }
  int index_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<CudaVmm> vmm_;
};

}  // namespace

const CudaAvailability& cudaAvailability() {
  static const CudaAvailability availability = [] {
    CudaAvailability a;
    a.compiled = true;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      cudaGetLastError();
      a.reason = driverLibraryLoads() ? cudaGetErrorString(err) : kNoDriver;
      return a;
    }
    if (count == 0) {
      a.reason = "no CUDA devices found";
      return a;
    }
    a.available = true;
    a.deviceCount = count;
    return a;
  }();
  return availability;
}

std::unique_ptr<Backend> makeCudaBackend(int index) { return std::unique_ptr<Backend>(new CudaBackend(index)); }

}  // namespace tsgpu
