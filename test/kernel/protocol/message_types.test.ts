/**
 * The request table (kernel/protocol/message_types.ts) and what is derived
 * from it: the inbound check, the replies of the outbound schema, the error
 * replies, the main thread's handler table and the socket thread's list.
 * No kernel, no sockets.
 */
import { makeHandlers, HandlerDeps } from "../../../kernel/handlers";
import { admit } from "../../../kernel/protocol/inbound";
import { Message, newHeader, replyType } from "../../../kernel/protocol/message";
import {
  answeredOnSocketThread, errorReplyContent, InboundType, isInboundType, REQUESTS, requestRow,
} from "../../../kernel/protocol/message_types";
import { describeViolation, knownTypes, validateOutbound } from "../../../kernel/protocol/outbound_schema";

const origin = { session: "s1", username: "u" };
const TYPES = Object.keys(REQUESTS) as InboundType[];

function request(type: string, content: unknown): Message {
  return { idents: [], header: newHeader(type, origin), parent_header: {}, metadata: {}, content: content as any, buffers: [] };
}

/** The violations of a reply of `type` with this content, sent on `channel` in answer to a request of `type`. */
function replyProblems(type: InboundType, channel: "shell" | "control", content: unknown): string[] {
  const parent = newHeader(type, { session: "c1", username: "client" });
  return validateOutbound({ channel, header: newHeader(replyType(type), origin), parent_header: parent, metadata: {}, content })
    .map(describeViolation);
}

describe("the request table", () => {
  test("has the requests of the messaging spec the kernel answers, and usage_request", () => {
    expect(TYPES.sort()).toEqual([
      "comm_close", "comm_info_request", "comm_msg", "comm_open", "complete_request", "execute_request", "history_request",
      "input_reply", "inspect_request", "interrupt_request", "is_complete_request", "kernel_info_request", "shutdown_request",
      "usage_request",
    ]);
    expect(isInboundType("execute_request")).toBe(true);
    // Only the table's own keys: not what every object inherits.
    for (const t of ["__proto__", "constructor", "toString", "execute_reply"]) expect(isInboundType(t)).toBe(false);
  });

  test("every row is whole: known channels, each once; a content rule; a reply rule exactly for the *_request types; a thread", () => {
    for (const type of TYPES) {
      const row = requestRow(type);
      expect([type, row.channels.length > 0, new Set(row.channels).size === row.channels.length]).toEqual([type, true, true]);
      for (const c of row.channels) expect([type, ["shell", "control", "stdin"]]).toEqual([type, expect.arrayContaining([c])]);
      expect([type, typeof row.content]).toEqual([type, "function"]);
      // Comm messages and input_reply are answered by nothing; every request is answered by its reply.
      expect([type, row.reply === null ? "none" : typeof row.reply]).toEqual([type, type.endsWith("_request") ? "function" : "none"]);
      if (row.reply === null) expect([type, row.onError]).toEqual([type, undefined]);
      expect([type, ["main", "socket", "socket, then main"]]).toEqual([type, expect.arrayContaining([row.thread])]);
      // A row the socket thread answers comes on control (or is stdin's input_reply, read there).
      if (row.thread !== "main") expect([type, row.channels.some((c) => c === "control" || c === "stdin")]).toEqual([type, true]);
    }
  });

  test("every type is admitted on each of its channels and dropped on the others, naming where it belongs", () => {
    const wellFormed: Record<InboundType, unknown> = {
      kernel_info_request: {}, execute_request: { code: "1" }, inspect_request: { code: "x", cursor_pos: 1 },
      complete_request: { code: "x", cursor_pos: 1 }, history_request: { hist_access_type: "tail", n: 1 },
      is_complete_request: { code: "x" }, comm_info_request: {}, comm_open: { comm_id: "c", target_name: "t" },
      comm_msg: { comm_id: "c" }, comm_close: { comm_id: "c" }, shutdown_request: { restart: false },
      interrupt_request: {}, usage_request: {}, input_reply: { value: "v" },
    };
    for (const type of TYPES) {
      const row = requestRow(type);
      for (const channel of ["shell", "control", "stdin"] as const) {
        const a = admit(channel, request(type, wellFormed[type]));
        if (row.channels.includes(channel)) {
          expect([type, channel, a.kind]).toEqual([type, channel, "ok"]);
        } else {
          expect([type, channel, a.kind]).toEqual([type, channel, "drop"]);
          expect(a.kind === "drop" && a.reason).toBe(`${type} on ${channel}; it is accepted on ${row.channels.join(" and ")} only`);
        }
      }
    }
  });

  test("a malformed request with a reply is rejected; without one (comm messages, input_reply) it is dropped", () => {
    for (const type of TYPES) {
      const row = requestRow(type);
      const a = admit(row.channels[0], request(type, "not an object"));
      if (row.content === REQUESTS.kernel_info_request.content) {
        // Content never read: anything is taken.
        expect([type, a.kind]).toEqual([type, "ok"]);
      } else {
        expect([type, a.kind]).toEqual([type, row.reply === null ? "drop" : "reject"]);
      }
    }
  });

  test("the outbound schema checks the reply of every type that has one, on shell and on control, with the row's rule", () => {
    const withReply = TYPES.filter((t) => requestRow(t).reply !== null);
    expect(withReply).toContain("usage_request");
    for (const channel of ["shell", "control"] as const) {
      expect(knownTypes(channel).sort()).toEqual(withReply.map(replyType).sort());
    }
    // The row's rule is the one applied: a reply without its fields breaks it.
    expect(replyProblems("history_request", "shell", { status: "ok" })).toEqual([
      "shell history_reply: content.history: expected a field that is present, got nothing (the field is missing)",
    ]);
  });

  test("the error reply of every type with a reply passes the outbound schema (its row's onError fields)", () => {
    const err = new RangeError("handler failed");
    for (const type of TYPES.filter((t) => requestRow(t).reply !== null && t !== "kernel_info_request")) {
      expect([type, replyProblems(type, "shell", errorReplyContent(type, err))]).toEqual([type, []]);
    }
    expect(errorReplyContent("execute_request", err)).toMatchObject({ status: "error", ename: "RangeError", execution_count: 0, payload: [] });
    expect(errorReplyContent("is_complete_request", err)).toEqual({ status: "unknown" });
    expect(errorReplyContent("interrupt_request", err)).toEqual({
      status: "error", ename: "RangeError", evalue: "handler failed", traceback: [String(err.stack)],
    });
  });

  test("the main thread's handler table answers exactly the types that come on shell or that control forwards", () => {
    const handlers = makeHandlers({} as HandlerDeps);
    const main = TYPES.filter((t) => requestRow(t).channels.includes("shell")
      || (requestRow(t).channels.includes("control") && requestRow(t).thread !== "socket"));
    expect(Object.keys(handlers).sort()).toEqual(main.sort());
  });

  test("the socket thread answers interrupt, kernel_info, usage and shutdown on control; nothing else", () => {
    expect(TYPES.filter(answeredOnSocketThread).sort()).toEqual(["interrupt_request", "kernel_info_request", "shutdown_request", "usage_request"]);
    // Shutdown goes to the main thread too (the socket thread answers only if the main thread does not).
    expect(requestRow("shutdown_request").thread).toBe("socket, then main");
  });
});
