// The interrupt flag that long CPU ops look at between chunks
// (OpCall::checkInterrupt). The host sets it when the user interrupts a
// cell (SIGINT or an interrupt request), or shares a word it sets
// (setInterruptWord); an op that sees it throws InterruptedError.
#pragma once

#include <cstdint>

namespace tsgpu {

/** Asks running ops to stop at their next check. Async-signal-safe. */
void requestInterrupt();
/** Clears the request (done by the binding before each op call). */
void clearInterrupt();
/** True when an interrupt was requested (and not cleared), or the host's word is nonzero. */
bool interruptRequested();
/**
 * Also treats a nonzero value of `*word` as an interrupt (a 32-bit word the
 * host writes from another thread, e.g. in a SharedArrayBuffer); nullptr
 * removes it. The memory must stay valid until replaced.
 */
void setInterruptWord(const int32_t* word);

}  // namespace tsgpu
