/**
 * `%memory --where`: live memory grouped by the cell and line that allocated
 * it, from the memory snapshot (stacks are recorded while history is on:
 * `%memory --history on`). Frames of cells carry their execution count and
 * line as numbers.
 */
import { MagicContext, UsageError } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlTable, textTable } from "./format";
import { magicMime } from "./mime";

/** The runtime's memory-history functions (torch.memory.recordMemoryHistory / snapshot). */
interface HistoryApi {
  recordMemoryHistory(d: string, opts?: { enabled?: boolean; maxEntries?: number }): void;
  snapshot(d: string): { segments: unknown[] };
}

interface SnapshotBlock {
  size: number;
  requested_size: number;
  state: string;
  frames?: { filename: string; line: number; name?: string; cell?: number }[];
}

/** Live allocations made at one place (a cell and line, or a file and line). */
export interface AllocationSite {
  device: string;
  /** "Cell In[4], line 2", "script.js:10", or "(no stack recorded)". */
  site: string;
  /** "Cell In[4]" when the allocation came from a cell, else null. */
  cell: string | null;
  /** The cell's execution count (4), else null. */
  cell_number: number | null;
  line: number | null;
  allocations: number;
  /** Bytes of the blocks (rounded by the allocator). */
  bytes: number;
  /** Bytes the code asked for. */
  requested_bytes: number;
}

export const NO_STACK = "(no stack recorded)";

export function historyApi(ctx: MagicContext): HistoryApi {
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
        const f = frames.find((x) => typeof x.cell === "number") ?? frames[0];
        const cellNumber = f && typeof f.cell === "number" ? f.cell : null;
        const site = !f ? NO_STACK : cellNumber !== null ? `Cell In[${cellNumber}], line ${f.line}` : `${f.filename}:${f.line}`;
        const key = `${device}\0${site}`;
        let s = sites.get(key);
        if (!s) {
          s = { device, site, cell: cellNumber === null ? null : `Cell In[${cellNumber}]`, cell_number: cellNumber, line: f ? f.line : null, allocations: 0, bytes: 0, requested_bytes: 0 };
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

/** The rows, note and HTML of the by-site table (shared by --where and --tensors). */
export function sitesView(sites: AllocationSite[]): { text: string; html: string } {
  const rows: (string | number)[][] = [["where", "device", "allocations", "allocated", "requested"]];
  for (const s of sites) rows.push([s.site, s.device, s.allocations, formatBytes(s.bytes), formatBytes(s.requested_bytes)]);
  const unrecorded = sites.some((s) => s.site === NO_STACK);
  const note = sites.length === 0 ? "No live allocations."
    : unrecorded ? "Allocations made while memory history was off have no stack: run %memory --history on, then the cells again." : "";
  let text = sites.length ? textTable(rows) : "";
  let html = sites.length ? htmlTable(rows, "Live memory by the cell and line that allocated it") : "";
  if (note) { text += (text ? "\n\n" : "") + note; html += `<p class="note">${escapeHtml(note)}</p>`; }
  return { text, html };
}

export function showWhere(ctx: MagicContext, devices: string[]): void {
  const sites = allocationSites(ctx, devices);
  const { text, html } = sitesView(sites);
  ctx.output.display({ "text/plain": text, "text/html": htmlBlock(html), [magicMime("memory")]: { where: sites } });
}

export function setHistory(ctx: MagicContext, on: boolean, device: string | undefined): void {
  const api = historyApi(ctx);
  const devices = device ? [device] : [...new Set([...ctx.runtime.memory.devices(), ...(ctx.runtime.cuda.isAvailable() ? ["cuda:0"] : [])])];
  for (const d of devices) api.recordMemoryHistory(d, { enabled: on });
  const text = on
    ? `Memory history on for ${devices.join(", ")}: new allocations record the cell and line that made them (see %memory --where).`
    : `Memory history off for ${devices.join(", ")}.`;
  ctx.output.display({ "text/plain": text, "text/html": htmlBlock(`<p>${escapeHtml(text)}</p>`), [magicMime("memory")]: { history: on, devices } });
}
