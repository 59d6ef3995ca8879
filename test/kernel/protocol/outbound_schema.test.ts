/** The strict schema of sent messages: what it accepts, what it rejects and how it names the problem. */
import { execFileSync } from "child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { kernelInfo } from "../../../kernel/info";
import { newHeader, replyType } from "../../../kernel/protocol/message";
import { errorReplyContent } from "../../../kernel/protocol/message_types";
import { describeViolation, OutboundMessage, validateOutbound } from "../../../kernel/protocol/outbound_schema";
import { checkLog, formatReport } from "../../../kernel/protocol/outbound_log";
import type { KernelClient } from "../../../kernel/transport/client";
import { ofType, ROOT, startKernel } from "../../helpers";

const origin = { session: "s1", username: "kernel" };
const request = (type: string) => newHeader(type, { session: "c1", username: "client" });

/** A message of `type` on `channel` with this content, as the kernel would send it in answer to `parentType`. */
function msg(channel: string, type: string, content: unknown, parentType?: string): OutboundMessage {
  const parent = parentType ?? (type.endsWith("_reply") ? type.replace(/_reply$/, "_request") : "execute_request");
  return { channel, header: newHeader(type, origin), parent_header: request(parent), metadata: {}, content };
}

/** The violations of a message, as the one-line texts a failing check prints. */
function problems(m: OutboundMessage): string[] {
  return validateOutbound(m).map(describeViolation);
}

describe("outbound schema", () => {
  test("the kernel's kernel_info_reply is valid, with codemirror_mode as a string", () => {
    const info = kernelInfo();
    expect(info.language_info.codemirror_mode).toBe("typescript");
    expect(problems(msg("shell", "kernel_info_reply", info))).toEqual([]);
    expect(problems(msg("control", "kernel_info_reply", info))).toEqual([]);
  });

  test("codemirror_mode: a string or {name, version: integer}; a CodeMirror 5 spec object is rejected", () => {
    const withMode = (mode: unknown) => msg("shell", "kernel_info_reply", { ...kernelInfo(), language_info: { ...kernelInfo().language_info, codemirror_mode: mode } });
    expect(problems(withMode({ name: "ipython", version: 3 }))).toEqual([]);
    const bad = problems(withMode({ name: "javascript", typescript: true }));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toContain("shell kernel_info_reply: content.language_info.codemirror_mode: expected a mode name (string) or {name: string, version: non-negative integer}");
    expect(bad[0]).toContain('got {"name":"javascript","typescript":true}');
    expect(problems(withMode({ name: "python", version: 3.5 }))).toHaveLength(1);
  });

  test("every reply carries a status spelled as the spec spells it", () => {
    expect(problems(msg("control", "interrupt_reply", { status: "ok" }))).toEqual([]);
    expect(problems(msg("control", "interrupt_reply", {}))).toEqual(["control interrupt_reply: content.status: expected a field that is present, got nothing (the field is missing)"]);
    expect(problems(msg("shell", "execute_reply", { status: "abort" }))[0]).toContain('content.status: expected one of "ok", "error", "aborted", got "abort"');
    for (const [type, content] of [["shutdown_reply", { restart: false }], ["comm_info_reply", { comms: {} }], ["usage_reply", { hostname: "h", pid: 1, kernel_cpu: 0, kernel_memory: 1, cpu_count: 1, host_virtual_memory: {} }]] as const) {
      expect(problems(msg("control", type, content)).join()).toContain(`${type}: content.status: expected a field that is present`);
      expect(problems(msg("control", type, { ...content, status: "ok" }))).toEqual([]);
    }
  });

  test("execution counts are integers: null and fractions are rejected; an aborted reply may omit it", () => {
    expect(problems(msg("shell", "execute_reply", { status: "aborted" }))).toEqual([]);
    expect(problems(msg("shell", "execute_reply", { status: "aborted", execution_count: null }))).toEqual([
      "shell execute_reply: content.execution_count: expected a non-negative integer, got null"]);
    expect(problems(msg("iopub", "execute_input", { code: "1", execution_count: 1.5 }))[0]).toContain("content.execution_count: expected a non-negative integer, got 1.5");
    expect(problems(msg("shell", "execute_reply", { status: "ok", execution_count: 3, user_expressions: {}, payload: [] }))).toEqual([]);
  });

  test("an error reply carries ename/evalue/traceback and the fields strict clients need", () => {
    const error = { status: "error", ename: "E", evalue: "v", traceback: ["t"] };
    expect(problems(msg("shell", "history_reply", { ...error, history: [] }))).toEqual([]);
    expect(problems(msg("shell", "history_reply", error))).toEqual(["shell history_reply: content.history: expected a field that is present, got nothing (the field is missing)"]);
    expect(problems(msg("shell", "complete_reply", { status: "error" })).join("\n")).toContain("content.traceback: expected a field that is present");
  });

  test("the reply the dispatcher sends when a handler fails fits the schema, whatever the request", () => {
    const requests = ["kernel_info_request", "execute_request", "inspect_request", "complete_request", "history_request",
      "comm_info_request", "shutdown_request", "interrupt_request", "is_complete_request"];
    const err = new RangeError("handler failed");
    for (const type of requests) {
      const content = type === "kernel_info_request" ? { ...kernelInfo(), ...errorReplyContent(type, err) } : errorReplyContent(type, err);
      expect(problems(msg("shell", replyType(type), content, type))).toEqual([]);
    }
    expect(errorReplyContent("is_complete_request", err)).toEqual({ status: "unknown" });
    expect(errorReplyContent("history_request", err)).toMatchObject({ status: "error", ename: "RangeError", evalue: "handler failed", history: [] });
  });

  test("mime bundles: strings for text and images, any JSON for JSON types; metadata objects present", () => {
    const ok = { data: { "text/plain": "x", "text/html": "<b>x</b>", "application/json": { a: [1] }, "application/vnd.vegalite.v5+json": [1] }, metadata: {} };
    expect(problems(msg("iopub", "display_data", ok))).toEqual([]);
    expect(problems(msg("iopub", "display_data", { data: { "text/html": 5 }, metadata: {} }))).toEqual([
      'iopub display_data: content.data["text/html"]: expected a string, got 5']);
    expect(problems(msg("iopub", "display_data", { data: { html: "x" }, metadata: {} }))[0]).toContain('content.data["html"]: expected a key that is a mime type');
    expect(problems(msg("iopub", "execute_result", { execution_count: 1, data: {} }))[0]).toContain("content.metadata: expected a field that is present");
    expect(problems(msg("iopub", "update_display_data", { ...ok, transient: {} }))[0]).toContain("content.transient.display_id: expected a field that is present");
    expect(problems({ ...msg("iopub", "stream", { name: "stdout", text: "" }), metadata: null })[0]).toContain("metadata: expected an object, got null");
    // The one JSON type whose shape strict clients read: a table needs schema.fields with name and type.
    const table = (fields: unknown) => msg("iopub", "display_data", { data: { "application/vnd.dataresource+json": { schema: { fields }, data: [] } }, metadata: {} });
    expect(problems(table([{ name: "a", type: "integer" }]))).toEqual([]);
    expect(problems(table([{ name: "a" }]))[0]).toContain('content.data["application/vnd.dataresource+json"].schema.fields[0].type: expected a field that is present');
  });

  test("history entries: [session, line, input] or [session, line, [input, output]] with string output", () => {
    expect(problems(msg("shell", "history_reply", { status: "ok", history: [[1, 2, "a"], [1, 3, ["b", "4"]]] }))).toEqual([]);
    expect(problems(msg("shell", "history_reply", { status: "ok", history: [[1, 2, ["a", null]]] }))[0]).toContain("content.history[0]: expected [session, line, input] or [session, line, [input, output]] (strings)");
  });

  test("headers, channels and parents", () => {
    const stream = msg("iopub", "stream", { name: "stdout", text: "hi" });
    expect(problems(stream)).toEqual([]);
    expect(problems({ ...stream, header: { ...(stream.header as object), date: "2026-12-01 08:00:00" } })[0]).toContain("header.date: expected an ISO 8601 date-time with time zone");
    expect(problems({ ...stream, channel: "shell" })[0]).toContain("shell stream: header.msg_type: expected a type the kernel sends on shell");
    expect(problems(msg("iopub", "status", { execution_state: "abort" }))[0]).toContain('content.execution_state: expected one of "busy", "idle", "starting"');
    expect(problems({ ...msg("shell", "complete_reply", { status: "ok", matches: [], cursor_start: 0, cursor_end: 0, metadata: {} }), parent_header: {} }))
      .toEqual(["shell complete_reply: parent_header: expected the header of the request answered, got {}"]);
    expect(problems(msg("shell", "inspect_reply", { status: "ok", found: false, data: {}, metadata: {} }, "complete_request"))[0])
      .toContain("header.msg_type: expected complete_reply (the reply to complete_request), got \"inspect_reply\"");
  });

  test("is_complete_reply: its status is the verdict; incomplete carries an indent", () => {
    expect(problems(msg("shell", "is_complete_reply", { status: "incomplete", indent: "  " }))).toEqual([]);
    expect(problems(msg("shell", "is_complete_reply", { status: "incomplete" }))[0]).toContain("content.indent: expected a field that is present");
    expect(problems(msg("shell", "is_complete_reply", { status: "ok" }))[0]).toContain('expected one of "complete", "incomplete", "invalid", "unknown"');
  });
});

describe("protocol log", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-log-"));

  test("TSGPU_PROTOCOL_LOG makes recordOutbound append one JSON line per message", () => {
    const file = join(dir, "recorded.jsonl");
    const script = `const { recordOutbound } = require(${JSON.stringify(join(ROOT, "dist/kernel/protocol/outbound_log.js"))});
      const { reply } = require(${JSON.stringify(join(ROOT, "dist/kernel/protocol/message.js"))});
      recordOutbound("iopub", reply(undefined, "iopub_welcome", { subscription: "" }, { session: "s", username: "kernel" }));
      recordOutbound("iopub", reply(undefined, "stream", { name: "stdout", text: 5 }, { session: "s", username: "kernel" }));`;
    execFileSync(process.execPath, ["-e", script], { env: { ...process.env, TSGPU_PROTOCOL_LOG: file } });
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.channel, l.header.msg_type, l.buffers])).toEqual([["iopub", "iopub_welcome", 0], ["iopub", "stream", 0]]);
    const report = checkLog(file);
    expect(report.messages).toBe(2);
    expect(report.violations.map((v) => [v.line, describeViolation(v.violation)])).toEqual([[2, "iopub stream: content.text: expected a string, got 5"]]);
    expect(formatReport(file, report)).toContain("line 2: iopub stream: content.text");
  });

  test("an unreadable line is reported, not skipped", () => {
    const file = join(dir, "torn.jsonl");
    writeFileSync(file, '{"channel":"iopub"\n');
    expect(checkLog(file).unreadable).toEqual([1]);
  });
});

describe("malformed mime bundles from user code", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("display.mime with a non-string text/html fails the cell, naming the key; the kernel keeps its state", async () => {
    await k.execute("const kept = 41;");
    const { reply, outputs } = await k.execute('display.mime({ "text/html": 5 })');
    expect(reply.content.status).toBe("error");
    expect(reply.content.evalue).toBe('expected a string for bundle["text/html"], got number');
    expect(ofType(outputs, "display_data")).toEqual([]);
    expect((await k.execute("kept + 1")).reply.content.status).toBe("ok");
    const keys = await k.execute('display.mime({ html: "<b>x</b>" })');
    expect(keys.reply.content.evalue).toBe('expected a key that is a mime type (type/subtype) for bundle["html"], got "html"');
    const json = await k.execute('display.mime({ "application/json": () => 1 })');
    expect(json.reply.content.evalue).toBe('expected a JSON value for bundle["application/json"], got function');
  });

  test("a value whose own mime bundle is malformed gives an error, not a broken execute_result", async () => {
    const { reply, outputs } = await k.execute('({ [Symbol.for("Jupyter.mimebundle")]: () => ({ "image/png": new Uint8Array(2) }) })');
    expect(reply.content.status).toBe("error");
    expect(reply.content.evalue).toContain('the value\'s mime bundle["image/png"]');
    expect(ofType(outputs, "execute_result")).toEqual([]);
    expect(ofType(outputs, "error")).toHaveLength(1);
  });
});
