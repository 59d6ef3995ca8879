/**
 * `%memory --watch on`: a live view of every device's memory, shown once as
 * display_data with a display id and then updated in place
 * (update_display_data) after every cell, and every second while a cell
 * awaits (a training loop that awaits between steps), when the numbers
 * changed. JupyterLab, Notebook and nbclient replace the shown output with
 * each update; a console that ignores updates keeps the first view.
 * `--watch off`, `%restart` and a restart or shutdown from the frontend stop
 * it, and its last update says so, so that a stale view never looks live.
 */
import { randomBytes } from "crypto";
import type { MagicContext, MimeBundle } from "./context";
import { COLORS, escapeHtml, formatBytes, htmlBar, htmlBlock, htmlRows, textTable } from "./format";
import { magicMime } from "./mime";
import { MemoryTimeline, TimelineDevice, watchFooter } from "./timeline";

/** How often the view is refreshed while a cell awaits. */
export const kWatchIntervalMs = 1000;

/** One device in the live view. */
export interface WatchDevice extends TimelineDevice {
  /** Allocated now minus allocated after the previous cell. */
  delta: number;
  /** The device's total memory. */
  total: number;
}

/** What sends the view: display_data the first time, update_display_data after. */
export interface WatchSink {
  show(bundle: MimeBundle, displayId: string): void;
  update(bundle: MimeBundle, displayId: string): void;
  /** Runs `fn` outside any cell's scope, so that timers it starts are the kernel's, not the cell's. */
  detached<T>(fn: () => T): T;
}

/** The local time of day, HH:MM:SS: how old a view is, once nothing updates it (a restart from JupyterLab). */
function clock(): string {
  const d = new Date();
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

export class MemoryWatch {
  /** The display id of the live view (one per kernel: every `--watch on` output shows the same view). */
  readonly displayId = `tsgpu-memory-watch-${randomBytes(6).toString("hex")}`;
  private timer: NodeJS.Timeout | undefined;
  private lastShown = "";
  private cell = 0;
  /** Allocated per device before the cell the view shows: what `delta` is measured from. */
  private before = new Map<string, number>();
  /**
   * Allocated per device after the cell shown last: the baseline once the
   * next cell starts. Until then the view keeps showing that cell's change
   * (a tick between cells must not turn it into +0 B).
   */
  private pending: Map<string, number> | null = null;

  constructor(private readonly sink: WatchSink, private readonly timeline: MemoryTimeline) {}

  get running(): boolean { return this.timer !== undefined; }

  /** Shows the live view and starts refreshing it. */
  start(ctx: MagicContext): void {
    this.timeline.setWatch(true, ctx.runtime);
    this.cell = ctx.cells.current();
    this.before = new Map(MemoryTimeline.read(ctx.runtime).map((d) => [d.device, d.allocated]));
    this.pending = null;
    const bundle = this.bundle(ctx, "live");
    this.lastShown = this.key(bundle);
    this.sink.show(bundle, this.displayId);
    if (!this.timer) {
      this.timer = this.sink.detached(() => setInterval(() => this.refresh(ctx), kWatchIntervalMs));
      this.timer.unref();
    }
  }

  /** After a cell: the view shows that cell's change and peak (the timeline resets the peak after it). */
  afterCell(ctx: MagicContext, cell: number, devices: TimelineDevice[]): void {
    if (!this.timer) return;
    if (this.pending !== null) this.before = this.pending; // the cell's change is since the end of the last one
    this.cell = cell;
    this.publish(this.bundle(ctx, "live", devices), true);
    this.pending = new Map(devices.map((d) => [d.device, d.allocated]));
  }

  /** Stops refreshing; the view's last update says why (`--watch off`, a restart, a shutdown). */
  stop(ctx: MagicContext | undefined, reason: string): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    if (ctx) this.timeline.setWatch(false, undefined);
    this.publish(this.bundle(ctx, reason), true);
  }

  private refresh(ctx: MagicContext): void {
    try {
      if (this.pending !== null) {
        // Between cells the view keeps the last cell's change and peak (the timeline has reset the peak).
        if (ctx.cells.current() === this.cell) return;
        // A later cell is running: its change is measured from the end of the one shown.
        this.before = this.pending;
        this.pending = null;
      }
      this.publish(this.bundle(ctx, "live"), false);
    } catch { /* the runtime is going away */ }
  }

  /** Sends an update when the numbers changed (or always, when `force`). */
  private publish(bundle: MimeBundle, force: boolean): void {
    const key = this.key(bundle);
    if (!force && key === this.lastShown) return;
    this.lastShown = key;
    this.sink.update(bundle, this.displayId);
  }

  /** What an update is compared on: the numbers, not the time of day in the text. */
  private key(bundle: MimeBundle): string { return JSON.stringify(bundle[magicMime("memory")]); }

  private devices(ctx: MagicContext | undefined, read?: TimelineDevice[]): WatchDevice[] {
    if (!ctx) return [];
    let runtime;
    try { runtime = ctx.runtime; } catch { return []; }
    const now = read ?? MemoryTimeline.read(runtime);
    return now.map((d) => {
      let total = 0;
      try { total = runtime.memory.memGetInfo(d.device)[1]; } catch { /* unknown */ }
      return { ...d, delta: d.allocated - (this.before.get(d.device) ?? 0), total };
    });
  }

  /** The view: a row per device, allocated with its bar, the change and peak of the last cell, reserved. */
  private bundle(ctx: MagicContext | undefined, state: string, read?: TimelineDevice[]): MimeBundle {
    const devices = this.devices(ctx, read);
    const live = state === "live";
    const status = live
      ? `Memory, live: after cell In[${this.cell}] at ${clock()}, updated after every cell and every ${kWatchIntervalMs / 1000} s while a cell awaits (%memory --watch off stops it).`
      : `Memory watch stopped (${state}) at ${clock()}; the numbers are those after cell In[${this.cell}].`;
    const change = (d: WatchDevice) => `${d.delta >= 0 ? "+" : ""}${formatBytes(d.delta)}`;
    const head = ["device", "allocated", "change in the cell", "peak in the cell", "reserved", "device total"];
    const cells = devices.map((d) => [d.device, formatBytes(d.allocated), change(d), formatBytes(d.peak), formatBytes(d.reserved), formatBytes(d.total)]);
    const rows: string[][] = [[head[0], head[1], "", ...head.slice(2)],
      ...devices.map((d, i) => { const c = cells[i].map(escapeHtml); return [c[0], c[1], htmlBar(d.allocated, d.total, COLORS.allocated), ...c.slice(2)]; })];
    const footer = `${watchFooter(this.cell, devices, new Map(devices.map((d) => [d.device, d.allocated - d.delta])))} ${live ? "(live)" : `(stopped: ${state})`}`;
    return {
      "text/plain": devices.length ? `${footer}\n${textTable([head, ...cells])}` : footer,
      "text/html": htmlBlock(`<p class="note tsgpu-watch-status" data-state="${live ? "live" : "stopped"}">${escapeHtml(status)}</p>` +
        (devices.length ? htmlRows(rows, [false, true, false, true, true, true, true], undefined, "tsgpu-watch") : `<p class="note">No tensors yet.</p>`)),
      [magicMime("memory")]: { watch: live, state: live ? "live" : "stopped", reason: live ? "" : state, cell: this.cell, devices },
    };
  }
}
