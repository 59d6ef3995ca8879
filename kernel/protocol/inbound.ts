/**
 * What a kernel accepts: the requests of the messaging spec (5.3/5.4) that
 * come in on shell, control and stdin, as a discriminated union on
 * `header.msg_type`, and the check that every decoded message passes before a
 * handler sees it. A handler receives a request whose content has the types
 * below; a message that does not fit is answered with an error reply naming
 * the field (when it is a request whose header can be answered), or dropped
 * and logged (when no reply can be addressed: a broken header, a type that is
 * not a request, a comm message, an input_reply).
 *
 * Written with the rules of schema_rules.ts, like the outbound schema; a
 * request's optional fields may be missing, or null where clients send null.
 * Pure: no sockets, no user code.
 */
import type { Header, Message } from "./message";
import { requestHeader as headerRule } from "./outbound_schema";
import {
  anyJson, anyObject, bool, check, Fields, int, isObject, mapOf, nonEmptyStr, nullable, obj, oneOf, Problem, Rule, shown, str, uint,
} from "./schema_rules";

export interface ExecuteRequest {
  code: string; silent?: boolean; store_history?: boolean; user_expressions?: Record<string, string>;
  allow_stdin?: boolean; stop_on_error?: boolean;
}
export interface CodeAtCursor { code: string; cursor_pos: number; detail_level?: number }
export interface HistoryRequest {
  hist_access_type: "range" | "tail" | "search"; output?: boolean; raw?: boolean;
  session?: number | null; start?: number | null; stop?: number | null; n?: number | null;
  pattern?: string | null; unique?: boolean | null;
}
export interface CommOpen { comm_id: string; target_name: string; data?: Record<string, unknown>; target_module?: string | null }
export interface CommMsg { comm_id: string; data?: Record<string, unknown> }
export type Empty = Record<string, never>;

/** Content of each msg_type the kernel accepts. */
export interface InboundContent {
  kernel_info_request: Empty;
  execute_request: ExecuteRequest;
  inspect_request: CodeAtCursor;
  complete_request: CodeAtCursor;
  history_request: HistoryRequest;
  is_complete_request: { code: string };
  comm_info_request: { target_name?: string | null };
  comm_open: CommOpen;
  comm_msg: CommMsg;
  comm_close: CommMsg;
  shutdown_request: { restart?: boolean };
  interrupt_request: Empty;
  /** jupyter-resource-usage's request (not in the spec). */
  usage_request: Empty;
  input_reply: { value: string };
}

export type InboundType = keyof InboundContent;


/** A decoded, checked message of one type: `msg.header.msg_type` tells TypeScript which content it has. */
export type Inbound<T extends InboundType = InboundType> = T extends InboundType
  ? Message<InboundContent[T]> & { header: Header & { msg_type: T } }
  : never;

/** Narrows a checked message to one type (TypeScript does not narrow on the nested `header.msg_type`). */
export function isType<T extends InboundType>(msg: Inbound, type: T): msg is Inbound<T> {
  return msg.header.msg_type === type;
}

const code = { code: str };
const detailLevel: Rule = (v, path, out) => { if (v !== 0 && v !== 1) out.push({ field: path, expected: "0 or 1", value: v }); };
const atCursor = obj({ ...code, cursor_pos: uint }, { detail_level: detailLevel });

const commMsg = obj({ comm_id: nonEmptyStr }, { data: anyObject });

/** How each type's content is checked, and the channels it may come on. */
const SPEC: { [T in InboundType]: { content: Rule; channels: readonly string[] } } = {
  // Requests whose content the kernel never reads take any content (the spec's is {}).
  kernel_info_request: { content: anyJson, channels: ["shell", "control"] },
  execute_request: {
    content: obj(code, {
      silent: bool, store_history: bool, user_expressions: mapOf(str), allow_stdin: bool, stop_on_error: bool,
    }),
    channels: ["shell"],
  },
  inspect_request: { content: atCursor, channels: ["shell"] },
  complete_request: { content: atCursor, channels: ["shell"] },
  history_request: {
    content: obj({ hist_access_type: oneOf("range", "tail", "search") }, {
      output: bool, raw: bool, session: nullable(int), start: nullable(int), stop: nullable(int), n: nullable(uint),
      pattern: nullable(str), unique: nullable(bool),
    } satisfies Fields),
    channels: ["shell"],
  },
  is_complete_request: { content: obj(code), channels: ["shell"] },
  comm_info_request: { content: obj({}, { target_name: nullable(str) }), channels: ["shell"] },
  comm_open: { content: obj({ comm_id: nonEmptyStr, target_name: str }, { data: anyObject, target_module: nullable(str) }), channels: ["shell"] },
  comm_msg: { content: commMsg, channels: ["shell"] },
  comm_close: { content: commMsg, channels: ["shell"] },
  shutdown_request: { content: obj({}, { restart: bool }), channels: ["shell", "control"] },
  interrupt_request: { content: anyJson, channels: ["control"] },
  usage_request: { content: anyJson, channels: ["shell", "control"] },
  input_reply: { content: obj({ value: str }), channels: ["stdin"] },
};

/** Types without a reply: a malformed one can only be dropped. */
const NO_REPLY = new Set<string>(["comm_open", "comm_msg", "comm_close", "input_reply"]);

export function isInboundType(type: string): type is InboundType {
  return Object.prototype.hasOwnProperty.call(SPEC, type);
}

/** Whether a message of this type may come on this channel. */
export function acceptsOn(type: InboundType, channel: string): boolean {
  return SPEC[type].channels.includes(channel);
}

/** The outcome of checking a message at the boundary. */
export type Admission =
  | { kind: "ok"; msg: Inbound }
  /** Answer with an error reply (`problems` say what is wrong); nothing runs. */
  | { kind: "reject"; msg: Message; reason: string }
  /** No reply can be made: log `reason` and forget the message. */
  | { kind: "drop"; reason: string };

function describe(problems: Problem[], max = 3): string {
  const parts = problems.slice(0, max).map((p) => `expected ${p.expected} for ${p.field}, got ${shown(p.value, 60)}`);
  return parts.join("; ") + (problems.length > max ? `; and ${problems.length - max} more` : "");
}

/**
 * Checks a decoded (signature-verified) message that came on `channel`.
 * The header must be a full header (clients match replies to it); the type
 * one the kernel accepts on this channel; the content, metadata and parent
 * header of the right shapes.
 */
export function admit(channel: "shell" | "control" | "stdin", msg: Message): Admission {
  const headerProblems = check(headerRule, msg.header, "header");
  const type = isObject(msg.header) ? (msg.header as { msg_type?: unknown }).msg_type : undefined;
  const named = typeof type === "string" ? type.slice(0, 80) : shown(type, 40);
  if (headerProblems.length) return { kind: "drop", reason: `a ${channel} ${named} with a malformed header: ${describe(headerProblems)}` };
  if (typeof type !== "string" || !isInboundType(type)) return { kind: "drop", reason: `a ${channel} message of unknown type ${named}` };
  if (!acceptsOn(type, channel)) {
    return { kind: "drop", reason: `${type} on ${channel}; it is accepted on ${SPEC[type].channels.join(" and ")} only` };
  }
  // A request that reads nothing of its message (kernel_info, interrupt, usage) is answered whatever came with it.
  if (SPEC[type].content === anyJson) return { kind: "ok", msg: msg as Inbound };
  const problems = check(SPEC[type].content, msg.content, "content");
  if (!isObject(msg.metadata)) problems.push({ field: "metadata", expected: "an object", value: msg.metadata });
  if (!isObject(msg.parent_header)) problems.push({ field: "parent_header", expected: "an object", value: msg.parent_header });
  if (!problems.length) return { kind: "ok", msg: msg as Inbound };
  const reason = `malformed ${type}: ${describe(problems)}`;
  return NO_REPLY.has(type) ? { kind: "drop", reason: `a ${channel} ${reason}` } : { kind: "reject", msg, reason };
}

/** The error a rejected request is answered with (its reply's ename). */
export class InvalidRequestError extends Error {
  constructor(message: string) { super(message); this.name = "InvalidRequest"; }
}
