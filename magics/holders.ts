/**
 * Who holds each live tensor. First the places the kernel can read
 * directly: user variables (with the path inside them,
 * `model.layers[3].weight`), the output history (`Out[7]`), the kept error
 * of a cell, and labels the runtime gives the memory it keeps itself
 * ("saved for backward", "gradient of …", "optimizer state"). What is left
 * is found in a heap snapshot (heap_holders.ts): closures, timers, the
 * frames of a suspended or interrupted cell, or nothing at all
 * ("unreachable, waiting for garbage collection").
 */
import type { LiveTensor, MagicContext } from "./context";
import { heapHolders } from "./heap_holders";

/**
 * What kind of thing holds a tensor. Autograd and optimizers label their
 * memory with "saved", "gradient" and "optimizer"; the others are found here.
 */
export type HolderKind = "variable" | "output" | "error" | "closure" | "timer" | "frames" | "unreachable"
  | "parameter" | "saved" | "gradient" | "optimizer" | "runtime" | "unknown";

export interface Holder {
  kind: HolderKind;
  /** What a person reads: "model.layers[3].weight", "Out[7]", "the kept error of cell 5 (.tensor)". */
  label: string;
  /** The execution count of the cell the holder belongs to, when there is one. */
  cell?: number;
}

/** Objects visited at most while walking the namespace (the rest is found through the heap snapshot). */
const kMaxVisited = 200000;
/** Deepest property path followed. */
const kMaxDepth = 12;

const IDENT = /^[A-Za-z_$][\w$]*$/;

function key(path: string, k: string | number): string {
  if (typeof k === "number") return `${path}[${k}]`;
  return IDENT.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
}

class Walker {
  visited = 0;
  readonly found = new Map<number, Holder[]>();

  constructor(private readonly isTensor: (v: unknown) => v is { id: number }, private readonly skip: Set<unknown>) {}

  /** Records every tensor reachable from `root` under the holder `make(path)`. */
  walk(root: unknown, path: string, make: (path: string) => Holder): void {
    const seen = new Set<unknown>();
    const queue: [unknown, string, number][] = [[root, path, 0]];
    while (queue.length) {
      const [value, p, depth] = queue.shift()!;
      if (value === null || (typeof value !== "object" && typeof value !== "function")) continue;
      if (this.isTensor(value)) { this.add(value.id, make(p)); continue; }
      if (typeof value === "function" || seen.has(value) || this.skip.has(value) || depth >= kMaxDepth) continue;
      if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof WeakMap || value instanceof WeakSet || value instanceof Promise) continue;
      if (++this.visited > kMaxVisited) return;
      seen.add(value);
      const next = (v: unknown, q: string) => { if (v !== null && (typeof v === "object")) queue.push([v, q, depth + 1]); };
      if (value instanceof Map) {
        for (const [k, v] of value) next(v, `${p}.get(${typeof k === "string" ? JSON.stringify(k) : String(k)})`);
        continue;
      }
      if (value instanceof Set) {
        let i = 0;
        for (const v of value) next(v, `[...${p}][${i++}]`);
        continue;
      }
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) next(value[i], key(p, i));
        continue;
      }
      for (const k of Object.getOwnPropertyNames(value)) {
        const desc = Object.getOwnPropertyDescriptor(value, k);
        if (desc && "value" in desc) next(desc.value, key(p, k));
      }
    }
  }

  add(id: number, h: Holder): void {
    const list = this.found.get(id) ?? [];
    if (!list.some((x) => x.label === h.label)) list.push(h);
    this.found.set(id, list);
  }
}

/** The holders the kernel can read without a heap snapshot. */
export function directHolders(ctx: MagicContext, live: LiveTensor[]): Map<number, Holder[]> {
  const runtime = ctx.runtime;
  const Tensor = runtime.Tensor as unknown as Function;
  const isTensor = (v: unknown): v is { id: number } => typeof Tensor === "function" && v instanceof Tensor;
  const w = new Walker(isTensor, new Set<unknown>([globalThis, runtime]));
  for (const t of live) if (t.holder) w.add(t.id, { kind: (t.holder.kind as HolderKind) || "runtime", label: t.holder.label });
  for (const name of ctx.namespace.names()) w.walk(ctx.namespace.get(name), name, (p) => ({ kind: "variable", label: p }));
  for (const [n, v] of ctx.outputs.entries()) w.walk(v, `Out[${n}]`, (p) => ({ kind: "output", label: p, cell: n }));
  const kept = ctx.errors.kept();
  if (kept) {
    w.walk(kept.error, "", (p) => ({ kind: "error", label: `the kept error of cell ${kept.cell}${p ? ` (${p})` : ""}`, cell: kept.cell }));
  }
  return w.found;
}

export interface HolderReport {
  /** Holders by storage id; every live id has at least one. */
  holders: Map<number, Holder[]>;
  /** Whether a heap snapshot was taken (for the tensors not found directly). */
  snapshot: boolean;
  /** Why the snapshot could not be used, if it could not. */
  snapshotError?: string;
}

/** What a tensor held by nothing the kernel can read directly is labelled when no heap snapshot is taken. */
export const kUnnamedHolder = "not named without a heap snapshot (%memory --tensors names it)";

/**
 * Holders of every live tensor: direct ones, then a heap snapshot for the
 * rest. With `heapSnapshot: false` (the memory panel, which must stay cheap)
 * no snapshot is taken and the rest are labelled `kUnnamedHolder`; the
 * default takes one when some tensor is left.
 */
export function findHolders(ctx: MagicContext, live: LiveTensor[], options: { heapSnapshot?: boolean } = {}): HolderReport {
  const holders = directHolders(ctx, live);
  const rest = live.filter((t) => !holders.has(t.id));
  if (!rest.length) return { holders, snapshot: false };
  if (options.heapSnapshot === false) {
    for (const t of rest) holders.set(t.id, [{ kind: "unknown", label: kUnnamedHolder }]);
    return { holders, snapshot: false };
  }
  let snapshotError: string | undefined;
  try {
    const found = heapHolders(ctx, new Set(rest.map((t) => t.id)));
    for (const [id, h] of found) holders.set(id, h);
  } catch (e) {
    snapshotError = String((e as Error)?.message ?? e);
  }
  for (const t of rest) if (!holders.has(t.id)) holders.set(t.id, [{ kind: "unknown", label: "not found in the namespace, the output history or the kept error" }]);
  return { holders, snapshot: true, snapshotError };
}
