/**
 * The Tensor class: a view of a Storage — an offset, sizes, strides (in
 * elements) and a dtype. Views (view, transpose, slice, expand, ...) share
 * their base's storage, so an in-place op on a view writes through to the
 * base, and the memory statistics count the storage once.
 *
 * The methods of the ops are installed by the modules in native/ops/ (each
 * declares its methods on this class through module augmentation), so that
 * this file holds only what every tensor is.
 */
import { StorageHandle } from './addon';
import { DType, dtypeSize } from './dtype';
import { codedError } from './errors';
import { track } from './scope';
import { Storage } from './storage';

/**
 * What autograd keeps on a tensor that takes part in it (native/autograd/meta.ts
 * implements it; a tensor outside autograd has none, and costs nothing for it).
 */
export interface AutogradSlot {
  /** Called once when a tensor holding this slot is disposed. */
  releaseHolder(t: Tensor): void;
}

/**
 * Hooks autograd installs (native/autograd/): the tensor layer calls them
 * without knowing autograd. Each is null until autograd loads.
 */
export const tensorHooks: {
  /** A view `v` of `base` was made (records its backward when base takes part in autograd). */
  onView: ((base: Tensor, v: Tensor) => void) | null;
  /** `out` is a copy of `src` on another device (records its backward when src takes part in autograd). */
  onTransfer: ((src: Tensor, out: Tensor) => void) | null;
} = { onView: null, onTransfer: null };

/** `[2, 3]`, as error messages write shapes. */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/** Row-major strides of a dense tensor of `shape` (PyTorch's: size-1 dims count as 1). */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d] > 1 ? shape[d] : 1;
  }
  return strides;
}

/** Whether (shape, strides) is dense row-major (size-1 dims may have any stride). */
export function stridesAreContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  let expected = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] === 1) continue;
    if (strides[d] !== expected) return false;
    expected *= shape[d];
  }
  return true;
}

/** Most dimensions a tensor may have (native/src/runtime/tensor_view.h). */
export const MAX_DIMS = 16;

/**
 * An n-dimensional array of numbers on one device ("cpu" or "cuda:N").
 * Its memory (a Storage, shared with its views) comes from the device's
 * caching allocator; `dispose()`, `using`, `torch.tidy` or garbage collection
 * give it back.
 */
export class Tensor {
  /** Size of each dimension (do not modify). */
  readonly shape: number[];
  /** Element type. */
  readonly dtype: DType;
  /** Device the data lives on: "cpu" or "cuda:N". */
  readonly device: string;
  /** Number of elements. */
  readonly numel: number;
  // Strides in elements, offset of element [0, ...] in the storage, and the
  // storage (null once this tensor was disposed).
  private readonly strides_: number[];
  private readonly offset_: number;
  private storage_: Storage | null;
  /** @internal Autograd's state for this tensor (requiresGrad, grad, gradFn), or null: native/autograd/meta.ts. */
  autograd_: AutogradSlot | null = null;
  /** @internal The tensor this one is a view of (the root of a chain of views), or null for a tensor that owns its storage. */
  viewBase_: Tensor | null = null;

  /**
   * @internal A view of `storage`. Use the factories (`torch.empty`, ...) and
   * view methods (`view`, `transpose`, ...) instead.
   */
  constructor(storage: Storage, shape: number[], strides: number[], offset: number, dtype: DType) {
    this.shape = shape;
    this.dtype = dtype;
    this.device = storage.device;
    let n = 1;
    for (let i = 0; i < shape.length; i++) n *= shape[i];
    this.numel = n;
    this.strides_ = strides;
    this.offset_ = offset;
    this.storage_ = storage;
    storage.retain();
    track(this);
  }

  /** Id of the storage, as listed by `torch.memory.liveTensors()` (views share it). */
  get id(): number {
    return this.storage_ ? this.storage_.id : -1;
  }

  /** Bytes of the elements (numel × itemsize), as PyTorch's nbytes. */
  get nbytes(): number {
    return this.numel * dtypeSize(this.dtype);
  }

  /** Bytes of one element. */
  get itemsize(): number {
    return dtypeSize(this.dtype);
  }

  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }

  /** Number of dimensions (PyTorch's dim()). */
  dim(): number {
    return this.shape.length;
  }

  /** The shape, or the size of dimension `dim` (negative counts from the end). */
  size(): number[];
  size(dim: number): number;
  size(dim?: number): number[] | number {
    if (dim === undefined) return this.shape.slice();
    return this.shape[this.normDim(dim, 'size')];
  }

  /** The strides in elements, or the stride of dimension `dim`. */
  stride(): number[];
  stride(dim: number): number;
  stride(dim?: number): number[] | number {
    if (dim === undefined) return this.strides_.slice();
    return this.strides_[this.normDim(dim, 'stride')];
  }

  /** Offset of element [0, ...] in the storage, in elements. */
  storageOffset(): number {
    return this.offset_;
  }

  /** True when the elements are dense in row-major order. */
  isContiguous(): boolean {
    return stridesAreContiguous(this.shape, this.strides_);
  }

  /** True once `dispose()` has released this tensor. */
  get isDisposed(): boolean {
    return this.storage_ === null;
  }

  /** The storage this tensor views (shared with its views). */
  untypedStorage(): Storage {
    return this.liveStorage();
  }

  /** @internal The storage; throws TSGPU_DISPOSED once disposed. */
  liveStorage(): Storage {
    const s = this.storage_;
    if (s === null || s.isFreed) {
      throw codedError(
        'TSGPU_DISPOSED',
        `Tensor was disposed (shape ${formatShape(this.shape)}, device ${this.device}): it can no longer be used`,
      );
    }
    return s;
  }

  /** @internal The storage's handle in the addon. */
  handle(): StorageHandle {
    return this.liveStorage().liveHandle();
  }

  /** @internal Strides without a copy (do not modify). */
  get rawStrides(): readonly number[] {
    return this.strides_;
  }

  /**
   * Releases this tensor: its storage goes back to the allocator's cache
   * once no other undisposed view uses it. Safe to call twice.
   */
  dispose(): void {
    const s = this.storage_;
    if (s === null) return;
    this.storage_ = null;
    const a = this.autograd_;
    if (a !== null) {
      this.autograd_ = null;
      a.releaseHolder(this);
    }
    s.release();
  }

  /** @internal Records a write of this tensor's elements (the storage's version counter, which autograd checks). */
  markWritten(): void {
    const s = this.storage_;
    if (s !== null) s.version++;
  }

  /** Same as `dispose()`, for `using t = torch.randn(...)`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** @internal A dimension index in [0, ndim) from one that may be negative. */
  normDim(dim: number, op: string, ndim = this.shape.length): number {
    const n = Math.max(ndim, 1);
    if (!Number.isInteger(dim) || dim < -n || dim >= n) {
      throw codedError(
        'TSGPU_ARG',
        `${op}: dimension ${dim} is out of range for a tensor of ${ndim} dimension${ndim === 1 ? '' : 's'} (expected -${n} to ${n - 1})`,
      );
    }
    return dim < 0 ? dim + n : dim;
  }
}

/** A new dense tensor of `shape` on a canonical `device`, elements uninitialized. */
export function emptyTensor(shape: number[], dtype: DType, device: string): Tensor {
  if (shape.length > MAX_DIMS) {
    throw codedError('TSGPU_ARG', `a tensor has at most ${MAX_DIMS} dimensions, got ${shape.length}`);
  }
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i];
  const storage = new Storage(n * dtypeSize(dtype), device, dtype, shape.slice());
  return new Tensor(storage, shape, contiguousStrides(shape), 0, dtype);
}

/** A view of `base`'s storage with other sizes, strides and offset (same dtype). */
export function viewOf(base: Tensor, shape: number[], strides: number[], offset: number): Tensor {
  if (shape.length > MAX_DIMS) {
    throw codedError('TSGPU_ARG', `a tensor has at most ${MAX_DIMS} dimensions, got ${shape.length}`);
  }
  const v = new Tensor(base.liveStorage(), shape, strides, offset, base.dtype);
  v.viewBase_ = base.viewBase_ ?? base;
  const hook = tensorHooks.onView;
  if (hook !== null && base.autograd_ !== null) hook(base, v);
  return v;
}
