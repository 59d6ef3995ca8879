/**
 * `%memory --tensors` (alias `--leaks`): live tensors grouped by what holds
 * them (holders.ts), largest first, each storage counted once, with the cell
 * and line that made each; then the same memory grouped by that cell and
 * line (tensor_sites.ts).
 */
import type { LiveTensor, MagicContext } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlRows, textTable } from "./format";
import { findHolders, Holder } from "./holders";
import { magicMime } from "./mime";
import { groupBySite, SiteGroup, tensorSite, TensorSite } from "./tensor_sites";

export interface HolderGroup {
  label: string;
  kind: Holder["kind"];
  cell: number | null;
  tensors: number;
  bytes: number;
  ids: number[];
}

/** A live tensor as `--tensors` reports it: its holders and where it was made (the frames left out). */
export interface TensorRow extends Omit<LiveTensor, "frames" | "cell">, TensorSite { holders: string[] }

/**
 * Live tensors of `devices` and their holders, grouped by first holder,
 * largest group first. `heapSnapshot` (default true) lets findHolders take a
 * heap snapshot for tensors no variable, output or kept error holds; the
 * memory panel passes false.
 */
export function tensorsByHolder(ctx: MagicContext, devices: string[], options: { heapSnapshot?: boolean } = {}): { groups: HolderGroup[]; tensors: TensorRow[]; snapshot: boolean; snapshotError?: string } {
  const live = ctx.runtime.memory.liveTensors().filter((t) => devices.includes(t.device));
  const report = findHolders(ctx, live, options);
  const tensors: TensorRow[] = live.map((t) => {
    const { frames: _frames, cell: _cell, ...info } = t;
    return { ...info, ...tensorSite(t), holders: (report.holders.get(t.id) ?? []).map((h) => h.label) };
  }).sort((a, b) => b.nbytes - a.nbytes || a.id - b.id);
  const groups = new Map<string, HolderGroup>();
  for (const t of tensors) {
    const h = report.holders.get(t.id)![0];
    let g = groups.get(h.label);
    if (!g) { g = { label: h.label, kind: h.kind, cell: h.cell ?? null, tensors: 0, bytes: 0, ids: [] }; groups.set(h.label, g); }
    g.tensors++;
    g.bytes += t.nbytes;
    g.ids.push(t.id);
  }
  const sorted = [...groups.values()].sort((a, b) => b.bytes - a.bytes || a.label.localeCompare(b.label));
  return { groups: sorted, tensors, snapshot: report.snapshot, snapshotError: report.snapshotError };
}

function shapeText(t: { shape: readonly number[] }): string { return `[${t.shape.join(", ")}]`; }

/** The by-site table (text and HTML) and its note about tensors whose line was not recorded. */
function sitesView(sites: SiteGroup[], minBytes: number): { text: string; html: string } {
  if (!sites.length) return { text: "", html: "" };
  const rows: (string | number)[][] = [["made in", "tensors", "bytes"]];
  for (const s of sites) rows.push([s.site, s.tensors, formatBytes(s.bytes)]);
  const caption = "Live tensors by the cell and line that made them";
  let text = `${caption}:\n${textTable(rows)}`;
  let html = htmlRows(rows.map((r) => r.map((v) => escapeHtml(String(v)))), [false, true, true], caption, "tsgpu-sites");
  if (sites.some((s) => s.line === null && s.cell !== null)) {
    const note = `Tensors under ${formatBytes(minBytes)} record the cell that made them but not the line; %memory --history on records the line of every tensor made after it.`;
    text += `\n\n${note}`;
    html += `<p class="note">${escapeHtml(note)}</p>`;
  }
  return { text, html };
}

export function showTensors(ctx: MagicContext, devices: string[]): void {
  const { groups, tensors, snapshot, snapshotError } = tensorsByHolder(ctx, devices);
  const byId = new Map(tensors.map((t) => [t.id, t]));
  const total = tensors.reduce((n, t) => n + t.nbytes, 0);
  // Tensors nothing referenced were collected by this view's heap snapshot: they are listed, not counted as live.
  const gone = groups.filter((g) => g.kind === "unreachable");
  const goneCount = gone.reduce((n, g) => n + g.tensors, 0), goneBytes = gone.reduce((n, g) => n + g.bytes, 0);
  const held = tensors.length - goneCount;
  const head = `${held} live tensor${held === 1 ? "" : "s"}, ${formatBytes(total - goneBytes)} on ${devices.join(", ")}` +
    (goneCount ? `; ${goneCount} more ${goneCount === 1 ? "was" : "were"} unreachable (collected by this view)` : "");
  const header = ["held by", "tensor", "shape", "dtype", "device", "bytes", "made in", "also held by"];
  const htmlRowsOut: string[][] = [header];
  const textRows: (string | number)[][] = [header];
  for (const g of groups) {
    const summary = `${g.tensors} tensor${g.tensors === 1 ? "" : "s"}`;
    htmlRowsOut.push([`<b>${escapeHtml(g.label)}</b>`, escapeHtml(summary), "", "", "", `<b>${escapeHtml(formatBytes(g.bytes))}</b>`, "", ""]);
    textRows.push([g.label, summary, "", "", "", formatBytes(g.bytes), "", ""]);
    for (const id of g.ids) {
      const t = byId.get(id)!;
      const also = t.holders.slice(1).join("; ");
      const cells = [`#${t.id}`, shapeText(t), t.dtype, t.device, formatBytes(t.nbytes), t.site, also];
      htmlRowsOut.push(["", ...cells.map(escapeHtml)]);
      textRows.push(["", "  " + cells[0], ...cells.slice(1)]);
    }
  }
  const sites = groupBySite(tensors);
  const where = sitesView(sites, ctx.runtime.memory.kSiteMinBytes);
  const notes: string[] = [];
  if (groups.some((g) => g.kind === "unreachable")) notes.push("Nothing referenced the unreachable tensors: the heap snapshot this view took collected them, and their memory went back to the allocator's cache (%empty_cache returns it to the device).");
  if (snapshotError) notes.push(`The heap snapshot failed (${snapshotError}); tensors it would have explained are listed as not found.`);
  const text = [head, tensors.length ? textTable(textRows) : "", ...notes, where.text].filter(Boolean).join("\n\n");
  const html = `<p><b>${escapeHtml(head)}</b></p>` +
    (tensors.length ? htmlRows(htmlRowsOut, [false, false, false, false, false, true, false, false], "Live tensors by what holds them", "tsgpu-tensors") : "") +
    notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join("") + where.html;
  ctx.output.display({
    "text/plain": text,
    "text/html": htmlBlock(html),
    [magicMime("memory")]: { holders: groups, tensors, sites, heap_snapshot: snapshot },
  });
}
