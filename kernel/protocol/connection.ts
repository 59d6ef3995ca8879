/** The connection file that a Jupyter client writes for a kernel it starts. */
import { readTextFile } from "../paths";

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

export function readConnectionFile(path: string): ConnectionInfo {
  const text = readTextFile(path, "connection file");
  let raw: any;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`connection file ${path} is not JSON (${(e as Error).message.replace(/\s+/g, " ")})`);
  }
  if (raw === null || typeof raw !== "object") throw new Error(`connection file ${path} holds no JSON object`);
  for (const k of ["shell_port", "control_port", "stdin_port", "iopub_port", "hb_port"]) {
    if (raw[k] === undefined) throw new Error(`connection file ${path} has no ${k}`);
  }
  return { transport: "tcp", ip: "127.0.0.1", key: "", signature_scheme: "hmac-sha256", ...raw };
}

/** The zeromq endpoint of one channel: tcp://ip:port, or ipc://ip-port for ipc. */
export function endpoint(info: ConnectionInfo, port: number): string {
  return info.transport === "ipc" ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}
