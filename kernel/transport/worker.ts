/**
 * The socket worker: owns the control, stdin and heartbeat sockets, on its
 * own thread, so that heartbeat, control (interrupt, kernel_info, usage,
 * shutdown) and stdin replies keep working while user code holds the main
 * thread in a synchronous loop. Shell and iopub, the sockets every request
 * goes through, belong to the main thread (see bridge.ts): no thread hop on
 * the hot path. What this thread publishes (busy/idle around the control
 * requests it answers) goes to the main thread through the iopub relay ring,
 * which the main thread empties when it is free and from inside cell loops.
 */
import { parentPort, workerData } from "worker_threads";
import { writeSync } from "fs";
import * as zmq from "zeromq";
import { decodeOrDrop, encode, signFrames, Signer } from "../protocol/wire";
import { copiedFrames, zeroCopyFrameCount } from "./frames";
import { packFrames, SharedRing, unpackFrames } from "./ring";
import { Message, Origin } from "../protocol/message";
import { admit, Inbound, InvalidRequestError, isType } from "../protocol/inbound";
import { answeredOnSocketThread, SocketThreadType } from "../protocol/message_types";
import { answer, ReplyContent } from "../protocol/bracket";
import { DropLog } from "../protocol/drop_log";
import { endpoint } from "../protocol/connection";
import { Outbox } from "./outbox";
import { InboundGarbage } from "./inbound_garbage";
import { useListener } from "./listen_fds";
import { processUsage } from "../usage";
import { recordOutbound } from "../protocol/outbound_log";
import {
  CompanionLink, RELAY_PENDING, STDIN_CAPACITY_BYTES, STDIN_FULL, STDIN_HEADER_BYTES, ToMain, ToWorker, WorkerInit,
} from "./bridge-types";

const init = workerData as WorkerInit;
const port = parentPort!;
const signer = new Signer(init.info.key, init.info.signature_scheme);
const interruptFlag = new Int32Array(init.interruptFlag);
const stdinHeader = new Int32Array(init.stdinBox, 0, 2);
const stdinData = new Uint8Array(init.stdinBox, STDIN_HEADER_BYTES, STDIN_CAPACITY_BYTES);
const origin: Origin = { session: String(init.kernelInfo.session ?? ""), username: "kernel" };
/** kernel_info_reply content (without the `session` the main thread adds for the worker). */
const kernelInfoContent: Record<string, unknown> = (({ session: _session, ...rest }) => rest)(init.kernelInfo);
/** How long a shutdown request waits for the main thread before the worker ends the process itself. */
const kShutdownGraceMs = 3000;  // the main thread's time to release native resources and exit (jupyter_client waits 5 s)
/** How long the worker leaves zeromq to put queued replies on the wire before it ends a stuck process. */
const kWireFlushMs = 200;

function toMain(m: ToMain): void { port.postMessage(m); }
function log(text: string): void { toMain({ kind: "log", text }); }
/** Drops on control and stdin (the main thread keeps its own for shell): logged with a rate limit. */
const drops = new DropLog(log);

const control = new zmq.Router();
/**
 * How long an input_request waits for the frontend's stdin socket to be
 * connected (ms). A ROUTER drops a message for a peer it does not know yet,
 * and a frontend that connected while this thread was still binding is only
 * known once zeromq's reconnect has gone through: seen under load as an
 * input_request lost for good, with the cell waiting forever.
 */
const kStdinRouteWaitMs = 10000;

/** How often an undeliverable input_request is tried again meanwhile (ms). */
const kStdinRetryMs = 20;

// Mandatory routing: a message for an unknown peer fails at once (EHOSTUNREACH) instead of vanishing.
// (Waiting inside zeromq for the peer does not work: it waits for the socket to become writable,
// which it already is when another frontend is connected.)
const stdin = new zmq.Router({ mandatory: true, sendTimeout: 0 });

/** Sends on stdin, trying again while the addressed frontend is not connected yet. */
async function sendStdin(frames: Buffer[]): Promise<void> {
  const end = Date.now() + kStdinRouteWaitMs;
  for (;;) {
    try {
      await stdin.send(copiedFrames(frames));
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "EHOSTUNREACH" || Date.now() >= end) throw e;
      await new Promise((resolve) => setTimeout(resolve, kStdinRetryMs));
    }
  }
}
const hb = new zmq.Reply();

const onSendError = (e: Error) => log(`send failed: ${e.message}`);
const onStdinError = (e: Error) => log((e as { code?: string }).code === "EHOSTUNREACH"
  ? `input_request not delivered: no frontend stdin socket with the request's identity connected within ${kStdinRouteWaitMs} ms`
  : `send failed on stdin: ${e.message}`);
const outboxes = {
  control: new Outbox((f) => control.send(copiedFrames(f)), onSendError),
  stdin: new Outbox(sendStdin, onStdinError),
};

const outRing = new SharedRing(init.outRing);
const relay = new SharedRing(init.relayRing);

/** Publishes on iopub through the main thread: signed here, sent there as soon as it can. */
function publish(msg: Message): void {
  recordOutbound("iopub", msg);
  const frames = encode(msg, signer);
  relay.write(packFrames("iopub", frames));
  Atomics.store(interruptFlag, RELAY_PENDING, 1);
  toMain({ kind: "relay" });
}

function send(channel: keyof typeof outboxes, msg: Message): void {
  outboxes[channel].push(encode(msg, signer));
}

/** Signs and sends what the main thread put in the ring (control replies, input requests). */
function drainRing(): void {
  for (const record of outRing.drain()) {
    const { channel, frames } = unpackFrames(record);
    if (channel === "control" || channel === "stdin") outboxes[channel].push(signFrames(frames, signer));
    else log(`the ring carried a ${channel} message; only control and stdin go through this thread`);
  }
}

async function serveRing(): Promise<void> {
  let seen = 0;
  for (;;) {
    seen = await outRing.waitForWrites(seen);
    drainRing();
  }
}

/** Buffers lose their class crossing threads; give them back. */
function revive(msg: Message): Message {
  msg.idents = msg.idents.map((b) => Buffer.from(b as Uint8Array));
  msg.buffers = (msg.buffers ?? []).map((b) => Buffer.from(b as Uint8Array));
  return msg;
}

async function bindAll(): Promise<void> {
  const info = init.info;
  const fds = init.listenFds;
  const pairs: [zmq.Socket, number, number | undefined][] = [
    [control, info.control_port, fds.control], [stdin, info.stdin_port, fds.stdin], [hb, info.hb_port, fds.hb]];
  for (const [sock, p, fd] of pairs) {
    useListener(sock, fd);
    await sock.bind(endpoint(info, Number(p)));
  }
}

/** The socket thread's own heap: nothing else collects it. */
const inbound = new InboundGarbage();

async function serveHeartbeat(): Promise<void> {
  for await (const frames of hb) await hb.send(copiedFrames(frames));
}

async function serveStdin(): Promise<void> {
  for await (const frames of stdin) {
    inbound.read(frames);
    const decoded = decodeOrDrop(frames, signer, "stdin", drops);
    if (!decoded) continue;
    const admission = admit("stdin", decoded);
    if (admission.kind !== "ok") { drops.drop("stdin", "not an input_reply", admission.reason); continue; }
    const msg = admission.msg;
    if (!isType(msg, "input_reply")) continue;
    const bytes = Buffer.from(msg.content.value, "utf8").subarray(0, STDIN_CAPACITY_BYTES);
    stdinData.set(bytes);
    Atomics.store(stdinHeader, 1, bytes.length);
    Atomics.store(stdinHeader, 0, STDIN_FULL);
    Atomics.notify(stdinHeader, 0);
    toMain({ kind: "stdin", msg });
  }
}

let shutdownTimer: NodeJS.Timeout | undefined;
let devices: Record<string, unknown> | undefined;

/** Answers a control request here, without the main thread (which may be busy). */
function answerOnControl(msg: Message, produce: () => ReplyContent,
                         onError = (err: Error) => log(`control ${msg.header.msg_type} failed: ${err.stack}`)): void {
  void answer(msg, origin, {
    publish,
    reply: (m) => { recordOutbound("control", m); send("control", m); },
  }, produce, onError);
}

const FORWARD = Symbol("forward");
/**
 * The control requests this thread answers, those the request table (protocol/message_types.ts) marks
 * "socket" or "socket, then main": each gives its reply content, or FORWARD to hand it to the main thread's table.
 */
type OnThisThread = { [T in SocketThreadType]: (msg: Inbound<T>) => ReplyContent | typeof FORWARD };

/**
 * The control requests answered on this thread, so that they come back while
 * a cell holds the main thread; every other request (and the ones forwarded
 * here) goes to the main thread's handler table, which serves shell too.
 */
const onThisThread: OnThisThread = {
  interrupt_request: (msg) => {
    Atomics.store(interruptFlag, 0, 1);
    toMain({ kind: "interrupt", date: msg.header.date });
    return { status: "ok" };
  },
  // Static content.
  kernel_info_request: () => kernelInfoContent,
  usage_request: () => processUsage(devices),
  // The main thread releases native resources and exits; if it is stuck
  // in user code, answer here and end the process after a grace period.
  shutdown_request: (msg) => {
    const restart = msg.content.restart === true;
    shutdownTimer = setTimeout(() => {
      answerOnControl(msg, () => ({ status: "ok", restart }));
      // Sends resolve when zeromq has queued the frames; its I/O thread still has to write them.
      Promise.all(Object.values(outboxes).map((o) => o.drain())).finally(() => {
        setTimeout(() => process.kill(process.pid, "SIGKILL"), kWireFlushMs);
      });
    }, kShutdownGraceMs);
    return FORWARD;
  },
};

async function serveControl(): Promise<void> {
  for await (const frames of control) {
    inbound.read(frames);
    const decoded = decodeOrDrop(frames, signer, "control", drops);
    if (!decoded) continue;
    const admission = admit("control", decoded);
    if (admission.kind === "drop") { drops.drop("control", "not a request it can answer", admission.reason); continue; }
    if (admission.kind === "reject") {
      drops.reject("control", "malformed request", admission.reason);
      const err = new InvalidRequestError(admission.reason);
      answerOnControl(decoded, () => { throw err; }, () => undefined);
      continue;
    }
    const msg = admission.msg;
    const type = msg.header.msg_type;
    const here = answeredOnSocketThread(type) ? onThisThread[type] as (m: Inbound) => ReplyContent | typeof FORWARD : undefined;
    const content = here ? here(msg) : FORWARD;
    if (content === FORWARD) toMain({ kind: "request", channel: "control", msg });
    else answerOnControl(msg, () => content);
  }
}

/** The companion module's handlers of the main thread's messages. */
const companionHandlers: ((msg: unknown) => void)[] = [];

/**
 * Starts the companion module, if there is one, before the binds: it answers on its own from now on. One
 * that cannot start ends this thread, as a failed bind does: the kernel cannot serve what it was started for.
 */
function startCompanion(): void {
  const c = init.companion;
  if (!c) return;
  const link: CompanionLink = {
    send: (msg) => toMain({ kind: "companion", msg }),
    onMessage: (fn) => { companionHandlers.push(fn); },
  };
  try {
    (require(c.file) as { startCompanion(data: unknown, link: CompanionLink): void }).startCompanion(c.data, link);
  } catch (e) {
    log(`cannot start ${c.file} on the socket thread: ${(e as Error)?.stack ?? e}`);
    process.exit(1);
  }
}

port.on("message", (m: ToWorker) => {
  if (m.kind === "send") { drainRing(); send(m.channel as keyof typeof outboxes, revive(m.msg)); }
  else if (m.kind === "companion") { for (const fn of companionHandlers) fn(m.msg); }
  else if (m.kind === "device-usage") devices = m.devices;
  else if (m.kind === "shutdown-handled") { if (shutdownTimer) clearTimeout(shutdownTimer); }
  else if (m.kind === "close") {
    drainRing();
    // This thread stays up after closing its sockets, until the process ends: zeromq may still hold
    // frames of the closed sockets that refer to this thread's zeromq state (frames.ts), and ending the
    // thread would free that state under zeromq's I/O thread.
    Promise.all(Object.values(outboxes).map((o) => o.drain())).finally(() => {
      for (const s of [control, stdin, hb]) s.close();
      toMain({ kind: "closed", zeroCopyFrames: zeroCopyFrameCount() });
    });
  }
});

/** How often the socket thread checks that the process that started the kernel still runs (ms). */
const kParentPollMs = 1000;

/** Whether a process exists (EPERM: it does, but is not ours to signal). */
function exists(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === "EPERM"; }
}

/** A kernel outlives no client that started it: once its parent process is gone, it ends. */
function watchParent(): void {
  const parent = init.parentPid;
  if (!(parent > 1)) return;
  const timer = setInterval(() => {
    if (exists(parent)) return;
    clearInterval(timer);
    try { writeSync(2, `[tsgpu] the process that started the kernel (pid ${parent}) is gone; exiting\n`); } catch { /* stderr closed */ }
    process.kill(process.pid, "SIGTERM");
  }, kParentPollMs);
  timer.unref();
}

startCompanion();
bindAll().then(() => {
  watchParent();
  toMain({ kind: "ready" });
  for (const serve of [serveHeartbeat, serveStdin, serveControl, serveRing]) {
    serve().catch((e) => { if (!String(e?.message).includes("closed")) log(`${serve.name} stopped: ${e?.stack ?? e}`); });
  }
}).catch((e) => {
  log(`cannot bind kernel sockets: ${e?.message ?? e}`);
  process.exit(1);
});
