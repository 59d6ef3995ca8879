/**
 * A single-producer, single-consumer byte ring in shared memory, between
 * the main thread and the socket worker: control replies and input requests
 * go one way, the worker's iopub messages (the relay) the other. Cheaper than
 * postMessage (no structured clone), and readable by a thread whose event
 * loop is blocked: the worker reads the main thread's writes while a cell
 * holds the main thread, and the main thread empties the relay from inside
 * a cell's loops.
 *
 * Layout: Int32 [writeOffset, readOffset, writeCount, consumerSleeping], then `capacity`
 * data bytes. A record is a u32 length and its bytes, stored contiguously; a
 * length of kWrap (or fewer than 4 bytes left) means "continue at offset 0".
 */

const kHeaderBytes = 16;
const kWrap = 0xffffffff;
/**
 * Longest sleep of a waiting consumer (ms). A write wakes it at once; this
 * bounds the delay should a wake-up ever be missed (Atomics.waitAsync in
 * worker threads has had such bugs in Node), at a cost of ten idle checks a second.
 */
const kMaxSleepMs = 100;
const W = 0, R = 1, COUNT = 2, SLEEPING = 3;

export class SharedRing {
  readonly buffer: SharedArrayBuffer;
  private readonly ctrl: Int32Array;
  private readonly data: Uint8Array;
  private readonly view: DataView;
  readonly capacity: number;

  /** Wraps an existing ring's memory, or makes a new one of `capacity` bytes. */
  constructor(from: SharedArrayBuffer | number) {
    this.buffer = typeof from === "number" ? new SharedArrayBuffer(kHeaderBytes + from) : from;
    this.capacity = this.buffer.byteLength - kHeaderBytes;
    this.ctrl = new Int32Array(this.buffer, 0, 4);
    this.data = new Uint8Array(this.buffer, kHeaderBytes, this.capacity);
    this.view = new DataView(this.buffer, kHeaderBytes, this.capacity);
  }

  /** The largest record `write` takes; larger ones must travel another way. */
  get maxRecord(): number { return (this.capacity >> 1) - 8; }

  /** True when the consumer has read everything written. */
  empty(): boolean { return Atomics.load(this.ctrl, R) === Atomics.load(this.ctrl, W); }

  /** Blocks (briefly, in steps) until the consumer has read everything written. */
  waitEmpty(): void {
    while (!this.empty()) Atomics.wait(this.ctrl, R, Atomics.load(this.ctrl, R), 5);
  }

  /** Appends one record made of `parts`, waiting for room if the consumer is behind. */
  write(parts: Uint8Array[]): void {
    const len = parts.reduce((n, p) => n + p.length, 0);
    if (len > this.maxRecord) throw new RangeError(`record of ${len} bytes exceeds the ring's ${this.maxRecord}-byte limit`);
    const need = 4 + len;
    for (;;) {
      let w = Atomics.load(this.ctrl, W);
      const r = Atomics.load(this.ctrl, R);
      const tail = this.capacity - w;
      const contiguous = tail >= need;
      // Room needed: the record, plus the wasted tail when it must wrap; one byte stays free so w === r means empty.
      const required = contiguous ? need : tail + need;
      const used = (w - r + this.capacity) % this.capacity;
      if (this.capacity - used - 1 >= required && (contiguous || need < r)) {
        if (!contiguous) {
          if (tail >= 4) this.view.setUint32(w, kWrap);
          w = 0;
        }
        this.view.setUint32(w, len);
        let at = w + 4;
        for (const p of parts) { this.data.set(p, at); at += p.length; }
        Atomics.store(this.ctrl, W, at === this.capacity ? 0 : at);
        Atomics.add(this.ctrl, COUNT, 1);
        // Waking the consumer costs far more than writing; only wake it when it sleeps.
        if (Atomics.exchange(this.ctrl, SLEEPING, 0) === 1) Atomics.notify(this.ctrl, COUNT);
        return;
      }
      Atomics.wait(this.ctrl, R, r, 5);
    }
  }

  /** Takes every complete record written so far (copies), oldest first. */
  drain(): Buffer[] {
    const out: Buffer[] = [];
    let r = Atomics.load(this.ctrl, R);
    const w = Atomics.load(this.ctrl, W);
    while (r !== w) {
      if (this.capacity - r < 4) { r = 0; continue; }
      const len = this.view.getUint32(r);
      if (len === kWrap) { r = 0; continue; }
      out.push(Buffer.from(this.data.subarray(r + 4, r + 4 + len)));
      r += 4 + len;
      if (r === this.capacity) r = 0;
    }
    Atomics.store(this.ctrl, R, r);
    Atomics.notify(this.ctrl, R);
    return out;
  }

  /** Resolves when records may have arrived since the consumer last looked. */
  async waitForWrites(lastCount: number): Promise<number> {
    Atomics.store(this.ctrl, SLEEPING, 1);
    // Checked after saying so: a write from now on either is seen here or wakes the wait.
    const now = Atomics.load(this.ctrl, COUNT);
    if (now !== lastCount) { Atomics.store(this.ctrl, SLEEPING, 0); return now; }
    const res = (Atomics as any).waitAsync(this.ctrl, COUNT, lastCount, kMaxSleepMs);
    if (res.async) await res.value;
    Atomics.store(this.ctrl, SLEEPING, 0);
    return Atomics.load(this.ctrl, COUNT);
  }
}

const CHANNELS = ["shell", "control", "iopub", "stdin"] as const;
export type RingChannel = typeof CHANNELS[number];

/** A record: [channel byte][u32 frame count]([u32 length][bytes])* — the wire frames with an empty signature. */
export function packFrames(channel: RingChannel, frames: Buffer[]): Uint8Array[] {
  const head = Buffer.allocUnsafe(5 + 4 * frames.length);
  head.writeUInt8(CHANNELS.indexOf(channel), 0);
  head.writeUInt32BE(frames.length, 1);
  const parts: Uint8Array[] = [head];
  // Lengths go first, then the bytes: one copy of each frame.
  frames.forEach((f, i) => head.writeUInt32BE(f.length, 5 + 4 * i));
  for (const f of frames) parts.push(f);
  return parts;
}

export function unpackFrames(record: Buffer): { channel: RingChannel; frames: Buffer[] } {
  const channel = CHANNELS[record.readUInt8(0)];
  const n = record.readUInt32BE(1);
  const frames: Buffer[] = [];
  let at = 5 + 4 * n;
  for (let i = 0; i < n; i++) {
    const len = record.readUInt32BE(5 + 4 * i);
    frames.push(record.subarray(at, at + len));
    at += len;
  }
  return { channel, frames };
}
