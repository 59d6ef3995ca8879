/**
 * Memory statistics and controls for every device, cpu included
 * (`torch.memory`). The numbers mean what PyTorch's `torch.cuda.memory_*`
 * functions mean, because every device goes through the same caching
 * allocator.
 */
import { Frame, native, runGc } from './addon';
import { DeviceLike, normalizeDevice } from './device';
import { codedError } from './errors';
import { FrameMapper, setStackCapture } from './storage';

export { setFrameMapper, FrameMapper, kSiteMinBytes, siteCaptureCount } from './storage';

/** What `emptyCache` released, and what it had to keep and why. */
export interface EmptyCacheReport {
  /** Bytes returned to the device. */
  releasedBytes: number;
  /** Segments returned to the device. */
  releasedSegments: number;
  /** Bytes still reserved afterwards. */
  keptBytes: number;
  /** Segments still reserved afterwards. */
  keptSegments: number;
  /** Why the kept segments could not be released ("" when nothing was kept). */
  reason: string;
}

/** A live (not disposed, not collected) tensor, as `%memory` lists it. */
export interface LiveTensorInfo {
  shape: number[];
  dtype: string;
  device: string;
  nbytes: number;
  id: number;
  /**
   * What holds it, when the runtime keeps the memory itself (autograd's saved
   * tensors, gradients, optimizer state): `%memory --tensors` shows the label,
   * e.g. `{ kind: "saved", label: "saved for backward by mul" }`,
   * `{ kind: "gradient", label: "gradient of model.fc.weight" }`, `{ kind: "optimizer", label: "optimizer state (Adam exp_avg)" }`.
   */
  holder?: HolderLabel;
  /** Execution count of the notebook cell that was current when it was made (see setAllocationCell); absent outside cells. */
  cell?: number;
  /**
   * The code that made it, innermost first: recorded for storages of at
   * least `kSiteMinBytes` bytes, and for every storage while memory history
   * is on; absent otherwise. Frames of notebook cells carry `cell` and `line`.
   */
  frames?: Frame[];
}

/** Options of recordMemoryHistory. */
export interface MemoryHistoryOptions {
  /** false or null turns recording off (default: on). */
  enabled?: boolean | 'all' | 'state' | null;
  /** Most trace entries kept; older ones are dropped (default 100000). */
  maxEntries?: number;
  /** Drops the entries recorded so far. */
  clearHistory?: boolean;
}

/** Bytes held by tensors on `device` (default "cpu"); PyTorch's memory_allocated. */
export function allocated(device?: DeviceLike): number {
  return native.memoryStats(normalizeDevice(device))['allocated_bytes.all.current'];
}

/** Peak of allocated() since the start or the last resetPeakStats. */
export function maxAllocated(device?: DeviceLike): number {
  return native.memoryStats(normalizeDevice(device))['allocated_bytes.all.peak'];
}

/** Bytes the allocator holds from the device (allocated + cached); PyTorch's memory_reserved. */
export function reserved(device?: DeviceLike): number {
  return native.memoryStats(normalizeDevice(device))['reserved_bytes.all.current'];
}

/** Peak of reserved(). */
export function maxReserved(device?: DeviceLike): number {
  return native.memoryStats(normalizeDevice(device))['reserved_bytes.all.peak'];
}

/**
 * All allocator statistics as a flat object with PyTorch's key names, e.g.
 * `allocated_bytes.all.current`, `segment.large_pool.peak`, `num_ooms`.
 */
export function stats(device?: DeviceLike): Record<string, number> {
  return native.memoryStats(normalizeDevice(device));
}

/** The memory summary table, in the layout of `torch.cuda.memory_summary()`. */
export function summary(device?: DeviceLike, opts?: { abbreviated?: boolean }): string {
  return native.memorySummary(normalizeDevice(device), opts?.abbreviated ?? false);
}

function emptyOne(device: string): EmptyCacheReport {
  const r = native.emptyCache(device);
  return {
    releasedBytes: r.releasedBytes,
    releasedSegments: r.releasedSegments,
    keptBytes: r.keptBytes,
    keptSegments: r.keptSegments,
    reason: r.reason,
  };
}

/**
 * Returns cached memory that no tensor uses to the device (all devices when
 * `device` is omitted) and reports what was kept and why.
 */
export function emptyCache(device?: DeviceLike): EmptyCacheReport {
  if (device !== undefined) return emptyOne(normalizeDevice(device));
  return emptyCaches(devices());
}

/** Empties the cache of each listed device and sums what was released and kept; reasons name their device. */
export function emptyCaches(list: string[]): EmptyCacheReport {
  const total: EmptyCacheReport = { releasedBytes: 0, releasedSegments: 0, keptBytes: 0, keptSegments: 0, reason: '' };
  const reasons: string[] = [];
  for (const d of list) {
    const r = emptyOne(d);
    total.releasedBytes += r.releasedBytes;
    total.releasedSegments += r.releasedSegments;
    total.keptBytes += r.keptBytes;
    total.keptSegments += r.keptSegments;
    if (r.reason) reasons.push(`${d}: ${r.reason}`);
  }
  total.reason = reasons.join('; ');
  return total;
}

/** Resets the "peak" statistics to the current values. */
export function resetPeakStats(device?: DeviceLike): void {
  native.resetPeakStats(normalizeDevice(device));
}

/** Resets the accumulated ("allocated"/"freed") statistics and the event counters. */
export function resetAccumulatedStats(device?: DeviceLike): void {
  native.resetAccumulatedStats(normalizeDevice(device));
}

/**
 * Caps what the allocator of `device` may reserve at fraction × total device
 * memory (0 < fraction ≤ 1), for every device, cpu included; PyTorch's
 * `torch.cuda.set_per_process_memory_fraction`. A request that would pass
 * the cap fails with OutOfMemoryError after the usual cache flush.
 */
export function setMemoryFraction(fraction: number, device?: DeviceLike): void {
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction <= 1)) {
    throw codedError('TSGPU_ARG', `expected a number in (0, 1] for fraction, got ${String(fraction)}`);
  }
  native.setMemoryFraction(fraction, normalizeDevice(device));
}

/** `[free, total]` bytes of the device (for cpu: the TSGPU_CPU_MEMORY_LIMIT cap, or RAM). */
export function memGetInfo(device?: DeviceLike): [number, number] {
  return native.memGetInfo(normalizeDevice(device));
}

/** What the runtime says holds a storage it keeps itself (training memory, by kind). */
export interface HolderLabel {
  kind: 'parameter' | 'saved' | 'gradient' | 'optimizer' | 'runtime';
  label: string;
}

/**
 * Sources of holder labels by storage id (autograd's saved tensors and
 * gradients, nn's parameters, optim's state): each is asked when
 * liveTensors() runs, and costs nothing otherwise.
 */
export const holderSources: (() => Map<number, HolderLabel>)[] = [];

let currentCell = 0;

/** The cell setAllocationCell last named (0 outside cells). */
export function allocationCell(): number {
  return currentCell;
}

/** Tensors not yet disposed or collected, oldest first (all devices when omitted). */
export function liveTensors(device?: DeviceLike): LiveTensorInfo[] {
  const list: LiveTensorInfo[] = native.liveStorages(device === undefined ? '' : normalizeDevice(device));
  if (holderSources.length === 0) return list;
  const labels = new Map<number, HolderLabel>();
  for (const src of holderSources) for (const [id, h] of src()) if (!labels.has(id)) labels.set(id, h);
  for (const t of list) {
    const h = labels.get(t.id);
    if (h !== undefined && t.holder === undefined) t.holder = h;
  }
  return list;
}

/**
 * Tags tensors made from now on with a notebook cell's execution count
 * (0 for none); `liveTensors()` reports it as `cell`. A notebook kernel calls
 * it as each cell starts: it costs nothing per tensor.
 */
export function setAllocationCell(cell: number): void {
  if (!Number.isInteger(cell) || cell < 0 || cell > 0x7fffffff) {
    throw codedError('TSGPU_ARG', `expected a non-negative integer below 2147483648 for cell, got ${String(cell)}`);
  }
  native.setAllocationCell(cell);
  currentCell = cell;
}

/** Devices that have an allocator: always "cpu", plus every "cuda:N" used so far. */
export function devices(): string[] {
  return native.devices();
}

/**
 * Runs the JavaScript garbage collector (when available) and frees, right
 * away, the memory of tensors that nothing references any more.
 * Returns how many tensors were freed.
 */
export function collectGarbage(): { collected: boolean; freedTensors: number } {
  let collected = false;
  if (runGc) {
    runGc();
    collected = true;
  }
  return { collected, freedTensors: native.reclaim() };
}

/**
 * Applies allocator settings ("max_split_size_mb:128,garbage_collection_threshold:0.8", the
 * keys of PYTORCH_CUDA_ALLOC_CONF) to every device. Returns the settings now in force.
 */
export function setAllocatorSettings(settings: string): string {
  return native.setAllocatorSettings(settings);
}

/** The settings in force, as "key:value,..." text. */
export function getAllocatorSettings(): string {
  return native.getAllocatorSettings();
}

/** Starts (or stops) recording allocation history on `device`, with the stack of the code that allocates. */
export function recordMemoryHistory(device?: DeviceLike, opts?: MemoryHistoryOptions): void {
  const d = normalizeDevice(device);
  const enabled = !(opts?.enabled === false || opts?.enabled === null);
  const maxEntries = opts?.maxEntries ?? 100000;
  native.recordMemoryHistory(d, enabled, enabled ? maxEntries : 0, opts?.clearHistory ?? false);
  setStackCapture(d, enabled);
}

/** Segments with their blocks, and the recorded trace, like `torch.cuda.memory._snapshot()`. */
export function snapshot(device?: DeviceLike): { segments: unknown[]; device_traces: unknown[][] } {
  const s = native.snapshot(normalizeDevice(device));
  return { segments: s.segments, device_traces: [s.device_traces] };
}
