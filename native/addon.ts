/**
 * The only module that loads the native binary (build/Release/tsgpu.node).
 * Everything else in the runtime goes through {@link native}.
 */
import * as fs from 'fs';
import * as path from 'path';
import { DTYPE_TABLE } from './generated/dtypes';

/**
 * Handle of a native storage (one block of device memory): a small
 * non-negative integer (slot index and generation), -1 for none.
 */
export type StorageHandle = number;

/** Codes of element types (native/src/base/dtype.h, through native/generated/dtypes.ts). */
export const DTYPE_CODES: Readonly<Record<string, number>> = Object.fromEntries(DTYPE_TABLE.map((r) => [r.name, r.code]));

/** A frame of user code, recorded with allocations when memory history is on, and with large storages always. */
export interface Frame {
  filename: string;
  line: number;
  column: number;
  name: string;
  /** Execution count of the notebook cell the frame is in (absent outside cells). */
  cell?: number;
}

/** What emptyCache reports. */
export interface NativeEmptyCacheReport {
  releasedBytes: number;
  releasedSegments: number;
  keptBytes: number;
  keptSegments: number;
  keptAllocatedBytes: number;
  reason: string;
}

/** Result of replaying a trace through the allocator core over the policy backend. */
export interface PolicyReplayResult {
  peak_allocated: number;
  peak_reserved: number;
  num_device_alloc: number;
  num_device_free: number;
  num_allocs: number;
  num_frees: number;
  ns_per_alloc: number;
  ns_per_free: number;
  ooms: number;
}

/** NVML's view of the GPUs: memory and the processes using each (see torch.cuda.processes). */
export interface GpuProcessReport {
  /** False when NVML could not be loaded or asked; `reason` says why. */
  available: boolean;
  reason: string;
  devices: {
    /** NVML's device index. */
    index: number;
    name: string;
    uuid: string;
    total: number;
    used: number;
    free: number;
    /** Compute processes; usedBytes is null when the driver cannot attribute memory (e.g. in a container). */
    processes: { pid: number; usedBytes: number | null }[];
  }[];
}

/** The functions tsgpu.node exports. */
export interface NativeAddon {
  builtWithCuda: boolean;
  /** The small integer alloc() takes for a device (creates its allocator on first use). */
  deviceSlot(device: string): number;
  /**
   * Allocates `nbytes` on the device of `slot` for `owner`, which keeps the
   * storage alive: once `owner` is garbage collected the storage is freed.
   * `id` is what liveStorages reports; `frames` the user's stack (history on, or a large storage).
   */
  alloc(owner: object, slot: number, nbytes: number, dtype: number, id: number, frames?: Frame[] | null): StorageHandle;
  /** Frees a storage now; a handle already freed is ignored. */
  free(h: StorageHandle): void;
  /** Reserves n storage ids unique in the process; returns the first. */
  takeIds(n: number): number;
  /** True while the storage has not been freed. */
  isLive(h: StorageHandle): boolean;
  /**
   * Bytes reported to V8 as external memory, bytes JavaScript-owned storages hold, and the
   * collections run because tensors dropped without dispose() held a lot (count, seconds).
   */
  externalMemory(): { reported: number; held: number; forcedCollections: number; forcedCollectionSeconds: number };
  /** Live storages of `device` ("" for all), oldest first, with the cell and frames they were tagged with. */
  liveStorages(device: string): { id: number; shape: number[]; dtype: string; device: string; nbytes: number; cell?: number; frames?: Frame[] }[];
  /** Tags storages made from now on with a notebook cell's execution count (0: none). */
  setAllocationCell(cell: number): void;
  reclaim(): number;
  setGcHook(fn: (() => void) | null): void;
  /**
   * Shares the queue dispose() appends freed handles to ([0] the count); every call into the
   * addon frees them first. False when this thread's queue is not drained (call free() instead).
   */
  setFreeQueue(queue: Int32Array): boolean;
  memoryStats(device: string): Record<string, number>;
  memorySummary(device: string, abbreviated: boolean): string;
  /** The summary table of CUDA device `index` with every statistic zero (for machines without CUDA). */
  unusedCudaSummary(index: number, abbreviated: boolean): string;
  emptyCache(device: string): NativeEmptyCacheReport;
  resetPeakStats(device: string): void;
  resetAccumulatedStats(device: string): void;
  memGetInfo(device: string): [number, number];
  deviceProperties(device: string): Record<string, string | number | boolean>;
  setMemoryFraction(fraction: number, device: string): void;
  synchronize(device: string): void;
  setAllocatorSettings(settings: string): string;
  getAllocatorSettings(): string;
  recordMemoryHistory(device: string, enabled: boolean, maxEntries: number, clear: boolean): void;
  snapshot(device: string): { segments: unknown[]; device_traces: unknown[] };
  devices(): string[];
  canonicalDevice(device: string): string;
  cudaInfo(): { compiled: boolean; available: boolean; deviceCount: number; reason: string };
  policyReplay(events: Float64Array, settings?: string, capacity?: number): PolicyReplayResult;
  /**
   * Runs the op encoded in the buffer given to setOpBuffer (native/ops/dispatch.ts). `attrs` holds,
   * in op-list order, the attribute values the buffer cannot (strings, arrays). When the buffer asks
   * for a new output, the addon allocates it for `owner` and returns its storage handle.
   */
  op(attrs?: unknown[], owner?: object): StorageHandle | undefined;
  /** The Float64Array op() reads its arguments from. */
  setOpBuffer(buffer: Float64Array): void;
  /** The op list as the addon parsed it, with the device kinds that have kernels. */
  opList(): { name: string; inputs: string[]; outputs: string[]; attrs: string[]; dtypes: string; inplace: boolean; kernels: string[]; accepts: string[] }[];
  /** The dtype table (native/src/base/dtype.h). */
  dtypes(): { name: string; code: number; bytes: number; kind: string; signed: boolean }[];
  /** Long ops stop with TSGPU_INTERRUPTED while element 0 of `flag` is nonzero (null: no flag). */
  setInterruptFlag(flag: Int32Array | null): void;
  /** Kernel registration problems (two kernels for one op and device), one line each. */
  registryProblems(): string[];
  /** Copies nbytes from byteOffset of a storage to a new ArrayBuffer (waits for the device). */
  readBytes(h: StorageHandle, byteOffset: number, nbytes: number): ArrayBuffer;
  /** Copies a typed array's bytes into a storage at byteOffset. */
  writeBytes(h: StorageHandle, byteOffset: number, data: ArrayBufferView): void;
  /** Copies nbytes between two storages on any devices. */
  copyBytes(dst: StorageHandle, dstByteOffset: number, src: StorageHandle, srcByteOffset: number, nbytes: number): void;
  /** Seeds the generator and restarts its counter. */
  manualSeed(seed: number): void;
  /** The generator's seed. */
  initialSeed(): number;
  /** The generator's state: [seed, next counter]. */
  getRngState(): [number, number];
  /** Restores a state getRngState gave. */
  setRngState(seed: number, offset: number): void;
  setErrorClasses(classes: { OutOfMemoryError: Function }): void;
  /** Flushes C stdio and ends the process without static destructors or atexit handlers. */
  quickExit(code: number): never;
  gpuProcesses(): GpuProcessReport;
  /** Threads CPU ops use (the caller included); setNumThreads(n >= 1). */
  setNumThreads(n: number): void;
  getNumThreads(): number;
  /** What the CPU and CUDA matmuls run on (BLAS found and where, cuBLAS or why not) and the blocked kernel's ISA. */
  linalgInfo(): { cpu: string; cuda: string; isa: string };
  /** Whether cuDNN loaded: "cuDNN 9.14.0 (path)", or why not and where it looked. */
  cudnnInfo(): { available: boolean; description: string };
  /** The convolution algorithms cuDNN's ops have chosen and remember, oldest first. */
  cudnnChoices(): CudnnChoice[];
  /** Forgets the remembered choices. */
  cudnnClearChoices(): void;
}

/** One remembered cuDNN algorithm choice (native/src/ops/cudnn_conv.h). */
export interface CudnnChoice {
  /** "forward", "backwardInput" or "backwardWeight". */
  pass: string;
  /** The shapes, strides, dtype and parameters it was chosen for. */
  key: string;
  /** cuDNN's algorithm number of that pass. */
  algo: number;
  /** cudnnMathType_t it runs with (0 default, 1 tensor ops, 3 FMA only). */
  mathType: number;
  /** Workspace bytes each call takes from the caching allocator. */
  workspaceBytes: number;
  /** cuDNN's measured time in milliseconds (benchmark mode), -1 when its heuristics chose. */
  timeMs: number;
  /** Chosen by timing every algorithm (torch.backends.cudnn.benchmark). */
  benchmarked: boolean;
  /** Calls that used it. */
  uses: number;
}

/**
 * Loads tsgpu.node from build/Release, or from the folder `TSGPU_NATIVE_DIR` names (another build's output,
 * such as the sanitizer build's build-sanitize/Release).
 */
function loadAddon(): NativeAddon {
  const dir = process.env.TSGPU_NATIVE_DIR;
  const candidates = dir ? [path.resolve(dir, 'tsgpu.node')] : [
    path.join(__dirname, '..', '..', 'build', 'Release', 'tsgpu.node'), // from dist/native
    path.join(__dirname, '..', 'build', 'Release', 'tsgpu.node'), // from native/ (ts-node)
  ];
  for (const file of candidates) {
    if (fs.existsSync(file)) {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      return require(file) as NativeAddon;
    }
  }
  throw new Error(
    `tsgpu native addon not found (looked in ${candidates.join(', ')}); build it with "npm run build:native"`,
  );
}

/** The loaded addon. */
export const native: NativeAddon = loadAddon();

// Ids come from the addon in blocks, so that they are unique in the process even when
// several module instances (worker threads, test sandboxes) load the runtime.
const ID_BLOCK = 1024;
let nextId = 0;
let idsLeft = 0;

/** A new unique storage id (what liveStorages and %memory show as #id). */
export function nextStorageId(): number {
  if (idsLeft === 0) {
    nextId = native.takeIds(ID_BLOCK);
    idsLeft = ID_BLOCK;
  }
  idsLeft--;
  return nextId++;
}

/**
 * Returns a function that runs a full garbage collection: `global.gc` when
 * node runs with --expose-gc, otherwise one obtained through the v8 flag.
 */
function findGc(): (() => void) | null {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === 'function') return g;
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    require('v8').setFlagsFromString('--expose-gc');
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const fn = require('vm').runInNewContext('gc') as () => void;
    return typeof fn === 'function' ? fn : null;
  } catch {
    return null;
  }
}

/** Full garbage collection, or null when none can be had. */
export const runGc: (() => void) | null = findGc();

if (runGc) {
  // Called by the allocator on its out-of-memory path, before it gives up.
  // The addon accepts the hook only from the thread that loaded it first
  // (the one whose tensors it tracks), normally the main thread.
  native.setGcHook(() => runGc());
}
