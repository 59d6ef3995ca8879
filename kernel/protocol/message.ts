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

export function newHeader(msgType: string, origin: Origin): Header {
  return {
    msg_id: randomUUID(),
    msg_type: msgType,
    session: origin.session,
    username: origin.username,
    date: new Date().toISOString(),
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

/**
 * The fields a reply of this type carries even when it reports an error: the
 * spec asks only for ename/evalue/traceback, but strict clients (the Rust
 * `jupyter-protocol` types of Zed's REPL) cannot read these replies without
 * them, so they come with empty values.
 */
const kErrorReplyFields: Record<string, Record<string, unknown>> = {
  execute_request: { execution_count: 0, user_expressions: {}, payload: [] },
  history_request: { history: [] },
  shutdown_request: { restart: false },
  complete_request: { matches: [], cursor_start: 0, cursor_end: 0, metadata: {} },
  inspect_request: { found: false, data: {}, metadata: {} },
  comm_info_request: { comms: {} },
};

/** The reply content to a request whose handler failed with `err`. */
export function errorReplyContent(requestType: string, err: Error): Record<string, unknown> {
  // is_complete_reply's status is a verdict (complete/incomplete/invalid/unknown): "unknown" is its failure.
  if (requestType === "is_complete_request") return { status: "unknown" };
  return {
    ...kErrorReplyFields[requestType],
    status: "error", ename: err.name, evalue: err.message, traceback: [String(err.stack)],
  };
}
