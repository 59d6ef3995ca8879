/**
 * `%memory --timeline`: an SVG chart per device of allocated, reserved and
 * peak memory after every executed cell since the kernel started (a leak
 * shows as a staircase). Hovering a point names its cell and numbers.
 * Self-contained SVG; text and axes take the page's color. Where a notebook
 * is shown untrusted (its HTML sanitized: no <svg>), the same numbers as a
 * table instead (format.ts htmlWithFallback).
 */
import type { MagicContext } from "./context";
import { COLORS, escapeHtml, formatBytes, htmlBlock, htmlTable, htmlWithFallback, textTable } from "./format";
import { magicMime } from "./mime";
import type { TimelinePoint } from "./timeline";

const W = 640, H = 220, L = 78, R = 16, T = 24, B = 34;
/** The top of the axis of a chart whose values are all zero. */
export const kEmptyAxisBytes = 1024;
/** What stands above the table that replaces the chart in an untrusted notebook. */
export const kUntrustedNote = "The chart is not shown in an untrusted notebook (trust it, or run the cell again); its numbers, after each cell:";
const SERIES = [["allocated", COLORS.allocated], ["reserved", COLORS.reserved], ["peak", COLORS.peak]] as const;

type Series = typeof SERIES[number][0];

function value(p: TimelinePoint, device: string, s: Series): number {
  const d = p.devices.find((x) => x.device === device);
  return d ? d[s] : 0;
}

/** The chart of one device. */
export function timelineSvg(points: TimelinePoint[], device: string): string {
  const highest = Math.max(0, ...points.flatMap((p) => SERIES.map(([s]) => value(p, device, s))));
  // Nothing allocated yet: an axis up to 1 KiB (0 B, 512 B, 1.00 KiB), not one of a byte.
  const max = highest > 0 ? highest : kEmptyAxisBytes;
  const n = points.length;
  const x = (i: number) => L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (v: number) => T + (H - T - B) * (1 - v / max);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" class="tsgpu-timeline" data-device="${escapeHtml(device)}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="memory of ${escapeHtml(device)} after each cell" style="color:inherit;font:11px var(--jp-ui-font-family,system-ui,sans-serif)">`);
  parts.push(`<text x="${L}" y="14" fill="currentColor" font-weight="600">${escapeHtml(device)}: memory after each cell</text>`);
  for (const f of [0, 0.5, 1]) {
    const yy = y(max * f).toFixed(1);
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${yy}" y2="${yy}" stroke="currentColor" stroke-opacity="0.2" class="grid"/>`);
    parts.push(`<text x="${L - 6}" y="${yy}" dy="4" text-anchor="end" fill="currentColor" class="y-tick">${escapeHtml(formatBytes(Math.round(max * f)))}</text>`);
  }
  const every = Math.max(1, Math.ceil(n / 16));
  points.forEach((p, i) => {
    if (i % every === 0 || i === n - 1) parts.push(`<text x="${x(i).toFixed(1)}" y="${H - B + 16}" text-anchor="middle" fill="currentColor" class="x-tick">${p.cell}</text>`);
  });
  if (highest === 0 && n) parts.push(`<text x="${(L + W - R) / 2}" y="${(T + H - B) / 2}" text-anchor="middle" fill="currentColor" class="axis-label">nothing allocated on ${escapeHtml(device)} yet</text>`);
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle" fill="currentColor" fill-opacity="0.8" class="axis-label">cell (execution count)</text>`);
  for (const [s, color] of SERIES) {
    const d = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(value(p, device, s)).toFixed(1)}`).join("");
    if (n) parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${s === "peak" ? ' stroke-dasharray="5 3"' : ""} class="series-${s}"/>`);
  }
  points.forEach((p, i) => {
    const [a, r, k] = SERIES.map(([s]) => value(p, device, s));
    const title = `Cell In[${p.cell}]: allocated ${formatBytes(a)}, reserved ${formatBytes(r)}, peak ${formatBytes(k)}`;
    parts.push(`<g class="point" data-cell="${p.cell}" data-allocated="${a}" data-reserved="${r}" data-peak="${k}"><title>${escapeHtml(title)}</title>` +
      `<rect x="${(x(i) - 6).toFixed(1)}" y="${T}" width="12" height="${H - T - B}" fill="transparent"/>` +
      `<circle cx="${x(i).toFixed(1)}" cy="${y(a).toFixed(1)}" r="3" fill="${COLORS.allocated}"/></g>`);
  });
  let lx = W - R - 240;
  for (const [s, color] of SERIES) {
    parts.push(`<line x1="${lx}" x2="${lx + 16}" y1="10" y2="10" stroke="${color}" stroke-width="2"${s === "peak" ? ' stroke-dasharray="5 3"' : ""}/><text x="${lx + 20}" y="14" fill="currentColor">${s}</text>`);
    lx += 80;
  }
  parts.push("</svg>");
  return parts.join("");
}

export function showTimeline(ctx: MagicContext, devices: string[]): void {
  const points = ctx.timeline.points;
  const shown = devices.filter((d) => points.some((p) => p.devices.some((x) => x.device === d)));
  const rows: (string | number)[][] = [["cell", ...shown.flatMap((d) => [`${d} allocated`, `${d} reserved`, `${d} peak`])]];
  for (const p of points) rows.push([p.cell, ...shown.flatMap((d) => SERIES.map(([s]) => formatBytes(value(p, d, s))))]);
  const note = points.length ? "" : "No cell has finished yet.";
  ctx.output.display({
    "text/plain": note || textTable(rows),
    "text/html": htmlBlock(note ? `<p class="note">${note}</p>` : htmlWithFallback(shown.map((d) => timelineSvg(points, d)).join("<br/>"),
      `<p class="note">${escapeHtml(kUntrustedNote)}</p>${htmlTable(rows)}`)),
    [magicMime("memory")]: { timeline: points.map((p) => ({ ...p, devices: p.devices.filter((d) => devices.includes(d.device)) })) },
  });
}
