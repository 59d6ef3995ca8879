/**
 * `torch.cuda`: the CUDA mirrors of PyTorch's functions. When CUDA is
 * unavailable, isAvailable/unavailableReason/deviceCount answer and every
 * other function throws an error that says why.
 */
import { GpuProcessReport, native } from './addon';
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
  if (!canonical.startsWith('cuda:')) {
    throw codedError('TSGPU_ARG', `expected a CUDA device such as 0 or "cuda:0", got '${String(device)}'`);
  }
  return canonical;
}

/** True when the runtime was built with CUDA and a device is usable. */
export function isAvailable(): boolean {
  return native.cudaInfo().available;
}

/** Why CUDA is unavailable (e.g. the cudaGetDeviceCount error), or "" when it is available. */
export function unavailableReason(): string {
  return native.cudaInfo().reason;
}

/** Number of CUDA devices (0 when unavailable). */
export function deviceCount(): number {
  return native.cudaInfo().deviceCount;
}

/** Bytes held by tensors on the device; `torch.cuda.memory_allocated`. */
export function memoryAllocated(device?: CudaDevice): number {
  return mem.allocated(cudaDevice(device));
}

/** Peak of memoryAllocated; `torch.cuda.max_memory_allocated`. */
export function maxMemoryAllocated(device?: CudaDevice): number {
  return mem.maxAllocated(cudaDevice(device));
}

/** Bytes reserved by the caching allocator; `torch.cuda.memory_reserved`. */
export function memoryReserved(device?: CudaDevice): number {
  return mem.reserved(cudaDevice(device));
}

/** Peak of memoryReserved; `torch.cuda.max_memory_reserved`. */
export function maxMemoryReserved(device?: CudaDevice): number {
  return mem.maxReserved(cudaDevice(device));
}

/** Flat statistics with PyTorch's keys; `torch.cuda.memory_stats`. */
export function memoryStats(device?: CudaDevice): Record<string, number> {
  return mem.stats(cudaDevice(device));
}

/** The table of `torch.cuda.memory_summary`. */
export function memorySummary(device?: CudaDevice, opts?: { abbreviated?: boolean }): string {
  return mem.summary(cudaDevice(device), opts);
}

/** Releases cached, unused memory of every CUDA device in use; `torch.cuda.empty_cache`. */
export function emptyCache(): mem.EmptyCacheReport {
  cudaDevice(undefined);
  return mem.emptyCaches(mem.devices().filter((x) => x.startsWith('cuda:')));
}

/** Resets peak statistics; `torch.cuda.reset_peak_memory_stats`. */
export function resetPeakMemoryStats(device?: CudaDevice): void {
  mem.resetPeakStats(cudaDevice(device));
}

/** Resets accumulated statistics; `torch.cuda.reset_accumulated_memory_stats`. */
export function resetAccumulatedMemoryStats(device?: CudaDevice): void {
  mem.resetAccumulatedStats(cudaDevice(device));
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

/**
 * Every GPU's memory and the compute processes using it, from NVML
 * (libnvidia-ml.so.1, loaded at run time); like PyTorch's
 * `torch.cuda.list_gpu_processes`, as data. Works without CUDA: then
 * `available` is false and `reason` says why.
 */
export function processes(): GpuProcessReport {
  return native.gpuProcesses();
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
  /** Segments, blocks and trace of every CUDA device in use, like `memory._snapshot()`. */
  snapshot(): { segments: unknown[]; device_traces: unknown[][] } {
    cudaDevice(undefined);
    const out: { segments: unknown[]; device_traces: unknown[][] } = { segments: [], device_traces: [] };
    for (const d of mem.devices().filter((x) => x.startsWith('cuda:'))) {
      const s = mem.snapshot(d);
      out.segments.push(...s.segments);
      out.device_traces.push(...s.device_traces);
    }
    return out;
  },
};
