/**
 * `torch.cuda`: the CUDA mirrors of PyTorch's functions. When CUDA is
 * unavailable, isAvailable/unavailableReason/deviceCount answer, the memory
 * statistics read as those of a device nothing was allocated on (0, `{}`, a
 * table of zeros) and their resets and emptyCache do nothing, as PyTorch's do,
 * so one notebook runs with and without a GPU. The functions that need a
 * device (getDeviceProperties, memGetInfo, synchronize, ...) throw an error
 * that says why CUDA is unavailable.
 */
import { native } from './addon';
import { codedError } from './errors';
import * as mem from './memory';

/** A CUDA device: an index or "cuda:N" (default 0). */
export type CudaDevice = number | string;

function cudaDevice(device: CudaDevice | undefined): string {
  const info = native.cudaInfo();
  if (!info.available) throw codedError('TSGPU_CUDA', `CUDA is not available: ${info.reason}`);
  const d = device === undefined ? 0 : device;
  const name = typeof d === 'number' ? `cuda:${d}` : d;
  const canonical = native.canonicalDevice(name);
  if (!canonical.startsWith('cuda:')) throw notCudaDevice(device);
  return canonical;
}

/** "expected a CUDA device such as 0 or "cuda:0", got ..." */
function notCudaDevice(device: unknown): Error {
  return codedError('TSGPU_ARG', `expected a CUDA device such as 0 or "cuda:0", got '${String(device)}'`);
}

/**
 * The CUDA device a statistics call reads, or null where CUDA is unavailable
 * (the call then answers as for an unused device). The argument is checked
 * either way; the index of the device is returned in both cases.
 */
function statsDevice(device: CudaDevice | undefined): { name: string | null; index: number } {
  if (native.cudaInfo().available) {
    const name = cudaDevice(device);
    return { name, index: Number(name.slice(5)) };
  }
  if (device === undefined || device === 'cuda') return { name: null, index: 0 };
  if (typeof device === 'number' && Number.isInteger(device) && device >= 0) return { name: null, index: device };
  const m = typeof device === 'string' ? /^cuda:(\d{1,5})$/.exec(device) : null;
  if (!m) throw notCudaDevice(device);
  return { name: null, index: Number(m[1]) };
}

/** A statistic of the device, or 0 where CUDA is unavailable. */
function statistic(device: CudaDevice | undefined, read: (d: string) => number): number {
  const { name } = statsDevice(device);
  return name === null ? 0 : read(name);
}

/** True when the runtime was built with CUDA and a device is usable. */
export function isAvailable(): boolean {
  return native.cudaInfo().available;
}

/**
 * Why CUDA is unavailable, or "" when it is available: "no NVIDIA driver on this machine
 * (libcuda.so.1 not found)", "built without CUDA", or CUDA's own text (e.g. for a driver too old).
 */
export function unavailableReason(): string {
  return native.cudaInfo().reason;
}

/** Number of CUDA devices (0 when unavailable). */
export function deviceCount(): number {
  return native.cudaInfo().deviceCount;
}

/** Bytes held by tensors on the device; `torch.cuda.memory_allocated` (0 without CUDA). */
export function memoryAllocated(device?: CudaDevice): number {
  return statistic(device, mem.allocated);
}

/** Peak of memoryAllocated; `torch.cuda.max_memory_allocated` (0 without CUDA). */
export function maxMemoryAllocated(device?: CudaDevice): number {
  return statistic(device, mem.maxAllocated);
}

/** Bytes reserved by the caching allocator; `torch.cuda.memory_reserved` (0 without CUDA). */
export function memoryReserved(device?: CudaDevice): number {
  return statistic(device, mem.reserved);
}

/** Peak of memoryReserved; `torch.cuda.max_memory_reserved` (0 without CUDA). */
export function maxMemoryReserved(device?: CudaDevice): number {
  return statistic(device, mem.maxReserved);
}

/** Flat statistics with PyTorch's keys; `torch.cuda.memory_stats` (`{}` without CUDA, as PyTorch's). */
export function memoryStats(device?: CudaDevice): Record<string, number> {
  const { name } = statsDevice(device);
  return name === null ? {} : mem.stats(name);
}

/** The table of `torch.cuda.memory_summary` (every count zero without CUDA). */
export function memorySummary(device?: CudaDevice, opts?: { abbreviated?: boolean }): string {
  const { name, index } = statsDevice(device);
  return name === null ? native.unusedCudaSummary(index, opts?.abbreviated ?? false) : mem.summary(name, opts);
}

/** Releases cached, unused memory of every CUDA device in use; `torch.cuda.empty_cache` (nothing to release without CUDA). */
export function emptyCache(): mem.EmptyCacheReport {
  return mem.emptyCaches(isAvailable() ? mem.devices().filter((x) => x.startsWith('cuda:')) : []);
}

/** Resets peak statistics; `torch.cuda.reset_peak_memory_stats` (nothing to reset without CUDA). */
export function resetPeakMemoryStats(device?: CudaDevice): void {
  const { name } = statsDevice(device);
  if (name !== null) mem.resetPeakStats(name);
}

/** Resets accumulated statistics; `torch.cuda.reset_accumulated_memory_stats` (nothing to reset without CUDA). */
export function resetAccumulatedMemoryStats(device?: CudaDevice): void {
  const { name } = statsDevice(device);
  if (name !== null) mem.resetAccumulatedStats(name);
}

/** `[free, total]` bytes from cudaMemGetInfo; `torch.cuda.mem_get_info`. */
export function memGetInfo(device?: CudaDevice): [number, number] {
  return mem.memGetInfo(cudaDevice(device));
}

/** Device properties (name, totalMemory, major, minor, multiProcessorCount, l2CacheSize, ...). */
export function getDeviceProperties(device?: CudaDevice): Record<string, string | number | boolean> {
  return native.deviceProperties(cudaDevice(device));
}

/** Caps the memory the caching allocator may reserve on the device at fraction × total (0..1). */
export function setPerProcessMemoryFraction(fraction: number, device?: CudaDevice): void {
  if (typeof fraction !== 'number' || !(fraction >= 0 && fraction <= 1)) {
    throw codedError('TSGPU_ARG', `invalid fraction ${String(fraction)}: allowed range is 0 to 1`);
  }
  native.setMemoryFraction(fraction, cudaDevice(device));
}

/** Waits for all work on the device to finish. */
export function synchronize(device?: CudaDevice): void {
  native.synchronize(cudaDevice(device));
}

/** `torch.cuda.memory`: allocator settings, history and snapshots. */
export const memory = {
  /**
   * Applies allocator settings, as PyTorch's `memory._set_allocator_settings`
   * ("max_split_size_mb:128,roundup_power2_divisions:4,..."). Applies to
   * every device (cpu included) and works without CUDA. Unknown keys and bad
   * values throw an error naming them.
   */
  setAllocatorSettings(settings: string): string {
    return mem.setAllocatorSettings(settings);
  },
  /** Records alloc/free/segment events with the allocating code's stack, on a CUDA device. */
  recordMemoryHistory(opts?: mem.MemoryHistoryOptions & { device?: CudaDevice }): void {
    mem.recordMemoryHistory(cudaDevice(opts?.device), opts);
  },
  /** Segments, blocks and trace of every CUDA device in use, like `memory._snapshot()` (empty without CUDA). */
  snapshot(): { segments: unknown[]; device_traces: unknown[][] } {
    const out: { segments: unknown[]; device_traces: unknown[][] } = { segments: [], device_traces: [] };
    for (const d of isAvailable() ? mem.devices().filter((x) => x.startsWith('cuda:')) : []) {
      const s = mem.snapshot(d);
      out.segments.push(...s.segments);
      out.device_traces.push(...s.device_traces);
    }
    return out;
  },
};
