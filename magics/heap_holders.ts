/**
 * Holders found in a V8 heap snapshot, for tensors that no variable, output
 * or kept error refers to: the shortest path from the heap's roots to each
 * tensor is read back into words — a variable captured by a closure, a timer
 * that keeps a callback alive, the frames of a suspended async function (an
 * interrupted cell awaiting), or no path at all: "unreachable, waiting for
 * garbage collection". Taking the snapshot runs a full collection, which
 * collects those unreachable tensors: their memory goes back to the
 * allocator's cache (and to the device with %empty_cache).
 */
import { Session } from "inspector";
import type { MagicContext } from "./context";

/**
 * A holder found in the heap snapshot: one of the Holder kinds of holders.ts
 * (which merges these with those it finds itself).
 */
export interface HeapHolder {
  kind: "closure" | "timer" | "frames" | "unreachable" | "unknown";
  /** What a person reads: "`x`, captured by the closure …". */
  label: string;
  /** The execution count of the cell the holder belongs to, when there is one. */
  cell?: number;
}

/** Class names of the runtime objects that own a storage (the object `liveTensors` reports by id). */
const OWNER_CLASSES = new Set(["Tensor", "Storage", "UntypedStorage"]);

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]]; location_fields?: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations?: number[];
}

/** A parsed heap snapshot with its edges indexed by node. */
export class HeapGraph {
  private readonly nf: number;
  private readonly ef: number;
  private readonly nodeTypes: string[];
  private readonly edgeTypes: string[];
  private readonly firstEdge: Uint32Array;
  private readonly location = new Map<number, [number, number, number]>();
  readonly count: number;

  constructor(private readonly raw: RawSnapshot, private readonly scripts: Map<string, string>) {
    const meta = raw.snapshot.meta;
    this.nf = meta.node_fields.length;
    this.ef = meta.edge_fields.length;
    this.nodeTypes = meta.node_types[0];
    this.edgeTypes = meta.edge_types[0];
    this.count = raw.nodes.length / this.nf;
    this.firstEdge = new Uint32Array(this.count + 1);
    const edgeCount = meta.node_fields.indexOf("edge_count");
    for (let i = 0, e = 0; i < this.count; i++) { this.firstEdge[i] = e; e += raw.nodes[i * this.nf + edgeCount] * this.ef; }
    this.firstEdge[this.count] = raw.edges.length;
    const lf = meta.location_fields?.length ?? 4;
    const locs = raw.locations ?? [];
    for (let i = 0; i + lf <= locs.length; i += lf) this.location.set(locs[i] / this.nf, [locs[i + 1], locs[i + 2], locs[i + 3]]);
  }

  type(n: number): string { return this.nodeTypes[this.raw.nodes[n * this.nf]]; }
  name(n: number): string { return this.raw.strings[this.raw.nodes[n * this.nf + 1]]; }
  edgeType(e: number): string { return this.edgeTypes[this.raw.edges[e]]; }
  edgeName(e: number): string {
    const t = this.edgeType(e);
    const v = this.raw.edges[e + 1];
    return t === "element" || t === "hidden" ? String(v) : this.raw.strings[v];
  }
  edgeTo(e: number): number { return this.raw.edges[e + 2] / this.nf; }
  *edgesOf(n: number): Iterable<number> { for (let e = this.firstEdge[n]; e < this.firstEdge[n + 1]; e += this.ef) yield e; }

  /** The node an edge of `n` with this name leads to, or -1. */
  child(n: number, name: string): number {
    for (const e of this.edgesOf(n)) if (this.edgeName(e) === name) return this.edgeTo(e);
    return -1;
  }

  /** Script URL, line and column (1-based) where a closure's function is defined. */
  where(n: number): { url: string; line: number; column: number } | null {
    const loc = this.location.get(n);
    if (!loc) return null;
    return { url: this.scripts.get(String(loc[0])) ?? "", line: loc[1] + 1, column: loc[2] + 1 };
  }

  /**
   * Nodes of runtime owner objects whose `id` property is one of `ids`, by
   * id: objects of the runtime's classes, or of subclasses (a class name the
   * runtime does not know, with the storage's `id` and `handle` fields).
   */
  owners(ids: Set<number>): Map<number, number> {
    const out = new Map<number, number>();
    for (let n = 0; n < this.count; n++) {
      if (this.type(n) !== "object") continue;
      const idNode = this.child(n, "id");
      if (idNode < 0 || (!OWNER_CLASSES.has(this.name(n)) && this.child(n, "handle") < 0)) continue;
      const value = this.type(idNode) === "number" ? Number(this.name(this.child(idNode, "value")) ?? NaN) : NaN;
      if (ids.has(value) && !out.has(value)) out.set(value, n);
    }
    return out;
  }

  /** Shortest paths from the root (node 0) over strong edges: the edge that reached each node. */
  shortestPaths(): Int32Array {
    const via = new Int32Array(this.count).fill(-1);
    const seen = new Uint8Array(this.count);
    const queue = new Uint32Array(this.count);
    let head = 0, tail = 0;
    queue[tail++] = 0;
    seen[0] = 1;
    const edges = this.raw.edges, weak = this.edgeTypes.indexOf("weak"), nf = this.nf, ef = this.ef;
    while (head < tail) {
      const n = queue[head++];
      for (let e = this.firstEdge[n], end = this.firstEdge[n + 1]; e < end; e += ef) {
        if (edges[e] === weak) continue;
        const to = edges[e + 2] / nf;
        if (seen[to]) continue;
        seen[to] = 1;
        via[to] = e;
        queue[tail++] = to;
      }
    }
    return via;
  }

  private reverse?: { first: Uint32Array; from: Uint32Array };

  /** The nodes that hold `n` through a strong edge (an index of all edges, built on first use). */
  retainers(n: number): number[] {
    if (!this.reverse) {
      const edges = this.raw.edges, weak = this.edgeTypes.indexOf("weak");
      const counts = new Uint32Array(this.count + 1);
      for (let e = 0; e < edges.length; e += this.ef) if (edges[e] !== weak) counts[edges[e + 2] / this.nf + 1]++;
      for (let i = 1; i <= this.count; i++) counts[i] += counts[i - 1];
      const from = new Uint32Array(counts[this.count]);
      const fill = counts.slice(0, this.count);
      for (let node = 0; node < this.count; node++) {
        for (let e = this.firstEdge[node]; e < this.firstEdge[node + 1]; e += this.ef) {
          if (edges[e] !== weak) from[fill[edges[e + 2] / this.nf]++] = node;
        }
      }
      this.reverse = { first: counts, from };
    }
    return Array.from(this.reverse.from.subarray(this.reverse.first[n], this.reverse.first[n + 1]));
  }

  /** Whether a timer (Timeout or Immediate) holds `n` within `depth` steps; its class name, or null. */
  timerHolding(n: number, depth = 4): string | null {
    let frontier = [n];
    const seen = new Set<number>(frontier);
    for (let d = 0; d < depth && frontier.length; d++) {
      const next: number[] = [];
      for (const x of frontier) {
        for (const r of this.retainers(x)) {
          if (seen.has(r)) continue;
          seen.add(r);
          if (this.type(r) === "object" && /^(Timeout|Immediate)$/.test(this.name(r))) return this.name(r);
          next.push(r);
        }
      }
      frontier = next;
    }
    return null;
  }

  /** The node an edge starts from (edges are stored in node order). */
  edgeFrom(e: number): number {
    let lo = 0, hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.firstEdge[mid] <= e) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
}

/** Takes a heap snapshot of this thread, with numbers (to read tensor ids) and script names (for closure locations). */
export function takeHeapGraph(): HeapGraph {
  const session = new Session();
  session.connect();
  const scripts = new Map<string, string>();
  const chunks: string[] = [];
  try {
    session.on("Debugger.scriptParsed", (m) => scripts.set(m.params.scriptId, m.params.url));
    // Enabling the debugger reports every script and computes their line tables, which
    // also keeps the snapshot from searching large scripts for line ends once per function.
    session.post("Debugger.enable", {}, () => undefined);
    session.post("Debugger.disable", {}, () => undefined);
    session.on("HeapProfiler.addHeapSnapshotChunk", (m) => chunks.push(m.params.chunk));
    let failure: Error | null = null;
    session.post("HeapProfiler.takeHeapSnapshot", { captureNumericValue: true, reportProgress: false } as any, (err) => { failure = err; });
    if (failure) throw failure;
  } finally {
    session.disconnect();
  }
  if (!chunks.length) throw new Error("the heap snapshot produced no data");
  return new HeapGraph(JSON.parse(chunks.join("")), scripts);
}

/** Reads a path (root → … → tensor) back into a holder. */
export function describePath(g: HeapGraph, path: number[], ctx: MagicContext): HeapHolder {
  // path holds edge indexes, from the root to the tensor.
  const cellOf = (fn: number) => {
    const w = g.where(fn);
    return w ? ctx.cells.position(w.url, w.line, w.column) : null;
  };
  const fnText = (fn: number) => {
    const name = g.name(fn) || "an anonymous function";
    const at = cellOf(fn);
    return { text: `${name === "an anonymous function" ? name : `\`${name}\``}${at ? ` (Cell In[${at.cell}], line ${at.line})` : ""}`, cell: at?.cell };
  };
  let variable: string | undefined;
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    const from = g.edgeFrom(e);
    const type = g.type(from);
    const name = g.name(from);
    if (g.edgeType(e) === "context" && variable === undefined) variable = g.edgeName(e);
    if (type === "object" && /Generator|AsyncFunction/.test(name)) {
      const fn = g.child(from, "function");
      const f = fn >= 0 ? fnText(fn) : { text: "an async function", cell: undefined };
      const interrupted = f.cell !== undefined && ctx.cells.interrupted().includes(f.cell);
      const timer = g.timerHolding(from, 10) !== null;
      return {
        kind: "frames",
        label: `${variable ? `\`${variable}\` in ` : ""}the frames of ${f.text}, suspended at an await${interrupted ? ` of the interrupted cell ${f.cell}` : ""}${timer ? " (a pending timer keeps it waiting)" : ""}`,
        cell: f.cell,
      };
    }
    if (type === "closure" && g.edgeName(e) === "context" && variable !== undefined) {
      const inCell = cellOf(from);
      if (!inCell) continue; // the kernel's own wrappers: look further for the user's function
      const f = fnText(from);
      const onPath = path.slice(0, i).reverse().find((x) => /^(Timeout|Immediate)$/.test(g.name(g.edgeFrom(x))));
      const timerClass = onPath !== undefined ? g.name(g.edgeFrom(onPath)) : g.timerHolding(from);
      if (timerClass) {
        const timer = timerClass === "Immediate" ? "an immediate" : "a timer";
        return { kind: "timer", label: `\`${variable}\`, captured by ${f.text}, the callback of ${timer} started in cell ${f.cell}`, cell: f.cell };
      }
      const global = path.slice(0, i).find((x) => g.edgeType(x) === "property" && /^global/.test(g.name(g.edgeFrom(x))));
      const via = global !== undefined ? ` held by the variable \`${g.edgeName(global)}\`` : "";
      return { kind: "closure", label: `\`${variable}\`, captured by the closure ${f.text}${via}`, cell: f.cell };
    }
  }
  const tail = path.slice(-4).map((e) => `${g.name(g.edgeFrom(e)) || g.type(g.edgeFrom(e))}.${g.edgeName(e)}`).join(" → ");
  return { kind: "unknown", label: `held through ${tail}` };
}

/** Holders of the tensors with these storage ids, from a heap snapshot. */
export function heapHolders(ctx: MagicContext, ids: Set<number>): Map<number, HeapHolder[]> {
  const g = takeHeapGraph();
  const owners = g.owners(ids);
  const via = g.shortestPaths();
  const out = new Map<number, HeapHolder[]>();
  // What the snapshot's collection took is gone from the live list now (this frees it to the cache);
  // a live tensor missing from the snapshot for another reason is not called unreachable.
  const stillLive = new Set(ctx.runtime.memory.liveTensors().map((t) => t.id));
  for (const id of ids) {
    const n = owners.get(id);
    if (n === undefined || via[n] < 0) {
      out.set(id, [stillLive.has(id)
        ? { kind: "unknown", label: "not found in the heap snapshot" }
        : { kind: "unreachable", label: "unreachable, waiting for garbage collection" }]);
      continue;
    }
    const path: number[] = [];
    for (let x = n; x !== 0 && via[x] >= 0; x = g.edgeFrom(via[x])) path.unshift(via[x]);
    out.set(id, [describePath(g, path, ctx)]);
  }
  return out;
}
