/**
 * What carries the kernel's requests to the checker and its replies back:
 * a worker thread of the kernel's process, or a process of its own started
 * from the checker's startup snapshot (checker_snapshot.ts). Either way the
 * checker serves the same protocol (checker_service.ts) and neither keeps
 * the kernel's process alive.
 */
import { Worker } from "worker_threads";
import { Socket } from "net";
import { join } from "path";
import type { CheckerReply, CheckerRequest } from "./checker_protocol";
import type { ProjectSetup } from "./project";
import { type LaunchedChecker, startCheckerProcess } from "./checker_snapshot";
import { closeOnExec } from "../launch/listen_addon";

export interface CheckerChannel {
  /** "thread": a worker thread; "process": a child process started from the snapshot. */
  readonly kind: "thread" | "process";
  /** The checker process's id (a thread: this process's). */
  readonly pid: number | undefined;
  /** Sends a request (dropped once the checker is gone). */
  post(r: CheckerRequest): void;
  /** Ends the checker; resolves once it is gone (or after a second for a process that does not end). */
  terminate(): Promise<void>;
}

export interface ChannelEvents {
  message(m: CheckerReply): void;
  /** The checker failed or ended; reason in words. Called once at most. */
  failed(reason: string): void;
}

/** Most characters of a checker process's stderr kept for the message that says why it ended. */
const kStderrTail = 2000;
/** How long terminate() waits for a checker process to end. */
const kTerminateWaitMs = 1000;
/** How long a launched checker's end waits for the rest of its stderr, for the message that says why. */
const kStderrWaitMs = 200;

/**
 * Ends a checker process: `kill` asks it to, and the promise resolves once `onceGone` says it is gone, or
 * after kTerminateWaitMs for one that does not end; at once when it is `gone` already.
 */
function endProcess(gone: boolean, onceGone: (fn: () => void) => void, kill: () => void): Promise<void> {
  if (gone) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, kTerminateWaitMs);
    timer.unref();
    onceGone(() => { clearTimeout(timer); resolve(); });
    kill();
  });
}

/** The checker on a worker thread of this process. Throws when the thread cannot be made. */
export function threadChannel(setup: ProjectSetup, events: ChannelEvents): CheckerChannel {
  const worker = new Worker(join(__dirname, "checker_worker.js"), {
    workerData: { setup },
    stdout: true, stderr: true,
    // A large young generation: each cell builds a new type checker, and scavenges dominate otherwise.
    resourceLimits: { maxYoungGenerationSizeMb: 64 },
  });
  let ended = false;
  const failed = (reason: string) => { if (!ended) { ended = true; events.failed(reason); } };
  worker.unref();
  worker.on("message", (m: CheckerReply) => events.message(m));
  worker.on("error", (e) => failed(`the checker thread failed: ${e?.stack ?? e}`));
  worker.on("exit", (code) => failed(`the checker thread exited with code ${code}`));
  return {
    kind: "thread",
    pid: process.pid,
    post: (r) => { if (!ended) worker.postMessage(r); },
    terminate: async () => { ended = true; await worker.terminate(); },
  };
}

/** The checker in a process of its own, started from the snapshot `file`. */
export function processChannel(setup: ProjectSetup, file: string, events: ChannelEvents): CheckerChannel {
  const child = startCheckerProcess(setup, file);
  let ended = false;
  let stderr = "";
  const failed = (reason: string) => { if (!ended) { ended = true; events.failed(reason); } };
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => { stderr = (stderr + d).slice(-kStderrTail); });
  child.on("message", (m: CheckerReply) => events.message(m));
  child.on("error", (e) => failed(`the checker process failed: ${e.message}`));
  // "close": after its stderr is read to the end, so the message can say why.
  child.on("close", (code, signal) => {
    failed(`the checker process (pid ${child.pid}) exited with ${signal ? `signal ${signal}` : `code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ""}`);
  });
  child.unref();
  child.channel?.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  return {
    kind: "process",
    pid: child.pid,
    post: (r) => { if (!ended && child.connected) child.send(r); },
    terminate: () => {
      ended = true;
      return endProcess(child.exitCode !== null || child.signalCode !== null, (fn) => child.once("exit", fn), () => child.kill("SIGTERM"));
    },
  };
}

/**
 * The checker process the launcher started (checker_snapshot.ts,
 * takeLaunchedChecker): the same process as processChannel's, whose IPC
 * channel (JSON lines, as Node.js writes them for a child started with
 * serialization "json") and stderr pipe the kernel holds as descriptors.
 * It is the kernel's child, but not one Node.js started, so its end is seen
 * as the end of its channel, and nobody waits for it: a checker that ended
 * before the kernel (it failed; the kernel then checks on a thread) stays a
 * zombie until the kernel ends.
 */
export function launchedChannel(p: LaunchedChecker, events: ChannelEvents): CheckerChannel {
  // A process the kernel starts must not hold them, or the checker would not see the kernel's end.
  for (const fd of [p.ipcFd, p.stderrFd]) closeOnExec(fd);
  const ipc = new Socket({ fd: p.ipcFd, readable: true, writable: true });
  const err = new Socket({ fd: p.stderrFd, readable: true, writable: false });
  let ended = false;
  let stderr = "";
  let pending = "";
  let errClosed = false;
  let ipcClosed = false;
  const failed = (reason: string) => { if (!ended) { ended = true; events.failed(reason); } };
  const gone = () => failed(`the checker process (pid ${p.pid}) ended${stderr.trim() ? `: ${stderr.trim()}` : ""}`);
  err.setEncoding("utf8");
  err.on("data", (d: string) => { stderr = (stderr + d).slice(-kStderrTail); });
  err.on("error", () => undefined);
  err.on("close", () => { errClosed = true; if (ipcClosed) gone(); });
  ipc.setEncoding("utf8");
  ipc.on("data", (d: string) => {
    pending += d;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line) continue;
      let m: CheckerReply;
      try { m = JSON.parse(line) as CheckerReply; } catch { continue; }
      events.message(m);
    }
  });
  ipc.on("error", () => undefined);
  ipc.on("close", () => {
    ipcClosed = true;
    if (errClosed) gone();
    else setTimeout(gone, kStderrWaitMs).unref();
  });
  ipc.unref();
  err.unref();
  return {
    kind: "process",
    pid: p.pid,
    post: (r) => { if (!ended && !ipc.destroyed) ipc.write(`${JSON.stringify(r)}\n`); },
    terminate: () => {
      ended = true;
      return endProcess(ipcClosed, (fn) => ipc.once("close", fn), () => { try { process.kill(p.pid, "SIGTERM"); } catch { /* gone */ } });
    },
  };
}
