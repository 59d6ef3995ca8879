/** Byte counts and HTML for magic output. */

/** 4000256 → "3.81 MiB", with PyTorch's unit steps (B, KiB, MiB, GiB, TiB, PiB). */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  const s = u === 0 ? `${v} ${units[0]}` : `${v.toFixed(2)} ${units[u]}`;
  return n < 0 ? "-" + s : s;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A formatted byte count or change (formatBytes, with an optional sign), or a placeholder for none. */
const kByteCell = /^[+-]?\d+(\.\d+)? (B|KiB|MiB|GiB|TiB|PiB)$/;
const kNoValue = new Set(["", "-", "—"]);

/**
 * Which columns of `rows` (the first is the header) hold numbers: every body
 * cell a number, a byte count as formatBytes writes it, or a placeholder,
 * with at least one value.
 */
export function numericColumns(rows: (string | number)[][]): boolean[] {
  const body = rows.slice(1);
  return rows[0].map((_, i) => {
    const cells = body.map((r) => r[i]);
    const values = cells.filter((v) => typeof v === "number" || !kNoValue.has(v));
    return values.length > 0 && values.every((v) => typeof v === "number" || kByteCell.test(v));
  });
}

/** A small HTML table of plain values (escaped here); the first row is the header. Columns of numbers and byte counts are right-aligned. */
export function htmlTable(rows: (string | number)[][], caption?: string): string {
  return htmlRows(rows.map((r) => r.map((v) => escapeHtml(String(v)))), numericColumns(rows), caption, "tsgpu-memory");
}

/** A plain-text table with aligned columns. */
export function textTable(rows: (string | number)[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((v, i) => typeof v === "number" ? String(v).padStart(widths[i]) : String(v).padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}

/**
 * A JupyterLab theme variable with its fallbacks: VS Code's variable of the
 * same role where it has one, then a value that reads on light and dark pages
 * alike (the classic Notebook 6, nbconvert's HTML, a static page).
 */
function themed(jp: string, fallback: string, vscode?: string): string {
  return `var(--jp-${jp},${vscode ? `var(--vscode-${vscode},${fallback})` : fallback})`;
}

/**
 * Styles of every magic's HTML, inlined in each output (self-contained, no
 * external sheets). They follow JupyterLab's theme (and so Notebook 7's)
 * through its CSS variables — text in --jp-content-font-color1, rules in
 * --jp-border-color2, header and bar tracks in --jp-layout-color2 — and,
 * where those are not defined, VS Code's, else the page's own text color with
 * translucent greys. The colors of the memory kinds (COLORS) read on light
 * and dark backgrounds alike. Cell alignment is doubled in specificity to win
 * over JupyterLab's own right-aligned table cells. The last two rules swap
 * what htmlWithFallback and htmlBar write for an output shown without them;
 * they match only what follows this <style> element in its own block, as a
 * page applies every output's <style> to all of its outputs: a cell run in an
 * untrusted notebook must not show the sanitized chart's texts of another.
 */
export const STYLE = `<style>
.tsgpu-out{font-family:${themed("ui-font-family", "system-ui,sans-serif", "font-family")};font-size:${themed("ui-font-size1", "13px")};color:${themed("content-font-color1", "inherit")}}
.tsgpu-out table{border-collapse:collapse;margin:4px 0 10px 0;color:inherit;border:none}
.tsgpu-out caption{text-align:left;font-weight:600;padding:2px 0 4px 0;color:inherit}
.tsgpu-out.tsgpu-out th,.tsgpu-out.tsgpu-out td{text-align:left;padding:2px 10px 2px 4px;border:none;border-bottom:1px solid ${themed("border-color2", "rgba(128,128,128,.35)", "editorWidget-border")};color:inherit;background:transparent}
.tsgpu-out thead th{font-weight:600;background:${themed("layout-color2", "rgba(128,128,128,.12)")}}
.tsgpu-out tbody tr:hover td{background:${themed("rendermime-table-row-hover-background", "rgba(128,128,128,.12)")}}
.tsgpu-out.tsgpu-out th.num,.tsgpu-out.tsgpu-out td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.tsgpu-out .bar{display:inline-block;width:180px;height:10px;background:${themed("layout-color2", "rgba(128,128,128,.25)")};box-shadow:inset 0 0 0 1px ${themed("border-color2", "rgba(128,128,128,.35)")};border-radius:2px;vertical-align:middle;overflow:hidden}
.tsgpu-out .bar>span{display:block;height:100%}
.tsgpu-out .note{color:${themed("content-font-color2", "inherit")};margin:2px 0}
.tsgpu-out pre{font-family:${themed("code-font-family", "monospace", "editor-font-family")};font-size:${themed("code-font-size", "12px")};color:inherit;background:transparent;margin:4px 0}
.tsgpu-out svg.tsgpu-timeline{color:inherit;background:transparent}
.tsgpu-out svg.tsgpu-timeline .grid{stroke:${themed("border-color2", "rgba(128,128,128,.4)", "editorWidget-border")};stroke-opacity:1}
.tsgpu-out svg.tsgpu-timeline .axis-label{fill:${themed("content-font-color2", "currentColor")};fill-opacity:1}
.tsgpu-out>style~.tsgpu-styled[hidden]{display:block}
.tsgpu-out>style~.tsgpu-unstyled,.tsgpu-out>style~* .tsgpu-unstyled{display:none}
</style>`;

/** Colors of the memory kinds (bars, chart lines). */
export const COLORS: Record<string, string> = {
  allocated: "#3b82f6", peak: "#ef4444", reserved: "#f59e0b", unallocated: "#f59e0b", split: "#a855f7",
  free: "#22c55e", total: "#9ca3af", context: "#14b8a6", others: "#ec4899",
};

/**
 * A horizontal bar for `value` out of `total`, with its percentage in the
 * tooltip; where the output is shown without its <style> element (an
 * untrusted notebook), the percentage as text instead.
 */
export function htmlBar(value: number, total: number, color: string): string {
  const pct = total > 0 ? Math.max(0, Math.min(100, (value / total) * 100)) : 0;
  return `<span class="bar" title="${pct.toFixed(1)}% of ${escapeHtml(formatBytes(total))}" data-percent="${pct.toFixed(2)}"><span style="width:${pct.toFixed(2)}%;background:${color}"></span>` +
    `<span class="tsgpu-unstyled">${pct.toFixed(1)}%</span></span>`;
}

/** The same bar as text: `████░░░░░░` (width characters). */
export function textBar(value: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round(Math.max(0, Math.min(1, value / total)) * width) : 0;
  return "█".repeat(filled) + "░".repeat(width - filled);
}

/** Wraps magic HTML in its styled container. */
export function htmlBlock(inner: string): string {
  return `<div class="tsgpu-out">${STYLE}${inner}</div>`;
}

/**
 * A table from rows of already-escaped HTML cells; the first row is the
 * header. `numeric[i]` right-aligns column i (unwrapped). The alignment and the caption's
 * place are also written on each element (style attributes), which
 * JupyterLab's sanitizer keeps in an untrusted notebook where it drops the
 * <style> element.
 */
export function htmlRows(rows: string[][], numeric: boolean[], caption?: string, cls = ""): string {
  const [head, ...body] = rows;
  const td = (tag: string, v: string, i: number) => `<${tag}${numeric[i] ? ' class="num" style="text-align:right;white-space:nowrap"' : ' style="text-align:left"'}>${v}</${tag}>`;
  return `<table${cls ? ` class="${cls}"` : ""}>${caption ? `<caption style="text-align:left">${escapeHtml(caption)}</caption>` : ""}` +
    `<thead><tr>${head.map((h, i) => td("th", h, i)).join("")}</tr></thead>` +
    `<tbody>${body.map((r) => `<tr>${r.map((v, i) => td("td", v, i)).join("")}</tr>`).join("")}</tbody></table>`;
}

/**
 * HTML for an output shown without its <style> element: JupyterLab and the
 * classic Notebook sanitize the HTML of an untrusted notebook (one opened
 * from a file, not run here), which removes <style>, <svg> (leaving its
 * texts run together) and, in the classic Notebook, every style attribute,
 * but keeps classes and `hidden="hidden"` (not a bare `hidden`: an
 * attribute without a value is dropped). `styled` is wrapped in a
 * hidden block that the <style> element shows; `plain`, what stands in for
 * it, in a block that the <style> element hides.
 */
export function htmlWithFallback(styled: string, plain: string): string {
  return `<div class="tsgpu-styled" hidden="hidden">${styled}</div><div class="tsgpu-unstyled">${plain}</div>`;
}
