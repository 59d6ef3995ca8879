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

/** A small HTML table; the first row is the header. */
export function htmlTable(rows: (string | number)[][], caption?: string): string {
  const [head, ...body] = rows;
  const cell = (tag: string, v: string | number) => `<${tag} style="text-align:${typeof v === "number" ? "right" : "left"}">${escapeHtml(String(v))}</${tag}>`;
  return `<table class="tsgpu-memory">${caption ? `<caption>${escapeHtml(caption)}</caption>` : ""}` +
    `<thead><tr>${head.map((h) => cell("th", h)).join("")}</tr></thead>` +
    `<tbody>${body.map((r) => `<tr>${r.map((v) => cell("td", v)).join("")}</tr>`).join("")}</tbody></table>`;
}

/** A plain-text table with aligned columns. */
export function textTable(rows: (string | number)[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((v, i) => typeof v === "number" ? String(v).padStart(widths[i]) : String(v).padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}
