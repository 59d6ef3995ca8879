/**
 * `tsgpu launch`: a kernel started by Jupyter Enterprise Gateway on another
 * host (DistributedProcessProxy, over ssh) or in a Kubernetes pod
 * (KubernetesProcessProxy), through EG's remote kernel launcher contract:
 *
 * 1. choose five kernel ports (inside the port range when there is one) and
 *    a fresh HMAC key, and bind the kernel's sockets on every interface;
 * 2. listen on a sixth port, `comm_port`, for the gateway's signal and
 *    shutdown requests (comm_listener.ts, on the kernel's socket thread);
 * 3. send the connection info, encrypted for the gateway (payload.ts), to
 *    the response address, and close that connection;
 * 4. load the engine and serve, as `tsgpu kernel` does.
 *
 * There is no connection file: the gateway learns the ports from step 3.
 * Any failure is one line on stderr and exit status 1, so that the gateway's
 * log (or the pod's) says why the kernel did not come up.
 */
import { randomUUID } from "crypto";
import { readFileSync, writeSync } from "fs";
import { execFileSync } from "child_process";
import { join } from "path";
import { boot, type Boot } from "../boot";
import { exitProcess } from "../guard";
import type { ConnectionInfo } from "../protocol/connection";
import { parseLaunchArgs, type LaunchOptions } from "./options";
import { closeAll, holdPorts, portOf } from "./ports";
import { listenTcp } from "../launch/listen_addon";
import { encryptConnectionInfo, sendPayload, type GatewayConnectionInfo } from "./payload";
import type { CommListenerInit, FromCommListener, ToCommListener } from "./comm_listener";

function log(text: string): void {
  try { writeSync(2, `[tsgpu launch] ${text}\n`); } catch { /* stderr closed */ }
}

/** The process group of this process (EG signals the group of a kernel it launched on its own host). */
export function processGroup(): number {
  try {
    // /proc/self/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    try { return Number(execFileSync("ps", ["-o", "pgid=", "-p", String(process.pid)], { encoding: "utf8" }).trim()); } catch { return process.pid; }
  }
}

/** Ends the process with one line on stderr (the gateway's or the pod's log), the kernel's sockets closed first. */
async function fail(e: unknown, b?: Boot): Promise<never> {
  const text = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
  try { writeSync(2, `tsgpu launch: ${text}\n`); } catch { /* stderr closed */ }
  if (b) await b.transport.abort().catch(() => undefined);
  exitProcess(1, { skipTeardown: (b?.transport.zeroCopyFrames ?? 0) > 0 });
}

export const LAUNCH_HELP = `usage: tsgpu launch --kernel-id ID --response-address HOST:PORT --public-key KEY [--port-range LO..HI]

Runs a kernel for Jupyter Enterprise Gateway, which passes these options (kernelspecs from
\`tsgpu install --gateway …\`); in a Kubernetes pod they come from KERNEL_ID, RESPONSE_ADDRESS,
PUBLIC_KEY and PORT_RANGE. EG's older spellings (--RemoteProcessProxy.kernel-id …) work too; other
options EG passes are ignored.

  --kernel-id ID               the kernel's id, sent back with the connection info
  --response-address HOST:PORT where the gateway waits for the connection info
  --public-key KEY             the gateway's RSA public key (base64 DER), which encrypts it
  --port-range LO..HI          the ports the kernel may use (0..0: any); at least EG_MIN_PORT_RANGE_SIZE
                               (1000) wide, EG_MAX_PORT_RANGE_RETRIES (5) more tries when one is taken
`;

/** Runs the launcher with the command line `args` (after `launch`); returns once the kernel serves. */
export async function launch(args: string[]): Promise<void> {
  if (args.includes("-h") || args.includes("--help")) { process.stdout.write(LAUNCH_HELP); return; }
  let o: LaunchOptions;
  let info: ConnectionInfo;
  let shell_port: number, iopub_port: number, stdin_port: number, hb_port: number, control_port: number, commPort: number;
  try {
    o = parseLaunchArgs(args);
    if (o.ignored.length) log(`ignoring ${o.ignored.map((a) => JSON.stringify(a)).join(", ")}`);
    // A kernel that EG started over ssh is detached (`nohup … &`): unless jupyter_client named a parent
    // (JPY_PARENT_PID, on EG's own host), there is none whose end should end the kernel.
    if (!process.env.JPY_PARENT_PID) process.env.JPY_PARENT_PID = "1";
    // Six distinct ports at once: the kernel's five and the comm port.
    const held = await holdPorts(6, o.portRange, o.retries);
    [shell_port, iopub_port, stdin_port, hb_port, control_port, commPort] = held.map(portOf);
    await closeAll(held);
    info = {
      transport: "tcp", ip: "0.0.0.0", key: randomUUID(), signature_scheme: "hmac-sha256",
      kernel_name: "", shell_port, iopub_port, stdin_port, hb_port, control_port,
    };
  } catch (e) {
    return fail(e);
  }

  // The comm port listens from now on (a socket made here, which the socket thread takes over: requests
  // wait in its backlog meanwhile), so the gateway can be told at once. Its listener runs on the socket
  // thread, which it shares with control and heartbeat, so that it answers while a cell runs.
  const made = listenTcp(commPort);
  if ("why" in made) log(`the comm port is bound on the socket thread, before the connection info goes out (${made.why})`);
  let answered!: (m: FromCommListener) => void;
  const listening = new Promise<void>((resolve, reject) => {
    answered = (m) => {
      if (m.kind === "port") resolve();
      else if (m.kind === "error") reject(new Error(`comm port: ${m.message}`));
    };
  });
  listening.catch(() => undefined);
  const commInit: CommListenerInit = { port: commPort, fd: "fd" in made ? made.fd : undefined };
  const b = boot(info, {
    companion: { file: join(__dirname, "comm_listener.js"), data: commInit },
    onCompanion: (m) => answered(m as FromCommListener),
  });
  process.on("SIGTERM", () => {
    log("SIGTERM: shutting down");
    if (b.shutdown) b.shutdown(false);
    // Before the kernel serves (the engine may be loading, and its guard refuses process.exit to cells).
    else void b.transport.abort().finally(() => exitProcess(0, { skipTeardown: b.transport.zeroCopyFrames > 0 }));
  });
  let engine!: Promise<typeof import("../kernel")>;
  try {
    // As EG's own launcher does, the connection info goes out while the kernel binds its sockets (the ports
    // are chosen, and ZeroMQ connects whenever they are bound): the gateway looks for it first one poll
    // interval (0.5 s by default) after the launch, and a kernel that misses that look is announced a whole
    // interval later. A bind that fails still ends the launch with its one line, and the gateway sees the
    // kernel gone through the comm port.
    const bound = b.started.catch((e) => { throw new Error(`cannot bind the kernel's sockets on ports ${info.shell_port}, ${info.iopub_port}, ${info.stdin_port}, ${info.hb_port}, ${info.control_port}: ${(e as Error).message}`); });
    bound.catch(() => undefined);
    // The comm port listens (or the socket thread failed first).
    const commReady = Promise.race([listening, bound.then(() => listening)]);
    if (commInit.fd === undefined) await commReady;
    const reply: GatewayConnectionInfo = {
      ...(info as GatewayConnectionInfo), comm_port: commPort, pid: process.pid, pgid: processGroup(), kernel_id: o.kernelId,
    };
    await sendPayload(o.response.host, o.response.port, encryptConnectionInfo(reply, o.publicKey), o.launchTimeoutMs);
    // No client comes before the gateway has the connection info and its poll interval (0.5 s by default)
    // has passed: the engine loads now, on this thread, while the socket thread binds on another.
    engine = import("../kernel");
    engine.catch(() => undefined);
    await commReady;
    await bound;
    log(`kernel ${o.kernelId}: ports ${info.shell_port} (shell) ${info.iopub_port} (iopub) ${info.stdin_port} (stdin) ` +
      `${info.hb_port} (hb) ${info.control_port} (control) ${commPort} (comm), connection info sent to ${o.response.host}:${o.response.port}`);
  } catch (e) {
    return fail(e, b);
  }
  try {
    const { startKernel } = await engine;
    await startKernel(b);
  } catch (e) {
    return fail(e, b);
  }
  b.transport.toCompanion({ kind: "serving" } satisfies ToCommListener);
}
