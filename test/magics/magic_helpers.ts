/** Shared helpers of the magics tests: a magic's bundle, and numbers read from the kernel. */
import type { KernelClient } from "../../kernel/transport/client";
import type { Message } from "../../kernel/protocol/message";
import { ofType } from "../helpers";
import { magicMime } from "../../magics/mime";

/** The one display_data bundle a magic showed. */
export function bundle(outputs: Message[]): Record<string, any> {
  const d = ofType(outputs, "display_data");
  expect(d).toHaveLength(1);
  return d[0].content.data;
}

/** Runs a magic (or cell) that must succeed; returns its outputs. */
export async function ok(k: KernelClient, code: string): Promise<Message[]> {
  const { reply, outputs } = await k.execute(code);
  if (reply.content.status !== "ok") throw new Error(`${code} failed: ${reply.content.ename}: ${reply.content.evalue}`);
  return outputs;
}

/**
 * torch.memory.allocated("cpu") in the kernel, read after a garbage collection there: tensors that nothing
 * references any more (temporaries of earlier cells) are freed first rather than whenever the collector runs, so
 * two readings differ only by what the kernel still holds.
 */
export async function allocated(k: KernelClient): Promise<number> {
  const { outputs } = await k.execute('torch.memory.collectGarbage();\ntorch.memory.allocated("cpu")', { store_history: false });
  return Number(ofType(outputs, "execute_result")[0].content.data["text/plain"]);
}

/** `%memory --tensors`' JSON: holder groups and tensors. */
export async function holders(k: KernelClient): Promise<{ holders: { label: string; kind: string; bytes: number; tensors: number; cell: number | null }[]; tensors: any[] }> {
  return bundle(await ok(k, "%memory --tensors"))[magicMime("memory")];
}

/** Every HTML a magic writes stands alone: no scripts, no external sheets or images. */
export function expectSelfContained(html: string): void {
  expect(html).not.toMatch(/<script|<link|<iframe|\bsrc=|href="http|@import|url\(/i);
}
