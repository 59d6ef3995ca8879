#include "backends/policy/policy_backend.h"

#include "base/errors.h"

namespace tsgpu {

PolicyBackend::PolicyBackend(uint64_t capacity, std::string name, bool canMap)
    : name_(std::move(name)), capacity_(capacity), canMap_(canMap) {}

void* PolicyBackend::rawAlloc(size_t bytes) {
  ++allocCalls_;
  if (failNext_ > 0 || used_ + bytes > capacity_) {
    if (failNext_ > 0) --failNext_;
    log_.push_back("fail " + std::to_string(bytes));
    return nullptr;
  }
  used_ += bytes;
  const uint64_t align = 2ULL << 20;
  uint64_t address = nextAddress_;
  nextAddress_ += (bytes + align - 1) / align * align;
  log_.push_back("alloc " + std::to_string(bytes));
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}

void PolicyBackend::rawFree(void*, size_t bytes) {
  ++freeCalls_;
  used_ -= bytes;
  log_.push_back("free " + std::to_string(bytes));
}

void* PolicyBackend::reserveAddress(size_t bytes) {
  const uint64_t align = 2ULL << 20;
  uint64_t address = nextAddress_;
  nextAddress_ += (bytes + align - 1) / align * align;
  log_.push_back("reserve " + std::to_string(bytes));
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}

bool PolicyBackend::mapRange(void*, size_t bytes) {
  ++allocCalls_;
  if (failNext_ > 0 || used_ + bytes > capacity_) {
    if (failNext_ > 0) --failNext_;
    log_.push_back("fail map " + std::to_string(bytes));
    return false;
  }
  used_ += bytes;
  log_.push_back("map " + std::to_string(bytes));
  return true;
}

void PolicyBackend::unmapRange(void*, size_t bytes) {
  ++freeCalls_;
  used_ -= bytes;
  log_.push_back("unmap " + std::to_string(bytes));
}

void PolicyBackend::copyHostToDevice(void*, const void*, size_t) {
  throw Error("TSGPU_ARG", "the policy device has no memory to copy to");
}
void PolicyBackend::copyDeviceToHost(void*, const void*, size_t) {
  throw Error("TSGPU_ARG", "the policy device has no memory to copy from");
}
void PolicyBackend::copyDeviceToDevice(void*, const void*, size_t) {
  throw Error("TSGPU_ARG", "the policy device has no memory to copy");
}

MemInfo PolicyBackend::memInfo() {
  MemInfo info;
  info.totalBytes = capacity_;
  info.freeBytes = capacity_ > used_ ? capacity_ - used_ : 0;
  return info;
}

DeviceProperties PolicyBackend::properties() {
  DeviceProperties p;
  p.name = "policy (address ranges only)";
  p.totalMemory = capacity_;
  return p;
}

}  // namespace tsgpu
