#include "runtime/interrupt.h"

#include <atomic>

namespace tsgpu {

namespace {
std::atomic<bool> gInterrupt{false};
std::atomic<const int32_t*> gWord{nullptr};
}  // namespace

void requestInterrupt() { gInterrupt.store(true, std::memory_order_relaxed); }
void clearInterrupt() { gInterrupt.store(false, std::memory_order_relaxed); }
bool interruptRequested() {
  if (gInterrupt.load(std::memory_order_relaxed)) return true;
  const int32_t* w = gWord.load(std::memory_order_relaxed);
  return w != nullptr && __atomic_load_n(w, __ATOMIC_RELAXED) != 0;
}
void setInterruptWord(const int32_t* word) { gWord.store(word, std::memory_order_relaxed); }

}  // namespace tsgpu
