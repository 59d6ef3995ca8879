// The interrupt flag that long CPU ops look at between chunks
// (OpCall::checkInterrupt). The host sets it when the user interrupts a
// cell (SIGINT or an interrupt request) and clears it when the next op call
// starts; an op that sees it throws InterruptedError.
#pragma once

namespace tsgpu {

/** Asks running ops to stop at their next check. Async-signal-safe. */
void requestInterrupt();
/** Clears the request (done by the binding before each op call). */
void clearInterrupt();
/** True when an interrupt was requested and not cleared. */
bool interruptRequested();

}  // namespace tsgpu
