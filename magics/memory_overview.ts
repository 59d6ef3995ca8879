/**
 * `%memory [DEVICE|all]`: one table per device — allocated, peak, reserved,
 * reserved but unallocated, non-releasable split blocks, the device's total
 * and free memory, and (through NVML, on CUDA) the CUDA context and other
 * processes — each with a bar of its share of the device. text/plain has the
 * same rows aligned; its data (magicMime("memory")) has PyTorch's statistic names plus the
 * device totals.
 */
import type { MagicContext } from "./context";
import { COLORS, escapeHtml, formatBytes, htmlBar, htmlBlock, htmlRows, textBar, textTable } from "./format";
import { magicMime } from "./mime";

export interface DeviceMemory {
  device: string;
  allocated: number;
  max_allocated: number;
  reserved: number;
  max_reserved: number;
  /** reserved − allocated: cached blocks no tensor uses. */
  reserved_unallocated: number;
  /** inactive_split_bytes.all.current: free parts of split blocks, which emptyCache cannot release. */
  non_releasable: number;
  free: number;
  total: number;
  /** This process's device memory beyond the allocator's: the CUDA context (NVML), or null where unknown. */
  cuda_context: number | null;
  /** Device memory other processes use (NVML), or null where unknown. */
  other_processes: number | null;
  /** Live tensors on the device. */
  tensors: number;
  /**
   * Bytes of training memory by kind, from what the runtime says holds each storage: parameters, their
   * gradients, optimizer state and tensors saved for backward (absent kinds are 0).
   */
  training: { parameter: number; gradient: number; optimizer: number; saved: number };
  /** All allocator statistics with PyTorch's key names (`allocated_bytes.all.current`, …). */
  stats: Record<string, number>;
}

/** NVML's numbers for a CUDA device: this process's use and the others'. */
function nvmlUse(ctx: MagicContext, device: string): { self: number | null; others: number | null } {
  const m = /^cuda:(\d+)$/.exec(device);
  if (!m) return { self: null, others: null };
  const report = ctx.runtime.cuda.processes();
  const dev = report.available ? report.devices.find((d) => d.index === Number(m[1])) : undefined;
  if (!dev) return { self: null, others: null };
  const mine = dev.processes.filter((p) => p.pid === process.pid);
  if (!mine.length || mine.some((p) => p.usedBytes === null)) return { self: null, others: null };
  const self = mine.reduce((n, p) => n + (p.usedBytes ?? 0), 0);
  const others = dev.processes.filter((p) => p.pid !== process.pid);
  return { self, others: others.some((p) => p.usedBytes === null) ? null : others.reduce((n, p) => n + (p.usedBytes ?? 0), 0) };
}

export function deviceMemory(ctx: MagicContext, device: string): DeviceMemory {
  const m = ctx.runtime.memory;
  const [free, total] = m.memGetInfo(device);
  const stats = m.stats(device);
  const allocated = m.allocated(device), reserved = m.reserved(device);
  let use: { self: number | null; others: number | null } = { self: null, others: null };
  try { use = nvmlUse(ctx, device); } catch { /* NVML is optional */ }
  return {
    device, allocated, max_allocated: m.maxAllocated(device), reserved, max_reserved: m.maxReserved(device),
    reserved_unallocated: reserved - allocated, non_releasable: stats["inactive_split_bytes.all.current"] ?? 0,
    free, total,
    cuda_context: use.self === null ? null : Math.max(0, use.self - reserved),
    other_processes: use.others,
    ...liveSummary(m.liveTensors(device)),
    stats,
  };
}

/** The live tensors' count and the bytes of each kind of training memory. */
function liveSummary(live: { nbytes: number; holder?: { kind: string } }[]): { tensors: number; training: DeviceMemory["training"] } {
  const training = { parameter: 0, gradient: 0, optimizer: 0, saved: 0 };
  for (const t of live) {
    const k = t.holder?.kind;
    if (k === "parameter" || k === "gradient" || k === "optimizer" || k === "saved") training[k] += t.nbytes;
  }
  return { tensors: live.length, training };
}

/** What the training rows say of each kind. */
const TRAINING_ROWS: [keyof DeviceMemory["training"], string, string][] = [
  ["parameter", "  parameters", "module weights (%memory --tensors names them)"],
  ["gradient", "  gradients", "zeroGrad({ setToNone: true }) frees them"],
  ["optimizer", "  optimizer state", "exp_avg, exp_avg_sq, momentum_buffer"],
  ["saved", "  saved for backward", "activations the graph keeps until backward or dispose"],
];

type Row = [label: string, value: number | null, color: string, note: string];

function rowsOf(d: DeviceMemory): Row[] {
  const rows: Row[] = [
    ["allocated", d.allocated, COLORS.allocated, `${d.tensors} live tensor${d.tensors === 1 ? "" : "s"}`],
    ...TRAINING_ROWS.filter(([k]) => d.training[k] > 0).map(([k, label, note]): Row => [label, d.training[k], COLORS.allocated, note]),
    ["peak allocated", d.max_allocated, COLORS.peak, "since start or last peak reset"],
    ["reserved", d.reserved, COLORS.reserved, "allocated + cached"],
    ["reserved but unallocated", d.reserved_unallocated, COLORS.unallocated, "cached; %empty_cache returns what is releasable"],
    ["non-releasable (split blocks)", d.non_releasable, COLORS.split, "free parts of blocks still in use"],
    ["device free", d.free, COLORS.free, ""],
    ["device total", d.total, COLORS.total, ""],
  ];
  if (d.device.startsWith("cuda:")) {
    rows.push(["CUDA context and other driver memory", d.cuda_context, COLORS.context, d.cuda_context === null ? "unknown (NVML cannot attribute it here)" : "this process, beyond the allocator"]);
    rows.push(["other processes", d.other_processes, COLORS.others, d.other_processes === null ? "unknown (see %memory --processes)" : ""]);
  }
  return rows;
}

/** The overview bundle of these devices. */
export function overviewBundle(ctx: MagicContext, devices: string[]): Record<string, unknown> {
  const mem = devices.map((d) => deviceMemory(ctx, d));
  const html: string[] = [];
  const text: string[] = [];
  for (const d of mem) {
    const rows = rowsOf(d);
    html.push(htmlRows([["", "bytes", "of device", ""], ...rows.map(([label, v, color, note]) => [
      escapeHtml(label), v === null ? "—" : escapeHtml(formatBytes(v)), v === null ? "" : htmlBar(v, d.total, color), escapeHtml(note),
    ])], [false, true, false, false], `${d.device} — ${formatBytes(d.total)}`, "tsgpu-memory"));
    text.push(`${d.device} (total ${formatBytes(d.total)})\n` + textTable(rows.map(([label, v, , note]) =>
      [`  ${label}`, v === null ? "-" : formatBytes(v), v === null ? "" : textBar(v, d.total), note])));
  }
  const cudaNote = ctx.runtime.cuda.isAvailable() ? "" : `CUDA unavailable: ${ctx.runtime.cuda.unavailableReason()}`;
  if (cudaNote) { html.push(`<p class="note">${escapeHtml(cudaNote)}</p>`); text.push(cudaNote); }
  return {
    "text/plain": text.join("\n\n"),
    "text/html": htmlBlock(html.join("")),
    [magicMime("memory")]: {
      devices: mem, cuda_available: ctx.runtime.cuda.isAvailable(),
      tensors: ctx.runtime.memory.liveTensors().filter((t) => devices.includes(t.device)),
    },
  };
}
