/**
 * Copies and conversions: copy_, contiguous, clone, to(dtype | device),
 * float()/half()/bfloat16()/long()/..., cpu()/cuda(), and reading values to
 * the host: data(), toArray(), item(), tolist().
 */
import { native } from '../addon';
import { DeviceLike, normalizeDevice } from '../device';
import {
  bfloat16ToNumber,
  DType,
  dtypeSize,
  halfToNumber,
  hostArray,
  HostArray,
  normalizeDtype,
} from '../dtype';
import { shapeError, codedError } from '../errors';
import { emptyTensor, formatShape, Tensor, tensorHooks, viewOf } from '../tensor';
import { broadcastShapesFor, runInto, runOp } from './helpers';
import { refuseInternalOverlap, refusePartialOverlap } from './overlap';
import { expandTo } from './views';

/** Where and as what `to()` puts a tensor. */
export interface ToOptions {
  dtype?: DType;
  device?: DeviceLike;
}

/** A copy of `t` on `device` (same dtype), contiguous. */
function moveTo(t: Tensor, device: string): Tensor {
  const src = contiguous(t);
  try {
    const size = dtypeSize(t.dtype);
    const out = runInto(emptyTensor(t.shape.slice(), t.dtype, device), (o) =>
      native.copyBytes(o.handle(), 0, src.handle(), src.storageOffset() * size, t.numel * size),
    );
    out.markWritten();
    if (t.autograd_ !== null && tensorHooks.onTransfer !== null) tensorHooks.onTransfer(t, out);
    return out;
  } finally {
    if (src !== t) src.dispose();
  }
}

/**
 * Copies `src` into `dst` (broadcast to dst's shape, converted to dst's
 * dtype, from any device); returns dst. Writes through if dst is a view.
 */
export function copy_(dst: Tensor, src: Tensor | number | boolean): Tensor {
  if (typeof src === 'number' || typeof src === 'boolean') {
    runOp('fill', [dst], [], { value: Number(src) });
    return dst;
  }
  if (!(src instanceof Tensor)) throw codedError('TSGPU_ARG', `copy_: expected a Tensor or a number for src, got ${typeof src}`);
  const shape = broadcastShapesFor('copy_', [dst.shape, src.shape]);
  if (shape.length !== dst.shape.length || shape.some((s, i) => s !== dst.shape[i])) {
    throw shapeError(`copy_: source of shape ${formatShape(src.shape)} cannot be broadcast to ${formatShape(dst.shape)}`);
  }
  // As PyTorch's copy_: a dst whose elements share memory, or a source covering part of
  // dst's memory in another layout, is refused (overlap.ts). fill_ (a number) writes expanded tensors.
  refuseInternalOverlap(dst);
  refusePartialOverlap(dst, src);
  const local = src.device === dst.device ? src : moveTo(src, dst.device);
  const expanded = expandTo(local, dst.shape);
  try {
    runOp('copy', [dst], [expanded]);
  } finally {
    if (expanded !== local) expanded.dispose();
    if (local !== src) local.dispose();
  }
  return dst;
}

/** `t` itself when it is contiguous, else a contiguous copy. */
export function contiguous(t: Tensor): Tensor {
  if (t.isContiguous()) return t;
  return clone(t);
}

/** A contiguous copy with its own storage. */
export function clone(t: Tensor): Tensor {
  return runInto(emptyTensor(t.shape.slice(), t.dtype, t.device), (out) => runOp('copy', [out], [t]));
}

/**
 * `t` converted: to(dtype), to(device), to({ dtype, device }). When nothing
 * changes the result is a new tensor object viewing the same storage (as
 * PyTorch returns self; disposing it leaves `t` alone).
 */
export function to(t: Tensor, target: DType | DeviceLike | ToOptions, opts?: ToOptions): Tensor {
  let dtype: DType = t.dtype;
  let device = t.device;
  if (typeof target === 'object' && target !== null) {
    if (target.dtype !== undefined) dtype = normalizeDtype(target.dtype);
    if (target.device !== undefined) device = normalizeDevice(target.device);
  } else if (typeof target === 'string' && isDtypeName(target)) {
    dtype = normalizeDtype(target);
  } else if (typeof target === 'string' && !isDeviceName(target)) {
    throw codedError('TSGPU_ARG', `to: expected a dtype (such as 'float32', 'int64', 'bool') or a device ('cpu', 'cuda', 'cuda:N') ` +
      `for target, got '${target}'`);
  } else {
    device = normalizeDevice(target as DeviceLike);
  }
  if (opts?.dtype !== undefined) dtype = normalizeDtype(opts.dtype);
  if (opts?.device !== undefined) device = normalizeDevice(opts.device);
  if (dtype === t.dtype && device === t.device) return viewOf(t, t.shape.slice(), t.stride(), t.storageOffset());
  if (device === t.device) return runInto(emptyTensor(t.shape.slice(), dtype, device), (out) => runOp('copy', [out], [t]));
  const moved = moveTo(t, device);
  if (dtype === t.dtype) return moved;
  try {
    return runInto(emptyTensor(t.shape.slice(), dtype, device), (out) => runOp('copy', [out], [moved]));
  } finally {
    moved.dispose();
  }
}

function isDeviceName(s: string): boolean {
  try {
    normalizeDevice(s);
    return true;
  } catch (e) {
    // A well-formed device that is not available here (cuda without a GPU) is still a device.
    return /^(cpu|cuda)(:\d+)?$/.test(s);
  }
}

function isDtypeName(s: string): boolean {
  try {
    normalizeDtype(s);
    return true;
  } catch {
    return false;
  }
}

/** The elements as raw host values of the tensor's dtype, row-major (a copy). */
export function data(t: Tensor): HostArray {
  const src = contiguous(t);
  try {
    const size = dtypeSize(t.dtype);
    const bytes = native.readBytes(src.handle(), src.storageOffset() * size, t.numel * size);
    return hostArray(t.dtype, bytes);
  } finally {
    if (src !== t) src.dispose();
  }
}

/**
 * The elements as a flat typed array of values: Float32Array for float32,
 * float16 and bfloat16; Float64Array, Int8Array, Uint8Array (bool: 0/1),
 * Int16Array, Int32Array, BigInt64Array (int64) for the others.
 */
export function toArray(t: Tensor): HostArray {
  const raw = data(t);
  if (t.dtype === 'float16' || t.dtype === 'bfloat16') {
    const conv = t.dtype === 'float16' ? halfToNumber : bfloat16ToNumber;
    const out = new Float32Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = conv(raw[i] as number);
    return out;
  }
  return raw;
}

/** The elements as JavaScript values (numbers; booleans for bool), row-major. */
export function values(t: Tensor): (number | boolean)[] {
  const a = toArray(t);
  const out = new Array<number | boolean>(a.length);
  if (t.dtype === 'bool') for (let i = 0; i < a.length; i++) out[i] = a[i] !== 0;
  else for (let i = 0; i < a.length; i++) out[i] = Number(a[i]);
  return out;
}

/** The single value of a one-element tensor: a number, or a boolean for a bool tensor (as PyTorch's True/False). */
export function item(t: Tensor): number | boolean {
  if (t.numel !== 1) {
    throw shapeError(`item() needs a tensor with one element, this one has ${t.numel} (shape ${formatShape(t.shape)})`);
  }
  const v = toArray(t)[0];
  return t.dtype === 'bool' ? v !== 0 : Number(v);
}

/** Nested arrays as PyTorch's tolist (a number for a 0-dim tensor; booleans for bool). */
export function tolist(t: Tensor): unknown {
  const flat = values(t);
  if (t.shape.length === 0) return flat[0];
  let pos = 0;
  const build = (d: number): unknown[] => {
    const n = t.shape[d];
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = d === t.shape.length - 1 ? flat[pos++] : build(d + 1);
    return out;
  };
  return build(0);
}

declare module '../tensor' {
  interface Tensor {
    /** Copies `src` into this tensor (broadcast, converted, from any device); returns this. */
    copy_(src: Tensor | number | boolean): Tensor;
    /** This tensor when contiguous, else a contiguous copy. */
    contiguous(): Tensor;
    /** A contiguous copy with its own storage. */
    clone(): Tensor;
    /** Converted to a dtype and/or device: `to('float16')`, `to('cuda')`, `to({ dtype, device })`. */
    to(target: DType | DeviceLike | ToOptions, opts?: ToOptions): Tensor;
    /** to('float32') */
    float(): Tensor;
    /** to('float64') */
    double(): Tensor;
    /** to('float16') */
    half(): Tensor;
    /** to('bfloat16') */
    bfloat16(): Tensor;
    /** to('int64') */
    long(): Tensor;
    /** to('int32') */
    int(): Tensor;
    /** to('int16') */
    short(): Tensor;
    /** to('int8') */
    char(): Tensor;
    /** to('uint8') */
    byte(): Tensor;
    /** to('bool') */
    bool(): Tensor;
    /** to('cpu') */
    cpu(): Tensor;
    /** to('cuda:N') (default cuda:0) */
    cuda(index?: number): Tensor;
    /** The raw elements on the host (float16/bfloat16 as Uint16Array bits, int64 as BigInt64Array). */
    data(): HostArray;
    /** The values as a flat typed array (Float32Array for float16/bfloat16). */
    toArray(): HostArray;
    /** The single value of a one-element tensor. */
    item(): number | boolean;
    /** Nested arrays of values, as PyTorch's tolist(). */
    tolist(): unknown;
  }
}

const P = Tensor.prototype;
P.copy_ = function (this: Tensor, src: Tensor | number | boolean) {
  return copy_(this, src);
};
P.contiguous = function (this: Tensor) {
  return this.isContiguous() ? viewOf(this, this.shape.slice(), this.stride(), this.storageOffset()) : clone(this);
};
P.clone = function (this: Tensor) {
  return clone(this);
};
P.to = function (this: Tensor, target: DType | DeviceLike | ToOptions, opts?: ToOptions) {
  return to(this, target, opts);
};
const casts: [string, DType][] = [
  ['float', 'float32'],
  ['double', 'float64'],
  ['half', 'float16'],
  ['bfloat16', 'bfloat16'],
  ['long', 'int64'],
  ['int', 'int32'],
  ['short', 'int16'],
  ['char', 'int8'],
  ['byte', 'uint8'],
  ['bool', 'bool'],
];
for (const [name, dtype] of casts) {
  (P as unknown as Record<string, () => Tensor>)[name] = function (this: Tensor) {
    return to(this, { dtype });
  };
}
P.cpu = function (this: Tensor) {
  return to(this, { device: 'cpu' });
};
P.cuda = function (this: Tensor, index?: number) {
  return to(this, { device: index === undefined ? 'cuda' : `cuda:${index}` });
};
P.data = function (this: Tensor) {
  return data(this);
};
P.toArray = function (this: Tensor) {
  return toArray(this);
};
P.item = function (this: Tensor) {
  return item(this);
};
P.tolist = function (this: Tensor) {
  return tolist(this);
};
