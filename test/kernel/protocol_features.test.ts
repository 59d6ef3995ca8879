/**
 * More of the messaging protocol through a real zeromq client: ipc transport,
 * kernel_info on control, the pager payload, history across sessions, and
 * the comm lifecycle with targets registered by cells.
 */
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import * as zmq from "zeromq";
import { KernelClient } from "../../kernel/transport/client";
import { decode, encode, Signer } from "../../kernel/protocol/wire";
import { Message, newHeader, reply } from "../../kernel/protocol/message";
import { ofType, sleep, startKernel, stdout, streamContaining } from "../helpers";
import { untilTypesKnown } from "./engine_helpers";

jest.setTimeout(60000);

const dirs: string[] = [];
function historyEnv(file?: string): NodeJS.ProcessEnv {
  if (!file) {
    const dir = mkdtempSync(join(tmpdir(), "tsgpu-history-"));
    dirs.push(dir);
    file = join(dir, "history.jsonl");
  }
  return { ...process.env, TSGPU_HISTORY_FILE: file };
}
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** iopub messages after index `from` whose parent is `msgId`. */
function childrenOf(k: KernelClient, from: number, msgId: string): Message[] {
  return k.iopubLog.slice(from).filter((m) => (m.parent_header as any).msg_id === msgId);
}

// 30 s: a loaded machine may take seconds to answer (jest gives up at 60 s).
async function until(cond: () => boolean, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(20);
  }
}

describe("transport", () => {
  test("the kernel serves every channel over ipc", async () => {
    const k = await startKernel({ transport: "ipc", env: historyEnv() });
    try {
      expect(k.info.transport).toBe("ipc");
      const { reply, outputs } = await k.execute('console.log("over ipc"); 6 * 7');
      expect(reply.content.status).toBe("ok");
      expect(stdout(outputs)).toBe("over ipc\n");
      expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("42");
      expect((await k.request("kernel_info_request", {}, "control")).reply.content.implementation).toBe("tsgpu");
    } finally {
      expect(await k.shutdown()).toBe(0);
    }
  });

  test("iopub is XPUB: every new subscriber is sent iopub_welcome (JEP 65)", async () => {
    const k = await startKernel({ env: historyEnv() });
    const sub = new zmq.Subscriber({ receiveTimeout: 5000 });
    try {
      sub.connect(`tcp://${k.info.ip}:${k.info.iopub_port}`);
      sub.subscribe();
      const msg = decode(await sub.receive(), new Signer(k.info.key, k.info.signature_scheme));
      expect(msg.header.msg_type).toBe("iopub_welcome");
      expect(msg.content).toEqual({ subscription: "" });
    } finally {
      sub.close();
      await k.shutdown();
    }
  });

  test("an input_request waits for a frontend whose stdin socket connects after its request", async () => {
    const k = await startKernel({ env: historyEnv() });
    const signer = new Signer(k.info.key, k.info.signature_scheme);
    const origin = { session: "late-stdin-frontend", username: "test" };
    const shell = new zmq.Dealer({ routingId: origin.session, receiveTimeout: 10000 });
    const stdin = new zmq.Dealer({ routingId: origin.session, receiveTimeout: 10000 });
    try {
      shell.connect(`tcp://${k.info.ip}:${k.info.shell_port}`);
      const request = { idents: [], header: newHeader("execute_request", origin), parent_header: {}, metadata: {}, buffers: [],
        content: { code: 'const answer = await input("name? ");\nanswer.toUpperCase()', silent: false, store_history: true,
          user_expressions: {}, allow_stdin: true, stop_on_error: true } };
      await shell.send(encode(request, signer));
      // The kernel asks at once; this frontend's stdin socket only connects now.
      await sleep(700);
      stdin.connect(`tcp://${k.info.ip}:${k.info.stdin_port}`);
      const asked = decode(await stdin.receive(), signer);
      expect(asked.header.msg_type).toBe("input_request");
      expect(asked.content.prompt).toBe("name? ");
      await stdin.send(encode(reply(asked, "input_reply", { value: "ada" }, origin), signer));
      const done = decode(await shell.receive(), signer);
      expect(done.header.msg_type).toBe("execute_reply");
      expect(done.content.status).toBe("ok");
      const { outputs } = await k.execute("answer");
      expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("'ada'");
    } finally {
      shell.close();
      stdin.close();
      await k.shutdown();
    }
  });

  test("the status around a control request gets out while a cell spins (relayed from the socket thread)", async () => {
    const k = await startKernel({ env: historyEnv() });
    try {
      const started = k.iopubLog.length;
      const running = k.execute('console.log("running");\nlet n = 0;\nwhile (true) { n++; }');
      await streamContaining(k, "running", started); // it spins now: the main thread cannot answer
      const from = k.iopubLog.length;
      const { reply } = await k.request("usage_request", {}, "control", 10000);
      const states = childrenOf(k, from, reply.parent_header.msg_id).filter((m) => m.header.msg_type === "status").map((m) => m.content.execution_state);
      expect(states).toEqual(["busy", "idle"]);
      await k.request("interrupt_request", {}, "control");
      expect((await running).reply.content.ename).toBe("InterruptError");
    } finally {
      await k.shutdown();
    }
  });
});

describe("kernel_info, pager and history", () => {
  let k: KernelClient;
  const env = historyEnv();
  beforeAll(async () => { k = await startKernel({ env }); });
  afterAll(async () => { await k.shutdown(); });

  test("kernel_info_request on control is answered, even while a cell spins", async () => {
    const from = k.iopubLog.length;
    const running = k.execute('console.log("running");\nwhile (true) {}');
    await streamContaining(k, "running", from); // it spins now
    const { reply } = await k.request("kernel_info_request", {}, "control", 10000);
    expect(reply.content).toMatchObject({ status: "ok", implementation: "tsgpu", language_info: { name: "typescript" } });
    await k.request("interrupt_request", {}, "control");
    expect((await running).reply.content.ename).toBe("InterruptError");
  });

  test.each(["?Math.max", "Math.max?", "%pinfo Math.max"])("%s answers with a pager payload", async (code) => {
    // The page comes from the type checker, which loads in the background after start (seconds on a loaded
    // machine; until then the runtime's plainer answer): wait for it rather than race it.
    await untilTypesKnown(k);
    const { reply, outputs } = await k.execute(code);
    expect(reply.content.status).toBe("ok");
    expect(reply.content.payload).toHaveLength(1);
    expect(reply.content.payload[0]).toMatchObject({ source: "page", start: 0 });
    expect(reply.content.payload[0].data["text/plain"]).toMatch(/^\(method\) Math\.max\(\.\.\.values: number\[\]\): number\n\nReturns the larger/);
    expect(ofType(outputs, "execute_result")).toEqual([]);
  });

  test("the pager says when a name does not exist", async () => {
    const { reply } = await k.execute("?noSuchThingAnywhere");
    expect(reply.content.payload[0].data["text/plain"]).toContain("noSuchThingAnywhere` not found");
  });

  test("history range by session number, with outputs", async () => {
    await k.execute("const h1 = 10;");
    await k.execute("h1 * 2");
    const tail = (await k.request("history_request", { hist_access_type: "tail", n: 2, output: true, raw: true })).reply.content.history;
    const [session, line] = tail[0];
    expect(tail[1][2]).toEqual(["h1 * 2", "20"]);
    expect(tail[0][2]).toEqual(["const h1 = 10;", ""]); // no output: "" (strict clients read a string)
    const range = (await k.request("history_request", { hist_access_type: "range", session, start: line, stop: line + 2, output: false, raw: true })).reply.content.history;
    expect(range).toEqual([[session, line, "const h1 = 10;"], [session, line + 1, "h1 * 2"]]);
    // Session 0 is the current one.
    const relative = (await k.request("history_request", { hist_access_type: "range", session: 0, start: line, stop: line + 1, output: false, raw: true })).reply.content.history;
    expect(relative).toEqual([[session, line, "const h1 = 10;"]]);
  });

  test("history search: glob, unique and n", async () => {
    for (const code of ["1 + 1", "1 + 2", "1 + 1"]) await k.execute(code);
    const q = (extra: Record<string, unknown>) => k.request("history_request", { hist_access_type: "search", pattern: "1 + ?", output: false, raw: true, ...extra });
    expect((await q({})).reply.content.history.map((h: unknown[]) => h[2])).toEqual(["1 + 1", "1 + 2", "1 + 1"]);
    expect((await q({ unique: true })).reply.content.history.map((h: unknown[]) => h[2])).toEqual(["1 + 2", "1 + 1"]);
    expect((await q({ n: 1 })).reply.content.history.map((h: unknown[]) => h[2])).toEqual(["1 + 1"]);
  });

  test("a later kernel is the next session and sees the earlier one", async () => {
    await k.execute("const fromFirstSession = 1;");
    const first = (await k.request("history_request", { hist_access_type: "tail", n: 1, output: false, raw: true })).reply.content.history[0];
    await k.shutdown();
    k = await startKernel({ env });
    await k.execute("const fromSecondSession = 2;");
    const tail = (await k.request("history_request", { hist_access_type: "tail", n: 2, output: false, raw: true })).reply.content.history;
    expect(tail[0]).toEqual(first);
    expect(tail[1][0]).toBe(first[0] + 1);
    expect(tail[1][2]).toBe("const fromSecondSession = 2;");
    const previous = (await k.request("history_request", { hist_access_type: "range", session: -1, start: first[1], stop: first[1] + 1, output: false, raw: true })).reply.content.history;
    expect(previous).toEqual([first]);
  });
});

describe("comms", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel({ env: historyEnv() }); });
  afterAll(async () => { await k.shutdown(); });

  test("a frontend opens a comm to a target a cell registered; messages go both ways; close", async () => {
    const setup = await k.execute([
      "const received: unknown[] = [];",
      'comms.registerTarget("echo", (comm, data) => {',
      "  received.push(data);",
      "  comm.send({ hello: data.who });",
      "  comm.onMsg((d) => { received.push(d); console.log('got', JSON.stringify(d)); comm.send({ echo: d }); });",
      "  comm.onClose((d) => { received.push({ closed: d }); });",
      "});",
    ].join("\n"));
    expect(setup.reply.content.status).toBe("ok");

    let from = k.iopubLog.length;
    const open = await k.send(k.shell, "comm_open", { comm_id: "c-echo", target_name: "echo", data: { who: "lab" } });
    await until(() => childrenOf(k, from, open.header.msg_id).some((m) => m.header.msg_type === "comm_msg"));
    expect(childrenOf(k, from, open.header.msg_id).find((m) => m.header.msg_type === "comm_msg")!.content).toEqual({ comm_id: "c-echo", data: { hello: "lab" } });

    const info = (await k.request("comm_info_request", {})).reply.content;
    expect(info.comms).toEqual({ "c-echo": { target_name: "echo" } });
    expect((await k.request("comm_info_request", { target_name: "other" })).reply.content.comms).toEqual({});

    from = k.iopubLog.length;
    const msg = await k.send(k.shell, "comm_msg", { comm_id: "c-echo", data: { n: 1 } });
    await until(() => childrenOf(k, from, msg.header.msg_id).some((m) => m.header.msg_type === "comm_msg"));
    const replies = childrenOf(k, from, msg.header.msg_id);
    expect(replies.find((m) => m.header.msg_type === "comm_msg")!.content.data).toEqual({ echo: { n: 1 } });
    // Output of a comm handler goes to the comm_msg that caused it.
    expect(stdout(replies)).toBe('got {"n":1}\n');

    await k.send(k.shell, "comm_close", { comm_id: "c-echo", data: { bye: true } });
    // The shell runs in order: the comm_info_request below is answered after the comm_close was handled.
    expect((await k.request("comm_info_request", {})).reply.content.comms).toEqual({});
    const { outputs } = await k.execute("received");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("[ { who: 'lab' }, { n: 1 }, { closed: { bye: true } } ]");
  });

  test("a cell opens a comm, sends binary buffers, and closes it", async () => {
    const { reply, outputs } = await k.execute([
      'const c = comms.open("plot", { kind: "line" }, { metadata: { v: 1 } });',
      "c.send({ points: 3 }, { buffers: [new Uint8Array([1, 2, 3])] });",
      "const listed = Object.keys(comms.list());",
      "c.close();",
      "[listed.length === 1, listed[0] === c.commId, c.isClosed]",
    ].join("\n"));
    expect(reply.content.status).toBe("ok");
    const [open] = ofType(outputs, "comm_open");
    expect(open.content).toMatchObject({ target_name: "plot", data: { kind: "line" } });
    expect(open.metadata).toEqual({ v: 1 });
    const [sent] = ofType(outputs, "comm_msg");
    expect(sent.content).toEqual({ comm_id: open.content.comm_id, data: { points: 3 } });
    expect(sent.buffers.map((b) => [...b])).toEqual([[1, 2, 3]]);
    expect(ofType(outputs, "comm_close")[0].content.comm_id).toBe(open.content.comm_id);
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("[ true, true, true ]");
  });

  test("sending on a closed comm is an error that names it", async () => {
    const { reply } = await k.execute('const d = comms.open("x"); d.close(); d.send({});');
    expect(reply.content.status).toBe("error");
    expect(reply.content.evalue).toMatch(/comm .* \(target "x"\) is closed/);
  });

  test("a target whose handler throws closes the comm and the kernel stays up", async () => {
    await k.execute('comms.registerTarget("broken", () => { throw new Error("no"); });');
    const from = k.iopubLog.length;
    const open = await k.send(k.shell, "comm_open", { comm_id: "c-broken", target_name: "broken", data: {} });
    await until(() => childrenOf(k, from, open.header.msg_id).some((m) => m.header.msg_type === "comm_close"));
    expect((await k.request("comm_info_request", {})).reply.content.comms).toEqual({});
    expect((await k.execute("1")).reply.content.status).toBe("ok");
  });
});
