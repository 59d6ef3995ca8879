/**
 * The transport worker: the only code that owns the kernel's zeromq sockets.
 * It runs on its own thread so that heartbeat, control and interrupt keep
 * answering while user code holds the main thread in a synchronous loop.
 */
import { parentPort, workerData } from "worker_threads";
import * as zmq from "zeromq";
import { decode, encode, signFrames, Signer, WireError } from "../protocol/wire";
import { SharedRing, unpackFrames } from "./ring";
import { Message, Origin, reply, replyType } from "../protocol/message";
import { endpoint } from "../protocol/connection";
import { Outbox } from "./outbox";
import { processUsage } from "../usage";
import {
  STDIN_CAPACITY_BYTES, STDIN_FULL, STDIN_HEADER_BYTES, ToMain, ToWorker, WorkerInit,
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
const kShutdownGraceMs = 1500;
/** How long the worker leaves zeromq to put queued replies on the wire before it ends a stuck process. */
const kWireFlushMs = 200;

import { monotonicMs } from "./clock";

function toMain(m: ToMain): void { port.postMessage(m); }
function log(text: string): void { toMain({ kind: "log", text }); }

const shell = new zmq.Router();
const control = new zmq.Router();
const stdin = new zmq.Router();
// XPUB: a publisher that also hears subscriptions, so the kernel knows when a client listens.
const iopub = new zmq.XPublisher();
const hb = new zmq.Reply();

const onSendError = (e: Error) => log(`send failed: ${e.message}`);
const outboxes = {
  shell: new Outbox((f) => shell.send(f), onSendError),
  control: new Outbox((f) => control.send(f), onSendError),
  stdin: new Outbox((f) => stdin.send(f), onSendError),
  iopub: new Outbox((f) => iopub.send(f), onSendError),
};

function send(channel: keyof typeof outboxes, msg: Message): void {
  outboxes[channel].push(encode(msg, signer));
}

const outRing = new SharedRing(init.outRing);

/** Signs and sends what the main thread put in the ring. */
function drainRing(): void {
  for (const record of outRing.drain()) {
    const { channel, frames } = unpackFrames(record);
    outboxes[channel].push(signFrames(frames, signer));
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

async function bindAll(): Promise<Record<string, number>> {
  const info = init.info;
  const pairs: [zmq.Socket, string][] = [
    [shell, "shell_port"], [control, "control_port"], [stdin, "stdin_port"],
    [iopub, "iopub_port"], [hb, "hb_port"],
  ];
  const ports: Record<string, number> = {};
  for (const [sock, key] of pairs) {
    const p = Number((info as any)[key]);
    await sock.bind(endpoint(info, p));
    ports[key] = p;
  }
  return ports;
}

function decodeOrLog(frames: Buffer[], channel: string): Message | null {
  try {
    return decode(frames, signer);
  } catch (e) {
    if (e instanceof WireError) log(`dropped a ${channel} message: ${e.message}`);
    else log(`dropped a ${channel} message: ${(e as Error).stack}`);
    return null;
  }
}

async function serveHeartbeat(): Promise<void> {
  for await (const frames of hb) await hb.send(frames);
}

/**
 * Until the main thread has loaded (see "serving"), requests wait here; a
 * kernel_info_request with nothing ahead of it is answered by this thread,
 * so that a client sees the kernel ready as soon as its sockets are bound.
 */
let mainServing = false;
const early: ToMain[] = [];

function toDispatcher(channel: "shell" | "control", msg: Message): void {
  const m: ToMain = { kind: "request", channel, msg, receivedAt: monotonicMs() };
  if (mainServing) toMain(m); else early.push(m);
}

async function serveShell(): Promise<void> {
  for await (const frames of shell) {
    const msg = decodeOrLog(frames, "shell");
    if (!msg) continue;
    if (!mainServing && msg.header.msg_type === "kernel_info_request" && !early.some((m) => m.kind === "request" && m.channel === "shell")) {
      void answerEarlyKernelInfo(msg);
      continue;
    }
    toDispatcher("shell", msg);
  }
}

/** How long a boot-time kernel_info reply waits for an iopub subscriber (whose busy/idle clients wait for). */
const kSubscriberWaitMs = 250;
let subscribed = false;
const subscriberWaiters: (() => void)[] = [];

async function serveSubscriptions(): Promise<void> {
  for await (const [frame] of iopub) {
    if (frame.length && frame[0] === 1 && !subscribed) {
      subscribed = true;
      for (const w of subscriberWaiters.splice(0)) w();
    }
  }
}

async function answerEarlyKernelInfo(msg: Message): Promise<void> {
  if (!subscribed) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, kSubscriberWaitMs);
      subscriberWaiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }
  send("iopub", reply(msg, "status", { execution_state: "busy" }, origin));
  send("shell", reply(msg, "kernel_info_reply", kernelInfoContent, origin));
  send("iopub", reply(msg, "status", { execution_state: "idle" }, origin));
}

async function serveStdin(): Promise<void> {
  for await (const frames of stdin) {
    const msg = decodeOrLog(frames, "stdin");
    if (!msg || msg.header.msg_type !== "input_reply") continue;
    const bytes = Buffer.from(String(msg.content.value ?? ""), "utf8").subarray(0, STDIN_CAPACITY_BYTES);
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
function answerOnControl(msg: Message, content: Record<string, unknown>): void {
  send("iopub", reply(msg, "status", { execution_state: "busy" }, origin));
  send("control", reply(msg, replyType(msg.header.msg_type), content, origin));
  send("iopub", reply(msg, "status", { execution_state: "idle" }, origin));
}

async function serveControl(): Promise<void> {
  for await (const frames of control) {
    const msg = decodeOrLog(frames, "control");
    if (!msg) continue;
    const type = msg.header.msg_type;
    if (type === "interrupt_request") {
      Atomics.store(interruptFlag, 0, 1);
      toMain({ kind: "interrupt" });
      answerOnControl(msg, { status: "ok" });
      continue;
    }
    if (type === "kernel_info_request") {
      // Static content: answered here so that it comes back while a cell holds the main thread.
      answerOnControl(msg, kernelInfoContent);
      continue;
    }
    if (type === "usage_request") {
      answerOnControl(msg, processUsage(devices));
      continue;
    }
    if (type === "shutdown_request") {
      // The main thread releases native resources and exits; if it is stuck
      // in user code, answer here and end the process after a grace period.
      toDispatcher("control", msg);
      shutdownTimer = setTimeout(() => {
        answerOnControl(msg, { status: "ok", restart: Boolean(msg.content.restart) });
        // Sends resolve when zeromq has queued the frames; its I/O thread still has to write them.
        Promise.all(Object.values(outboxes).map((o) => o.drain())).finally(() => {
          setTimeout(() => process.kill(process.pid, "SIGKILL"), kWireFlushMs);
        });
      }, kShutdownGraceMs);
      continue;
    }
    toDispatcher("control", msg);
  }
}

port.on("message", (m: ToWorker) => {
  if (m.kind === "send") { drainRing(); send(m.channel as keyof typeof outboxes, revive(m.msg)); }
  else if (m.kind === "device-usage") devices = m.devices;
  else if (m.kind === "serving") { mainServing = true; for (const r of early.splice(0)) toMain(r); }
  else if (m.kind === "shutdown-handled") { if (shutdownTimer) clearTimeout(shutdownTimer); }
  else if (m.kind === "close") {
    drainRing();
    Promise.all(Object.values(outboxes).map((o) => o.drain())).finally(() => {
      for (const s of [shell, control, stdin, iopub, hb]) s.close();
      port.close();
    });
  }
});

bindAll().then((ports) => {
  toMain({ kind: "ready", ports });
  for (const serve of [serveHeartbeat, serveShell, serveStdin, serveControl, serveSubscriptions, serveRing]) {
    serve().catch((e) => { if (!String(e?.message).includes("closed")) log(`${serve.name} stopped: ${e?.stack ?? e}`); });
  }
}).catch((e) => {
  log(`cannot bind kernel sockets: ${e?.message ?? e}`);
  process.exit(1);
});
