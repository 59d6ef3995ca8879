/**
 * Main-thread side of the transport: starts the socket worker and passes
 * messages to and from it. Knows nothing of zeromq itself.
 */
import { Worker } from "worker_threads";
import { join } from "path";
import type { Channel, Message } from "../protocol/message";
import type { ConnectionInfo } from "../protocol/connection";
import { encode, Signer } from "../protocol/wire";
import { packFrames, SharedRing } from "./ring";
import {
  STDIN_CAPACITY_BYTES, STDIN_EMPTY, STDIN_FULL, STDIN_HEADER_BYTES, ToMain, ToWorker,
} from "./bridge-types";

export interface TransportEvents {
  request(channel: "shell" | "control", msg: Message, receivedAt: number): void;
  stdin(msg: Message): void;
  interrupt(): void;
  log(text: string): void;
}

/** Size of the outgoing ring: messages up to half of it travel through it. */
const kRingBytes = 8 << 20;
const unsigned = new Signer("");

export class Transport {
  readonly interruptFlag = new Int32Array(new SharedArrayBuffer(4));
  private readonly stdinBox = new SharedArrayBuffer(STDIN_HEADER_BYTES + STDIN_CAPACITY_BYTES);
  private worker?: Worker;
  /** Outgoing messages, serialized here and signed and sent by the worker. */
  private readonly ring = new SharedRing(kRingBytes);

  constructor(private readonly events: TransportEvents) {}

  /** Starts the worker and resolves once every socket is bound. */
  start(info: ConnectionInfo, kernelInfo: Record<string, unknown>): Promise<void> {
    const worker = new Worker(join(__dirname, "worker.js"), {
      workerData: { info, interruptFlag: this.interruptFlag.buffer, stdinBox: this.stdinBox, kernelInfo, outRing: this.ring.buffer },
      stdout: false, stderr: false,
    });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      worker.once("error", reject);
      // A worker that ends before it is ready could not bind the sockets (it has logged why).
      worker.once("exit", (code) => reject(new Error(`the socket thread ended (exit code ${code}) before the sockets were bound`)));
      worker.on("message", (m: ToMain) => {
        switch (m.kind) {
          case "ready": resolve(); break;
          case "request": this.events.request(m.channel, m.msg, m.receivedAt); break;
          case "stdin": this.events.stdin(m.msg); break;
          case "interrupt": this.events.interrupt(); break;
          case "log": this.events.log(m.text); break;
        }
      });
    });
  }

  /** Queues a message for the wire; the worker signs and sends it, even while this thread stays busy. */
  send(channel: Channel, msg: Message): void {
    const parts = packFrames(channel, encode(msg, unsigned));
    if (parts.reduce((n, p) => n + p.length, 0) <= this.ring.maxRecord) { this.ring.write(parts); return; }
    // Too large for the ring: once the worker has caught up, hand it over by message (order is kept).
    this.ring.waitEmpty();
    this.post({ kind: "send", channel, msg });
  }

  /** The device figures the worker puts in usage_reply. */
  deviceUsage(devices: Record<string, unknown>): void { this.post({ kind: "device-usage", devices }); }

  shutdownHandled(): void { this.post({ kind: "shutdown-handled" }); }

  /** Says the main thread handles requests now; until then the worker holds them (and answers kernel_info itself). */
  serving(): void { this.post({ kind: "serving" }); }

  /**
   * Starts the SIGINT watcher thread (see sigint.ts): from then on SIGINT
   * sets the interrupt flag and calls `events.interrupt`. Removes the main
   * thread's own SIGINT listeners, which would take the signal from it.
   */
  watchSigint(): void {
    process.removeAllListeners("SIGINT");
    const w = new Worker(join(__dirname, "sigint.js"), {
      workerData: { interruptFlag: this.interruptFlag.buffer, park: new SharedArrayBuffer(4) },
      stdout: false, stderr: false,
    });
    w.unref();
    w.on("message", (m) => { if (m === "sigint") this.events.interrupt(); });
    w.on("error", (e) => this.events.log(`SIGINT watcher stopped: ${e?.stack ?? e}`));
  }

  /** Flushes pending sends, closes the sockets, and resolves when the worker has ended. */
  close(): Promise<void> {
    const w = this.worker;
    if (!w) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => { w.terminate().finally(resolve); }, 2000);
      w.once("exit", () => { clearTimeout(timer); resolve(); });
      this.post({ kind: "close" });
    });
  }

  /**
   * Blocks the main thread until a stdin reply arrives (for synchronous
   * `prompt()`), checking the interrupt flag every 50 ms. Returns null when interrupted.
   */
  waitStdinSync(): string | null {
    const header = new Int32Array(this.stdinBox, 0, 2);
    while (Atomics.load(header, 0) !== STDIN_FULL) {
      if (Atomics.load(this.interruptFlag, 0) !== 0) return null;
      Atomics.wait(header, 0, STDIN_EMPTY, 50);
    }
    const length = Atomics.load(header, 1);
    const text = Buffer.from(new Uint8Array(this.stdinBox, STDIN_HEADER_BYTES, length)).toString("utf8");
    Atomics.store(header, 0, STDIN_EMPTY);
    return text;
  }

  /** Forgets any stdin reply left from before, ahead of a new input_request. */
  clearStdin(): void {
    Atomics.store(new Int32Array(this.stdinBox, 0, 2), 0, STDIN_EMPTY);
  }

  private post(m: ToWorker): void {
    this.worker?.postMessage(m);
  }
}
