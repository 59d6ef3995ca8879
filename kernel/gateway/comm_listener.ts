/**
 * The launcher's listener on `comm_port`, run on the kernel's socket thread
 * (a companion of the transport: transport/bridge-types.ts) so that it
 * answers while a cell keeps the main thread busy. Enterprise Gateway opens
 * one connection per request, writes one JSON object and closes:
 *
 *   {"signum": 0}    liveness: accepting the connection is the answer
 *   {"signum": 2}    interrupt (the kernel's SIGINT path stops the running cell)
 *   {"signum": 15}   terminate: the kernel shuts down cleanly (see launch.ts)
 *   {"signum": 9}    kill
 *   {"shutdown": 1}  the listener stops (the gateway is done with this kernel)
 *
 * Any other signal number is sent to the kernel process too, as EG's own
 * launcher does. The listener lives inside the kernel process, so it stops
 * accepting as soon as the kernel is gone.
 */
import { writeSync } from "fs";
import type { Server, Socket } from "net";
import { listenOn, listening, portOf } from "./ports";
import type { CompanionLink } from "../transport/bridge-types";

/**
 * The listener's start: the comm port, and the descriptor of a socket the launcher made listen on it
 * already (listen_fds.ts, listenTcp), to take over; without one the port is bound here.
 */
export interface CommListenerInit { port: number; fd?: number }
export type FromCommListener = { kind: "port"; port: number } | { kind: "error"; message: string } | { kind: "shutdown" };
export type ToCommListener = { kind: "serving" };

/** A request larger than this is not one of the gateway's (bytes). */
const kMaxRequest = 64 * 1024;
/** After a terminate request, how long a busy cell may hold up the clean shutdown before it is interrupted (ms). */
const kTerminateGraceMs = 1000;

const pid = process.pid;
/** Until the kernel serves, SIGINT has no handler yet (it would end the process): an interrupt has nothing to stop. */
let serving = false;

function log(text: string): void {
  try { writeSync(2, `[tsgpu launch] ${text}\n`); } catch { /* stderr closed */ }
}

function signal(signum: number): void {
  if (signum === 0) return;
  if (signum === 2 && !serving) { log("interrupt requested before the kernel was serving; nothing to interrupt"); return; }
  try {
    process.kill(pid, signum);
  } catch (e) {
    log(`cannot send signal ${signum} to the kernel (pid ${pid}): ${(e as Error).message}`);
    return;
  }
  // SIGTERM runs the kernel's shutdown on the main thread; a cell in a busy loop is interrupted so that it can.
  if (signum === 15 && serving) setTimeout(() => { try { process.kill(pid, "SIGINT"); } catch { /* gone */ } }, kTerminateGraceMs).unref();
}

function handle(text: string, stop: () => void): void {
  let req: Record<string, unknown>;
  try {
    req = JSON.parse(text);
    if (!req || typeof req !== "object" || Array.isArray(req)) throw new Error("not an object");
  } catch (e) {
    log(`ignored a comm port request that is not a JSON object (${(e as Error).message}): ${JSON.stringify(text.slice(0, 200))}`);
    return;
  }
  if (req.signum !== undefined && req.signum !== null) {
    const n = Number(req.signum);
    if (!Number.isInteger(n) || n < 0 || n > 64) log(`ignored signum ${JSON.stringify(req.signum)}: expected a signal number 0-64`);
    else {
      if (n !== 0) log(`comm port request: signal ${n}`);
      signal(n);
    }
  }
  if (req.shutdown !== undefined && req.shutdown !== null && req.shutdown !== 0 && req.shutdown !== false) {
    log("comm port request: shutdown; the listener stops");
    stop();
  }
}

async function listen(init: CommListenerInit, link: CompanionLink): Promise<void> {
  const send = (m: FromCommListener) => link.send(m);
  let server: Server;
  try {
    server = init.fd === undefined ? await listenOn(init.port, "0.0.0.0") : await listening({ fd: init.fd });
  } catch (e) {
    send({ kind: "error", message: `cannot listen on port ${init.port}: ${(e as Error).message}` });
    return;
  }
  const stop = () => {
    server.close();
    send({ kind: "shutdown" });
  };
  server.on("connection", (sock: Socket) => {
    const chunks: Buffer[] = [];
    let size = 0;
    sock.on("data", (b: Buffer) => {
      size += b.length;
      if (size > kMaxRequest) { log(`closed a comm port connection that sent over ${kMaxRequest} bytes`); sock.destroy(); return; }
      chunks.push(b);
    });
    sock.on("end", () => { sock.end(); if (size <= kMaxRequest) handle(Buffer.concat(chunks).toString("utf8"), stop); });
    sock.on("error", () => undefined);
  });
  link.onMessage((m) => { if ((m as ToCommListener).kind === "serving") serving = true; });
  send({ kind: "port", port: portOf(server) });
}

/** Starts the listener (the socket thread calls it); its port, or why there is none, goes to the main thread. */
export function startCompanion(data: unknown, link: CompanionLink): void {
  void listen(data as CommListenerInit, link);
}
