/**
 * %memory — what each device holds now: allocated and reserved bytes with
 * their peaks, free and total memory, and the live tensors. `--summary`
 * shows the PyTorch-layout memory_summary table instead. Output is one
 * display_data: HTML for people, text/plain for terminals, JSON for programs.
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
  const opts = { summary: false, abbreviated: false, device: undefined as string | undefined };
  for (const a of args) {
    if (a === "--summary" || a === "-s") opts.summary = true;
    else if (a === "--abbreviated") opts.abbreviated = true;
    else if (a.startsWith("--device=")) opts.device = a.slice("--device=".length);
    else if (!a.startsWith("-") && !opts.device) opts.device = a;
    else throw new UsageError(`%memory: unknown option ${a}. Usage: ${memoryMagic.usage}`);
  }
  return opts;
}

export const memoryMagic: Magic = {
  name: "memory",
  usage: "%memory [DEVICE] [--summary [--abbreviated]]",
  run(args, ctx) {
    const opts = parse(args);
    const known = ctx.runtime.memory.devices();
    if (opts.device && !known.includes(opts.device)) {
      throw new UsageError(`%memory: no allocator for device "${opts.device}"; devices in use: ${known.join(", ")}`);
    }
    const devices = opts.device ? [opts.device] : known;
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
