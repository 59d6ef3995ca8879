/**
 * %memory — what each device holds now: allocated and reserved bytes with
 * their peaks, free and total memory, and the live tensors. `--summary`
 * shows the PyTorch-layout memory_summary table instead; `--where` groups the
 * live allocations by the cell and line that made them (from the memory
 * snapshot; stacks are recorded while history is on: `--history on`).
 * Output is one display_data: HTML for people, text/plain for terminals,
 * JSON for programs.
 */
import { Magic, MagicContext, UsageError } from "./context";
import { escapeHtml, formatBytes, htmlTable, textTable } from "./format";

export interface DeviceMemory {
  device: string;
  allocated: number;
  max_allocated: number;
  reserved: number;
  max_reserved: number;
  free: number;
  total: number;
  stats: Record<string, number>;
}

export function deviceMemory(ctx: MagicContext, device: string): DeviceMemory {
  const m = ctx.runtime.memory;
  const [free, total] = m.memGetInfo(device);
  return {
    device,
    allocated: m.allocated(device), max_allocated: m.maxAllocated(device),
    reserved: m.reserved(device), max_reserved: m.maxReserved(device),
    free, total, stats: m.stats(device),
  };
}

function parse(args: string[]) {
  const opts = { summary: false, abbreviated: false, where: false, history: undefined as boolean | undefined, device: undefined as string | undefined };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--summary" || a === "-s") opts.summary = true;
    else if (a === "--abbreviated") opts.abbreviated = true;
    else if (a === "--where" || a === "-w") opts.where = true;
    else if (a === "--history" || a.startsWith("--history=")) {
      const v = a === "--history" ? args[++i] : a.slice("--history=".length);
      if (v !== "on" && v !== "off") throw new UsageError(`%memory: expected on or off for --history, got ${v ?? "nothing"}. Usage: ${memoryMagic.usage}`);
      opts.history = v === "on";
    }
    else if (a.startsWith("--device=")) opts.device = a.slice("--device=".length);
    else if (!a.startsWith("-") && !opts.device) opts.device = a;
    else throw new UsageError(`%memory: unknown option ${a}. Usage: ${memoryMagic.usage}`);
  }
  return opts;
}

export const memoryMagic: Magic = {
  name: "memory",
  usage: "%memory [DEVICE] [--summary [--abbreviated] | --where | --history on|off]",
  run(args, ctx) {
    const opts = parse(args);
    if (opts.history !== undefined) return setHistory(ctx, opts.history, opts.device);
    const known = ctx.runtime.memory.devices();
    if (opts.device && !known.includes(opts.device)) {
      throw new UsageError(`%memory: no allocator for device "${opts.device}"; devices in use: ${known.join(", ")}`);
    }
    const devices = opts.device ? [opts.device] : known;
    if (opts.where) return showWhere(ctx, devices);
    if (opts.summary) {
      const tables = devices.map((d) => ctx.runtime.memory.summary(d, { abbreviated: opts.abbreviated }));
      ctx.output.display({
        "text/plain": tables.join("\n"),
        "text/html": tables.map((t) => `<pre>${escapeHtml(t)}</pre>`).join(""),
        "application/json": { devices: devices.map((d) => deviceMemory(ctx, d)) },
      });
      return;
    }
    const mem = devices.map((d) => deviceMemory(ctx, d));
    const tensors = ctx.runtime.memory.liveTensors().filter((t) => devices.includes(t.device));
    const rows: (string | number)[][] = [["device", "allocated", "peak allocated", "reserved", "peak reserved", "free", "total", "tensors"]];
    for (const m of mem) {
      rows.push([m.device, formatBytes(m.allocated), formatBytes(m.max_allocated), formatBytes(m.reserved),
        formatBytes(m.max_reserved), formatBytes(m.free), formatBytes(m.total), tensors.filter((t) => t.device === m.device).length]);
    }
    const tensorRows: (string | number)[][] = [["tensor", "shape", "dtype", "device", "size"]];
    for (const t of [...tensors].sort((a, b) => b.nbytes - a.nbytes).slice(0, 20)) {
      tensorRows.push([`#${t.id}`, `[${t.shape.join(", ")}]`, t.dtype, t.device, formatBytes(t.nbytes)]);
    }
    const cudaNote = ctx.runtime.cuda.isAvailable() ? "" : `CUDA unavailable: ${ctx.runtime.cuda.unavailableReason()}`;
    let text = textTable(rows);
    let html = htmlTable(rows, "tsgpu memory");
    if (tensors.length) {
      text += `\n\nLive tensors (largest ${tensorRows.length - 1} of ${tensors.length}):\n` + textTable(tensorRows);
      html += htmlTable(tensorRows, `Live tensors (largest ${tensorRows.length - 1} of ${tensors.length})`);
    }
    if (cudaNote) { text += `\n\n${cudaNote}`; html += `<p>${escapeHtml(cudaNote)}</p>`; }
    ctx.output.display({
      "text/plain": text,
      "text/html": html,
      "application/json": { devices: mem, tensors, cuda_available: ctx.runtime.cuda.isAvailable() },
    });
  },
};

/** The runtime's memory-history functions (torch.memory.recordMemoryHistory / snapshot). */
interface HistoryApi {
  recordMemoryHistory(d: string, opts?: { enabled?: boolean; maxEntries?: number }): void;
  snapshot(d: string): { segments: unknown[] };
}

interface SnapshotBlock {
  size: number;
  requested_size: number;
  state: string;
  frames?: { filename: string; line: number; name?: string }[];
}

/** Live allocations made at one place (a cell and line, or a file and line). */
export interface AllocationSite {
  device: string;
  /** "Cell In[4], line 2", "script.js:10", or "(no stack recorded)". */
  site: string;
  /** "Cell In[4]" when the allocation came from a cell, else null. */
  cell: string | null;
  line: number | null;
  allocations: number;
  /** Bytes of the blocks (rounded by the allocator). */
  bytes: number;
  /** Bytes the code asked for. */
  requested_bytes: number;
}

const NO_STACK = "(no stack recorded)";

function historyApi(ctx: MagicContext): HistoryApi {
  const m = ctx.runtime.memory as Partial<HistoryApi>;
  if (typeof m.snapshot !== "function" || typeof m.recordMemoryHistory !== "function") {
    throw new UsageError("%memory: this runtime has no memory history (recordMemoryHistory/snapshot)");
  }
  return m as HistoryApi;
}

/** Groups the live blocks of each device by the innermost cell frame (or innermost frame) that allocated them. */
export function allocationSites(ctx: MagicContext, devices: string[]): AllocationSite[] {
  const api = historyApi(ctx);
  const sites = new Map<string, AllocationSite>();
  for (const device of devices) {
    const snap = api.snapshot(device);
    for (const seg of snap.segments as { blocks: SnapshotBlock[] }[]) {
      for (const b of seg.blocks) {
        if (b.state !== "active_allocated") continue;
        const frames = b.frames ?? [];
        const f = frames.find((x) => x.filename.startsWith("Cell In[")) ?? frames[0];
        const cell = f && f.filename.startsWith("Cell In[") ? f.filename : null;
        const site = !f ? NO_STACK : cell ? `${cell}, line ${f.line}` : `${f.filename}:${f.line}`;
        const key = `${device}\0${site}`;
        let s = sites.get(key);
        if (!s) {
          s = { device, site, cell, line: f ? f.line : null, allocations: 0, bytes: 0, requested_bytes: 0 };
          sites.set(key, s);
        }
        s.allocations += 1;
        s.bytes += b.size;
        s.requested_bytes += b.requested_size;
      }
    }
  }
  return [...sites.values()].sort((a, b) => b.bytes - a.bytes || a.site.localeCompare(b.site));
}

function showWhere(ctx: MagicContext, devices: string[]): void {
  const sites = allocationSites(ctx, devices);
  const rows: (string | number)[][] = [["where", "device", "allocations", "allocated", "requested"]];
  for (const s of sites) rows.push([s.site, s.device, s.allocations, formatBytes(s.bytes), formatBytes(s.requested_bytes)]);
  const unrecorded = sites.some((s) => s.site === NO_STACK);
  const note = sites.length === 0 ? "No live allocations."
    : unrecorded ? "Allocations made while memory history was off have no stack: run %memory --history on, then the cells again." : "";
  let text = sites.length ? textTable(rows) : "";
  let html = sites.length ? htmlTable(rows, "Live memory by the cell and line that allocated it") : "";
  if (note) { text += (text ? "\n\n" : "") + note; html += `<p>${escapeHtml(note)}</p>`; }
  ctx.output.display({ "text/plain": text, "text/html": html, "application/json": { where: sites } });
}

function setHistory(ctx: MagicContext, on: boolean, device: string | undefined): void {
  const api = historyApi(ctx);
  const devices = device ? [device] : [...new Set([...ctx.runtime.memory.devices(), ...(ctx.runtime.cuda.isAvailable() ? ["cuda:0"] : [])])];
  for (const d of devices) api.recordMemoryHistory(d, { enabled: on });
  const text = on
    ? `Memory history on for ${devices.join(", ")}: new allocations record the cell and line that made them (see %memory --where).`
    : `Memory history off for ${devices.join(", ")}.`;
  ctx.output.display({ "text/plain": text, "text/html": `<p>${escapeHtml(text)}</p>`, "application/json": { history: on, devices } });
}
