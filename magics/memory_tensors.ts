/**
 * `%memory --tensors` (alias `--leaks`): live tensors grouped by what holds
 * them (holders.ts), largest first, each storage counted once; then the same
 * memory by the cell and line that made it (when memory history recorded
 * stacks).
 */
import type { LiveTensor, MagicContext } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlRows, textTable } from "./format";
import { findHolders, Holder } from "./holders";
import { allocationSites, sitesView } from "./memory_where";

export interface HolderGroup {
  label: string;
  kind: Holder["kind"];
  cell: number | null;
  tensors: number;
  bytes: number;
  ids: number[];
}

export interface TensorRow extends LiveTensor { holders: string[] }

/** Live tensors of `devices` and their holders, grouped by first holder. */
export function tensorsByHolder(ctx: MagicContext, devices: string[]): { groups: HolderGroup[]; tensors: TensorRow[]; snapshot: boolean; snapshotError?: string } {
  const live = ctx.runtime.memory.liveTensors().filter((t) => devices.includes(t.device));
  const report = findHolders(ctx, live);
  const tensors: TensorRow[] = live.map((t) => ({ ...t, holders: (report.holders.get(t.id) ?? []).map((h) => h.label) }))
    .sort((a, b) => b.nbytes - a.nbytes || a.id - b.id);
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

function shapeText(t: LiveTensor): string { return `[${t.shape.join(", ")}]`; }

export function showTensors(ctx: MagicContext, devices: string[]): void {
  const { groups, tensors, snapshot, snapshotError } = tensorsByHolder(ctx, devices);
  const byId = new Map(tensors.map((t) => [t.id, t]));
  const total = tensors.reduce((n, t) => n + t.nbytes, 0);
  const head = `${tensors.length} live tensor${tensors.length === 1 ? "" : "s"}, ${formatBytes(total)} on ${devices.join(", ")}`;
  const htmlRowsOut: string[][] = [["held by", "tensor", "shape", "dtype", "device", "bytes", "also held by"]];
  const textRows: (string | number)[][] = [["held by", "tensor", "shape", "dtype", "device", "bytes", "also held by"]];
  for (const g of groups) {
    const summary = `${g.tensors} tensor${g.tensors === 1 ? "" : "s"}`;
    htmlRowsOut.push([`<b>${escapeHtml(g.label)}</b>`, escapeHtml(summary), "", "", "", `<b>${escapeHtml(formatBytes(g.bytes))}</b>`, ""]);
    textRows.push([g.label, summary, "", "", "", formatBytes(g.bytes), ""]);
    for (const id of g.ids) {
      const t = byId.get(id)!;
      const also = t.holders.slice(1).join("; ");
      htmlRowsOut.push(["", `#${t.id}`, escapeHtml(shapeText(t)), escapeHtml(t.dtype), escapeHtml(t.device), escapeHtml(formatBytes(t.nbytes)), escapeHtml(also)]);
      textRows.push(["", `  #${t.id}`, shapeText(t), t.dtype, t.device, formatBytes(t.nbytes), also]);
    }
  }
  let where = { text: "", html: "" };
  let sites: ReturnType<typeof allocationSites> = [];
  try { sites = allocationSites(ctx, devices); where = sitesView(sites); } catch { /* no memory history in this runtime */ }
  const notes: string[] = [];
  if (groups.some((g) => g.kind === "unreachable")) notes.push("Nothing referenced the unreachable tensors: the heap snapshot this view took collected them, and their memory went back to the allocator's cache (%empty_cache returns it to the device).");
  if (snapshotError) notes.push(`The heap snapshot failed (${snapshotError}); tensors it would have explained are listed as not found.`);
  const text = [head, tensors.length ? textTable(textRows) : "", ...notes, where.text].filter(Boolean).join("\n\n");
  const html = `<p><b>${escapeHtml(head)}</b></p>` +
    (tensors.length ? htmlRows(htmlRowsOut, [false, false, false, false, false, true, false], "Live tensors by what holds them", "tsgpu-tensors") : "") +
    notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join("") + where.html;
  ctx.output.display({
    "text/plain": text,
    "text/html": htmlBlock(html),
    "application/json": { holders: groups, tensors, where: sites, heap_snapshot: snapshot },
  });
}
