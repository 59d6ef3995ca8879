/**
 * Storage: one block of device memory from the device's caching allocator,
 * shared by every tensor that views it (a tensor and its views, slices,
 * transposes). The memory statistics count a storage once, however many
 * tensors view it.
 *
 * A storage is freed when the last tensor viewing it is disposed
 * (`dispose()`, `using`, `torch.tidy`), or when no tensor refers to it any
 * more and the garbage collector has collected it: the addon holds only a
 * weak reference to the Storage object.
 */
import * as path from 'path';
import { Frame, native, nextStorageId, StorageHandle } from './addon';
import { deviceSlot } from './device';
import { DType, dtypeCode } from './dtype';
import { codedError } from './errors';

const historyDevices = new Set<string>();

// The addon's hot entry points, read once (its exports object is slow to read from).
const nativeAlloc = native.alloc;
const nativeFree = native.free;

// Disposed handles wait here ([0] the count, then the handles) until the next
// call into the addon, which frees them before anything else: dispose() then
// costs no call of its own, and no statistic or op can see the storage live.
// Where the addon does not drain the queue (a worker thread) free() calls in.
const freeQueue = new Int32Array(1024);
const queueDrained = native.setFreeQueue(freeQueue);

/**
 * Whether a new storage of `nbytes` on `device` records the code that makes
 * it: always while memory history is on for the device, else from
 * kSiteMinBytes on (allocation sites). Ops allocate others in the addon.
 */
export function capturesStacks(device: string, nbytes: number): boolean {
  return (historyDevices.size > 0 && historyDevices.has(device)) || nbytes >= kSiteMinBytes;
}

/** Turns capture of the user's stack for every new tensor on `device` on or off (memory history). */
export function setStackCapture(device: string, on: boolean): void {
  if (on) historyDevices.add(device);
  else historyDevices.delete(device);
}

// The runtime's own frames are left out: compiled (dist/native) and, when
// stack traces are source-mapped, the TypeScript sources (native/).
const runtimeDirs = [__dirname + path.sep, path.resolve(__dirname, '..', '..', 'native') + path.sep];

/**
 * Maps a position in a script to what the user wrote, e.g. a notebook
 * kernel's generated cell script `tsgpu-cell-7`, line 12 → `{ label: "Cell In[4]", line: 2 }`.
 * Returns null (or undefined) for positions it does not know.
 */
export type FrameMapper = (file: string, line: number, column: number) => { label: string; line: number; cell?: number } | null | undefined;

let frameMapper: FrameMapper | null = null;

/**
 * Sets the mapper applied to the user's frames when memory history records
 * who allocated (null removes it). A host that loads the runtime lazily may
 * instead put the function on `globalThis[Symbol.for("tsgpu.frameMapper")]`
 * before the runtime loads; a mapper set here takes precedence.
 */
export function setFrameMapper(fn: FrameMapper | null): void {
  if (fn !== null && typeof fn !== 'function') {
    throw codedError('TSGPU_ARG', `expected a function or null for the frame mapper, got ${typeof fn}`);
  }
  frameMapper = fn;
}

const globalMapperKey = Symbol.for('tsgpu.frameMapper');

function activeMapper(): FrameMapper | null {
  if (frameMapper) return frameMapper;
  const g = (globalThis as Record<symbol, unknown>)[globalMapperKey];
  return typeof g === 'function' ? (g as FrameMapper) : null;
}

/**
 * Storages of at least this many bytes record the code that made them (the
 * innermost cell and line) even while memory history is off, so that
 * `%memory --tensors` can say where large tensors came from. Smaller ones
 * record only the current cell (a number, at no cost): a stack capture
 * costs microseconds, and small tensors do not make leaks that matter.
 * Unit: bytes (1 MiB, the boundary of the allocator's large pool).
 */
export const kSiteMinBytes = 1 << 20;

/** Frames recorded for a site while history is off: up to and including the innermost cell frame. */
const kSiteMaxFrames = 4;
/** Frames of the runtime's own between the caller and a Storage (5 for an op; V8's capture costs per frame). */
const kRuntimeFrames = 8;
/** Frames recorded while memory history is on. */
const kHistoryMaxFrames = 16;

let stackCaptures = 0;

/** How many stacks storages have captured since the runtime loaded (each costs microseconds; for tests and diagnostics). */
export function siteCaptureCount(): number {
  return stackCaptures;
}

const structuredStack = (_error: Error, sites: NodeJS.CallSite[]): NodeJS.CallSite[] => sites;

/** At most `limit` call sites above `captureFrames`, innermost first, without formatting them as text. */
function callSites(limit: number): NodeJS.CallSite[] {
  const holder: { stack?: NodeJS.CallSite[] } = {};
  const previousLimit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  Error.stackTraceLimit = limit;
  Error.prepareStackTrace = structuredStack;
  try {
    Error.captureStackTrace(holder, captureFrames);
    return Array.isArray(holder.stack) ? holder.stack : []; // reading .stack runs prepareStackTrace
  } finally {
    Error.stackTraceLimit = previousLimit;
    Error.prepareStackTrace = prepare;
  }
}

/**
 * Frames of the code that is creating a tensor, innermost first, without the
 * runtime's own; at most `maxFrames`, and with `untilCell` none past the
 * innermost frame of a notebook cell.
 */
function captureFrames(maxFrames: number, untilCell: boolean): Frame[] {
  stackCaptures++;
  const mapper = activeMapper();
  const frames: Frame[] = [];
  for (const site of callSites(maxFrames + kRuntimeFrames)) {
    const filename = site.getFileName() ?? site.getScriptNameOrSourceURL?.() ?? '';
    if (!filename || filename.startsWith('node:') || runtimeDirs.some((d) => filename.startsWith(d))) continue;
    const line = site.getLineNumber() ?? 0;
    const column = site.getColumnNumber() ?? 0;
    const name = site.getFunctionName() ?? '';
    let mapped: ReturnType<FrameMapper> = null;
    if (mapper) {
      try {
        mapped = mapper(filename, line, column);
      } catch {
        mapped = null; // a failing mapper must not break allocation
      }
    }
    let frame: Frame;
    if (mapped && typeof mapped.label === 'string' && Number.isFinite(mapped.line)) {
      frame = { filename: mapped.label, line: mapped.line, column: 0, name };
      if (typeof mapped.cell === 'number' && Number.isInteger(mapped.cell)) frame.cell = mapped.cell;
    } else {
      frame = { filename, line, column, name };
    }
    frames.push(frame);
    if (frames.length >= maxFrames || (untilCell && frame.cell !== undefined)) break;
  }
  return frames;
}

export class Storage {
  /** Unique id, as `torch.memory.liveTensors()` and `%memory` list it. */
  readonly id: number;
  /** Canonical device name: "cpu" or "cuda:N". */
  readonly device: string;
  /** Bytes of memory. */
  readonly nbytes: number;
  /** Element type of the tensor that made it (what liveTensors shows). */
  readonly dtype: DType;
  /** Shape of the tensor that made it (what liveTensors shows). */
  readonly shape: readonly number[];
  /**
   * Version counter: how many ops have written these bytes (autograd refuses to
   * use a tensor saved for backward that was written since it was saved).
   */
  version = 0;
  // The addon's handle (-1 once freed) and the number of undisposed tensors viewing it.
  private handle: StorageHandle;
  private refs = 0;

  /**
   * Allocates `nbytes` on a canonical `device`; throws OutOfMemoryError.
   * @internal With `pendingSlot` (the device's slot) nothing is allocated
   * yet: the op that makes the memory allocates it for this object and
   * hands the handle to adopt().
   */
  constructor(nbytes: number, device: string, dtype: DType, shape: readonly number[], pendingSlot?: number) {
    this.id = nextStorageId();
    this.device = device;
    this.nbytes = nbytes;
    this.dtype = dtype;
    this.shape = shape;
    this.handle = -1;
    if (pendingSlot !== undefined) return;
    const history = historyDevices.size > 0 && historyDevices.has(device);
    const frames = history ? captureFrames(kHistoryMaxFrames, false) : nbytes >= kSiteMinBytes ? captureFrames(kSiteMaxFrames, true) : null;
    this.handle = nativeAlloc(this, deviceSlot(device), nbytes, dtypeCode(dtype), this.id, frames);
  }

  /** @internal Takes the handle of the memory an op allocated for this (pending) storage. */
  adopt(handle: StorageHandle): void {
    this.handle = handle;
  }

  /** True once the memory went back to the allocator. */
  get isFreed(): boolean {
    return this.handle < 0;
  }

  /** @internal The addon's handle; throws TSGPU_DISPOSED once freed. */
  liveHandle(): StorageHandle {
    if (this.handle < 0) {
      throw codedError('TSGPU_DISPOSED', `storage #${this.id} (${this.nbytes} bytes on ${this.device}) was freed: it can no longer be used`);
    }
    return this.handle;
  }

  /** @internal How many undisposed tensors view this storage. */
  get refCount(): number {
    return this.refs;
  }

  /** @internal A tensor now views this storage. */
  retain(): void {
    this.refs++;
  }

  /** @internal A tensor viewing this storage was disposed; the last one frees it. */
  release(): void {
    if (--this.refs <= 0) this.free();
  }

  /**
   * Returns the memory to the allocator, whatever still views it: before
   * the addon does anything else (so every statistic already counts it freed).
   */
  free(): void {
    const h = this.handle;
    if (h < 0) return;
    this.handle = -1;
    const n = freeQueue[0];
    if (queueDrained && n < freeQueue.length - 1) {
      freeQueue[n + 1] = h;
      freeQueue[0] = n + 1;
    } else {
      nativeFree(h);
    }
  }
}
