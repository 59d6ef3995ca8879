/**
 * The connection file that a Jupyter client writes for a kernel it starts.
 * It is read once, strictly: a file that is missing, unreadable, not JSON, or
 * lacks a field (or has one of the wrong type) is an error whose one-line
 * message names the file and the problem, and the kernel stops. The message
 * never quotes the file's text: it holds the key.
 */
import { readFileSync } from "fs";
import { describeFsError } from "../paths";

export interface ConnectionInfo {
  transport: "tcp" | "ipc";
  ip: string;
  shell_port: number;
  control_port: number;
  stdin_port: number;
  iopub_port: number;
  hb_port: number;
  key: string;
  signature_scheme: string;
  kernel_name?: string;
}

/** A connection file the kernel cannot use. */
export class ConnectionFileError extends Error {
  constructor(message: string) { super(message); this.name = "ConnectionFileError"; }
}

const PORTS = ["shell_port", "control_port", "stdin_port", "iopub_port", "hb_port"] as const;

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

export function readConnectionFile(path: string): ConnectionInfo {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConnectionFileError(`cannot read connection file ${path}: ${describeFsError(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const pos = /position (\d+)/.exec((e as Error).message)?.[1];
    throw new ConnectionFileError(`connection file ${path} is not JSON${pos ? ` (error at byte ${pos} of ${text.length})` : ` (${text.length} bytes)`}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConnectionFileError(`connection file ${path} holds ${typeName(raw)}, expected a JSON object`);
  }
  const r = raw as Record<string, unknown>;
  const problem = (field: string, expected: string) => {
    const got = r[field] === undefined ? "nothing (the field is missing)" : field === "key" ? typeName(r[field]) : `${typeName(r[field])} ${JSON.stringify(r[field])}`;
    return new ConnectionFileError(`connection file ${path}: expected ${expected} for ${field}, got ${got}`);
  };
  if (r.transport !== "tcp" && r.transport !== "ipc") throw problem("transport", `"tcp" or "ipc"`);
  if (typeof r.ip !== "string" || !r.ip) throw problem("ip", "an address (a non-empty string)");
  for (const k of PORTS) {
    const p = r[k];
    if (typeof p !== "number" || !Number.isInteger(p) || p < 1 || p > 65535) throw problem(k, "a port number from 1 to 65535");
  }
  // The key is never shown, not even when it is wrong: only its type.
  if (typeof r.key !== "string") throw problem("key", "a string (the signing key)");
  if (typeof r.signature_scheme !== "string") throw problem("signature_scheme", `a string such as "hmac-sha256"`);
  return r as unknown as ConnectionInfo;
}

/** The zeromq endpoint of one channel: tcp://ip:port, or ipc://ip-port for ipc. */
export function endpoint(info: ConnectionInfo, port: number): string {
  return info.transport === "ipc" ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}
