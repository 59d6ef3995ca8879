/**
 * Collects a thread's garbage after it has read a lot of input. Each
 * message's frames and the strings and objects decoded from them are
 * garbage once it is answered or dropped; large ones land in V8's old
 * generation, which grows to several times what is live before V8 collects
 * it, and keeps its pages after. A flood of large malformed messages (up to
 * 1 MiB each) left the socket thread, whose heap nothing else collects, and
 * the main thread tens of MiB larger. So each thread counts the bytes it has
 * read, and once kCollectAfterBytes came in since its last collection, it
 * runs a full collection when it next has nothing to do (a few ms on these
 * small heaps). Once the input stops, what came in since the last
 * collection would stay until the next 64 MiB: a 10,000-message flood on
 * control left the socket thread's heap 8–14 MiB above its start at rest
 * (bench/hostile.ts). So a thread that read kIdleCollectBytes or more since
 * its last collection also collects once nothing came for kIdleMs. Without
 * `gc` (a process not started with --expose-gc) it does nothing.
 */

/** Bytes read between two collections. */
export const kCollectAfterBytes = 64 << 20;
/** Bytes read since the last collection that make a quiet thread collect. */
export const kIdleCollectBytes = 1 << 20;
/** How long without input counts as quiet. */
export const kIdleMs = 100;

export class InboundGarbage {
  private bytes = 0;
  private scheduled = false;
  private idle?: ReturnType<typeof setTimeout>;
  constructor(private readonly limit = kCollectAfterBytes,
              private readonly gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc,
              private readonly idleBytes = kIdleCollectBytes,
              private readonly idleMs = kIdleMs) {}

  /** Counts a message's frames. */
  read(frames: readonly Uint8Array[]): void {
    if (!this.gc) return;
    for (const f of frames) this.bytes += f.length;
    if (this.idle) { clearTimeout(this.idle); this.idle = undefined; }
    if (this.scheduled) return;
    if (this.bytes >= this.limit) {
      this.scheduled = true;
      // After what is pending now (the message itself is garbage by then).
      setImmediate(() => this.collect()).unref();
    } else if (this.bytes >= this.idleBytes) {
      this.idle = setTimeout(() => this.collect(), this.idleMs);
      this.idle.unref();
    }
  }

  private collect(): void {
    if (this.idle) { clearTimeout(this.idle); this.idle = undefined; }
    this.scheduled = false;
    this.bytes = 0;
    this.gc!();
  }
}
