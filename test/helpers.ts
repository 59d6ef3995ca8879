/** Starting real kernel processes for tests, over real zeromq sockets. */
import { join } from "path";
import { KernelClient, ClientOptions } from "../kernel/transport/client";
import type { Message } from "../kernel/protocol/message";
import { KERNEL_NODE_FLAGS } from "../kernel/install";

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
