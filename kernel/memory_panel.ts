/**
 * The kernel's side of JupyterLab's memory panel (labextension/): the comm
 * target `tsgpu.memory`. A panel opens a comm to it and asks, in comm_msg
 * data, for
 *
 *   { request: "snapshot", id }     → { reply: "snapshot", id, snapshot }
 *   { request: "empty_cache", id }  → { reply: "empty_cache", id, result, snapshot }   (%empty_cache)
 *   { request: "reset", id }        → { reply: "reset", id, result, snapshot }         (%reset -f; the panel asks first)
 *
 * and, while a comm is open, is sent `{ update: snapshot }` at most every
 * `kPanelIntervalMs`, only when the numbers changed. A request the kernel
 * cannot answer gets `{ reply, id, error }`. A snapshot has, per device,
 * allocated, reserved and peak (PyTorch's allocated_bytes.all.peak) and the
 * device's total; and the largest holders by variable, as `%memory
 * --tensors` names them (magics/memory_tensors.ts, without its heap snapshot).
 *
 * Nothing runs while no comm is open. While a cell runs (an awaiting cell
 * lets the timer fire) only the devices' counters are read, a few native
 * calls; the namespace walk that names holders waits until the kernel is
 * between cells, and runs only when something changed since the last one.
 * Requests arrive on shell, so a remedy never runs inside a cell.
 */
import type { Comm, CommData, CommRegistry } from "./comms";
import type { MagicContext, MimeBundle, RuntimeApi } from "../magics/context";
import { magicMime } from "../magics/mime";
import { tensorsByHolder } from "../magics/memory_tensors";
import { MemoryTimeline } from "../magics/timeline";

/** The comm target the panel opens. */
export const kPanelTarget = "tsgpu.memory";
/** The version of the snapshot's fields (they only grow within a version). */
export const kPanelVersion = 1;
/** The shortest time between two updates. */
export const kPanelIntervalMs = 500;
/** Holders a snapshot lists, largest first. */
export const kPanelHolders = 10;

/** One device in a snapshot. */
export interface PanelDevice { device: string; allocated: number; reserved: number; peak: number; total: number }

/** One holder in a snapshot: a variable (or output, kept error, runtime label) and what it holds. */
export interface PanelHolder { label: string; kind: string; bytes: number; tensors: number }

export interface PanelSnapshot {
  version: number;
  /** When it was read (ms since the epoch). */
  time: number;
  /** The execution count of the last cell that ran (or runs). */
  cell: number;
  /** Whether a cell was running when it was read (holders are then those of the last time between cells). */
  busy: boolean;
  /** False until a cell has used `torch`: no device has memory yet. */
  runtime_loaded: boolean;
  devices: PanelDevice[];
  holders: PanelHolder[];
}

/** What the panel needs of the kernel. */
export interface PanelDeps {
  comms: CommRegistry;
  /** The magics' context (runtime, namespace, outputs) and their captured runner. */
  magics: {
    readonly magicContext: MagicContext;
    runCaptured(name: string, args: string): Promise<{ bundles: MimeBundle[]; printed: string }>;
  };
  /** The runtime if a cell has loaded it, else undefined (the panel never loads it). */
  loadedRuntime: () => RuntimeApi | undefined;
  /** Runs `fn` outside any cell's scope, so that the timer it starts is the kernel's. */
  detached: <T>(fn: () => T) => T;
  log: (text: string) => void;
}

/** The comm target and its timer; one per kernel. */
export class MemoryPanel {
  private readonly comms = new Set<Comm>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** Set when a cell or a remedy may have changed who holds what. */
  private dirty = true;
  private holders: PanelHolder[] = [];
  private lastDevices = "";
  private lastSent = "";

  constructor(private readonly deps: PanelDeps) {
    deps.comms.registerTarget(kPanelTarget, (comm) => this.open(comm));
  }

  /** How many panels are connected. */
  get connected(): number { return this.comms.size; }

  /** A cell starts: from now on only device counters are read. */
  cellStarted(): void { this.busy = true; }

  /** A cell ended: holders may have changed; the next tick reads them. */
  cellEnded(): void { this.busy = false; this.dirty = true; }

  /** Reads a snapshot; holders are named only between cells, and only when something changed. */
  snapshot(): PanelSnapshot {
    const runtime = this.deps.loadedRuntime();
    const ctx = this.deps.magics.magicContext;
    const devices: PanelDevice[] = MemoryTimeline.read(runtime).map((d) => {
      let total = 0;
      try { total = runtime!.memory.memGetInfo(d.device)[1]; } catch { /* unknown */ }
      return { ...d, total };
    });
    const key = JSON.stringify(devices);
    if (key !== this.lastDevices) { this.dirty = true; this.lastDevices = key; }
    if (runtime && !this.busy && this.dirty) {
      this.dirty = false;
      const { groups } = tensorsByHolder(ctx, devices.map((d) => d.device), { heapSnapshot: false });
      this.holders = groups.slice(0, kPanelHolders).map((g) => ({ label: g.label, kind: g.kind, bytes: g.bytes, tensors: g.tensors }));
    }
    if (!runtime) this.holders = [];
    let cell = 0;
    try { cell = ctx.cells.current(); } catch { /* no engine yet */ }
    return { version: kPanelVersion, time: Date.now(), cell, busy: this.busy, runtime_loaded: runtime !== undefined, devices, holders: this.holders };
  }

  /** Closes every panel's comm (the kernel is going away). */
  closeAll(reason: string): void {
    for (const c of [...this.comms]) { try { c.close({ reason }); } catch { /* exiting */ } }
    this.comms.clear();
    this.stopTimer();
  }

  private open(comm: Comm): void {
    this.comms.add(comm);
    comm.onMsg((data) => this.receive(comm, data));
    comm.onClose(() => {
      this.comms.delete(comm);
      if (!this.comms.size) this.stopTimer();
    });
    if (!this.timer) {
      this.timer = this.deps.detached(() => setInterval(() => this.tick(), kPanelIntervalMs));
      this.timer.unref();
    }
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.lastSent = "";
  }

  /** Sends an update to every panel when the numbers changed since the last one sent. */
  private tick(): void {
    if (!this.comms.size) { this.stopTimer(); return; }
    let snap: PanelSnapshot;
    try { snap = this.snapshot(); } catch (e) { this.deps.log(`memory panel: ${(e as Error)?.message ?? e}`); return; }
    const key = changeKey(snap);
    if (key === this.lastSent) return;
    this.lastSent = key;
    for (const c of this.comms) { if (!c.isClosed) c.send({ update: snap as unknown as CommData }); }
  }

  private async receive(comm: Comm, data: CommData): Promise<void> {
    const request = data.request, id = data.id ?? null;
    const answer = (body: CommData) => { if (!comm.isClosed) comm.send({ reply: request, id, ...body }); };
    try {
      if (request === "snapshot") {
        const snap = this.snapshot();
        this.lastSent = changeKey(snap);
        answer({ snapshot: snap as unknown as CommData });
      } else if (request === "empty_cache" || request === "reset") {
        const { bundles, printed } = await this.deps.magics.runCaptured(request, request === "reset" ? "-f" : "");
        this.dirty = true;
        const mime = magicMime(request);
        const found = bundles.find((b) => mime in b);
        const snap = this.snapshot();
        this.lastSent = changeKey(snap);
        answer({
          result: (found?.[mime] ?? null) as CommData | null,
          text: [printed.trimEnd(), ...bundles.map((b) => String(b["text/plain"] ?? ""))].filter(Boolean).join("\n"),
          snapshot: snap as unknown as CommData,
        });
      } else {
        answer({ error: `expected "snapshot", "empty_cache" or "reset" for request, got ${JSON.stringify(request)}` });
      }
    } catch (e) {
      answer({ error: String((e as Error)?.message ?? e) });
    }
  }
}

/** What decides whether an update is sent: every number and holder, not the time it was read. */
function changeKey(s: PanelSnapshot): string {
  return JSON.stringify([s.runtime_loaded, s.devices, s.holders]);
}
