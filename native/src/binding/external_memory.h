// What the runtime tells V8 about the memory that JavaScript-owned storages
// hold ("external memory"), so that the garbage collector runs when
// unreachable tensors pile up.
//
// V8 starts a collection once external memory has grown by about 64 MiB
// since the last one. Reported one to one, a training loop that allocates
// and disposes gigabytes would trigger a collection every 64 MiB although
// nothing is garbage (59 full collections replaying the ResNet-50 trace).
// So each device's bytes are damped in two ways:
//  * scaled by min(1, kTarget / total device memory), with kTarget = 512 MiB:
//    V8's 64 MiB threshold is then reached after about 1/8 of the device's
//    memory has been allocated since the last collection (64 MiB on a
//    512 MiB device, 17.5 GiB on an H200, 256 MiB under a 2 GiB cpu limit);
//  * reported in coarse steps of kStep scaled bytes, so the small tensors
//    of a hot loop do not call into V8 at all.
// The out-of-memory path does not depend on this: it collects garbage and
// sweeps before giving up.
#pragma once

#include <node_api.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tsgpu {
namespace binding {

class ExternalMemory {
 public:
  static constexpr double kTarget = 512.0 * 1024 * 1024;  // device bytes that map to V8's 64 MiB threshold, ×8
  static constexpr int64_t kStep = 1 << 20;                // reported in steps of 1 MiB (scaled)

  /** Registers the next device slot with its total memory. */
  void addDevice(uint64_t totalBytes) {
    Slot s;
    s.scale = totalBytes > 0 ? std::min(1.0, kTarget / static_cast<double>(totalBytes)) : 1.0;
    slots_.push_back(s);
  }
  void add(napi_env env, uint32_t slot, size_t nbytes) { update(env, slots_[slot], static_cast<int64_t>(nbytes)); }
  void sub(napi_env env, uint32_t slot, size_t nbytes) { update(env, slots_[slot], -static_cast<int64_t>(nbytes)); }
  /** Bytes currently reported to V8, all devices. */
  int64_t reported() const {
    int64_t r = 0;
    for (const Slot& s : slots_) r += s.reported;
    return r;
  }
  /** Bytes held by JavaScript-owned storages, all devices. */
  int64_t held() const {
    int64_t r = 0;
    for (const Slot& s : slots_) r += s.held;
    return r;
  }

 private:
  struct Slot {
    double scale = 1.0;
    int64_t held = 0;      // device bytes held by live storages
    int64_t reported = 0;  // scaled bytes reported to V8 (a multiple of kStep)
  };
  void update(napi_env env, Slot& s, int64_t delta) {
    s.held += delta;
    const int64_t target = static_cast<int64_t>(static_cast<double>(s.held) * s.scale) / kStep * kStep;
    if (target == s.reported) return;
    int64_t ignored = 0;
    napi_adjust_external_memory(env, target - s.reported, &ignored);
    s.reported = target;
  }
  std::vector<Slot> slots_;
};

}  // namespace binding
}  // namespace tsgpu
