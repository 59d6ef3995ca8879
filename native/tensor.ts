/** The Tensor class: a shape, a dtype and a storage on one device. */
import * as path from 'path';
import { DTYPE_CODES, Frame, native, nextStorageId, StorageHandle } from './addon';
import { DType, DeviceLike, deviceSlot, dtypeSize, normalizeDevice, numelOf } from './device';
import { codedError } from './errors';
import { track } from './scope';

const historyDevices = new Set<string>();

/** Turns capture of the user's stack for new tensors on `device` on or off (memory history). */
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

/** Frames of the code that is creating a tensor, innermost first, without the runtime's own. */
function captureFrames(): Frame[] {
  const mapper = activeMapper();
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 32;
  Error.captureStackTrace(holder, captureFrames);
  Error.stackTraceLimit = limit;
  const frames: Frame[] = [];
  for (const text of (holder.stack ?? '').split('\n').slice(1)) {
    const m = /^\s*at (?:(.*?) \()?(.*?):(\d+):(\d+)\)?$/.exec(text);
    if (!m) continue;
    const filename = m[2];
    if (filename.startsWith('node:') || runtimeDirs.some((d) => filename.startsWith(d))) continue;
    const line = Number(m[3]);
    const column = Number(m[4]);
    let mapped: ReturnType<FrameMapper> = null;
    if (mapper) {
      try {
        mapped = mapper(filename, line, column);
      } catch {
        mapped = null; // a failing mapper must not break allocation
      }
    }
    if (mapped && typeof mapped.label === 'string' && Number.isFinite(mapped.line)) {
      const frame: Frame = { filename: mapped.label, line: mapped.line, column: 0, name: m[1] ?? '' };
      if (typeof mapped.cell === 'number' && Number.isInteger(mapped.cell)) frame.cell = mapped.cell;
      frames.push(frame);
    } else {
      frames.push({ filename, line, column, name: m[1] ?? '' });
    }
    if (frames.length >= 16) break;
  }
  return frames;
}

/**
 * Allocates an uninitialized tensor (internal building block of the
 * factories and ops).
 */
export function allocate(shape: number[], device: string, dtype: DType): Tensor {
  return new Tensor(shape, device, dtype);
}

function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/**
 * An n-dimensional array of numbers on one device ("cpu" or "cuda:N").
 * Its memory comes from the device's caching allocator and is freed by
 * `dispose()`, by `using`, by `torch.tidy`, or when the tensor is garbage
 * collected.
 */
export class Tensor {
  /** Size of each dimension. */
  readonly shape: number[];
  /** Device the data lives on: "cpu" or "cuda:N". */
  readonly device: string;
  /** Element type. */
  readonly dtype: DType;
  /** Number of elements. */
  readonly numel: number;
  /** Bytes of data (numel × element size). */
  readonly nbytes: number;
  /** Unique id of the storage, as listed by `torch.memory.liveTensors()`. */
  readonly id: number;
  // The storage's handle in the addon (-1 once disposed). The addon holds
  // only a weak reference to this object and frees the storage when this
  // object is garbage collected.
  private handle: StorageHandle;

  /**
   * @internal Allocates uninitialized memory for `shape` on a canonical
   * `device`. Use the factories (`torch.empty`, `torch.randn`, ...) instead.
   */
  constructor(shape: number[], device: string, dtype: DType) {
    this.shape = shape;
    this.device = device;
    this.dtype = dtype;
    this.numel = numelOf(shape);
    this.nbytes = this.numel * dtypeSize(dtype);
    this.id = nextStorageId();
    this.handle = -1;
    const frames = historyDevices.size > 0 && historyDevices.has(device) ? captureFrames() : null;
    this.handle = native.alloc(this, deviceSlot(device), this.nbytes, DTYPE_CODES[dtype], this.id, frames);
    track(this);
  }

  /** True once `dispose()` has freed the tensor's memory. */
  get isDisposed(): boolean {
    return this.handle < 0;
  }

  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }

  /** @internal The live storage; throws TSGPU_DISPOSED after dispose(). */
  storage(): StorageHandle {
    if (this.handle < 0) {
      throw codedError(
        'TSGPU_DISPOSED',
        `Tensor was disposed (shape ${formatShape(this.shape)}, device ${this.device}): it can no longer be used`,
      );
    }
    return this.handle;
  }

  /** Frees the tensor's memory now (returns it to the allocator's cache). Safe to call twice. */
  dispose(): void {
    if (this.handle < 0) return;
    native.free(this.handle);
    this.handle = -1;
  }

  /** Same as `dispose()`, for `using t = torch.randn(...)`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** Copies the data to a new Float32Array on the host. */
  data(): Float32Array {
    return native.read(this.storage());
  }

  /** The elements as a flat array of numbers (row-major), copied to the host. */
  toArray(): number[] {
    return Array.from(this.data());
  }

  /** The single value of a one-element tensor. */
  item(): number {
    if (this.numel !== 1) {
      throw codedError('TSGPU_ARG', `item() needs a tensor with one element, this one has ${this.numel}`);
    }
    return this.data()[0];
  }

  private binary(op: 'add' | 'sub' | 'mul' | 'div', other: Tensor | number): Tensor {
    const a = this.storage();
    if (typeof other !== 'number') {
      if (!(other instanceof Tensor)) throw codedError('TSGPU_ARG', `expected a Tensor or a number for other`);
      if (other.device !== this.device) {
        throw codedError(
          'TSGPU_ARG',
          `expected both tensors on the same device, but found ${this.device} and ${other.device}`,
        );
      }
      if (other.shape.length !== this.shape.length || other.shape.some((d, i) => d !== this.shape[i])) {
        throw codedError(
          'TSGPU_ARG',
          `shapes ${formatShape(this.shape)} and ${formatShape(other.shape)} differ (broadcasting is not supported yet)`,
        );
      }
    }
    const out = allocate([...this.shape], this.device, this.dtype);
    if (typeof other === 'number') native.binaryScalar(op, out.storage(), a, other);
    else native.binary(op, out.storage(), a, other.storage());
    return out;
  }

  /** Elementwise `this + other` (a tensor of the same shape, or a number). */
  add(other: Tensor | number): Tensor {
    return this.binary('add', other);
  }

  /** Elementwise `this - other`. */
  sub(other: Tensor | number): Tensor {
    return this.binary('sub', other);
  }

  /** Elementwise `this * other`. */
  mul(other: Tensor | number): Tensor {
    return this.binary('mul', other);
  }

  /** Elementwise `this / other`. */
  div(other: Tensor | number): Tensor {
    return this.binary('div', other);
  }

  /** Matrix product of two 2-D tensors: [m, k] · [k, n] → [m, n]. */
  matmul(other: Tensor): Tensor {
    if (this.shape.length !== 2 || other.shape.length !== 2 || this.shape[1] !== other.shape[0]) {
      throw codedError(
        'TSGPU_ARG',
        `matmul needs [m, k] and [k, n] tensors, got ${formatShape(this.shape)} and ${formatShape(other.shape)}`,
      );
    }
    if (other.device !== this.device) {
      throw codedError('TSGPU_ARG', `expected both tensors on the same device, but found ${this.device} and ${other.device}`);
    }
    const [m, k] = this.shape;
    const n = other.shape[1];
    const out = allocate([m, n], this.device, this.dtype);
    native.matmul(out.storage(), this.storage(), other.storage(), m, k, n);
    return out;
  }

  /** Sum of all elements, as a 0-dimensional tensor on the same device. */
  sum(): Tensor {
    const a = this.storage();
    const out = allocate([], this.device, this.dtype);
    native.sum(out.storage(), a);
    return out;
  }

  /** A copy on `device` (returns a new tensor even when the device is the same). */
  to(device: DeviceLike): Tensor {
    const target = normalizeDevice(device);
    const src = this.storage();
    const out = allocate([...this.shape], target, this.dtype);
    native.copy(out.storage(), src);
    return out;
  }

  /** A copy on the same device. */
  clone(): Tensor {
    return this.to(this.device);
  }

  /** e.g. `Tensor(shape=[1000, 1000], dtype=float32, device=cpu)`. */
  toString(): string {
    const disposed = this.handle < 0 ? ', disposed' : '';
    return `Tensor(shape=${formatShape(this.shape)}, dtype=${this.dtype}, device=${this.device}${disposed})`;
  }

  /** What console.log and the REPL show. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}
