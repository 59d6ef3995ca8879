#include "runtime/interrupt.h"

#include <atomic>

namespace tsgpu {

namespace {
std::atomic<bool> gInterrupt{false};
}

void requestInterrupt() { gInterrupt.store(true, std::memory_order_relaxed); }
void clearInterrupt() { gInterrupt.store(false, std::memory_order_relaxed); }
bool interruptRequested() { return gInterrupt.load(std::memory_order_relaxed); }

}  // namespace tsgpu
