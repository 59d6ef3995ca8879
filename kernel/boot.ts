/**
 * The first thing a kernel process does: read the connection file, bind the
 * shell and iopub sockets (or take over those the launcher bound: see
 * transport/listen_fds.ts) and start the socket worker (control, stdin,
 * heartbeat), before the main thread loads the execution engine (swc, acorn,
 * the magics…). Requests are held until the kernel says it is serving, except
 * a first kernel_info_request, answered at once: a client sees the kernel
 * ready as soon as its sockets are bound.
 *
 * Only light modules here; this file decides how fast a kernel starts.
 */
import { randomUUID } from "crypto";
import { writeSync } from "fs";
import { StartOptions, Transport, TransportEvents } from "./transport/bridge";
import { ConnectionInfo, readConnectionFile } from "./protocol/connection";
import type { Origin } from "./protocol/message";
import { kernelInfo } from "./info";
import { takeListenFds } from "./transport/listen_fds";

/** Writes a line to the kernel's stderr (the Jupyter server's log). */
export function log(text: string): void {
  try { writeSync(2, `[tsgpu] ${text}\n`); } catch { /* stderr closed */ }
}

/** Whether routine events are logged too: TSGPU_LOG_LEVEL=debug. */
const debugLevel = (process.env.TSGPU_LOG_LEVEL ?? "").trim().toLowerCase() === "debug";

/** Logs a routine event (start, shutdown), which only the debug log level shows. */
export function debug(text: string): void {
  if (debugLevel) log(text);
}

/** How long after binding the engine waits for a client's first kernel_info before it loads anyway (ms). */
const kEngineWaitMs = 150;

export interface Boot {
  info: ConnectionInfo;
  origin: Origin;
  /** kernel_info_reply content. */
  staticInfo: Record<string, unknown>;
  transport: Transport;
  /** Resolves once every socket is bound. */
  started: Promise<void>;
  /**
   * Resolves when the engine should load: once the client's first
   * kernel_info was answered (it polls until the kernel is up), or
   * kEngineWaitMs after shell and iopub are bound if none came, or at once
   * if they cannot be bound. Loading blocks this thread for a while; a
   * client waiting to hear that the kernel is up is answered first.
   */
  engineCue: Promise<void>;
  /** Where transport events go; the kernel fills it in before it calls `transport.serving()`. */
  events: TransportEvents;
  /** Ends the kernel cleanly (as a shutdown_request does); set once the kernel serves. */
  shutdown?: (restart: boolean) => void;
}

/**
 * Boots on a connection file, or on connection info already in hand (`tsgpu launch`, whose client comes
 * only after the gateway has the ports: its socket thread starts at once, with the launcher's companion
 * module if it names one, and its engine loads on the launcher's cue, not on engineCue).
 */
export function boot(connection: string | ConnectionInfo, companion?: Pick<StartOptions, "companion" | "onCompanion">): Boot {
  const info = typeof connection === "string" ? readConnectionFile(connection) : connection;
  const origin: Origin = { session: randomUUID(), username: "kernel" };
  const staticInfo: Record<string, unknown> = { ...kernelInfo() };
  const events: TransportEvents = {
    request: (channel, msg) => log(`a ${channel} ${msg.header.msg_type} arrived before the kernel was serving; ignored`),
    stdin: () => undefined,
    interrupt: () => undefined,
    log,
  };
  // The events object is read at each call, so the kernel can replace its methods later.
  const transport = new Transport({
    request: (channel, msg, bytes) => events.request(channel, msg, bytes),
    stdin: (msg) => events.stdin(msg),
    interrupt: (date) => events.interrupt(date),
    log: (text) => events.log(text),
  });
  // The launcher's listening sockets (taken here, before the kernel starts any process that could inherit them).
  const listen = typeof connection === "string" ? takeListenFds(info) : { fds: {} };
  if (listen.why) log(`the launcher's sockets are not used (the kernel binds its ports itself): ${listen.why}`);
  const started = transport.start(info, { ...staticInfo, session: origin.session }, listen.fds,
    { threadAtOnce: typeof connection !== "string", ...companion });
  started.catch(() => undefined);
  const engineCue = new Promise<void>((resolve) => {
    void transport.firstReply.then(resolve);
    // Without a client asking, load anyway.
    transport.ownBound.then(() => { setTimeout(() => { if (!transport.answeringEarly) resolve(); }, kEngineWaitMs); }, () => resolve());
  });
  return { info, origin, staticInfo, transport, started, events, engineCue };
}
