/**
 * Memory after every executed cell, recorded by the kernel (through
 * `afterCell`), for `%memory --timeline`; and the one-line summary that the
 * live view of `%memory --watch on` (watch.ts) starts with.
 */
import type { RuntimeApi } from "./runtime_api";
import { formatBytes } from "./format";

/** One device's numbers after one cell. */
export interface TimelineDevice {
  device: string;
  allocated: number;
  reserved: number;
  /** allocated_bytes.all.peak: the highest allocated since the start or the last peak reset. */
  peak: number;
}

export interface TimelinePoint {
  /** Execution count of the cell. */
  cell: number;
  /** When it finished (ms since the epoch). */
  time: number;
  devices: TimelineDevice[];
}

/**
 * Most points kept (the last this many cells); older ones are dropped, so a
 * long session's timeline costs a bounded amount of memory (about 200 bytes
 * a point), and its chart and table stay readable.
 */
export const kMaxTimelinePoints = 1000;

/** One string per device name, shared by every point (the runtime gives a new one each time). */
const deviceNames = new Map<string, string>();
function internDevice(name: string): string {
  const known = deviceNames.get(name);
  if (known !== undefined) return known;
  deviceNames.set(name, name);
  return name;
}

export class MemoryTimeline {
  readonly points: TimelinePoint[] = [];
  /** Whether the live view is on (the peaks are then reset after every cell). */
  watch = false;

  /** Reads every device's numbers (none before the runtime is loaded). */
  static read(runtime: RuntimeApi | undefined): TimelineDevice[] {
    if (!runtime) return [];
    return runtime.memory.devices().map((name) => {
      const device = internDevice(name);
      return { device, allocated: runtime.memory.allocated(device), reserved: runtime.memory.reserved(device), peak: runtime.memory.maxAllocated(device) };
    });
  }

  /**
   * Turns watching on or off. While on, the peak statistics are reset
   * after every cell (as `torch.cuda.reset_peak_memory_stats()` would be),
   * so that the live view shows each cell's own peak.
   */
  setWatch(on: boolean, runtime: RuntimeApi | undefined): void {
    this.watch = on;
    if (on && runtime) for (const d of runtime.memory.devices()) runtime.memory.resetPeakStats(d);
  }

  /** Records the point of a finished cell; while watching, resets the peaks for the next cell. */
  afterCell(cell: number, runtime: RuntimeApi | undefined): void {
    const devices = MemoryTimeline.read(runtime);
    this.points.push({ cell, time: Date.now(), devices });
    if (this.points.length > kMaxTimelinePoints) this.points.splice(0, this.points.length - kMaxTimelinePoints);
    if (this.watch && runtime) for (const d of devices) runtime.memory.resetPeakStats(d.device);
  }
}

/** "[memory] cell 7 · cpu: +3.81 MiB allocated (peak 7.63 MiB), 22.00 MiB reserved" */
export function watchFooter(cell: number, devices: TimelineDevice[], before: Map<string, number>): string {
  const parts = devices.map((d) => {
    const delta = d.allocated - (before.get(d.device) ?? 0);
    return `${d.device}: ${delta >= 0 ? "+" : ""}${formatBytes(delta)} allocated (peak ${formatBytes(d.peak)}), ${formatBytes(d.reserved)} reserved`;
  });
  return `[memory] cell ${cell} · ${parts.length ? parts.join(" · ") : "no tensors yet"}`;
}
