/** The inbound check, the one busy/reply/idle bracket and the rate-limited drop log, without sockets. */
import { admit } from "../../../kernel/protocol/inbound";
import { answer } from "../../../kernel/protocol/bracket";
import { DropLog } from "../../../kernel/protocol/drop_log";
import { Message, newHeader } from "../../../kernel/protocol/message";
import { validateOutbound } from "../../../kernel/protocol/outbound_schema";

const origin = { session: "s1", username: "u" };

function request(type: string, content: unknown, extra: Partial<Message> = {}): Message {
  return { idents: [], header: newHeader(type, origin), parent_header: {}, metadata: {}, content: content as any, buffers: [], ...extra };
}

describe("admit", () => {
  test("well-formed requests of every kind pass, typed by msg_type", () => {
    const ok: [string, unknown, "shell" | "control" | "stdin"][] = [
      ["kernel_info_request", {}, "shell"], ["kernel_info_request", {}, "control"],
      ["execute_request", { code: "1", silent: false, store_history: true, user_expressions: { a: "1" }, allow_stdin: false, stop_on_error: true }, "shell"],
      ["complete_request", { code: "Ma", cursor_pos: 2 }, "shell"], ["inspect_request", { code: "Math", cursor_pos: 4, detail_level: 1 }, "shell"],
      ["history_request", { hist_access_type: "tail", n: 10, output: false, raw: true }, "shell"],
      ["history_request", { hist_access_type: "range", session: -1, start: 0, stop: null }, "shell"],
      ["is_complete_request", { code: "x" }, "shell"], ["comm_info_request", { target_name: null }, "shell"],
      ["comm_open", { comm_id: "c", target_name: "t", data: {} }, "shell"], ["comm_msg", { comm_id: "c", data: { x: 1 } }, "shell"],
      ["shutdown_request", { restart: true }, "control"], ["interrupt_request", {}, "control"], ["usage_request", {}, "control"],
      ["input_reply", { value: "typed" }, "stdin"],
    ];
    for (const [type, content, channel] of ok) {
      const a = admit(channel, request(type, content));
      expect([type, a.kind]).toEqual([type, "ok"]);
    }
  });

  test("requests whose content is never read take any content", () => {
    for (const type of ["kernel_info_request", "usage_request"]) expect(admit("control", request(type, 5)).kind).toBe("ok");
    expect(admit("shell", request("kernel_info_request", 5)).kind).toBe("ok");
    expect(admit("control", request("interrupt_request", [])).kind).toBe("ok");
  });

  test("a request with wrong field types is rejected, naming each field, expected and got", () => {
    const a = admit("shell", request("execute_request", { code: 5, silent: "no" }));
    expect(a.kind).toBe("reject");
    if (a.kind !== "reject") return;
    expect(a.reason).toContain("expected a string for content.code, got 5");
    expect(a.reason).toContain(`expected a boolean for content.silent, got "no"`);
    const b = admit("shell", request("complete_request", { code: "x", cursor_pos: -1 }));
    expect(b.kind === "reject" && b.reason).toContain("expected a non-negative integer for content.cursor_pos, got -1");
    const c = admit("shell", request("history_request", { hist_access_type: "all" }));
    expect(c.kind === "reject" && c.reason).toContain("content.hist_access_type");
    const d = admit("shell", request("execute_request", "code"));
    expect(d.kind === "reject" && d.reason).toContain("expected an object for content");
    const e = admit("shell", request("is_complete_request", { code: "1" }, { metadata: [] as any }));
    expect(e.kind === "reject" && e.reason).toContain("expected an object for metadata");
  });

  test("what cannot be answered is dropped: bad header, unknown type, wrong channel, malformed comm and input_reply", () => {
    const badHeader = request("execute_request", { code: "1" });
    (badHeader.header as any).msg_id = 7;
    expect(admit("shell", badHeader)).toMatchObject({ kind: "drop", reason: expect.stringContaining("header.msg_id") });
    const noDate = request("kernel_info_request", {});
    delete (noDate.header as any).date;
    expect(admit("shell", noDate).kind).toBe("drop");
    // A date the kernel cannot parse is no reason to drop a request (ipykernel does not parse it either).
    const emptyDate = request("kernel_info_request", {});
    (emptyDate.header as any).date = "";
    expect(admit("shell", emptyDate).kind).toBe("ok");
    expect(admit("shell", request("execute_reply", {}))).toMatchObject({ kind: "drop", reason: expect.stringContaining("unknown type execute_reply") });
    expect(admit("shell", request("interrupt_request", {}))).toMatchObject({ kind: "drop", reason: expect.stringContaining("control only") });
    expect(admit("control", request("execute_request", { code: "1" })).kind).toBe("drop");
    expect(admit("shell", request("comm_msg", { comm_id: 3 })).kind).toBe("drop");
    expect(admit("stdin", request("input_reply", { value: 1 })).kind).toBe("drop");
  });
});

describe("answer", () => {
  function collect() {
    const sent: { channel: string; msg: Message }[] = [];
    return { sent, sink: { publish: (msg: Message) => sent.push({ channel: "iopub", msg }), reply: (msg: Message) => sent.push({ channel: "shell", msg }) } };
  }
  const describeSent = (sent: { channel: string; msg: Message }[]) =>
    sent.map(({ channel, msg }) => `${channel} ${msg.header.msg_type} ${msg.content.execution_state ?? msg.content.status}`);

  test("busy, reply, idle, all parented to the request and valid by the outbound schema", async () => {
    const { sent, sink } = collect();
    const req = request("kernel_info_request", {});
    answer(req, origin, sink, () => ({ status: "ok" }));
    expect(describeSent(sent)).toEqual(["iopub status busy", "shell kernel_info_reply ok", "iopub status idle"]);
    for (const { msg } of sent) expect((msg.parent_header as any).msg_id).toBe(req.header.msg_id);
    for (const { channel, msg } of sent.filter((s) => s.msg.header.msg_type === "status")) expect(validateOutbound({ channel, ...msg })).toEqual([]);
  });

  test("an async producer that throws gives an error reply of the request's type, reported once", async () => {
    const { sent, sink } = collect();
    const errors: string[] = [];
    await answer(request("history_request", { hist_access_type: "tail" }), origin, sink, async () => { throw new Error("boom"); }, (e) => errors.push(e.message));
    expect(describeSent(sent)).toEqual(["iopub status busy", "shell history_reply error", "iopub status idle"]);
    const replyMsg = sent[1].msg;
    expect(replyMsg.content).toMatchObject({ status: "error", ename: "Error", evalue: "boom", history: [] });
    expect(validateOutbound({ channel: "shell", ...replyMsg })).toEqual([]);
    expect(errors).toEqual(["boom"]);
  });

  test("a reply that cannot be sent is answered with an error instead, and idle still follows", () => {
    const sent: string[] = [];
    let first = true;
    const sink = {
      publish: (m: Message) => sent.push(`${m.header.msg_type} ${m.content.execution_state}`),
      reply: (m: Message) => { if (first) { first = false; throw new RangeError("Invalid string length"); } sent.push(`${m.header.msg_type} ${m.content.status} ${m.content.evalue}`); },
    };
    answer(request("kernel_info_request", {}), origin, sink, () => ({ status: "ok" }));
    expect(sent).toEqual(["status busy", "kernel_info_reply error Invalid string length", "status idle"]);
  });

  test("no reply for a null content (comm messages): busy and idle only", () => {
    const { sent, sink } = collect();
    answer(request("comm_msg", { comm_id: "c" }), origin, sink, () => null);
    expect(describeSent(sent)).toEqual(["iopub status busy", "iopub status idle"]);
  });
});

describe("DropLog", () => {
  test("the first drops of an interval in full, the rest as one count by channel and kind", () => {
    const lines: string[] = [];
    let now = 1000;
    const log = new DropLog((l) => lines.push(l), 3, 10_000, () => now);
    for (let i = 0; i < 3; i++) log.drop("shell", "invalid signature", `invalid message signature #${i}`);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe("dropped a shell message: invalid message signature #0");
    expect(lines[2]).toContain("further drops in the next 10 s are counted, not shown");
    for (let i = 0; i < 500; i++) log.drop("shell", "invalid signature", "x");
    for (let i = 0; i < 20; i++) log.drop("control", "not JSON", "y");
    log.reject("shell", "malformed request", "z");
    expect(lines).toHaveLength(3);
    now += 10_000;
    log.drop("shell", "no delimiter", "no <IDS|MSG> delimiter in 1 message frames");
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe("521 more messages dropped or refused in 10 s, not shown one by one: "
      + "shell: invalid signature ×500, control: not JSON ×20, shell: malformed request (answered with an error) ×1");
    expect(lines[4]).toBe("dropped a shell message: no <IDS|MSG> delimiter in 1 message frames");
    expect(log.total).toBe(525);
    log.flush();
  });
});
