/** Starting real kernel processes for tests, over real zeromq sockets. */
import { join } from "path";
import { writeFileSync } from "fs";
import { randomBytes } from "crypto";
import { KernelClient, ClientOptions, freePort } from "../kernel/transport/client";
import type { ConnectionInfo } from "../kernel/protocol/connection";
import type { Message } from "../kernel/protocol/message";
import { KERNEL_NODE_FLAGS } from "../kernel/commands/install";

export const ROOT = join(__dirname, "..", "..");
export const CLI = join(ROOT, "dist", "kernel", "cli.js");

export function kernelArgv(extraNodeFlags: string[] = []): string[] {
  return [process.execPath, ...KERNEL_NODE_FLAGS, ...extraNodeFlags, CLI, "kernel", "{connection_file}"];
}

export function startKernel(options: Partial<ClientOptions> = {}): Promise<KernelClient> {
  return KernelClient.start({ argv: kernelArgv(), ...options });
}

/** The outputs of one type among a request's iopub messages. */
export function ofType(outputs: Message[], type: string): Message[] {
  return outputs.filter((m) => m.header.msg_type === type);
}

export function stdout(outputs: Message[]): string {
  return ofType(outputs, "stream").filter((m) => m.content.name === "stdout").map((m) => m.content.text).join("");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Resolves once `done()` holds, looking every 10 ms: a test waits for the event it needs rather than for a time
 * that is long enough on an idle machine. Rejects, naming `what`, after `timeoutMs` (default 30 s, under jest's
 * 60 s, so that a kernel that never does it fails with that name instead of a bare timeout).
 */
export async function waitUntil(done: () => boolean, what: string, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await sleep(10);
  }
}

/**
 * The first stream message (stdout or stderr) at index `from` or later of the client's iopub log whose text
 * contains `text`, once it has arrived (see waitUntil for `timeoutMs`).
 */
export async function streamContaining(k: KernelClient, text: string, from = 0, timeoutMs = 30000): Promise<Message> {
  const find = () => k.iopubLog.slice(from).find((m) => m.header.msg_type === "stream" && String(m.content.text).includes(text));
  await waitUntil(() => find() !== undefined, `a stream containing ${JSON.stringify(text)}`, timeoutMs);
  return find()!;
}

/** Whether the dynamic loader finds the NVIDIA driver library (libcuda.so.1) here, asked without the runtime. */
export function cudaDriverLibraryFound(): boolean {
  try {
    process.dlopen({ exports: {} } as NodeJS.Module, "libcuda.so.1");
  } catch (e) {
    return !/cannot open shared object file/.test((e as Error).message);
  }
  return true;
}

/** What the runtime says where a build with CUDA finds no driver library. */
export const NO_DRIVER_REASON = "no NVIDIA driver on this machine (libcuda.so.1 not found)";

/**
 * Writes DIR/kernel.json for a kernel on five loopback ports free now, with a random key; `overrides`
 * replace fields, `extra` adds fields the kernel does not read. Pretty-printed, as some clients write it.
 */
export async function writeConnectionFile(dir: string, overrides: Partial<ConnectionInfo> = {},
                                          extra: Record<string, unknown> = {}): Promise<{ file: string; info: ConnectionInfo }> {
  const p: number[] = [];
  for (let i = 0; i < 5; i++) p.push(await freePort());
  const info: ConnectionInfo = {
    transport: "tcp", ip: "127.0.0.1", shell_port: p[0], control_port: p[1], stdin_port: p[2], iopub_port: p[3], hb_port: p[4],
    key: randomBytes(16).toString("hex"), signature_scheme: "hmac-sha256", ...overrides,
  };
  const file = join(dir, "kernel.json");
  writeFileSync(file, JSON.stringify({ ...info, ...extra }, null, 2));
  return { file, info };
}
