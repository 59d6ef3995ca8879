/**
 * Jupyter message shapes (messaging protocol 5.3+) and the helpers that build
 * replies. Pure data: no sockets, no user code.
 */
import { randomUUID } from "crypto";

export const PROTOCOL_VERSION = "5.4";

export type Channel = "shell" | "control" | "iopub" | "stdin";

export interface Header {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
  [key: string]: unknown;
}

export interface Message<C = Record<string, any>> {
  /** Routing identities from the ROUTER socket (before `<IDS|MSG>`). */
  idents: Buffer[];
  header: Header;
  parent_header: Header | Record<string, never>;
  metadata: Record<string, any>;
  content: C;
  buffers: Buffer[];
}

/** Identity of the sender of messages made by this process. */
export interface Origin {
  session: string;
  username: string;
}

/**
 * The time now in ISO 8601 with microseconds, as jupyter_client writes it;
 * within one process each value is later than the one before (it counts from
 * the process's monotonic clock), so two requests sent in one millisecond
 * still say which came first.
 */
export function isoNow(): string {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.floor((ms - whole) * 1000));
  return new Date(whole).toISOString().replace("Z", `${String(micros).padStart(3, "0")}Z`);
}

/** Microseconds since the epoch of an ISO 8601 date with a zone (any number of fraction digits), or NaN. */
export function isoMicros(date: unknown): number {
  if (typeof date !== "string") return NaN;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(date);
  if (!m) return NaN;
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  return seconds * 1000 + Number(((m[2] ?? "") + "000000").slice(0, 6));
}

export function newHeader(msgType: string, origin: Origin): Header {
  return {
    msg_id: randomUUID(),
    msg_type: msgType,
    session: origin.session,
    username: origin.username,
    date: isoNow(),
    version: PROTOCOL_VERSION,
  };
}

/** A message whose parent is `parent`; replies go back to the parent's identities. */
export function reply<C>(parent: Message | undefined, msgType: string, content: C, origin: Origin,
                         metadata: Record<string, any> = {}): Message<C> {
  return {
    idents: parent ? parent.idents : [],
    header: newHeader(msgType, origin),
    parent_header: parent ? parent.header : {},
    metadata,
    content,
    buffers: [],
  };
}

/** The reply type of a request type: `execute_request` → `execute_reply`. */
export function replyType(requestType: string): string {
  return requestType.endsWith("_request") ? requestType.slice(0, -"_request".length) + "_reply" : requestType + "_reply";
}
