/**
 * A strict schema of every message a kernel sends (Jupyter messaging spec
 * 5.3/5.4), by channel and msg_type, and the check of one message against it.
 *
 * Written from the spec, and at least as strict as the typed parsers of the
 * Rust crates `jupyter-protocol`/`runtimelib` (Zed's REPL, runtimed's kernel
 * testbed): where the two differ, the stricter rule is kept. In particular:
 * - every reply carries `status` ("ok", "error" or "aborted", as spelled in
 *   the spec), interrupt_reply, shutdown_reply, comm_info_reply and
 *   usage_reply included; an error reply carries ename/evalue/traceback;
 * - an error reply still carries the fields those parsers read without a
 *   default (history for history_reply, restart for shutdown_reply,
 *   protocol_version and language_info for kernel_info_reply);
 * - counts, cursors and line numbers are non-negative integers (Rust usize):
 *   never null, never fractional;
 * - `codemirror_mode` is a string or `{name: string, version: integer}`;
 * - mime bundles map `type/subtype` keys to strings, except JSON types
 *   (`application/json`, `*+json`), whose values are any JSON;
 * - `metadata` (of the message, and of display outputs) is an object;
 * - a header has every field as a string, its date in ISO 8601 with a zone.
 * Extra fields are allowed, as the spec allows them and the parsers ignore them.
 *
 * The replies' rules are the request table's (message_types.ts); the parts
 * both share are in content_rules.ts. This module checks what goes out.
 */
import { display, errorFields, header, mimeBundle, requestHeader, transient } from "./content_rules";
import { replyRules } from "./message_types";
import { anyObject, bool, isObject, nonEmptyStr, obj, oneOf, Problem, Rule, shown, str, uint } from "./schema_rules";

export { header, mimeBundle, requestHeader } from "./content_rules";

export type OutboundChannel = "shell" | "control" | "iopub" | "stdin";

/** A message as the kernel sent it (buffers aside). */
export interface OutboundMessage {
  channel: string;
  header: unknown;
  parent_header: unknown;
  metadata: unknown;
  content: unknown;
}

/** A field of a sent message that breaks the schema. */
export interface Violation extends Problem {
  channel: string;
  msgType: string;
}

/** Replies: sent on shell or control (the kernel answers a request on the channel it came on); from the request table. */
const REPLIES: Record<string, Rule> = replyRules();

const IOPUB: Record<string, Rule> = {
  status: obj({ execution_state: oneOf("busy", "idle", "starting") }),
  stream: obj({ name: oneOf("stdout", "stderr"), text: str }),
  display_data: obj(display, { transient }),
  update_display_data: obj({ ...display, transient: obj({ display_id: str }) }),
  execute_input: obj({ code: str, execution_count: uint }),
  execute_result: obj({ execution_count: uint, ...display }, { transient }),
  error: obj(errorFields),
  clear_output: obj({ wait: bool }),
  comm_open: obj({ comm_id: nonEmptyStr, target_name: str, data: anyObject }, { target_module: str }),
  comm_msg: obj({ comm_id: nonEmptyStr, data: anyObject }),
  comm_close: obj({ comm_id: nonEmptyStr, data: anyObject }),
  iopub_welcome: obj({ subscription: str }),
};

const STDIN: Record<string, Rule> = {
  input_request: obj({ prompt: str, password: bool }),
};

/** The content rule of each msg_type a kernel may send on a channel. */
export const OUTBOUND: Record<OutboundChannel, Record<string, Rule>> = {
  shell: REPLIES, control: REPLIES, iopub: IOPUB, stdin: STDIN,
};

/** Every msg_type the schema knows, by channel (for coverage reports). */
export function knownTypes(channel: OutboundChannel): string[] {
  return Object.keys(OUTBOUND[channel]);
}

function isReply(type: string): boolean {
  return type.endsWith("_reply");
}

/** Checks one sent message; returns every violation (none: the message is valid). */
export function validateOutbound(m: OutboundMessage): Violation[] {
  const out: Problem[] = [];
  const type = isObject(m.header) && typeof m.header.msg_type === "string" ? m.header.msg_type : "(no msg_type)";
  header(m.header, "header", out);
  const table = (OUTBOUND as Record<string, Record<string, Rule> | undefined>)[m.channel];
  if (!table) out.push({ field: "channel", expected: `one of ${Object.keys(OUTBOUND).join(", ")}`, value: m.channel });
  else if (!table[type]) out.push({ field: "header.msg_type", expected: `a type the kernel sends on ${m.channel}: ${Object.keys(table).join(", ")}`, value: type });
  else table[type](m.content, "content", out);
  anyObject(m.metadata, "metadata", out);
  const parent = m.parent_header;
  if (!isObject(parent)) out.push({ field: "parent_header", expected: "an object (a header, or {} when there is no parent)", value: parent });
  else if (Object.keys(parent).length) requestHeader(parent, "parent_header", out);
  // A reply and an input_request answer a request: clients match them to it by the parent's msg_id.
  if ((isReply(type) || type === "input_request") && isObject(parent)) {
    if (!Object.keys(parent).length) out.push({ field: "parent_header", expected: "the header of the request answered", value: parent });
    else if (isReply(type) && typeof parent.msg_type === "string" && parent.msg_type.endsWith("_request")
             && parent.msg_type.replace(/_request$/, "_reply") !== type) {
      out.push({ field: "header.msg_type", expected: `${parent.msg_type.replace(/_request$/, "_reply")} (the reply to ${parent.msg_type})`, value: type });
    }
  }
  return out.map((p) => ({ ...p, channel: m.channel, msgType: type }));
}

/** One line per violation: channel, msg_type, field, what was expected and the value found. */
export function describeViolation(v: Violation): string {
  return `${v.channel} ${v.msgType}: ${v.field}: expected ${v.expected}, got ${shown(v.value)}`;
}
