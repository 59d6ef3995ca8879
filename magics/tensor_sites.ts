/**
 * Where live tensors were made: the cell and line, from what the runtime
 * recorded with each storage. Every storage carries the execution count of
 * the cell that was running (`LiveTensor.cell`); storages of at least
 * `kSiteMinBytes` bytes, and all of them while memory history is on, also
 * carry the frames of the code that made them (`LiveTensor.frames`), whose
 * cell frames hold the cell and line as numbers.
 */
import type { LiveTensor } from "./context";

/** Where one tensor was made. */
export interface TensorSite {
  /** "Cell In[2], line 3", "Cell In[2]" (line not recorded), "script.js:10", or OUTSIDE_CELLS. */
  site: string;
  /** Execution count of the cell that made it, or null. */
  cell: number | null;
  /** Line in that cell (or file), or null when no stack was recorded. */
  line: number | null;
}

/** Live tensors made at one site. */
export interface SiteGroup extends TensorSite {
  tensors: number;
  bytes: number;
  /** Storage ids, largest first. */
  ids: number[];
}

export const OUTSIDE_CELLS = "(made outside a cell)";

/** The innermost cell frame (or innermost frame) recorded with `t`, else the cell it was tagged with. */
export function tensorSite(t: LiveTensor): TensorSite {
  const frames = t.frames ?? [];
  const inCell = frames.find((f) => typeof f.cell === "number");
  if (inCell) return { site: `Cell In[${inCell.cell}], line ${inCell.line}`, cell: inCell.cell!, line: inCell.line };
  const cell = typeof t.cell === "number" && t.cell > 0 ? t.cell : null;
  const f = frames[0];
  if (f) return { site: `${f.filename}:${f.line}`, cell, line: f.line };
  return cell !== null ? { site: `Cell In[${cell}]`, cell, line: null } : { site: OUTSIDE_CELLS, cell: null, line: null };
}

/** Groups `tensors` (largest first) by site; the groups holding the most bytes first. */
export function groupBySite(tensors: ({ id: number; nbytes: number } & TensorSite)[]): SiteGroup[] {
  const groups = new Map<string, SiteGroup>();
  for (const t of tensors) {
    let g = groups.get(t.site);
    if (!g) { g = { site: t.site, cell: t.cell, line: t.line, tensors: 0, bytes: 0, ids: [] }; groups.set(t.site, g); }
    g.tensors++;
    g.bytes += t.nbytes;
    g.ids.push(t.id);
  }
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes || (a.cell ?? 0) - (b.cell ?? 0) || (a.line ?? 0) - (b.line ?? 0) || a.site.localeCompare(b.site));
}
