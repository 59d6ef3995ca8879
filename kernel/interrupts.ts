/**
 * Which cell an interrupt is for. The socket thread (interrupt_request) and the
 * SIGINT watcher set word 0 of the shared interrupt flag, then tell the main
 * thread, which decides here:
 *
 * - A cell runs (or awaits): it stops (`interrupt`).
 * - An execute request has been read but waits in the queue: the flag stays
 *   set, and that cell stops as it starts (the engine checks the flag).
 * - No cell runs or waits (the kernel is idle, or still sending the reply of a
 *   cell that has ended): the request the user meant may still be on its way
 *   (sent on shell just before the interrupt on control, read a moment later).
 *   For kIdleGraceMs the flag stays set: an execute request read meanwhile is
 *   interrupted if it was sent before the interrupt (the headers' dates, from
 *   one client's clock) or when the interrupt has no date (SIGINT); one sent
 *   after it runs. After the grace, or once such a later request came, the
 *   flag is cleared: an idle kernel has nothing to stop.
 *
 * A cell that saw the flag and stopped by itself clears it when it ends; the
 * message then arrives late and finds it clear, and stops nothing.
 */
import type { Message } from "./protocol/message";
import { isoMicros } from "./protocol/message";

/** How long an interrupt of an idle-looking kernel waits for the execute request it may be for (ms). */
export const kIdleGraceMs = 250;

export interface InterruptHost {
  /** The shared flag (word 0: an interrupt is pending). */
  flag: Int32Array;
  /** Whether a cell runs or awaits now. */
  running(): boolean;
  /** Whether an execute request has been read and waits in the queue to run. */
  executeQueued(): boolean;
  /** Stops the running cell (and keeps the flag set). */
  interrupt(): void;
}

export class InterruptTarget {
  /** An interrupt of an idle-looking kernel, while its grace lasts: when it was sent (µs; NaN for SIGINT). */
  private pending?: { sentMicros: number; timer: NodeJS.Timeout };

  constructor(private readonly host: InterruptHost, private readonly graceMs = kIdleGraceMs) {}

  /** The flag was set by an interrupt_request sent at `date`, or by SIGINT (no date). */
  onInterrupt(date?: string): void {
    const { flag } = this.host;
    if (Atomics.load(flag, 0) === 0) return;
    this.settle();
    if (this.host.running() || this.host.executeQueued()) { this.host.interrupt(); return; }
    const timer = setTimeout(() => {
      this.pending = undefined;
      if (!this.host.running() && !this.host.executeQueued()) Atomics.store(flag, 0, 0);
    }, this.graceMs);
    timer.unref();
    this.pending = { sentMicros: isoMicros(date), timer };
  }

  /** An execute request was read from shell (call before it is queued). */
  onExecuteRequest(msg: Message): void {
    if (!this.pending) return;
    const { sentMicros } = this.pending;
    this.settle();
    const requested = isoMicros(msg.header?.date);
    // Sent after the interrupt (both dates known): not the cell it was for.
    if (!Number.isNaN(sentMicros) && !Number.isNaN(requested) && requested > sentMicros) Atomics.store(this.host.flag, 0, 0);
  }

  private settle(): void {
    if (!this.pending) return;
    clearTimeout(this.pending.timer);
    this.pending = undefined;
  }
}
