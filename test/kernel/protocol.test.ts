/** The kernel through a real zeromq client: messages, interrupt, heartbeat, stdin, restart. */
import * as zmq from "zeromq";
import { KernelClient } from "../../kernel/transport/client";
import { encode, Signer } from "../../kernel/protocol/wire";
import { newHeader } from "../../kernel/protocol/message";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { CLI, ofType, sleep, startKernel, stdout, streamContaining } from "../helpers";

/** A path that a cell can wait for (existsSync) and the test creates when the cell may go on. */
function gatePath(): string {
  return join(mkdtempSync(join(tmpdir(), "tsgpu-gate-")), "open");
}

jest.setTimeout(60000);

describe("kernel protocol", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("kernel_info_reply describes a TypeScript kernel", async () => {
    const { reply, outputs } = await k.request("kernel_info_request", {});
    const c = reply.content;
    expect(c.status).toBe("ok");
    expect(c.protocol_version).toMatch(/^5\.\d/);
    expect(c.implementation).toBe("tsgpu");
    expect(c.language_info).toMatchObject({ name: "typescript", file_extension: ".ts", mimetype: "text/x-typescript", pygments_lexer: "typescript" });
    expect(Array.isArray(c.help_links)).toBe(true);
    expect(typeof c.banner).toBe("string");
    expect(outputs).toEqual([]); // busy/idle are consumed by the client; nothing else is published
  });

  test("execute: stdout stream, execute_result, execution_count", async () => {
    const { reply, outputs } = await k.execute('const greeting: string = "hello";\nconsole.log(greeting);\ngreeting.length');
    expect(reply.content.status).toBe("ok");
    expect(stdout(outputs)).toBe("hello\n");
    const [result] = ofType(outputs, "execute_result");
    expect(result.content.data["text/plain"]).toBe("5");
    expect(result.content.execution_count).toBe(reply.content.execution_count);
    expect(ofType(outputs, "execute_input")[0].content.code).toContain("greeting");
  });

  test("stderr goes to the stderr stream; writes in a loop are batched", async () => {
    const { outputs } = await k.execute('for (let i = 0; i < 500; i++) console.error("e" + i);');
    const streams = ofType(outputs, "stream");
    expect(streams.every((m) => m.content.name === "stderr")).toBe(true);
    expect(streams.map((m) => m.content.text).join("").split("\n").filter(Boolean)).toHaveLength(500);
    expect(streams.length).toBeLessThan(5);
  });

  test("output printed before a long synchronous loop reaches the client while the loop runs", async () => {
    // The loop spins until the client has seen the output (it then creates the gate), or 30 s: a kernel that held
    // the output back until the cell ends would answer "timed out", whatever the machine's load.
    const gate = gatePath();
    const from = k.iopubLog.length;
    const running = k.execute('import { existsSync as gateOpen } from "fs";\nconsole.log("started");\nconst until = Date.now() + 30000;\n' +
      `while (!gateOpen(${JSON.stringify(gate)}) && Date.now() < until) {}\ngateOpen(${JSON.stringify(gate)}) ? "released" : "timed out"`);
    const started = await streamContaining(k, "started", from);
    writeFileSync(gate, "");
    const { reply, outputs } = await running;
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("'released'");
    expect(k.iopubLog.slice(from).filter((m) => m.header.msg_type === "stream" && m.content.text.includes("started"))).toHaveLength(1);
    expect((started.parent_header as any).msg_id).toBe(reply.parent_header.msg_id);
  });

  test("a const may be declared again by a later cell; state persists", async () => {
    await k.execute("const n = 1;");
    const { reply, outputs } = await k.execute("const n = n0();\nfunction n0() { return 41; }\nn + 1");
    expect(reply.content.status).toBe("ok");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("42");
  });

  test("a trailing semicolon suppresses the result", async () => {
    const { outputs } = await k.execute("1 + 2;");
    expect(ofType(outputs, "execute_result")).toEqual([]);
  });

  test("an error names the cell and the line the user wrote", async () => {
    const { reply, outputs } = await k.execute('type T = { a: number };\ninterface U { b: string }\nconst o: T = { a: 1 };\n(o as any).missing.field;');
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("TypeError");
    const [err] = ofType(outputs, "error");
    const tb = err.content.traceback.join("\n");
    expect(tb).toMatch(new RegExp(`Cell In\\[${reply.content.execution_count}\\], line 4`));
    expect(tb).toContain("----> 4 (o as any).missing.field;");
  });

  test("a syntax error is reported with its line before anything runs", async () => {
    const { reply } = await k.execute('console.log("must not print");\nlet x = ;');
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("SyntaxError");
    expect(reply.content.evalue).toContain("line 2");
  });

  test("requests queued behind a failed cell are aborted", async () => {
    // A gate cell holds the kernel until the failing cell and the two behind it have been sent (in this tick, in
    // order, on the one shell socket): it waits for an input() that the client answers only after sending them, so
    // all three are waiting in the kernel when the failing cell runs, however slowly either side is scheduled.
    // (A cell that slept 300 ms while the test slept 50 ms before sending the rest failed under load: the client
    // was descheduled longer than the difference, and the second request arrived after the error.)
    k.onStdinRequest = (m) => (m.content.prompt === "open? " ? "yes" : "?");
    try {
      const gate = k.execute('await input("open? ")');
      const first = k.execute('throw new Error("boom")');
      const second = k.execute("1");
      const third = k.execute("2");
      expect((await gate).reply.content.status).toBe("ok");
      expect((await first).reply.content.status).toBe("error");
      expect((await second).reply.content.status).toBe("aborted");
      expect((await third).reply.content.status).toBe("aborted");
    } finally {
      k.onStdinRequest = undefined;
    }
    expect((await k.execute("3")).reply.content.status).toBe("ok");
  });

  test("is_complete: complete, incomplete with indent, invalid", async () => {
    expect((await k.request("is_complete_request", { code: "const a = 1;" })).reply.content.status).toBe("complete");
    const inc = (await k.request("is_complete_request", { code: "function f() {" })).reply.content;
    expect(inc.status).toBe("incomplete");
    expect(inc.indent).toBe("  ");
    expect((await k.request("is_complete_request", { code: "const = 5 5;" })).reply.content.status).toBe("invalid");
  });

  test("history: tail and search", async () => {
    await k.execute("const historyMarker = 7;");
    const tail = (await k.request("history_request", { hist_access_type: "tail", n: 1, output: false, raw: true })).reply.content;
    expect(tail.history).toHaveLength(1);
    expect(tail.history[0][2]).toBe("const historyMarker = 7;");
    const search = (await k.request("history_request", { hist_access_type: "search", pattern: "const history*", output: false, raw: true })).reply.content;
    expect(search.history.map((h: any[]) => h[2])).toContain("const historyMarker = 7;");
  });

  test("complete_request lists members of a runtime object", async () => {
    await k.execute("const shapes = { circle: 1, square: 2 };");
    const code = "shapes.ci";
    const { reply } = await k.request("complete_request", { code, cursor_pos: code.length });
    expect(reply.content.matches).toEqual(["circle"]);
    expect(reply.content.cursor_start).toBe(code.length - 2);
  });

  test("display_data, update_display_data and clear_output", async () => {
    const { outputs } = await k.execute('display.html("<b>a</b>", { displayId: "d1" });\nupdateDisplay("d1", "b");\nclearOutput({ wait: true });');
    expect(ofType(outputs, "display_data")[0].content).toMatchObject({ data: { "text/html": "<b>a</b>" }, transient: { display_id: "d1" } });
    expect(ofType(outputs, "update_display_data")[0].content.transient).toEqual({ display_id: "d1" });
    expect(ofType(outputs, "clear_output")[0].content).toEqual({ wait: true });
  });

  test("output of a timer goes to the cell that started it", async () => {
    const first = await k.execute('setTimeout(() => console.log("late"), 200);');
    const firstId = first.reply.parent_header.msg_id;
    await k.execute("await new Promise((r) => setTimeout(r, 400));");
    const late = k.iopubLog.filter((m) => m.header.msg_type === "stream" && m.content.text.includes("late"));
    expect(late).toHaveLength(1);
    expect((late[0].parent_header as any).msg_id).toBe(firstId);
  });

  test("stdin: await input() round trip", async () => {
    k.onStdinRequest = (m) => (m.content.prompt === "name? " ? "Ada" : "?");
    try {
      const { outputs } = await k.execute('const who = await input("name? ");\nconsole.log(`hi ${who}`);');
      expect(stdout(outputs)).toBe("hi Ada\n");
      const sync = await k.execute('prompt("name? ")');
      expect(ofType(sync.outputs, "execute_result")[0].content.data["text/plain"]).toBe("'Ada'");
    } finally {
      k.onStdinRequest = undefined;
    }
  });

  test("input() without allow_stdin is a clear error", async () => {
    const { reply } = await k.execute('await input("x")', { allow_stdin: false });
    expect(reply.content.ename).toBe("StdinNotAllowedError");
    expect(reply.content.evalue).toMatch(/allow_stdin/);
  });

  test("comm_info and comm_open to an unknown target", async () => {
    const info = (await k.request("comm_info_request", {})).reply.content;
    expect(info).toEqual({ status: "ok", comms: {} });
    const before = k.iopubLog.length;
    await k.send(k.shell, "comm_open", { comm_id: "c1", target_name: "nope", data: {} });
    // The shell runs in order: once a later request is answered, the comm_close (if any) was published before it.
    await k.request("kernel_info_request", {});
    const closes = k.iopubLog.slice(before).filter((m) => m.header.msg_type === "comm_close");
    expect(closes[0]?.content.comm_id).toBe("c1");
  });

  test("a message with a bad signature is dropped and the kernel stays up", async () => {
    const msg = { idents: [], header: newHeader("execute_request", k.origin), parent_header: {}, metadata: {},
      content: { code: "globalThis.hacked = true", silent: false }, buffers: [] };
    const before = k.iopubLog.length;
    await k.shell.send(encode(msg as any, new Signer("wrong-key")));
    // The shell runs in order: once this later cell is answered, whatever the forged one caused was published.
    const { outputs } = await k.execute("typeof (globalThis as any).hacked");
    expect(k.iopubLog.slice(before).filter((m) => (m.parent_header as any).msg_id === msg.header.msg_id)).toEqual([]);
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("'undefined'");
  });

  test("usage_request on control", async () => {
    const { reply } = await k.request("usage_request", {}, "control");
    expect(reply.content).toMatchObject({ status: "ok" });
    expect(reply.content.kernel_memory).toBeGreaterThan(0);
    expect(reply.content.host_virtual_memory.total).toBeGreaterThan(0);
    expect(typeof reply.content.kernel_cpu).toBe("number");
  });
});

describe("interrupt and heartbeat", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  /**
   * Starts `code` after a line that prints "running", and resolves once that line has arrived, with the request
   * still in flight (wrapped: an async function that returned the promise itself would wait for the cell to end).
   */
  async function startRunning(code: string): Promise<{ running: ReturnType<KernelClient["execute"]> }> {
    const from = k.iopubLog.length;
    const running = k.execute(`console.log("running");\n${code}`);
    await streamContaining(k, "running", from);
    return { running };
  }

  async function interruptAfter(code: string, how: "message" | "signal") {
    await k.execute("const keep = 123;");
    const { running } = await startRunning(code); // interrupted once it runs, not while it is still being compiled
    const t0 = Date.now();
    if (how === "message") await k.request("interrupt_request", {}, "control");
    else k.proc!.kill("SIGINT");
    const { reply } = await running;
    const elapsed = Date.now() - t0;
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("InterruptError");
    // Uninterrupted, each of these cells runs forever (or 60 s): ending well before says the interrupt ended it,
    // with room for a loaded machine.
    expect(elapsed).toBeLessThan(10000);
    const after = await k.execute("keep");
    expect(ofType(after.outputs, "execute_result")[0].content.data["text/plain"]).toBe("123");
  }

  test("interrupt_request stops a synchronous loop", () => interruptAfter("let spins = 0;\nwhile (true) { spins++; }", "message"));
  test("interrupt_request stops an awaiting cell", () => interruptAfter("await new Promise(() => {});", "message"));
  test("SIGINT stops a synchronous loop", () => interruptAfter("for (;;) {}", "signal"));
  test("SIGINT stops an awaiting cell", () => interruptAfter("await new Promise((r) => setTimeout(r, 60000));", "signal"));

  test("the cell's AbortSignal fires on interrupt", async () => {
    const { running } = await startRunning("const seen: string[] = [];\ncell.signal.addEventListener('abort', () => seen.push('aborted'));\nawait new Promise(() => {});");
    await k.request("interrupt_request", {}, "control");
    await running;
    const { outputs } = await k.execute("seen");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toContain("aborted");
  });

  test("heartbeat answers while a cell runs a synchronous loop", async () => {
    const { running } = await startRunning("while (true) {}");
    const hb = new zmq.Request();
    hb.connect(`tcp://127.0.0.1:${k.info.hb_port}`);
    hb.receiveTimeout = 10000; // answered by the socket thread while the main thread spins; the bound leaves room for load
    await hb.send("ping");
    const [echo] = await hb.receive();
    expect(echo.toString()).toBe("ping");
    hb.close();
    const usage = await k.request("usage_request", {}, "control", 10000);
    expect(usage.reply.content.status).toBe("ok");
    await k.request("interrupt_request", {}, "control");
    expect((await running).reply.content.ename).toBe("InterruptError");
  });

  test("an interrupt sent right behind its cell's request stops that cell, even one not begun yet", async () => {
    await k.execute("const kept = 'still here';");
    for (let i = 0; i < 10; i++) {
      // A new text each time: the kernel compiles it before the cell begins, and the interrupt may come meanwhile.
      const running = k.execute(`let spins${i} = 0;\nfor (;;) spins${i}++;`);
      await k.request("interrupt_request", {}, "control");
      const { reply } = await running;
      expect([reply.content.status, reply.content.ename]).toEqual(["error", "InterruptError"]);
      const after = await k.execute("kept");
      expect(ofType(after.outputs, "execute_result")[0]?.content.data["text/plain"]).toBe("'still here'");
    }
  });

  test("an interrupt of an idle kernel stops nothing later", async () => {
    for (let i = 0; i < 5; i++) {
      await k.request("interrupt_request", {}, "control");
      const { reply, outputs } = await k.execute(`${i} + 1`);
      expect(reply.content.status).toBe("ok");
      expect(ofType(outputs, "execute_result")[0]?.content.data["text/plain"]).toBe(String(i + 1));
    }
  });

  test("a cell sent as soon as a failed cell's reply came runs (only requests that came during the failure are aborted)", async () => {
    for (let i = 0; i < 20; i++) {
      expect((await k.execute(`throw new Error("fails ${i}")`)).reply.content.status).toBe("error");
      const { reply, outputs } = await k.execute(`${i} * 2`);
      expect(reply.content.status).toBe("ok");
      expect(ofType(outputs, "execute_result")[0]?.content.data["text/plain"]).toBe(String(i * 2));
    }
  });

  test("cells queued behind an interrupted cell are aborted", async () => {
    const from = k.iopubLog.length;
    const running = k.execute('console.log("running");\nwhile (true) {}');
    const queued = k.execute("1"); // sent in the same tick, behind it on the shell socket
    await streamContaining(k, "running", from);
    await k.request("interrupt_request", {}, "control");
    expect((await running).reply.content.status).toBe("error");
    expect((await queued).reply.content.status).toBe("aborted");
  });
});

describe("start", () => {
  test("a kernel whose parent process is gone ends by itself", async () => {
    const { spawnSync } = await import("child_process");
    const { mkdtempSync, writeFileSync } = await import("fs");
    const { tmpdir } = await import("os");
    const { join } = await import("path");
    const net = await import("net");
    const ports = await Promise.all([0, 1, 2, 3, 4].map(() => new Promise<number>((r) => {
      const s2 = net.createServer().listen(0, "127.0.0.1", () => { const p = (s2.address() as any).port; s2.close(() => r(p)); });
    })));
    const file = join(mkdtempSync(join(tmpdir(), "tsgpu-orphan-")), "kernel.json");
    writeFileSync(file, JSON.stringify({ transport: "tcp", ip: "127.0.0.1", shell_port: ports[0], control_port: ports[1],
      stdin_port: ports[2], iopub_port: ports[3], hb_port: ports[4], key: "k", signature_scheme: "hmac-sha256" }));
    // A shell starts the kernel in the background, naming itself as the parent as jupyter_client does, and
    // exits at once: the kernel is left without its parent.
    const sh = spawnSync("sh", ["-c", `JPY_PARENT_PID=$$ "${process.execPath}" "${CLI}" kernel "${file}" >/dev/null 2>&1 & echo $!`], { encoding: "utf8" });
    const pid = Number(sh.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
    const deadline = Date.now() + 30000; // the kernel must start before it can notice, which takes long under load
    while (alive() && Date.now() < deadline) await sleep(100);
    const stillAlive = alive();
    if (stillAlive) process.kill(pid, "SIGKILL");
    expect(stillAlive).toBe(false);
  });

  test("a kernel whose port is taken exits with the reason instead of hanging", async () => {
    const net = await import("net");
    const { spawn } = await import("child_process");
    const { mkdtempSync, writeFileSync } = await import("fs");
    const { tmpdir } = await import("os");
    const { join } = await import("path");
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
    const taken = (srv.address() as any).port;
    const file = join(mkdtempSync(join(tmpdir(), "tsgpu-taken-")), "kernel.json");
    // Only the shell port is taken; the others are free ports of this test's own.
    const others = await Promise.all([0, 1, 2, 3].map(() => new Promise<number>((r) => {
      const s2 = net.createServer().listen(0, "127.0.0.1", () => { const p = (s2.address() as any).port; s2.close(() => r(p)); });
    })));
    writeFileSync(file, JSON.stringify({ transport: "tcp", ip: "127.0.0.1", shell_port: taken, control_port: others[0],
      stdin_port: others[1], iopub_port: others[2], hb_port: others[3], key: "k", signature_scheme: "hmac-sha256" }));
    const proc = spawn(process.execPath, [CLI, "kernel", file], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    proc.stderr!.on("data", (d) => { stderr += d; });
    const code = await new Promise((r) => proc.once("exit", r));
    srv.close();
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot bind kernel sockets: Address already in use/);
  });
});

describe("shutdown", () => {
  test("shutdown_request with restart ends the process with 0", async () => {
    const k = await startKernel();
    await k.execute("const a = 1");
    const { reply } = await k.request("shutdown_request", { restart: true }, "control");
    expect(reply.content).toEqual({ status: "ok", restart: true });
    const code = await new Promise((r) => k.proc!.exitCode !== null ? r(k.proc!.exitCode) : k.proc!.once("exit", r));
    expect(code).toBe(0);
    k.close();
  });

  test("a plain shutdown on shell exits 0", async () => {
    const k = await startKernel();
    const { reply } = await k.request("shutdown_request", { restart: false }, "shell");
    expect(reply.content.status).toBe("ok");
    const code = await new Promise((r) => k.proc!.exitCode !== null ? r(k.proc!.exitCode) : k.proc!.once("exit", r));
    expect(code).toBe(0);
    k.close();
  });

  test("a shutdown while a cell spins still ends the process", async () => {
    const k = await startKernel();
    const from = k.iopubLog.length;
    void k.execute('console.log("running");\nwhile (true) {}').catch(() => undefined);
    await streamContaining(k, "running", from);
    const { reply } = await k.request("shutdown_request", { restart: false }, "control", 20000);
    expect(reply.content.status).toBe("ok");
    const code = await new Promise((r) => k.proc!.exitCode !== null || k.proc!.signalCode ? r(k.proc!.exitCode) : k.proc!.once("exit", r));
    expect(code === 0 || code === null).toBe(true);
    k.close();
  });
});
