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
 * This module checks what goes out; it knows nothing of requests that come in.
 */
import {
  anyJson, anyObject, anyOf, arrayOf, bool, described, Described, Fields, isObject, isoDate, mapOf, matching,
  nonEmptyStr, num, obj, oneOf, Problem, Rule, shown, str, tuple, uint,
} from "./schema_rules";

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

const MIME_KEY = /^[A-Za-z0-9][\w.+-]*\/[\w.+-]+$/;
const JSON_MIME = /^application\/json$|\+json$/;

/** Tabular data resources: the one JSON mime type whose shape the strict parser reads (schema.fields with name and type). */
const dataResource = obj({
  schema: obj({
    fields: arrayOf(obj({
      name: str,
      type: oneOf("string", "number", "integer", "date", "time", "datetime", "year", "yearmonth", "boolean",
        "object", "geopoint", "geojson", "array", "duration", "any"),
    })),
  }),
});

/** A mime bundle: text and images as strings (base64 for binary images), JSON types as any JSON. */
export const mimeBundle: Rule = (v, path, out) => {
  if (!isObject(v)) { out.push({ field: path, expected: "a mime bundle (an object keyed by mime type)", value: v }); return; }
  for (const [key, value] of Object.entries(v)) {
    const at = `${path}["${key}"]`;
    if (!MIME_KEY.test(key)) out.push({ field: at, expected: "a key that is a mime type (type/subtype)", value: key });
    else if (key === "application/vnd.dataresource+json") dataResource(value, at, out);
    else if (!JSON_MIME.test(key)) str(value, at, out);
  }
};

/** A message header the kernel sends: every field a string, the date ISO 8601 with a zone. */
export const header = obj({
  msg_id: nonEmptyStr, msg_type: nonEmptyStr, session: str, username: str, date: isoDate,
  version: matching(/^5\.\d+$/, "a protocol version 5.x"),
});

/**
 * A request's header as a client sent it (and as the kernel echoes it in
 * parent_header): every field a string, the id and type not empty. The date
 * and version are not parsed (ipykernel reads neither, and an empty date is
 * no reason to drop a request).
 */
export const requestHeader = obj({ msg_id: nonEmptyStr, msg_type: nonEmptyStr, session: str, username: str, date: str, version: str });

const replyStatus = oneOf("ok", "error", "aborted");
const errorFields: Fields = { ename: str, evalue: str, traceback: arrayOf(str) };

/**
 * A reply: `status` always; with "ok" every field of `fields`; with "error"
 * ename/evalue/traceback and the fields named in `evenOnError`; with
 * "aborted" nothing more. Fields present beyond those must still fit.
 */
function reply(fields: Fields, evenOnError: string[] = []): Rule {
  const pick = (names: string[]) => Object.fromEntries(names.map((n) => [n, fields[n]]));
  const okRule = obj({ status: replyStatus, ...fields });
  const errorRule = obj({ status: replyStatus, ...errorFields, ...pick(evenOnError) }, fields);
  const abortedRule = obj({ status: replyStatus }, { ...fields, ...errorFields });
  return (v, path, out) => {
    const status = isObject(v) ? v.status : undefined;
    if (status === "error") errorRule(v, path, out);
    else if (status === "aborted") abortedRule(v, path, out);
    else okRule(v, path, out);
  };
}

const codemirrorMode = anyOf(
  described("a mode name (string)", str),
  described("{name: string, version: non-negative integer}", obj({ name: str, version: uint })),
);

const languageInfo = obj(
  { name: nonEmptyStr, version: str, mimetype: str, file_extension: matching(/^\.\w+$/, "a file extension starting with a dot") },
  { pygments_lexer: str, codemirror_mode: codemirrorMode.rule, nbconvert_exporter: str },
);

const payload: Rule = (() => {
  const forms: Record<string, Rule> = {
    page: obj({ data: mimeBundle, start: uint }),
    set_next_input: obj({ text: str, replace: bool }),
    edit_magic: obj({ filename: str, line_number: uint }),
    ask_exit: obj({ keepkernel: bool }),
  };
  const source = oneOf(...Object.keys(forms));
  return (v, path, out) => {
    const s = isObject(v) ? v.source : undefined;
    if (typeof s === "string" && forms[s]) forms[s](v, path, out);
    else source(s, `${path}.source`, out);
  };
})();

const expressionResult: Rule = (v, path, out) => {
  if (isObject(v) && v.status === "error") obj({ status: oneOf("error"), ...errorFields })(v, path, out);
  else obj({ status: oneOf("ok", "error"), data: mimeBundle, metadata: anyObject })(v, path, out);
};

const historyEntry: Described = anyOf(
  described("[session, line, input]", tuple(uint, uint, str)),
  described("[session, line, [input, output]] (strings)", tuple(uint, uint, tuple(str, str))),
);

const display = { data: mimeBundle, metadata: anyObject };
const transient = obj({}, { display_id: str });

/** Replies: sent on shell or control (the kernel answers a request on the channel it came on). */
const REPLIES: Record<string, Rule> = {
  kernel_info_reply: reply({
    protocol_version: matching(/^5\.\d+$/, "a protocol version 5.x"), implementation: nonEmptyStr,
    implementation_version: str, language_info: languageInfo, banner: str,
    help_links: arrayOf(obj({ text: str, url: str })), debugger: bool,
  }, ["protocol_version", "language_info"]),
  execute_reply: reply({ execution_count: uint, user_expressions: mapOf(expressionResult), payload: arrayOf(payload) }, ["execution_count"]),
  inspect_reply: reply({ found: bool, ...display }),
  complete_reply: reply({ matches: arrayOf(str), cursor_start: uint, cursor_end: uint, metadata: anyObject }),
  history_reply: reply({ history: arrayOf(historyEntry.rule) }, ["history"]),
  comm_info_reply: reply({ comms: mapOf(obj({ target_name: str })) }),
  shutdown_reply: reply({ restart: bool }, ["restart"]),
  interrupt_reply: reply({}),
  // is_complete_reply's status is the verdict, not a reply status.
  is_complete_reply: (v, path, out) => {
    obj({ status: oneOf("complete", "incomplete", "invalid", "unknown") }, { indent: str })(v, path, out);
    if (isObject(v) && v.status === "incomplete") obj({ indent: str })(v, path, out);
  },
  // Not in the spec: jupyter-resource-usage's request, answered like every reply.
  usage_reply: reply({ hostname: str, pid: uint, kernel_cpu: num, kernel_memory: uint, cpu_count: uint, host_virtual_memory: anyObject }),
};

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
