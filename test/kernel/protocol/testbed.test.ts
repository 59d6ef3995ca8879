/**
 * The 27 checks of runtimed's kernel testbed (the conformance matrix of
 * kernels for clients built on the Rust `jupyter-protocol` crate, Zed's REPL
 * among them), in its four tiers, each through the real kernel over zeromq.
 * The client is strict: every message received, from the kernel_info_reply
 * at start-up on, must fit the outbound schema (checked after each test).
 * Where the testbed would give partial credit (no iopub_welcome, is_complete
 * answering otherwise), these checks require the full answer; where its
 * snippet is another kernel's API (rich display), tsgpu's own API is used.
 */
import { rmSync } from "fs";
import type { KernelClient } from "../../../kernel/transport/client";
import type { Message } from "../../../kernel/protocol/message";
import { describeViolation, validateOutbound } from "../../../kernel/protocol/outbound_schema";
import { ofType, stdout, streamContaining } from "../../helpers";
import { connectLikeTestbed, heartbeat, iopubOf, startStrictKernel, StrictKernel } from "./strict_client";

jest.setTimeout(60000);

/** What the checks run: TypeScript cells for each situation the testbed probes. */
const SNIPPET = {
  printHello: "console.log('hello')",
  printStderr: "console.error('error')",
  simpleExpr: "1 + 1",
  incomplete: "const x = {",
  complete: "const x = 1",
  syntaxError: "function function",
  inputPrompt: "prompt('Enter: ')",
  sleep: "await new Promise(r => setTimeout(r, 2000))",
  completionSetup: "const testVariableForCompletion = 42",
  completionVar: "testVariableForCompletion",
  completionPrefix: "testVariableFor",
  displayData: 'display.html("<b>bold</b>")',
  updateDisplayData: 'display.html("<b>initial</b>", { displayId: "test_update" }); updateDisplay("test_update", { "text/html": "<b>updated</b>" })',
  richResult: '({ [Symbol.for("Jupyter.mimebundle")]: () => ({ "text/html": "<b>bold</b>" }) })',
  arrayOfRecords: '[{letter: "A", frequency: 0.08167}, {letter: "B", frequency: 0.01492}]',
};

/** The msg_id of the request a reply answers. */
function requestId(reply: Message): string {
  return (reply.parent_header as { msg_id: string }).msg_id;
}

let s: StrictKernel;
let k: KernelClient;
let shutDown = false;
/** The violations among the messages of the start-up (kernel_info polling, iopub_welcome): checked by kernel_info_reply_valid. */
let startupViolations: string[] = [];

beforeAll(async () => { s = await startStrictKernel(); k = s.k; startupViolations = s.violations.splice(0); });
afterAll(async () => {
  if (!shutDown) await k.shutdown(); else k.close();
  rmSync(s.historyDir, { recursive: true, force: true });
});
// Every message received during a check fits the schema.
afterEach(() => { expect(s.violations.splice(0)).toEqual([]); });

describe("tier 1: basic protocol", () => {
  test("heartbeat_responds: the heartbeat echoes a ping", async () => {
    expect(await heartbeat(k)).toBe("ping");
  });

  test("iopub_welcome: the kernel welcomes the iopub subscription (JEP 65)", () => {
    const welcome = ofType(k.iopubLog, "iopub_welcome");
    expect(welcome.length).toBeGreaterThanOrEqual(1);
    expect(welcome[0].content).toEqual({ subscription: "" });
  });

  test("kernel_info_reply_valid: the start-up replies and a fresh one parse strictly, with status ok", async () => {
    expect(startupViolations).toEqual([]);
    const startup = s.received.filter((r) => r.msg.header.msg_type === "kernel_info_reply");
    expect(startup.length).toBeGreaterThanOrEqual(2); // shell, then control, while the client waited for the kernel
    const { reply } = await k.request("kernel_info_request", {});
    for (const r of [...startup, { channel: "shell", msg: reply }]) {
      expect(validateOutbound({ channel: r.channel, ...r.msg }).map(describeViolation)).toEqual([]);
      expect(r.msg.content.status).toBe("ok");
    }
    expect(reply.content.language_info.codemirror_mode).toBe("typescript");
    // A frontend that connects to the running kernel, as the testbed does: welcomed, then answered at once.
    const late = await connectLikeTestbed(k);
    expect(late.welcome.content).toEqual({ subscription: "" });
    expect(validateOutbound({ channel: "shell", ...late.reply }).map(describeViolation)).toEqual([]);
    expect(late.reply.content).toEqual(reply.content);
  });

  test("kernel_info_has_language_info: language_info.name is set", async () => {
    const { reply } = await k.request("kernel_info_request", {});
    expect(reply.content.language_info.name).toBe("typescript");
  });

  test("kernel_info_has_protocol_version: protocol_version is set", async () => {
    const { reply } = await k.request("kernel_info_request", {});
    expect(reply.content.protocol_version).toMatch(/^5\.\d+$/);
  });

  test("execute_stdout: printing gives a stdout stream", async () => {
    const { outputs } = await k.execute(SNIPPET.printHello);
    expect(stdout(outputs)).toContain("hello");
  });

  test("execute_stderr: printing to stderr gives a stderr stream", async () => {
    const { outputs } = await k.execute(SNIPPET.printStderr);
    const text = ofType(outputs, "stream").filter((m) => m.content.name === "stderr").map((m) => m.content.text).join("");
    expect(text).toContain("error");
  });

  test("execute_reply_ok: valid code is answered with status ok", async () => {
    const { reply } = await k.execute(SNIPPET.complete);
    expect(reply.header.msg_type).toBe("execute_reply");
    expect(reply.content.status).toBe("ok");
  });

  test("status_busy_idle_lifecycle: busy comes first, idle last", async () => {
    const { reply } = await k.execute(SNIPPET.complete);
    const states = iopubOf(k, requestId(reply)).filter((m) => m.header.msg_type === "status").map((m) => m.content.execution_state);
    expect(states).toEqual(["busy", "idle"]);
  });

  test("execute_input_broadcast: the code is broadcast on iopub", async () => {
    const { reply, outputs } = await k.execute(SNIPPET.complete);
    const [input] = ofType(outputs, "execute_input");
    expect(input.content).toEqual({ code: SNIPPET.complete, execution_count: reply.content.execution_count });
  });
});

describe("tier 2: interactive features", () => {
  test("complete_request: a prefix completes to the variable defined", async () => {
    await k.execute(SNIPPET.completionSetup);
    const code = SNIPPET.completionPrefix;
    const { reply } = await k.request("complete_request", { code, cursor_pos: code.length });
    expect(reply.content.status).toBe("ok");
    expect(reply.content.matches).toContain(SNIPPET.completionVar);
    expect([reply.content.cursor_start, reply.content.cursor_end]).toEqual([0, code.length]);
  });

  test("inspect_request: the variable is found", async () => {
    await k.execute(SNIPPET.completionSetup);
    const code = SNIPPET.completionVar;
    const { reply } = await k.request("inspect_request", { code, cursor_pos: code.length, detail_level: 0 });
    expect(reply.content.status).toBe("ok");
    expect(reply.content.found).toBe(true);
    // The typed signature, as Shift-Tab shows it (a const's type is its literal type).
    expect(reply.content.data["text/plain"]).toContain(`${SNIPPET.completionVar}: 42`);
  });

  test("is_complete_complete: a whole statement is complete", async () => {
    const { reply } = await k.request("is_complete_request", { code: SNIPPET.complete });
    expect(reply.content.status).toBe("complete");
  });

  test("is_complete_incomplete: an open brace is incomplete", async () => {
    const { reply } = await k.request("is_complete_request", { code: SNIPPET.incomplete });
    expect(reply.content.status).toBe("incomplete");
    expect(typeof reply.content.indent).toBe("string");
  });

  test("history_request: tail lists what ran", async () => {
    const { reply: run } = await k.execute(SNIPPET.complete);
    const { reply } = await k.request("history_request", { hist_access_type: "tail", n: 10, output: false, raw: true });
    expect(reply.content.status).toBe("ok");
    expect(reply.content.history.at(-1).slice(1)).toEqual([run.content.execution_count, SNIPPET.complete]);
  });

  test("comm_info_request: answered with status ok and the open comms", async () => {
    const { reply } = await k.request("comm_info_request", {});
    expect(reply.content).toEqual({ status: "ok", comms: {} });
  });

  test("error_handling: a syntax error is reported in the reply and on iopub", async () => {
    const { reply, outputs } = await k.execute(SNIPPET.syntaxError);
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("SyntaxError");
    expect(ofType(outputs, "error")).toHaveLength(1);
  });
});

describe("tier 3: rich output", () => {
  test("display_data: a cell displays HTML", async () => {
    const { outputs } = await k.execute(SNIPPET.displayData);
    const [shown] = ofType(outputs, "display_data");
    expect(shown.content.data["text/html"]).toBe("<b>bold</b>");
  });

  test("update_display_data: a display is updated by its display_id", async () => {
    const { outputs } = await k.execute(SNIPPET.updateDisplayData);
    const [first] = ofType(outputs, "display_data");
    const [update] = ofType(outputs, "update_display_data");
    expect(first.content.transient).toEqual({ display_id: "test_update" });
    expect(update.content).toEqual({ data: { "text/html": "<b>updated</b>" }, metadata: {}, transient: { display_id: "test_update" } });
  });

  test("execute_result: an expression's value is the result", async () => {
    const { reply, outputs } = await k.execute(SNIPPET.simpleExpr);
    const [result] = ofType(outputs, "execute_result");
    expect(result.content.data["text/plain"]).toBe("2");
    expect(result.content.execution_count).toBe(reply.content.execution_count);
  });

  test("rich_execute_result: a value with its own mime bundle gives HTML; an array of records gives a result", async () => {
    const rich = ofType((await k.execute(SNIPPET.richResult)).outputs, "execute_result");
    expect(rich[0].content.data["text/html"]).toBe("<b>bold</b>");
    const records = ofType((await k.execute(SNIPPET.arrayOfRecords)).outputs, "execute_result");
    expect(records[0].content.data["text/plain"]).toContain("frequency: 0.08167");
  });
});

describe("tier 4: advanced features", () => {
  test("stdin_input_request: prompt() asks the frontend on stdin and gets its answer", async () => {
    const requests: Message[] = [];
    k.onStdinRequest = (m) => { requests.push(m); return '"test_input_42"'; };
    try {
      const { reply, outputs } = await k.execute(SNIPPET.inputPrompt);
      expect(requests.map((m) => m.content)).toEqual([{ prompt: "Enter: ", password: false }]);
      expect(requestId(requests[0])).toBe(requestId(reply));
      expect(reply.content.status).toBe("ok");
      expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toContain("test_input_42");
    } finally {
      k.onStdinRequest = undefined;
    }
  });

  test("comms_lifecycle: a comm to an unknown target is closed; a registered one opens, talks and closes", async () => {
    const unknown = "test-comm-unknown-target";
    const before = k.iopubLog.length;
    await k.send(k.shell, "comm_open", { comm_id: unknown, target_name: "jupyter.kernel_testbed.test", data: {} });
    await k.execute(SNIPPET.complete); // requests are answered in order: the comm_open has been handled
    expect(ofType(k.iopubLog.slice(before), "comm_close").map((m) => m.content)).toEqual([{ comm_id: unknown, data: {} }]);

    await k.execute('comms.registerTarget("testbed.echo", (comm) => { comm.onMsg((d) => comm.send({ echo: d })); })');
    const id = "test-comm-echo";
    await k.send(k.shell, "comm_open", { comm_id: id, target_name: "testbed.echo", data: {} });
    const { reply: info } = await k.request("comm_info_request", { target_name: "testbed.echo" });
    expect(info.content.comms).toEqual({ [id]: { target_name: "testbed.echo" } });
    const mark = k.iopubLog.length;
    await k.send(k.shell, "comm_msg", { comm_id: id, data: { n: 1 } });
    await k.send(k.shell, "comm_close", { comm_id: id, data: {} });
    await k.execute(SNIPPET.complete);
    expect(ofType(k.iopubLog.slice(mark), "comm_msg").map((m) => m.content)).toEqual([{ comm_id: id, data: { echo: { n: 1 } } }]);
    expect((await k.request("comm_info_request", {})).reply.content.comms).toEqual({});
  });

  test("interrupt_request: answered with status ok on control, idle or while a cell sleeps", async () => {
    const idle = await k.request("interrupt_request", {}, "control");
    expect(idle.reply.content).toEqual({ status: "ok" });
    // Interrupted once it sleeps (its first line has printed), not while it is still being compiled: under load
    // the compile can outlast the wait for execute_input alone.
    const from = k.iopubLog.length;
    const sleeping = k.execute(`console.log("sleeping");\n${SNIPPET.sleep}`);
    await streamContaining(k, "sleeping", from);
    const busy = await k.request("interrupt_request", {}, "control");
    expect(busy.reply.content).toEqual({ status: "ok" });
    const { reply } = await sleeping;
    expect(reply.content.status).toBe("error");
    expect((await k.execute(SNIPPET.simpleExpr)).reply.content.status).toBe("ok");
  });

  test("execution_count_increments: each execute counts one more", async () => {
    const first = (await k.execute(SNIPPET.complete)).reply.content.execution_count;
    const second = (await k.execute(SNIPPET.complete)).reply.content.execution_count;
    expect(Number.isInteger(first)).toBe(true);
    expect(second).toBe(first + 1);
  });

  test("parent_header_correlation: the reply and every iopub message name the request as parent", async () => {
    const { reply } = await k.execute(SNIPPET.printHello);
    const id = requestId(reply);
    const messages = iopubOf(k, id);
    expect(messages.map((m) => m.header.msg_type)).toEqual(["status", "execute_input", "stream", "status"]);
    for (const m of [reply, ...messages]) expect((m.parent_header as { msg_type: string }).msg_type).toBe("execute_request");
  });
});

describe("last: shutdown", () => {
  test("shutdown_reply: answered with status ok, then the kernel exits cleanly", async () => {
    const exited = new Promise<number | null>((resolve) => k.proc!.once("exit", (code) => resolve(code)));
    const { reply } = await k.request("shutdown_request", { restart: false }, "control", 20000);
    shutDown = true;
    expect(reply.content).toEqual({ status: "ok", restart: false });
    expect(await exited).toBe(0);
  });
});
