/**
 * %memory — where device memory goes and who holds it.
 *   %memory [DEVICE|all]        per-device table with bars (memory_overview.ts)
 *   --summary [--abbreviated]   PyTorch's memory_summary layout
 *   --tensors | --leaks         live tensors by holder, and by the cell and line that made them
 *                               (the line for tensors of kSiteMinBytes or more; for all with history on)
 *                               (memory_tensors.ts)
 *   --where                     live memory by the cell and line that allocated it (memory_where.ts)
 *   --history on|off            record the stack of every allocation
 *   --timeline                  chart of memory after every cell (timeline_svg.ts)
 *   --processes                 the processes using each GPU (processes.ts)
 *   --watch on|off              a live view, updated in place after every cell (watch.ts)
 * `%%memory` runs its cell, then reports the cell's allocated delta and peak.
 * Output is one display_data: HTML for people, text/plain for terminals,
 * JSON for programs (under magicMime("memory"), mime.ts).
 */
import { Magic, MagicContext, UsageError } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlRows, textTable } from "./format";
import { overviewBundle } from "./memory_overview";
import { magicMime } from "./mime";
import { setHistory, showWhere } from "./memory_where";
import { showTensors } from "./memory_tensors";
import { showTimeline } from "./timeline_svg";
import { showProcesses } from "./processes";

export { deviceMemory, DeviceMemory } from "./memory_overview";
export { allocationSites, AllocationSite } from "./memory_where";

type View = "overview" | "summary" | "tensors" | "where" | "timeline" | "processes";

const USAGE = "%memory [DEVICE|all] [--summary [--abbreviated] | --tensors (--leaks) | --where | --timeline | --processes | --history on|off | --watch on|off]";

function onOff(args: string[], i: number, a: string, flag: string): [boolean, number] {
  const inline = a.startsWith(`${flag}=`);
  const v = inline ? a.slice(flag.length + 1) : args[i + 1];
  if (v !== "on" && v !== "off") throw new UsageError(`%memory: expected on or off for ${flag}, got ${v ?? "nothing"}. Usage: ${USAGE}`);
  return [v === "on", inline ? i : i + 1];
}

/** The options of `%memory` from its split arguments; a usage error names an unknown option or a missing on/off. */
export function parseMemoryArgs(args: string[]) {
  const opts = { view: "overview" as View, abbreviated: false, history: undefined as boolean | undefined, watch: undefined as boolean | undefined, device: undefined as string | undefined };
  const views: Record<string, View> = { "--summary": "summary", "-s": "summary", "--tensors": "tensors", "--leaks": "tensors", "--where": "where", "-w": "where", "--timeline": "timeline", "--processes": "processes" };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (views[a]) opts.view = views[a];
    else if (a === "--abbreviated") opts.abbreviated = true;
    else if (a === "--history" || a.startsWith("--history=")) [opts.history, i] = onOff(args, i, a, "--history");
    else if (a === "--watch" || a.startsWith("--watch=")) [opts.watch, i] = onOff(args, i, a, "--watch");
    else if (a.startsWith("--device=")) opts.device = a.slice("--device=".length);
    else if (!a.startsWith("-") && !opts.device) opts.device = a;
    else throw new UsageError(`%memory: unknown option ${a}. Usage: ${USAGE}`);
  }
  return opts;
}

function devicesFor(ctx: MagicContext, device: string | undefined): string[] {
  const known = ctx.runtime.memory.devices();
  if (!device || device === "all") return known;
  if (!known.includes(device)) throw new UsageError(`%memory: no allocator for device "${device}"; devices in use: ${known.join(", ")} (or all)`);
  return [device];
}

function showSummary(ctx: MagicContext, devices: string[], abbreviated: boolean): void {
  const tables = devices.map((d) => ctx.runtime.memory.summary(d, { abbreviated }));
  ctx.output.display({
    "text/plain": tables.join("\n"),
    "text/html": htmlBlock(tables.map((t) => `<pre>${escapeHtml(t)}</pre>`).join("")),
    [magicMime("memory")]: { devices: devices.map((d) => ({ device: d, stats: ctx.runtime.memory.stats(d) })) },
  });
}

/** `--watch on` shows the live view (its output is the view); `--watch off` stops it and says so. */
function setWatch(ctx: MagicContext, on: boolean): void {
  if (on) { ctx.watch.start(); return; }
  const was = ctx.watch.running;
  ctx.watch.stop("--watch off");
  const text = was ? "Memory watch off: the live view stays as it was after the last cell." : "Memory watch was not on.";
  ctx.output.display({ "text/plain": text, "text/html": htmlBlock(`<p>${escapeHtml(text)}</p>`), [magicMime("memory")]: { watch: false } });
}

/** `%%memory`: runs the body, then shows each device's allocated delta, the body's peak and the reserved total. */
async function runCellMemory(args: string[], body: string, ctx: MagicContext): Promise<unknown> {
  if (args.length) throw new UsageError(`%%memory: expected no arguments, got ${args.join(" ")}`);
  const m = ctx.runtime.memory;
  const before = new Map(m.devices().map((d) => [d, m.allocated(d)]));
  for (const d of m.devices()) m.resetPeakStats(d);
  let result: unknown;
  try {
    result = await ctx.kernel.run(body);
  } finally {
    const rows = m.devices().map((d) => ({
      device: d, before: before.get(d) ?? 0, after: m.allocated(d), delta: m.allocated(d) - (before.get(d) ?? 0),
      peak: m.maxAllocated(d), peak_above_start: m.maxAllocated(d) - (before.get(d) ?? 0), reserved: m.reserved(d),
    }));
    const table: string[][] = [["device", "allocated change", "peak", "peak above start", "reserved"],
      ...rows.map((r) => [r.device, `${r.delta >= 0 ? "+" : ""}${formatBytes(r.delta)}`, formatBytes(r.peak), formatBytes(r.peak_above_start), formatBytes(r.reserved)])];
    ctx.output.display({
      "text/plain": `Cell memory:\n${textTable(table)}`,
      "text/html": htmlBlock(htmlRows(table.map((r) => r.map(escapeHtml)), [false, true, true, true, true], "Memory of this cell")),
      [magicMime("memory")]: { cell: ctx.cells.current(), devices: rows },
    });
  }
  return result;
}

const HELP = [
  "Shows where device memory goes and who holds it (all devices in use, or DEVICE: cpu, cuda:0, all).",
  "  (no option)        allocated, peak, reserved, split blocks, device total and free, with bars",
  "  --summary          PyTorch's memory_summary table (--abbreviated: the short one)",
  "  --tensors          live tensors by what holds them (variable, Out[N], kept error, closure, timer, frames,",
  "                     unreachable) and by the cell and line that made them; --leaks is the same. Every tensor",
  "                     records its cell; tensors of 1 MiB or more also record their line",
  "  --where            live memory by the cell and line of each allocation recorded by --history",
  "  --history on|off   record the stack of every allocation (the line of small tensors too)",
  "  --timeline         a chart of allocated, reserved and peak after every cell",
  "  --processes        the processes using each GPU (NVML)",
  "  --watch on|off     a live view of every device, updated in place after every cell (and every second while",
  "                     a cell awaits): allocated, the cell's change and peak (peaks reset after each cell), reserved",
  "%%memory runs the cell, then reports its allocated change and peak.",
].join("\n");

export const memoryMagic: Magic = {
  name: "memory",
  usage: USAGE,
  help: HELP,
  run(args, ctx) {
    const opts = parseMemoryArgs(args);
    if (opts.history !== undefined) return setHistory(ctx, opts.history, opts.device);
    if (opts.watch !== undefined) return setWatch(ctx, opts.watch);
    if (opts.view === "processes") return showProcesses(ctx);
    const devices = devicesFor(ctx, opts.device);
    switch (opts.view) {
      case "where": return showWhere(ctx, devices);
      case "summary": return showSummary(ctx, devices, opts.abbreviated);
      case "tensors": return showTensors(ctx, devices);
      case "timeline": return showTimeline(ctx, devices);
      default: ctx.output.display(overviewBundle(ctx, devices));
    }
  },
  runCell: runCellMemory,
};
