/**
 * `%memory --processes`: the processes using each GPU, from NVML (loaded at
 * run time), with this kernel marked, so that a previous kernel still holding
 * memory after a restart shows. Without a GPU it says why.
 */
import { readFileSync } from "fs";
import type { MagicContext } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlRows, textTable } from "./format";
import { magicMime } from "./mime";

/** A process's command line (from /proc), shortened; "" where it cannot be read. */
function commandOf(pid: number): string {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    return cmd.length > 80 ? cmd.slice(0, 77) + "..." : cmd;
  } catch { return ""; }
}

export function showProcesses(ctx: MagicContext): void {
  const report = ctx.runtime.cuda.processes();
  if (!report.available) {
    const text = `No GPU processes to show: ${report.reason}`;
    ctx.output.display({ "text/plain": text, "text/html": htmlBlock(`<p class="note">${escapeHtml(text)}</p>`), [magicMime("memory")]: { available: false, reason: report.reason, pid: process.pid, devices: [] } });
    return;
  }
  const html: string[] = [];
  const text: string[] = [];
  const devices = report.devices.map((d) => ({
    ...d,
    processes: d.processes.map((p) => ({ ...p, this_kernel: p.pid === process.pid, command: commandOf(p.pid) })),
  }));
  for (const d of devices) {
    const caption = `GPU ${d.index}: ${d.name} — ${formatBytes(d.used)} used of ${formatBytes(d.total)}`;
    const rows = [["pid", "memory", "process"], ...d.processes.map((p) => [String(p.pid), p.usedBytes === null ? "unknown" : formatBytes(p.usedBytes), `${p.command || "(command not readable)"}${p.this_kernel ? "  ← this kernel" : ""}`])];
    html.push(htmlRows(rows.map((r, i) => i === 0 ? r : r.map(escapeHtml).map((c, k) => k === 2 && d.processes[i - 1].this_kernel ? `<b>${c}</b>` : c)), [true, true, false], caption));
    text.push(`${caption}\n${d.processes.length ? textTable(rows) : "  no compute processes"}`);
  }
  const mine = devices.some((d) => d.processes.some((p) => p.this_kernel));
  if (!mine) {
    const note = `This kernel (pid ${process.pid}) is not among them: it has no memory on a GPU yet, or NVML reports the host's process ids (a container).`;
    html.push(`<p class="note">${escapeHtml(note)}</p>`);
    text.push(note);
  }
  ctx.output.display({ "text/plain": text.join("\n\n"), "text/html": htmlBlock(html.join("")), [magicMime("memory")]: { available: true, reason: "", pid: process.pid, devices } });
}
