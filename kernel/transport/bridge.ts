/**
 * The main thread's side of the transport. It owns the two sockets every
 * request goes through: shell (ROUTER) and iopub (XPUB). Sends on them are
 * synchronous hand-offs to zeromq's I/O thread (send timeout 0), so output a
 * cell prints reaches the client at once, even while the cell keeps this
 * thread busy, and a request costs no hop between threads.
 *
 * The socket worker (worker.ts) owns control, stdin and heartbeat, which must
 * answer while user code holds this thread. Control and stdin messages to the
 * worker go through a shared ring; the iopub messages the worker publishes
 * come back through another (the relay), emptied here when this thread is
 * free (the worker posts a wake-up) and from inside cells' loops (`pump`,
 * called by the interrupt check).
 */
import type { Worker } from "worker_threads";
import { join } from "path";
import * as zmq from "zeromq";
import { Message, Origin, reply } from "../protocol/message";
import { ConnectionInfo, endpoint } from "../protocol/connection";
import { decodeOrDrop, encode, encodeText, frameBytes, SendFrame, Signer } from "../protocol/wire";
import { DropLog } from "../protocol/drop_log";
import { admit } from "../protocol/inbound";
import { answer } from "../protocol/bracket";
import { recordOutbound } from "../protocol/outbound_log";
import { packFrames, SharedRing, unpackFrames } from "./ring";
import { ListenFds, useListener } from "./listen_fds";
import { InboundGarbage } from "./inbound_garbage";
import {
  FLAG_WORDS, RELAY_PENDING, STDIN_CAPACITY_BYTES, STDIN_EMPTY, STDIN_FULL, STDIN_HEADER_BYTES, ThreadCompanion, ToMain, ToWorker, WorkerInit,
} from "./bridge-types";

export interface TransportEvents {
  /** A request to handle; a promise returned means "full: read no more until it resolves". `bytes`: its frames' size. */
  request(channel: "shell" | "control", msg: Message, bytes?: number): void | Promise<void>;
  stdin(msg: Message): void;
  /** The interrupt flag was set: by an interrupt_request sent at `date` (its header's), or by SIGINT (no date). */
  interrupt(date?: string): void;
  log(text: string): void;
}

/** Size of the ring to the worker: messages up to half of it travel through it. */
const kRingBytes = 1 << 20;
/** Size of the relay ring (the worker's iopub messages: status around control requests). */
const kRelayBytes = 1 << 20;
/**
 * iopub messages published before anyone subscribed, kept for the first subscriber, at most (older ones are
 * dropped and logged). A starting kernel answers a client's first kernel_info at once, and its busy/idle
 * would otherwise be lost whenever the client's iopub subscription comes after its shell request (usual
 * after a restart, when each socket of the client reconnects on its own timer).
 */
const kMaxUnheard = 256;
/** …and at most this many bytes of them. */
const kMaxUnheardBytes = 16 << 20;
/** How long after binding shell and iopub the socket thread starts if no kernel_info came first (ms). */
const kWorkerDelayMs = 100;
/** Requests held while the kernel starts, at most (more are dropped and logged). */
const kMaxEarly = 1000;
/** Node's threads module, loaded when the first thread starts (after the first kernel_info reply). */
function threads(): typeof import("worker_threads") {
  return require("worker_threads") as typeof import("worker_threads");
}
/** Frames for the worker travel unsigned: it signs them. */
const unsigned = new Signer("");
/** How long zeromq may keep trying to deliver queued messages once a socket is closed (ms). */
const kLingerMs = 1000;

/** Transport.start's options (see there). */
export interface StartOptions {
  threadAtOnce?: boolean;
  companion?: ThreadCompanion;
  onCompanion?: (msg: unknown) => void;
}

export class Transport {
  /** [0]: the interrupt flag; [RELAY_PENDING]: the relay has messages. */
  readonly interruptFlag = new Int32Array(new SharedArrayBuffer(4 * FLAG_WORDS));
  private readonly stdinBox = new SharedArrayBuffer(STDIN_HEADER_BYTES + STDIN_CAPACITY_BYTES);
  private worker?: Worker;
  private readonly ring = new SharedRing(kRingBytes);
  private readonly relay = new SharedRing(kRelayBytes);
  private shell?: zmq.Router;
  private iopub?: zmq.XPublisher;
  private signer = new Signer("");
  private origin: Origin = { session: "", username: "kernel" };
  private kernelInfoContent: Record<string, unknown> = {};
  /** Until the kernel serves, requests wait here (a kernel_info with nothing ahead is answered at once). */
  private serving_ = false;
  private readonly early: { channel: "shell" | "control"; msg: Message }[] = [];
  private subscribed = false;
  /** Frames of the iopub messages sent before the first subscription, in order (see kMaxUnheard). */
  private readonly unheard: SendFrame[][] = [];
  private unheardBytes = 0;
  private closed = false;
  /**
   * Binary frames the socket thread handed zeromq without a copy, as it said when it closed (frames.ts): the
   * process must then end without Node's teardown of that thread (exitProcess's skipTeardown).
   */
  zeroCopyFrames = 0;
  /** The device figures last sent to the worker, as JSON. */
  private lastDeviceUsage = "{}";
  private workerReady: Promise<void> = Promise.resolve();
  /** Where the companion module's messages go. */
  private onCompanion?: (msg: unknown) => void;
  private answeredEarly!: () => void;
  /** A kernel_info_request came before the kernel served and was answered. */
  answeringEarly = false;
  /** Resolves when a kernel_info_request was answered before the kernel served (the client knows it is up). */
  readonly firstReply = new Promise<void>((resolve) => { this.answeredEarly = resolve; });
  /** Resolves once shell and iopub are bound (rejects if they cannot be). */
  ownBound: Promise<void> = Promise.reject(new Error("the transport was not started"));

  /** Messages dropped on this thread (shell, and requests the dispatcher cannot answer): logged with a rate limit. */
  readonly drops: DropLog;

  constructor(private readonly events: TransportEvents) {
    this.ownBound.catch(() => undefined);
    this.drops = new DropLog((text) => this.events.log(text));
  }

  /**
   * Binds shell and iopub here, starts the worker for the others; resolves once every socket is bound.
   * `fds`: listening sockets the launcher bound (listen_fds.ts), taken over instead of binding.
   * `o.threadAtOnce`: the socket thread starts with the binds, not after the first kernel_info (for a
   * kernel whose client comes only after it was told the ports, as Enterprise Gateway's does).
   * `o.companion`: a module the socket thread runs too; its messages go to `o.onCompanion`.
   */
  start(info: ConnectionInfo, kernelInfo: Record<string, unknown>, fds: ListenFds = {}, o: StartOptions = {}): Promise<void> {
    const threadAtOnce = o.threadAtOnce ?? false;
    this.onCompanion = o.onCompanion;
    this.signer = new Signer(info.key, info.signature_scheme);
    this.origin = { session: String(kernelInfo.session ?? ""), username: "kernel" };
    this.kernelInfoContent = (({ session: _s, ...rest }) => rest)(kernelInfo);
    // Shell and iopub first: a client polls kernel_info there until the kernel answers.
    const own = this.bindOwn(info, fds);
    own.catch(() => undefined);
    this.ownBound = own;
    const workerData: WorkerInit = {
      info, listenFds: { control: fds.control, stdin: fds.stdin, hb: fds.hb }, interruptFlag: this.interruptFlag.buffer, stdinBox: this.stdinBox, kernelInfo,
      outRing: this.ring.buffer, relayRing: this.relay.buffer,
      parentPid: Number(process.env.JPY_PARENT_PID) || process.ppid, companion: o.companion,
    };
    // The socket thread starts once the client's first kernel_info has been answered (or kWorkerDelayMs
    // after shell and iopub are bound if none came): starting a thread is a second Node.js to boot, and
    // on a busy machine it would compete with the reply the client waits for. Until it binds, what a
    // client sends on control, stdin or heartbeat waits in the client's queue.
    const workerReady = threadAtOnce ? this.startWorker(workerData) : own
      .then(() => new Promise<void>((resolve) => { const t = setTimeout(resolve, kWorkerDelayMs); void this.firstReply.then(() => { clearTimeout(t); resolve(); }); }))
      .then(() => this.startWorker(workerData));
    workerReady.catch(() => undefined);
    this.workerReady = workerReady;
    return Promise.all([own, workerReady]).then(() => undefined);
  }

  /** Starts the socket thread; resolves once it has bound control, stdin and heartbeat. */
  private startWorker(workerData: WorkerInit): Promise<void> {
    if (this.closed) return Promise.resolve();
    const worker = new (threads().Worker)(join(__dirname, "worker.js"), { workerData, stdout: false, stderr: false });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.once("error", reject);
      // A worker that ends before it is ready could not bind its sockets (it has logged why).
      worker.once("exit", (code) => reject(new Error(`cannot bind kernel sockets: the socket thread ended (exit code ${code})`)));
      worker.on("message", (m: ToMain) => {
        switch (m.kind) {
          case "ready": resolve(); break;
          case "request": this.deliver(m.channel, m.msg); break;
          case "relay": this.pump(); break;
          case "stdin": this.events.stdin(m.msg); break;
          case "interrupt": this.events.interrupt(m.date); break;
          case "log": this.events.log(m.text); break;
          case "companion": this.onCompanion?.(m.msg); break;
        }
      });
    });
  }

  private async bindOwn(info: ConnectionInfo, fds: ListenFds): Promise<void> {
    const shell = new zmq.Router({ sendTimeout: 0, linger: kLingerMs });
    // allSubs: every subscriber's subscription is seen (and welcomed), not only the first one of a topic.
    const iopub = new zmq.XPublisher({ sendTimeout: 0, linger: kLingerMs, verbosity: "allSubs" });
    this.shell = shell;
    this.iopub = iopub;
    useListener(shell, fds.shell);
    useListener(iopub, fds.iopub);
    // Both binds settle before anything else happens: a process that exits while zeromq binds can crash.
    const binds = await Promise.allSettled([shell.bind(endpoint(info, Number(info.shell_port))), iopub.bind(endpoint(info, Number(info.iopub_port)))]);
    const failed = binds.find((b): b is PromiseRejectedResult => b.status === "rejected");
    if (failed) {
      shell.close();
      iopub.close();
      throw new Error(`cannot bind kernel sockets: ${(failed.reason as Error)?.message ?? failed.reason}`);
    }
    void this.serveShell().catch((e) => this.stopped("shell", e));
    void this.serveSubscriptions().catch((e) => this.stopped("iopub", e));
  }

  private stopped(name: string, e: unknown): void {
    if (!this.closed) this.events.log(`${name} socket stopped: ${(e as Error)?.stack ?? e}`);
  }

  private readonly inbound = new InboundGarbage();

  private async serveShell(): Promise<void> {
    for await (const frames of this.shell!) {
      this.inbound.read(frames);
      const msg = decodeOrDrop(frames, this.signer, "shell", this.drops);
      if (!msg) continue;
      const full = this.deliver("shell", msg, frames.reduce((n, f) => n + f.length, 0));
      if (full) await full;
    }
  }

  /**
   * XPUB hears subscriptions: each one is welcomed (`iopub_welcome`, JEP 65); the first one is then sent
   * what was published before it (the busy/idle of kernel_info requests answered while the kernel started).
   */
  private async serveSubscriptions(): Promise<void> {
    for await (const [frame] of this.iopub!) {
      if (!frame.length || frame[0] !== 1) continue;
      const welcome = reply(undefined, "iopub_welcome", { subscription: frame.subarray(1).toString("utf8") }, this.origin);
      recordOutbound("iopub", welcome);
      const first = !this.subscribed;
      this.subscribed = true;
      this.sendFrames(this.iopub, encodeText(welcome, this.signer));
      if (first) {
        this.unheardBytes = 0;
        for (const frames of this.unheard.splice(0)) this.sendFrames(this.iopub, frames);
      }
    }
  }

  private deliver(channel: "shell" | "control", msg: Message, bytes = 0): void | Promise<void> {
    if (this.serving_) return this.events.request(channel, msg, bytes);
    if (channel === "shell" && msg.header.msg_type === "kernel_info_request" && admit(channel, msg).kind === "ok"
        && !this.early.some((r) => r.channel === "shell")) {
      this.answerEarlyKernelInfo(msg);
      return;
    }
    if (this.early.length >= kMaxEarly) { this.drops.drop(channel, "kernel starting", `a ${msg.header.msg_type} while ${kMaxEarly} requests already wait for the kernel to start`); return; }
    this.early.push({ channel, msg });
  }

  /**
   * A client polls kernel_info until the kernel is up: answer it before the engine has loaded. Its busy/idle
   * reach a client whose iopub subscription comes later all the same (see serveSubscriptions).
   */
  private answerEarlyKernelInfo(msg: Message): void {
    this.answeringEarly = true;
    answer(msg, this.origin, { publish: (m) => this.send("iopub", m), reply: (m) => this.send("shell", m) }, () => this.kernelInfoContent);
    this.answeredEarly();
  }

  /** Says the kernel handles requests now: those held since start are delivered, in order. */
  serving(): void {
    this.serving_ = true;
    for (const r of this.early.splice(0)) this.events.request(r.channel, r.msg);
  }

  /**
   * Sends a message. Shell and iopub go out from here at once; control and
   * stdin through the worker, which signs and sends them even while this
   * thread stays busy.
   */
  send(channel: "shell" | "control" | "iopub" | "stdin", msg: Message): void {
    recordOutbound(channel, msg);
    if (channel === "shell" || channel === "iopub") {
      // A message sent before the worker's iopub messages waiting in the relay would overtake them.
      if (channel === "iopub") this.pump();
      this.sendFrames(channel === "shell" ? this.shell : this.iopub, encodeText(msg, this.signer));
      return;
    }
    const parts = packFrames(channel, encode(msg, unsigned));
    if (parts.reduce((n, p) => n + p.length, 0) <= this.ring.maxRecord) { this.ring.write(parts); return; }
    // Too large for the ring: once the worker has caught up, hand it over by message (order is kept).
    this.ring.waitEmpty();
    this.post({ kind: "send", channel, msg });
  }

  private sendFrames(sock: zmq.Router | zmq.XPublisher | undefined, frames: SendFrame[]): void {
    if (!sock || sock.closed) return;
    if (sock === this.iopub && !this.subscribed) {
      // Nobody would hear it: keep it for the first subscriber.
      this.unheard.push(frames);
      this.unheardBytes += frameBytes(frames);
      while (this.unheard.length > kMaxUnheard || (this.unheardBytes > kMaxUnheardBytes && this.unheard.length > 1)) {
        this.unheardBytes -= frameBytes(this.unheard.shift()!);
        this.drops.drop("outgoing iopub", "no subscriber yet", `published before anyone subscribed (the first subscriber `
          + `gets at most ${kMaxUnheard} messages and ${kMaxUnheardBytes >> 20} MiB of what came before it)`);
      }
      return;
    }
    // A client that does not read its replies fills zeromq's queue: what does not fit is dropped, and logged under the rate limit.
    sock.send(frames).catch((e: Error) => { if (!this.closed) this.drops.drop(sock === this.shell ? "outgoing shell" : "outgoing iopub", "send failed", `send failed: ${e.message}`); });
  }

  /** Sends the iopub messages the worker left in the relay. Cheap when there are none. */
  pump(): void {
    if (Atomics.load(this.interruptFlag, RELAY_PENDING) === 0) return;
    Atomics.store(this.interruptFlag, RELAY_PENDING, 0);
    for (const record of this.relay.drain()) this.sendFrames(this.iopub, unpackFrames(record).frames);
  }

  /**
   * The device figures the worker puts in usage_reply. Sent only when they
   * changed: a message to the worker wakes its thread, which costs the cell
   * beside it more than comparing the figures.
   */
  deviceUsage(devices: Record<string, unknown>): void {
    const text = JSON.stringify(devices);
    if (text === this.lastDeviceUsage) return;
    this.lastDeviceUsage = text;
    this.post({ kind: "device-usage", devices });
  }

  shutdownHandled(): void { this.post({ kind: "shutdown-handled" }); }

  /**
   * Starts the SIGINT watcher thread (see sigint.ts): from then on SIGINT
   * sets the interrupt flag and calls `events.interrupt`. Removes the main
   * thread's own SIGINT listeners, which would take the signal from it.
   */
  watchSigint(): void {
    process.removeAllListeners("SIGINT");
    const w = new (threads().Worker)(join(__dirname, "sigint.js"), {
      workerData: { interruptFlag: this.interruptFlag.buffer, park: new SharedArrayBuffer(4) },
      stdout: false, stderr: false,
    });
    w.unref();
    w.on("message", (m) => { if (m === "sigint") this.events.interrupt(); });
    w.on("error", (e) => this.events.log(`SIGINT watcher stopped: ${e?.stack ?? e}`));
  }

  /** After a failed start: ends the socket thread (its sockets closed) so that the process can exit cleanly. */
  async abort(): Promise<void> {
    // The socket thread must not be mid-bind when the process ends (zeromq can crash): let it finish first.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.workerReady.catch(() => undefined), new Promise((r) => { timer = setTimeout(r, 3000); })]);
    clearTimeout(timer);
    await this.close();
  }

  /** Flushes pending sends, closes the sockets, and resolves when the socket thread has closed its own (or ended). */
  close(): Promise<void> {
    this.pump();
    this.closed = true;
    if (this.shell && !this.shell.closed) this.shell.close();
    if (this.iopub && !this.iopub.closed) this.iopub.close();
    const w = this.worker;
    if (!w) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => { w.terminate().finally(resolve); }, 2000);
      const done = () => { clearTimeout(timer); w.unref(); resolve(); };
      // The socket thread stays up once closed, until the process ends (frames.ts says why); unref'd, it does not keep it running.
      w.on("message", (m: ToMain) => { if (m.kind === "closed") { this.zeroCopyFrames = m.zeroCopyFrames; done(); } });
      w.once("exit", done);
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
      this.pump();
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

  /** Sends a message to the socket thread's companion module (see StartOptions). */
  toCompanion(msg: unknown): void {
    this.post({ kind: "companion", msg });
  }

  private post(m: ToWorker): void {
    this.worker?.postMessage(m);
  }
}
