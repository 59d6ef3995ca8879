// QueuedBackend: a device's backend seen through its LaunchQueue. Every
// method forwards to the real backend; those that read or write device
// memory from the host, wait for the device, or give memory back to the
// driver first wait until the queue has launched everything submitted
// before them (a queued kernel may still use a block the allocator is
// about to return). The allocator and the bindings use this backend, so no
// caller has to remember the queue.
#pragma once

#include <memory>
#include <string>

#include "core/backend.h"
#include "runtime/launch_queue.h"

namespace tsgpu {

class QueuedBackend : public Backend {
 public:
  /** Wraps `inner`, whose kernel calls `queue` launches (the queue must outlive this backend's use). */
  QueuedBackend(std::unique_ptr<Backend> inner, LaunchQueue* queue) : inner_(std::move(inner)), queue_(queue) {}

  /** The wrapped backend (the queue's thread activates it). */
  Backend* inner() const { return inner_.get(); }

  DeviceKind kind() const override { return inner_->kind(); }
  std::string deviceName() const override { return inner_->deviceName(); }
  void* rawAlloc(size_t bytes) override { return inner_->rawAlloc(bytes); }
  void rawFree(void* ptr, size_t bytes) override {
    queue_->drain();
    inner_->rawFree(ptr, bytes);
  }
  void copyHostToDevice(void* dst, const void* src, size_t bytes) override {
    queue_->drain();
    inner_->copyHostToDevice(dst, src, bytes);
  }
  void copyDeviceToHost(void* dst, const void* src, size_t bytes) override {
    queue_->drain();
    inner_->copyDeviceToHost(dst, src, bytes);
  }
  void copyDeviceToDevice(void* dst, const void* src, size_t bytes) override {
    queue_->drain();
    inner_->copyDeviceToDevice(dst, src, bytes);
  }
  void* stream() override { return inner_->stream(); }
  void activate() override { inner_->activate(); }
  void synchronize() override {
    queue_->drain();
    inner_->synchronize();
  }
  size_t mapGranularity() override { return inner_->mapGranularity(); }
  void* reserveAddress(size_t bytes) override { return inner_->reserveAddress(bytes); }
  bool mapRange(void* addr, size_t bytes) override { return inner_->mapRange(addr, bytes); }
  void unmapRange(void* addr, size_t bytes) override {
    queue_->drain();
    inner_->unmapRange(addr, bytes);
  }
  MemInfo memInfo() override { return inner_->memInfo(); }
  DeviceProperties properties() override { return inner_->properties(); }

 private:
  std::unique_ptr<Backend> inner_;
  LaunchQueue* queue_;
};

}  // namespace tsgpu
