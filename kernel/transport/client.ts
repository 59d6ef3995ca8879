/**
 * A small Jupyter client over zeromq: starts a kernel process with a fresh
 * connection file and executes code on it. Used by `tsgpu run` and by the
 * tests, so both talk to the kernel exactly as Jupyter does.
 */
import { spawn, ChildProcess } from "child_process";
import { createServer } from "net";
import { mkdtempSync, writeFileSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { randomBytes } from "crypto";
import * as zmq from "zeromq";
import { decode, encode, Signer } from "../protocol/wire";
import { Message, newHeader, Origin } from "../protocol/message";
import { ConnectionInfo, endpoint } from "../protocol/connection";

/** A TCP port free on loopback now (another process may take it before it is used). */

/** How long replies may still arrive after the kernel process exited, in milliseconds. */
const kExitGraceMs = 500;
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as any).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Kernel starts tried when the ports picked were taken meanwhile. */
const kStartAttempts = 3;

/** How long each kernel_info sent while waiting for a starting kernel waits for its answer. */
const kReadyPollMs = 200;

export interface ExecuteResult { reply: Message; outputs: Message[] }

export interface ClientOptions {
  /** Command to start the kernel; `{connection_file}` is replaced. */
  argv: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  key?: string;
  signatureScheme?: string;
  /** "tcp" (the default) or "ipc" (unix sockets in a temporary folder). */
  transport?: "tcp" | "ipc";
  /** Called with every message received from the kernel, on every channel, before it is handled (e.g. to validate it). */
  onMessage?: (channel: "shell" | "control" | "iopub" | "stdin", msg: Message) => void;
}

export class KernelClient {
  readonly origin: Origin = { session: randomBytes(8).toString("hex"), username: "tsgpu-client" };
  // Shell and stdin share one identity, as in jupyter_client: the kernel routes input_request by it.
  readonly shell = new zmq.Dealer({ routingId: this.origin.session });
  readonly control = new zmq.Dealer();
  readonly stdin = new zmq.Dealer({ routingId: this.origin.session });
  readonly iopub = new zmq.Subscriber();
  proc?: ChildProcess;
  info!: ConnectionInfo;
  signer!: Signer;
  stderr = "";
  private dir = "";
  private listeners = new Map<string, (m: Message) => void>();
  private replies = new Map<string, (m: Message) => void>();
  /** Every iopub message received, in order. */
  readonly iopubLog: Message[] = [];
  onStdinRequest?: (m: Message) => string;
  private onMessage: NonNullable<ClientOptions["onMessage"]> = () => undefined;

  /**
   * Starts a kernel and waits until it answers. Free ports are picked before
   * the kernel binds them, so another process may take one first: a kernel
   * that could not bind is started again on new ports (jupyter_client's
   * managers pick ports the same way).
   */
  static async start(options: ClientOptions): Promise<KernelClient> {
    for (let attempt = 1; ; attempt++) {
      const c = new KernelClient();
      try {
        await c.launch(options);
        return c;
      } catch (e) {
        await c.exitedOutput();
        c.close();
        if (attempt >= kStartAttempts || !/address already in use/i.test(c.stderr)) throw e;
      }
    }
  }

  private async launch(o: ClientOptions): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), "tsgpu-client-"));
    if (o.onMessage) this.onMessage = o.onMessage;
    const ipc = o.transport === "ipc";
    // ipc endpoints are files named IP-PORT, as jupyter_client names them.
    const ports = ipc ? [1, 2, 3, 4, 5] : [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    this.info = {
      transport: ipc ? "ipc" : "tcp", ip: ipc ? join(this.dir, "kernel-ipc") : "127.0.0.1",
      shell_port: ports[0], control_port: ports[1], stdin_port: ports[2], iopub_port: ports[3], hb_port: ports[4],
      key: o.key ?? randomBytes(16).toString("hex"), signature_scheme: o.signatureScheme ?? "hmac-sha256",
    };
    this.signer = new Signer(this.info.key, this.info.signature_scheme);
    const file = join(this.dir, "kernel.json");
    writeFileSync(file, JSON.stringify(this.info));
    const argv = o.argv.map((a) => a.replace("{connection_file}", file));
    this.proc = spawn(argv[0], argv.slice(1), { env: o.env ?? process.env, cwd: o.cwd, stdio: ["ignore", "inherit", "pipe"] });
    this.proc.stderr!.on("data", (d) => { this.stderr += d.toString(); if (process.env.TSGPU_CLIENT_ECHO) process.stderr.write(d); });
    this.outputClosed = new Promise((resolve) => this.proc!.once("close", () => resolve()));
    // Requests waiting when the kernel ends will never be answered: end them, saying why — after a moment, since a
    // reply the kernel sent just before exiting (shutdown_reply) may still be on its way through the socket.
    this.proc.once("exit", (code, signal) => {
      setTimeout(() => {
        for (const abandon of [...this.inFlight]) abandon(`the kernel exited (${signal ?? `code ${code}`})\n${this.stderr}`);
      }, kExitGraceMs);
    });
    const ep = (p: number) => endpoint(this.info, p);
    this.shell.connect(ep(this.info.shell_port));
    this.control.connect(ep(this.info.control_port));
    this.stdin.connect(ep(this.info.stdin_port));
    this.iopub.connect(ep(this.info.iopub_port));
    this.iopub.subscribe();
    void this.pump(this.shell, "shell");
    void this.pump(this.control, "control");
    void this.pumpIopub();
    void this.pumpStdin();
    await this.waitForReady();
  }

  private async pump(sock: zmq.Dealer, channel: "shell" | "control"): Promise<void> {
    try {
      for await (const frames of sock) {
        const msg = decode(frames as Buffer[], this.signer);
        this.onMessage(channel, msg);
        const parent = (msg.parent_header as any).msg_id;
        this.replies.get(parent)?.(msg);
      }
    } catch { /* closed */ }
  }

  private async pumpIopub(): Promise<void> {
    try {
      for await (const frames of this.iopub) {
        const msg = decode(frames as Buffer[], this.signer);
        this.onMessage("iopub", msg);
        this.iopubLog.push(msg);
        this.listeners.get((msg.parent_header as any).msg_id)?.(msg);
      }
    } catch { /* closed */ }
  }

  private async pumpStdin(): Promise<void> {
    try {
      for await (const frames of this.stdin) {
        const msg = decode(frames as Buffer[], this.signer);
        this.onMessage("stdin", msg);
        const value = this.onStdinRequest ? this.onStdinRequest(msg) : "";
        await this.send(this.stdin, "input_reply", { value }, msg.header);
      }
    } catch { /* closed */ }
  }

  async send(sock: zmq.Dealer, type: string, content: Record<string, unknown>, parent: object = {}): Promise<Message> {
    const msg: Message = { idents: [], header: newHeader(type, this.origin), parent_header: parent as any, metadata: {}, content, buffers: [] };
    await sock.send(encode(msg, this.signer));
    return msg;
  }

  /** Sends a request and resolves with its reply and the iopub messages up to idle. */
  async request(type: string, content: Record<string, unknown>, channel: "shell" | "control" = "shell", timeoutMs = 60000): Promise<ExecuteResult> {
    const outputs: Message[] = [];
    let msgId = "";
    const done = new Promise<ExecuteResult>((resolve, reject) => {
      let reply: Message | undefined;
      let idle = false;
      const finish = () => { if (reply && idle) { cleanup(); resolve({ reply, outputs }); } };
      // A limit that is not a positive finite number is no limit (setTimeout would take Infinity for 1 ms).
      const timer = Number.isFinite(timeoutMs) && timeoutMs > 0
        ? setTimeout(() => { cleanup(); reject(new Error(`no reply to ${type} within ${timeoutMs} ms\n${this.stderr}`)); }, timeoutMs)
        : undefined;
      const abandon = (why = "the client was closed") => { cleanup(); reject(new Error(`${type} abandoned: ${why}`)); };
      const cleanup = () => { clearTimeout(timer); this.listeners.delete(msgId); this.replies.delete(msgId); this.inFlight.delete(abandon); };
      this.inFlight.add(abandon);
      this.pending = (id: string) => {
        msgId = id;
        this.listeners.set(id, (m) => {
          if (m.header.msg_type === "status") { if (m.content.execution_state === "idle") { idle = true; finish(); } return; }
          outputs.push(m);
        });
        this.replies.set(id, (m) => { reply = m; finish(); });
      };
    });
    const header = newHeader(type, this.origin);
    this.pending(header.msg_id);
    const msg: Message = { idents: [], header, parent_header: {}, metadata: {}, content, buffers: [] };
    await (channel === "shell" ? this.shell : this.control).send(encode(msg, this.signer));
    return done;
  }
  private pending: (id: string) => void = () => undefined;
  /** Ends each request still waiting for its reply (used by close). */
  private readonly inFlight = new Set<(why?: string) => void>();

  /** Executes code; `timeoutMs` bounds the wait for its reply and idle status (default 60 s; Infinity: no limit). */
  execute(code: string, extra: Record<string, unknown> = {}, timeoutMs = 60000): Promise<ExecuteResult> {
    return this.request("execute_request", { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: Boolean(this.onStdinRequest), stop_on_error: true, ...extra }, "shell", timeoutMs);
  }

  /** Resolves when the kernel's stderr was read to its end, if the kernel has exited (at most 1 s). */
  private async exitedOutput(): Promise<void> {
    if (!this.proc || (this.proc.exitCode === null && this.proc.signalCode === null)) return;
    await Promise.race([this.outputClosed, new Promise((r) => setTimeout(r, 1000))]);
  }
  private outputClosed: Promise<void> = Promise.resolve();

  private async waitForReady(): Promise<void> {
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      if (this.proc?.exitCode !== null && this.proc?.exitCode !== undefined) throw new Error(`kernel exited with ${this.proc.exitCode}:\n${this.stderr}`);
      try {
        // A request completes when its reply and its idle status have arrived; the idle is lost while the
        // iopub subscription is still being made, so ask again soon rather than wait long for it.
        await this.request("kernel_info_request", {}, "shell", kReadyPollMs);
        // The socket thread answers control once all of its sockets are bound: a kernel that
        // answered shell but then could not bind those (a port taken meanwhile) exits instead.
        if (this.iopubLog.length && await this.request("kernel_info_request", {}, "control", kReadyPollMs)) return;
      } catch { /* not up yet, or iopub not yet subscribed */ }
    }
    throw new Error(`kernel did not answer kernel_info within 30 s:\n${this.stderr}`);
  }

  /** Asks the kernel to shut down and waits for the process to exit. */
  async shutdown(restart = false): Promise<number | null> {
    const exited = new Promise<number | null>((r) => {
      if (!this.proc || this.proc.exitCode !== null) r(this.proc?.exitCode ?? null);
      else this.proc.once("exit", (code) => r(code));
    });
    try { await this.request("shutdown_request", { restart }, "control", 5000); } catch { /* it may be gone already */ }
    const timer = setTimeout(() => this.proc?.kill("SIGKILL"), 5000);
    const code = await exited;
    clearTimeout(timer);
    this.close();
    return code;
  }

  close(): void {
    // Requests still waiting will never be answered: end them (and their timers) now.
    for (const abandon of [...this.inFlight]) abandon();
    // Messages still queued for a kernel that is gone are dropped (linger 0): kept, they would hold this
    // process open at exit, waiting for a peer that never comes back.
    for (const s of [this.shell, this.control, this.stdin, this.iopub]) { try { s.linger = 0; s.close(); } catch { /* closed */ } }
    if (this.proc && this.proc.exitCode === null) this.proc.kill("SIGKILL");
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
