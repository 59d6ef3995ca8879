/**
 * The one table of the requests a kernel accepts (messaging spec 5.3/5.4,
 * plus jupyter-resource-usage's usage_request): for each msg_type the
 * channels it may come on, the rule its content must pass, the rule of its
 * reply, what a failed handler's reply still carries, and which thread
 * answers it. Everything else is derived from here:
 *
 *   - the inbound check (inbound.ts `admit`): type, channel, content;
 *   - the replies of the outbound schema (outbound_schema.ts);
 *   - the error replies (`errorReplyContent`, used by bracket.ts);
 *   - which types the main thread's handler table must answer
 *     (`MainThreadType`: dispatcher.ts `Handlers`, handlers.ts) and which
 *     the socket thread answers on control (`SocketThreadType`: worker.ts).
 *
 * A new request type is one row here, its content type in `InboundContent`
 * and its handler. Pure: no sockets, no user code.
 */
import { display, expressionResult, historyEntry, languageInfo, payload, reply } from "./content_rules";
import { replyType } from "./message";
import {
  anyJson, anyObject, arrayOf, bool, Fields, int, isObject, mapOf, matching, nonEmptyStr, nullable, num, obj, oneOf, Rule, str, uint,
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

/** Content of each msg_type the kernel accepts, as its handler sees it (the table's `content` rule checks it). */
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

export type InboundChannel = "shell" | "control" | "stdin";

/**
 * Who answers a request that comes on control (one that comes on shell is
 * always the main thread's):
 *   "main"               the main thread's handler table (handlers.ts), to which the socket thread forwards it;
 *   "socket"             the socket thread (worker.ts `onThisThread`), so that it is answered while a cell
 *                        holds the main thread; for input_reply (stdin): read into the stdin mailbox there;
 *   "socket, then main"  the socket thread forwards it to the main thread and answers it itself only if
 *                        the main thread has not after a grace period (shutdown of a kernel stuck in a cell).
 * Before the kernel serves, a first kernel_info_request on shell is answered by transport/bridge.ts.
 */
export type Thread = "main" | "socket" | "socket, then main";

/** One row of the table. */
export interface RequestRow {
  /** The channels it may come on; on any other it is dropped and logged. */
  readonly channels: readonly InboundChannel[];
  /** The rule its content must pass (`anyJson`: the content is never read, and anything is taken). */
  readonly content: Rule;
  /**
   * The rule of its reply's content (the reply's type is the request's with `_reply` for `_request`),
   * or null when it has no reply: then a malformed one can only be dropped.
   */
  readonly reply: Rule | null;
  /**
   * What the reply of a failed handler carries: `fields` beside status, ename, evalue and traceback
   * (the spec asks only for those, but strict clients, such as the Rust `jupyter-protocol` types of Zed's
   * REPL, cannot read these replies without them, so they come with empty values); or `content`
   * instead of all of that.
   */
  readonly onError?: { readonly fields: Readonly<Record<string, unknown>> } | { readonly content: Readonly<Record<string, unknown>> };
  readonly thread: Thread;
}

const code = { code: str };
const detailLevel: Rule = (v, path, out) => { if (v !== 0 && v !== 1) out.push({ field: path, expected: "0 or 1", value: v }); };
const atCursor = obj({ ...code, cursor_pos: uint }, { detail_level: detailLevel });
const commMsg = obj({ comm_id: nonEmptyStr }, { data: anyObject });

/** The table: one row per msg_type a kernel accepts. */
export const REQUESTS = {
  // Requests whose content the kernel never reads take any content (the spec's is {}).
  kernel_info_request: {
    channels: ["shell", "control"], content: anyJson,
    reply: reply({
      protocol_version: matching(/^5\.\d+$/, "a protocol version 5.x"), implementation: nonEmptyStr,
      implementation_version: str, language_info: languageInfo, banner: str,
      help_links: arrayOf(obj({ text: str, url: str })), debugger: bool,
    }, ["protocol_version", "language_info"]),
    thread: "socket",
  },
  execute_request: {
    channels: ["shell"],
    content: obj(code, { silent: bool, store_history: bool, user_expressions: mapOf(str), allow_stdin: bool, stop_on_error: bool }),
    reply: reply({ execution_count: uint, user_expressions: mapOf(expressionResult), payload: arrayOf(payload) }, ["execution_count"]),
    onError: { fields: { execution_count: 0, user_expressions: {}, payload: [] } },
    thread: "main",
  },
  inspect_request: {
    channels: ["shell"], content: atCursor,
    reply: reply({ found: bool, ...display }),
    onError: { fields: { found: false, data: {}, metadata: {} } },
    thread: "main",
  },
  complete_request: {
    channels: ["shell"], content: atCursor,
    reply: reply({ matches: arrayOf(str), cursor_start: uint, cursor_end: uint, metadata: anyObject }),
    onError: { fields: { matches: [], cursor_start: 0, cursor_end: 0, metadata: {} } },
    thread: "main",
  },
  history_request: {
    channels: ["shell"],
    content: obj({ hist_access_type: oneOf("range", "tail", "search") }, {
      output: bool, raw: bool, session: nullable(int), start: nullable(int), stop: nullable(int), n: nullable(uint),
      pattern: nullable(str), unique: nullable(bool),
    } satisfies Fields),
    reply: reply({ history: arrayOf(historyEntry.rule) }, ["history"]),
    onError: { fields: { history: [] } },
    thread: "main",
  },
  is_complete_request: {
    channels: ["shell"], content: obj(code),
    // The reply's status is the verdict, not a reply status; "unknown" is its failure.
    reply: (v, path, out) => {
      obj({ status: oneOf("complete", "incomplete", "invalid", "unknown") }, { indent: str })(v, path, out);
      if (isObject(v) && v.status === "incomplete") obj({ indent: str })(v, path, out);
    },
    onError: { content: { status: "unknown" } },
    thread: "main",
  },
  comm_info_request: {
    channels: ["shell"], content: obj({}, { target_name: nullable(str) }),
    reply: reply({ comms: mapOf(obj({ target_name: str })) }),
    onError: { fields: { comms: {} } },
    thread: "main",
  },
  comm_open: {
    channels: ["shell"], content: obj({ comm_id: nonEmptyStr, target_name: str }, { data: anyObject, target_module: nullable(str) }),
    reply: null, thread: "main",
  },
  comm_msg: { channels: ["shell"], content: commMsg, reply: null, thread: "main" },
  comm_close: { channels: ["shell"], content: commMsg, reply: null, thread: "main" },
  shutdown_request: {
    channels: ["shell", "control"], content: obj({}, { restart: bool }),
    reply: reply({ restart: bool }, ["restart"]),
    onError: { fields: { restart: false } },
    thread: "socket, then main",
  },
  interrupt_request: { channels: ["control"], content: anyJson, reply: reply({}), thread: "socket" },
  // Not in the spec: jupyter-resource-usage asks on control, and the socket thread answers while a cell runs.
  usage_request: {
    channels: ["control"], content: anyJson,
    reply: reply({ hostname: str, pid: uint, kernel_cpu: num, kernel_memory: uint, cpu_count: uint, host_virtual_memory: anyObject }),
    thread: "socket",
  },
  input_reply: { channels: ["stdin"], content: obj({ value: str }), reply: null, thread: "socket" },
} as const satisfies { readonly [T in InboundType]: RequestRow };

type Rows = typeof REQUESTS;

/** The types the main thread's handler table answers: every type that may come on shell, and those control forwards. */
export type MainThreadType = {
  [T in InboundType]: "shell" extends Rows[T]["channels"][number] ? T
    : "control" extends Rows[T]["channels"][number] ? (Rows[T]["thread"] extends "socket" ? never : T) : never;
}[InboundType];

/** The control requests the socket thread answers itself (or forwards, for "socket, then main"). */
export type SocketThreadType = {
  [T in InboundType]: "control" extends Rows[T]["channels"][number] ? (Rows[T]["thread"] extends "main" ? never : T) : never;
}[InboundType];

/** Whether `type` is a row of the table. */
export function isInboundType(type: string): type is InboundType {
  return Object.prototype.hasOwnProperty.call(REQUESTS, type);
}

/** The row of a type (widened: the literal types are for the derived types above). */
export function requestRow(type: InboundType): RequestRow {
  return REQUESTS[type];
}

/** Whether the socket thread answers `type` when it comes on control. */
export function answeredOnSocketThread(type: InboundType): type is SocketThreadType {
  const row = requestRow(type);
  return row.thread !== "main" && row.channels.includes("control");
}

/** The reply content rule of every request that has a reply, by reply type (`kernel_info_reply`, …). */
export function replyRules(): Record<string, Rule> {
  const out: Record<string, Rule> = {};
  for (const type of Object.keys(REQUESTS) as InboundType[]) {
    const rule = requestRow(type).reply;
    if (rule) out[replyType(type)] = rule;
  }
  return out;
}

/** The reply content to a request of `requestType` whose handler failed with `err` (its row's `onError`). */
export function errorReplyContent(requestType: string, err: Error): Record<string, unknown> {
  const onError = isInboundType(requestType) ? requestRow(requestType).onError : undefined;
  if (onError && "content" in onError) return { ...onError.content };
  return {
    ...(onError?.fields ?? {}),
    status: "error", ename: err.name, evalue: err.message, traceback: [String(err.stack)],
  };
}
