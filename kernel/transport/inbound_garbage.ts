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
 * small heaps). Without `gc` (a process not started with --expose-gc) it
 * does nothing.
 */

/** Bytes read between two collections. */
export const kCollectAfterBytes = 64 << 20;

export class InboundGarbage {
  private bytes = 0;
  private scheduled = false;
  constructor(private readonly limit = kCollectAfterBytes,
              private readonly gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc) {}

  /** Counts a message's frames. */
  read(frames: readonly Uint8Array[]): void {
    for (const f of frames) this.bytes += f.length;
    if (this.bytes < this.limit || this.scheduled || !this.gc) return;
    this.scheduled = true;
    // After what is pending now (the message itself is garbage by then).
    setImmediate(() => {
      this.scheduled = false;
      this.bytes = 0;
      this.gc!();
    }).unref();
  }
}
