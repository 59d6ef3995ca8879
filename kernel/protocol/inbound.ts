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
 * The types, their channels and content rules are the rows of the request
 * table (message_types.ts); a request's optional fields may be missing, or
 * null where clients send null. Pure: no sockets, no user code.
 */
import type { Header, Message } from "./message";
import { requestHeader as headerRule } from "./content_rules";
import { InboundContent, InboundType, isInboundType, requestRow } from "./message_types";
import { anyJson, check, isObject, Problem, shown } from "./schema_rules";

export { isInboundType } from "./message_types";
export type {
  CodeAtCursor, CommMsg, CommOpen, Empty, ExecuteRequest, HistoryRequest, InboundContent, InboundType,
} from "./message_types";

/** A decoded, checked message of one type: `msg.header.msg_type` tells TypeScript which content it has. */
export type Inbound<T extends InboundType = InboundType> = T extends InboundType
  ? Message<InboundContent[T]> & { header: Header & { msg_type: T } }
  : never;

/** Narrows a checked message to one type (TypeScript does not narrow on the nested `header.msg_type`). */
export function isType<T extends InboundType>(msg: Inbound, type: T): msg is Inbound<T> {
  return msg.header.msg_type === type;
}

/** Whether a message of this type may come on this channel. */
export function acceptsOn(type: InboundType, channel: string): boolean {
  return (requestRow(type).channels as readonly string[]).includes(channel);
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
    return { kind: "drop", reason: `${type} on ${channel}; it is accepted on ${requestRow(type).channels.join(" and ")} only` };
  }
  // A request that reads nothing of its message (kernel_info, interrupt, usage) is answered whatever came with it.
  const row = requestRow(type);
  if (row.content === anyJson) return { kind: "ok", msg: msg as Inbound };
  const problems = check(row.content, msg.content, "content");
  if (!isObject(msg.metadata)) problems.push({ field: "metadata", expected: "an object", value: msg.metadata });
  if (!isObject(msg.parent_header)) problems.push({ field: "parent_header", expected: "an object", value: msg.parent_header });
  if (!problems.length) return { kind: "ok", msg: msg as Inbound };
  const reason = `malformed ${type}: ${describe(problems)}`;
  // Without a reply (comm messages, input_reply) there is nothing to answer it with.
  return row.reply === null ? { kind: "drop", reason: `a ${channel} ${reason}` } : { kind: "reject", msg, reason };
}

/** The error a rejected request is answered with (its reply's ename). */
export class InvalidRequestError extends Error {
  constructor(message: string) { super(message); this.name = "InvalidRequest"; }
}
