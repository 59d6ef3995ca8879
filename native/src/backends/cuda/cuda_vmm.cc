#include "backends/cuda/cuda_vmm.h"

#include <cuda.h>
#include <dlfcn.h>

#include <vector>

#include "base/errors.h"

namespace tsgpu {

struct CudaVmm::Api {
  CUresult (*init)(unsigned int);
  CUresult (*deviceGet)(CUdevice*, int);
  CUresult (*getErrorString)(CUresult, const char**);
  CUresult (*addressReserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*addressFree)(CUdeviceptr, size_t);
  CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long);
  CUresult (*release)(CUmemGenericAllocationHandle);
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*unmap)(CUdeviceptr, size_t);
  CUresult (*setAccess)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
  CUresult (*granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags);
  CUmemAllocationProp prop{};
};

namespace {

template <typename T>
bool load(void* lib, const char* name, T& fn) {
  fn = reinterpret_cast<T>(dlsym(lib, name));
  return fn != nullptr;
}

}  // namespace

CudaVmm::CudaVmm(int index) : device_(index) {
  lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib_ == nullptr) {
    reason_ = "libcuda.so.1 not found";
    return;
  }
  Api* a = new Api();
  bool ok = load(lib_, "cuInit", a->init) && load(lib_, "cuDeviceGet", a->deviceGet) &&
            load(lib_, "cuGetErrorString", a->getErrorString) &&
            load(lib_, "cuMemAddressReserve", a->addressReserve) && load(lib_, "cuMemAddressFree", a->addressFree) &&
            load(lib_, "cuMemCreate", a->create) && load(lib_, "cuMemRelease", a->release) &&
            load(lib_, "cuMemMap", a->map) && load(lib_, "cuMemUnmap", a->unmap) &&
            load(lib_, "cuMemSetAccess", a->setAccess) &&
            load(lib_, "cuMemGetAllocationGranularity", a->granularity);
  CUdevice dev = 0;
  if (!ok) {
    reason_ = "the driver lacks the virtual memory API";
  } else if (a->init(0) != CUDA_SUCCESS || a->deviceGet(&dev, index) != CUDA_SUCCESS) {
    reason_ = "cuInit/cuDeviceGet failed";
  } else {
    a->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    a->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a->prop.location.id = dev;
    size_t g = 0;
    if (a->granularity(&g, &a->prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || g == 0) {
      reason_ = "cuMemGetAllocationGranularity failed";
    } else {
      granularity_ = g;
      api_ = a;
      return;
    }
  }
  delete a;
}

CudaVmm::~CudaVmm() {
  // Mappings are left to the process teardown (the driver frees them); the
  // library stays loaded for the same reason.
  delete api_;
}

void* CudaVmm::reserve(size_t bytes) {
  if (!ok()) return nullptr;
  CUdeviceptr ptr = 0;
  if (api_->addressReserve(&ptr, bytes, granularity_, 0, 0) != CUDA_SUCCESS) return nullptr;
  return reinterpret_cast<void*>(ptr);
}

bool CudaVmm::map(void* addr, size_t bytes) {
  if (!ok()) return false;
  const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(addr);
  std::vector<CUdeviceptr> done;
  auto undo = [&]() {
    for (CUdeviceptr p : done) {
      api_->unmap(p, granularity_);
      api_->release(handles_[p]);
      handles_.erase(p);
    }
  };
  for (size_t off = 0; off < bytes; off += granularity_) {
    CUmemGenericAllocationHandle h = 0;
    CUresult r = api_->create(&h, granularity_, &api_->prop, 0);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      undo();
      return false;
    }
    if (r == CUDA_SUCCESS) {
      r = api_->map(base + off, granularity_, 0, h, 0);
      if (r != CUDA_SUCCESS) api_->release(h);
    }
    if (r != CUDA_SUCCESS) {
      undo();
      const char* s = nullptr;
      api_->getErrorString(r, &s);
      throw Error("TSGPU_CUDA", std::string("cuMemCreate/cuMemMap failed: ") + (s ? s : "unknown error"));
    }
    handles_[base + off] = h;
    done.push_back(base + off);
  }
  CUmemAccessDesc access{};
  access.location = api_->prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUresult r = api_->setAccess(base, bytes, &access, 1);
  if (r != CUDA_SUCCESS) {
    undo();
    const char* s = nullptr;
    api_->getErrorString(r, &s);
    throw Error("TSGPU_CUDA", std::string("cuMemSetAccess failed: ") + (s ? s : "unknown error"));
  }
  return true;
}

void CudaVmm::unmap(void* addr, size_t bytes) {
  if (!ok()) return;
  const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(addr);
  for (size_t off = 0; off < bytes; off += granularity_) {
    auto it = handles_.find(base + off);
    if (it == handles_.end()) continue;
    api_->unmap(base + off, granularity_);
    api_->release(it->second);
    handles_.erase(it);
  }
}

}  // namespace tsgpu
