/**
 * Creating tensors: empty, zeros, ones, full, arange, linspace, eye, rand,
 * randn, randint, randperm, the *Like variants, tensor() from (nested)
 * arrays and typed arrays, fromBuffer; the in-place fills fill_, zero_,
 * uniform_, normal_; and the generator (manualSeed, initialSeed).
 *
 * Random numbers come from a counter-based generator (Philox4x32-10): after
 * `torch.manualSeed(n)` the same calls give the same numbers on cpu and cuda.
 */
import { native } from '../addon';
import { DeviceLike, normalizeDevice, normalizeShape } from '../device';
import {
  DType,
  dtypeSize,
  getDefaultDtype,
  hostArray,
  isFloatingPoint,
  normalizeDtype,
  numberToBfloat16,
  numberToHalf,
} from '../dtype';
import { shapeError, codedError } from '../errors';
import { emptyTensor, Tensor } from '../tensor';
import { Generator, GeneratorOptions, withGenerator } from './generator';
import { argError, runInto, runOp } from './helpers';

/** Where and how to create a tensor. */
export interface TensorOptions {
  /** "cpu" (default), "cuda", "cuda:N", or a CUDA index. */
  device?: DeviceLike;
  /** Element type (default: torch.getDefaultDtype() for floating values; see each function). */
  dtype?: DType;
  /** Record operations on the new tensor for backward (default false; floating dtypes only). */
  requiresGrad?: boolean;
}

/**
 * The requiresGrad creation option is autograd's: it installs this hook
 * (autograd/tensor_api.ts), which makes a new tensor a leaf that requires grad.
 */
export const creationHooks: { requiresGrad: ((t: Tensor, on: boolean) => void) | null } = { requiresGrad: null };

/** `t` (just made and filled) with the requiresGrad of `opts` applied; disposed if that is refused. */
function leaf(t: Tensor, opts: TensorOptions | undefined): Tensor {
  const want = opts?.requiresGrad;
  if (want === undefined || want === false) return t;
  try {
    if (creationHooks.requiresGrad === null) throw codedError('TSGPU_ARG', 'requiresGrad: autograd is not loaded');
    creationHooks.requiresGrad(t, want);
  } catch (e) {
    t.dispose();
    throw e;
  }
  return t;
}

/** The options object at the end of a size argument list, if any. */
/** As leaf(), for a function whose body makes and fills the tensor. */
function leafAfter(opts: TensorOptions | undefined, make: () => Tensor): Tensor {
  return leaf(make(), opts);
}

function sizedOptions(size: SizeAndOptions): TensorOptions | undefined {
  const last = (size as unknown[])[size.length - 1];
  return last !== null && typeof last === 'object' && !Array.isArray(last) ? (last as TensorOptions) : undefined;
}

type Shape = number | readonly number[];

/** A shape given as separate numbers (`zeros(2, 3)`) or as one list (`zeros([2, 3])`), then options. */
export type SizeAndOptions = (number | readonly number[] | TensorOptions | undefined)[];

/** The largest number of elements a tensor may have (PyTorch's sizes are int64; JavaScript counts exactly to 2^53). */
const MAX_NUMEL = Number.MAX_SAFE_INTEGER;

/** Checks a shape: non-negative integers whose product is representable; names the op. */
function checkShape(op: string, dims: readonly unknown[], asList: boolean): number[] {
  let n = 1;
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    if (typeof d !== 'number' || !Number.isInteger(d)) {
      argError(op, 'an integer', asList ? `size[${i}]` : `size (argument ${i + 1})`, d === null ? 'null' : typeof d === 'number' ? d : typeof d);
    }
    if (d < 0) throw codedError('TSGPU_ARG', `${op}: Dimension size must be non-negative, got ${d} in [${dims.join(', ')}]`);
    n *= d;
  }
  if (n > MAX_NUMEL) throw codedError('TSGPU_ARG', `${op}: Storage size calculation overflowed with sizes=[${dims.join(', ')}]`);
  return dims.slice() as number[];
}

/**
 * The shape and options of a creation function called as PyTorch's:
 * `zeros(2, 3)`, `zeros([2, 3])`, `zeros(2, 3, { dtype })`, `zeros([2, 3], { dtype })`.
 */
export function sizeAndOptions(op: string, args: SizeAndOptions): { shape: number[]; opts: TensorOptions | undefined } {
  let list = args;
  let opts: TensorOptions | undefined;
  const last = list[list.length - 1];
  if (list.length > 0 && (last === undefined || (typeof last === 'object' && last !== null && !Array.isArray(last)))) {
    opts = last as TensorOptions | undefined;
    list = list.slice(0, -1);
  }
  if (list.length === 1 && Array.isArray(list[0])) return { shape: checkShape(op, list[0] as readonly unknown[], true), opts };
  if (list.length === 0) argError(op, 'a shape (numbers, or one list of numbers)', 'size', 'nothing');
  list.forEach((x, i) => {
    if (typeof x !== 'number') {
      argError(op, 'a shape (numbers, or one list of numbers) then an options object', `argument ${i + 1}`,
        Array.isArray(x) ? 'a list after other sizes' : x === null ? 'null' : typeof x);
    }
  });
  return { shape: checkShape(op, list, false), opts };
}

function make(op: string, shape: Shape, opts: TensorOptions | undefined, dtype?: DType): Tensor {
  const dims = typeof shape === 'number' ? checkShape(op, [shape], false) : Array.isArray(shape) ? checkShape(op, shape, true) : normalizeShape(shape);
  return emptyTensor(dims, normalizeDtype(opts?.dtype, dtype), normalizeDevice(opts?.device));
}

function makeSized(op: string, args: SizeAndOptions, dtype?: DType): Tensor {
  const { shape, opts } = sizeAndOptions(op, args);
  return emptyTensor(shape, normalizeDtype(opts?.dtype, dtype), normalizeDevice(opts?.device));
}

function checkNumber(op: string, name: string, v: unknown): number {
  if (typeof v !== 'number' || Number.isNaN(v)) argError(op, 'a number', name, v);
  return v as number;
}

/** An uninitialized tensor. @example torch.empty([2, 3], { device: 'cuda' }); torch.empty(2, 3) */
export function empty(...size: SizeAndOptions): Tensor {
  return leaf(makeSized('empty', size), sizedOptions(size));
}

/** A tensor filled with `value` (dtype: int64 for an integer, bool for a boolean, else the default). */
export function full(shape: Shape, value: number | boolean, opts?: TensorOptions): Tensor {
  if (typeof value !== 'number' && typeof value !== 'boolean') argError('full', 'a number', 'value', typeof value);
  const inferred: DType = typeof value === 'boolean' ? 'bool' : Number.isInteger(value) ? 'int64' : getDefaultDtype();
  return leaf(runInto(make('full', shape, opts, inferred), (t) => runOp('fill', [t], [], { value: Number(value) })), opts);
}

/** A tensor of zeros (default dtype unless given): `zeros(2, 3)` or `zeros([2, 3], { dtype })`. */
export function zeros(...size: SizeAndOptions): Tensor {
  return leaf(runInto(makeSized('zeros', size), (t) => runOp('fill', [t], [], { value: 0 })), sizedOptions(size));
}

/** A tensor of ones (default dtype unless given): `ones(2, 3)` or `ones([2, 3], { dtype })`. */
export function ones(...size: SizeAndOptions): Tensor {
  return leaf(runInto(makeSized('ones', size), (t) => runOp('fill', [t], [], { value: 1 })), sizedOptions(size));
}

/**
 * Values start, start+step, ... below end: arange(end), arange(start, end,
 * step?). Dtype int64 when all arguments are integers, else the default.
 */
export function arange(start: number, end?: number | TensorOptions, step?: number | TensorOptions, opts?: TensorOptions): Tensor {
  let s = start;
  let e: number;
  let st = 1;
  let o = opts;
  if (typeof end !== 'number') {
    o = end;
    e = start;
    s = 0;
  } else {
    e = end;
    if (typeof step === 'number') st = step;
    else o = step;
  }
  checkNumber('arange', 'start', s);
  checkNumber('arange', 'end', e);
  checkNumber('arange', 'step', st);
  if (st === 0) throw codedError('TSGPU_ARG', 'arange: step must be nonzero');
  if ((e - s) / st < 0) {
    throw codedError('TSGPU_ARG', `arange: upper bound ${e} and lower bound ${s} are inconsistent with step sign ${st}`);
  }
  const n = Math.ceil((e - s) / st);
  const allInt = Number.isInteger(s) && Number.isInteger(e) && Number.isInteger(st);
  return leaf(runInto(make('arange', [n], o, allInt ? 'int64' : getDefaultDtype()), (t) => runOp('arange', [t], [], { start: s, step: st })), o);
}

/** `steps` values evenly spaced from start to end inclusive. */
export function linspace(start: number, end: number, steps: number, opts?: TensorOptions): Tensor {
  checkNumber('linspace', 'start', start);
  checkNumber('linspace', 'end', end);
  if (!Number.isInteger(steps) || steps < 0) argError('linspace', 'a non-negative integer', 'steps', steps);
  return leafAfter(opts, () => runInto(make('linspace', [steps], opts), (t) => {
    if (steps === 0) return;
    if (steps === 1) {
      runOp('fill', [t], [], { value: start });
      return;
    }
    // From both ends, as PyTorch does, so that the last value is exactly `end`.
    const step = (end - start) / (steps - 1);
    const half = Math.floor(steps / 2);
    const lo = t.narrow(0, 0, half);
    const hi = t.narrow(0, half, steps - half);
    try {
      runOp('arange', [lo], [], { start, step });
      runOp('arange', [hi], [], { start: end - (steps - 1 - half) * step, step });
    } finally {
      lo.dispose();
      hi.dispose();
    }
  }));
}

/** An n×m (default n×n) matrix with ones on the diagonal. */
export function eye(n: number, m?: number | TensorOptions, opts?: TensorOptions): Tensor {
  const cols = typeof m === 'number' ? m : n;
  const o = typeof m === 'number' ? opts : m;
  return leafAfter(o, () => runInto(zeros([n, cols], o === undefined ? o : { ...o, requiresGrad: undefined }), (t) => {
    const k = Math.min(n, cols);
    if (k === 0) return;
    const diag = new Tensor(t.untypedStorage(), [k], [cols + 1], 0, t.dtype);
    try {
      runOp('fill', [diag], [], { value: 1 });
    } finally {
      diag.dispose();
    }
  }));
}

/** The options of the random creation functions: TensorOptions and the generator to draw from. */
export interface RandomTensorOptions extends TensorOptions, GeneratorOptions {}

/** A shape as numbers or one list, then RandomTensorOptions. */
export type RandomSizeAndOptions = (number | readonly number[] | RandomTensorOptions | undefined)[];

/** Fills `t` by `op` on the stream of `opts.generator` (the global one by default). */
function draw(name: string, t: Tensor, op: 'uniform' | 'normal' | 'randint', attrs: Record<string, number>, generator: Generator | null | undefined): Tensor {
  return runInto(t, (out) => withGenerator(name, generator, out.device, () => runOp(op, [out], [], attrs)));
}

/** Uniform random values in [0, 1): `rand(2, 3)` or `rand([2, 3], { dtype, generator })`. */
export function rand(...size: RandomSizeAndOptions): Tensor {
  const opts = sizedOptions(size) as RandomTensorOptions | undefined;
  return leaf(draw('rand', makeSized('rand', size), 'uniform', { low: 0, high: 1 }, opts?.generator), opts);
}

/** Standard normal random values: `randn(2, 3)` or `randn([2, 3], { dtype, generator })`. */
export function randn(...size: RandomSizeAndOptions): Tensor {
  const opts = sizedOptions(size) as RandomTensorOptions | undefined;
  return leaf(draw('randn', makeSized('randn', size), 'normal', { mean: 0, std: 1 }, opts?.generator), opts);
}

/** Random integers in [low, high): randint(high, shape) or randint(low, high, shape). Dtype int64. */
export function randint(low: number, high: number | Shape, shape?: Shape | RandomTensorOptions, opts?: RandomTensorOptions): Tensor {
  let lo = 0;
  let hi: number;
  let sh: Shape;
  let o = opts;
  if (typeof high === 'number' && shape !== undefined && (typeof shape === 'number' || Array.isArray(shape))) {
    lo = low;
    hi = high;
    sh = shape as Shape;
  } else {
    hi = low;
    sh = high as Shape;
    o = shape as RandomTensorOptions | undefined;
  }
  if (!Number.isInteger(lo)) argError('randint', 'an integer', 'low', lo);
  if (!Number.isInteger(hi)) argError('randint', 'an integer', 'high', hi);
  if (hi <= lo) throw codedError('TSGPU_ARG', `randint: expected low < high, got low=${lo} and high=${hi}`);
  return leaf(draw('randint', make('randint', sh, o, 'int64'), 'randint', { low: lo, high: hi }, o?.generator), o);
}

/**
 * A random permutation of 0..n-1 (int64 unless dtype says otherwise). The
 * keys are drawn on cpu, so cpu and cuda give the same permutation.
 */
export function randperm(n: number, opts?: RandomTensorOptions): Tensor {
  if (!Number.isInteger(n) || n < 0) argError('randperm', 'a non-negative integer', 'n', n);
  const device = normalizeDevice(opts?.device);
  const keys = emptyTensor([n], 'float64', 'cpu');
  let order: number[];
  try {
    withGenerator('randperm', opts?.generator, device, () => runOp('uniform', [keys], [], { low: 0, high: 1 }));
    const k = keys.toArray() as Float64Array;
    order = [...Array(n).keys()].sort((a, b) => k[a] - k[b] || a - b);
  } finally {
    keys.dispose();
  }
  return leaf(fromValues(order, [n], normalizeDtype(opts?.dtype, 'int64'), device), opts);
}

/** Nested arrays, typed arrays, numbers and booleans tensor() accepts. */
export type TensorData = number | boolean | ArrayLike<unknown> | readonly TensorData[];

function inferShape(data: unknown): number[] {
  const shape: number[] = [];
  let cur: unknown = data;
  while (Array.isArray(cur) || ArrayBuffer.isView(cur)) {
    const len = (cur as ArrayLike<unknown>).length;
    shape.push(len);
    if (len === 0) break;
    cur = (cur as ArrayLike<unknown>)[0];
  }
  return shape;
}

function flattenData(data: unknown, shape: number[], depth: number, out: unknown[]): void {
  if (depth === shape.length) {
    if (typeof data !== 'number' && typeof data !== 'boolean' && typeof data !== 'bigint') {
      throw codedError('TSGPU_ARG', `tensor: expected a number in tensor data, got ${data === null ? 'null' : typeof data}`);
    }
    out.push(data);
    return;
  }
  const arr = data as ArrayLike<unknown>;
  if (!(Array.isArray(arr) || ArrayBuffer.isView(arr)) || arr.length !== shape[depth]) {
    const got = Array.isArray(arr) || ArrayBuffer.isView(arr) ? `${arr.length}` : typeof data;
    throw codedError('TSGPU_ARG', `tensor: data is ragged: expected ${shape[depth]} elements at depth ${depth}, got ${got}`);
  }
  if (ArrayBuffer.isView(arr) && depth === shape.length - 1) {
    for (let i = 0; i < arr.length; i++) out.push(arr[i]);
    return;
  }
  for (let i = 0; i < arr.length; i++) flattenData(arr[i], shape, depth + 1, out);
}

const TYPED_DTYPES: [Function, DType][] = [
  [Float32Array, 'float32'],
  [Float64Array, 'float64'],
  [Int8Array, 'int8'],
  [Uint8Array, 'uint8'],
  [Int16Array, 'int16'],
  [Int32Array, 'int32'],
  [BigInt64Array, 'int64'],
  [Uint16Array, 'int32'],
  [Uint32Array, 'int64'],
];

function inferDtype(data: unknown, flat: unknown[]): DType {
  let inner: unknown = data;
  while (Array.isArray(inner) && inner.length > 0) inner = inner[0];
  if (ArrayBuffer.isView(inner)) {
    for (const [C, d] of TYPED_DTYPES) if (inner instanceof (C as typeof Float32Array)) return d;
  }
  if (flat.length > 0 && flat.every((x) => typeof x === 'boolean')) return 'bool';
  // No elements (tensor([])) is the default dtype, as PyTorch's.
  if (flat.length > 0 && flat.every((x) => typeof x === 'bigint' || typeof x === 'boolean' || Number.isInteger(x))) return 'int64';
  return getDefaultDtype();
}

/** @internal A tensor of `dtype` on `device` holding `values` (row-major). */
export function fromValues(values: ArrayLike<unknown>, shape: number[], dtype: DType, device: string): Tensor {
  const n = values.length;
  const bytes = new ArrayBuffer(n * dtypeSize(dtype));
  const a = hostArray(dtype, bytes);
  if (dtype === 'int64') {
    const b = a as BigInt64Array;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      b[i] = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
    }
  } else if (dtype === 'float16' || dtype === 'bfloat16') {
    const conv = dtype === 'float16' ? numberToHalf : numberToBfloat16;
    for (let i = 0; i < n; i++) (a as Uint16Array)[i] = conv(Number(values[i]));
  } else if (dtype === 'bool') {
    for (let i = 0; i < n; i++) (a as Uint8Array)[i] = Number(values[i]) !== 0 ? 1 : 0;
  } else if (isFloatingPoint(dtype)) {
    for (let i = 0; i < n; i++) (a as Float32Array)[i] = Number(values[i]);
  } else {
    for (let i = 0; i < n; i++) (a as Int32Array)[i] = Math.trunc(Number(values[i]));
  }
  const t = emptyTensor(shape, dtype, device);
  if (n > 0) native.writeBytes(t.handle(), 0, a);
  return t;
}

/** The values each integer dtype holds (int64's as the doubles that bound it). */
const INTEGER_RANGE: Partial<Record<DType, [number, number]>> = {
  uint8: [0, 255],
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
  int64: [-(2 ** 63), 2 ** 63],
};

/**
 * Refuses values that an integer dtype cannot hold, as PyTorch's tensor()
 * does ("value cannot be converted to type uint8 without overflow"):
 * out of range, NaN or infinite. Fractions are truncated, as PyTorch's.
 */
function checkRange(dtype: DType, flat: readonly unknown[]): void {
  const range = INTEGER_RANGE[dtype];
  if (range === undefined) return;
  const [lo, hi] = range;
  for (const v of flat) {
    if (typeof v === 'boolean') continue;
    const bad = typeof v === 'bigint'
      ? v < BigInt(lo) || v > (dtype === 'int64' ? 2n ** 63n - 1n : BigInt(hi))
      : Number.isNaN(v as number) || (v as number) < lo || (dtype === 'int64' ? (v as number) >= hi : (v as number) > hi);
    if (bad) throw codedError('TSGPU_ARG', `tensor: value ${String(v)} cannot be converted to type ${dtype} without overflow`);
  }
}

/**
 * A tensor from a number, a boolean, a (nested) array or a typed array.
 * Dtype when not given: that of a typed array; bool for booleans; int64 when
 * every number is an integer; else the default dtype.
 * @example torch.tensor([[1, 2], [3, 4]], { dtype: 'float32' })
 */
export function tensor(data: TensorData, opts?: TensorOptions): Tensor {
  const shape = inferShape(data);
  const flat: unknown[] = [];
  flattenData(data, shape, 0, flat);
  const dtype = opts?.dtype !== undefined ? normalizeDtype(opts.dtype) : inferDtype(data, flat);
  checkRange(dtype, flat);
  return leaf(fromValues(flat, shape, dtype, normalizeDevice(opts?.device)), opts);
}

/**
 * A tensor whose elements are the raw bytes of `buffer` read as `dtype`
 * (default: the default dtype), with `shape` (default: 1-D).
 */
export function fromBuffer(buffer: ArrayBuffer | ArrayBufferView, opts?: TensorOptions & { shape?: Shape }): Tensor {
  const view = ArrayBuffer.isView(buffer)
    ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    : buffer instanceof ArrayBuffer
      ? new Uint8Array(buffer)
      : null;
  if (view === null) argError('fromBuffer', 'an ArrayBuffer or a typed array', 'buffer', typeof buffer);
  const dtype = normalizeDtype(opts?.dtype);
  const size = dtypeSize(dtype);
  if (view.byteLength % size !== 0) {
    throw codedError('TSGPU_ARG', `fromBuffer: ${view.byteLength} bytes are not a whole number of ${dtype} elements (${size} bytes each)`);
  }
  const n = view.byteLength / size;
  const shape = opts?.shape === undefined ? [n] : normalizeShape(opts.shape);
  if (shape.reduce((a, b) => a * b, 1) !== n) {
    throw shapeError(`fromBuffer: shape [${shape.join(', ')}] does not hold the ${n} elements of the buffer`);
  }
  const t = emptyTensor(shape, dtype, normalizeDevice(opts?.device));
  if (n > 0) native.writeBytes(t.handle(), 0, view);
  return leaf(t, opts);
}

function likeOpts(t: Tensor, opts?: TensorOptions): TensorOptions {
  return { dtype: opts?.dtype ?? t.dtype, device: opts?.device ?? t.device };
}

/** empty with t's shape, dtype and device (unless given). */
export function emptyLike(t: Tensor, opts?: TensorOptions): Tensor {
  return leaf(empty(t.shape, likeOpts(t, opts)), opts);
}
/** zeros with t's shape, dtype and device. */
export function zerosLike(t: Tensor, opts?: TensorOptions): Tensor {
  return leaf(zeros(t.shape, likeOpts(t, opts)), opts);
}
/** ones with t's shape, dtype and device. */
export function onesLike(t: Tensor, opts?: TensorOptions): Tensor {
  return leaf(ones(t.shape, likeOpts(t, opts)), opts);
}
/** full with t's shape, dtype and device. */
export function fullLike(t: Tensor, value: number | boolean, opts?: TensorOptions): Tensor {
  return leaf(full(t.shape, value, likeOpts(t, opts)), opts);
}
/** rand with t's shape, dtype and device. */
export function randLike(t: Tensor, opts?: TensorOptions): Tensor {
  return leaf(rand(t.shape, likeOpts(t, opts)), opts);
}
/** randn with t's shape, dtype and device. */
export function randnLike(t: Tensor, opts?: TensorOptions): Tensor {
  return leaf(randn(t.shape, likeOpts(t, opts)), opts);
}
/** randint with t's shape, dtype and device: randintLike(t, high) or randintLike(t, low, high). */
export function randintLike(t: Tensor, low: number, high?: number, opts?: TensorOptions): Tensor {
  return high === undefined ? randint(0, low, t.shape, likeOpts(t, opts)) : randint(low, high, t.shape, likeOpts(t, opts));
}

/** Seeds the generator and restarts its counter (same numbers on cpu and cuda). */
export function manualSeed(seed: number): void {
  if (!Number.isInteger(seed) || seed < 0) {
    throw codedError('TSGPU_ARG', `manualSeed: expected a non-negative integer for seed, got ${seed}`);
  }
  native.manualSeed(seed);
}

/** The generator's state (torch.get_rng_state): pass it to setRngState to draw the same numbers again. */
export interface RngState {
  readonly seed: number;
  readonly offset: number;
}

/** The generator's state now (torch.get_rng_state). */
export function getRngState(): RngState {
  const [seed, offset] = native.getRngState();
  return { seed, offset };
}

/** Restores a state getRngState gave (torch.set_rng_state): the draws that followed it follow again. */
export function setRngState(state: RngState): void {
  if (state === null || typeof state !== 'object' || !Number.isInteger(state.seed) || !Number.isInteger(state.offset) || state.seed < 0 || state.offset < 0) {
    throw codedError('TSGPU_ARG', `setRngState: expected a state from getRngState() for state, got ${JSON.stringify(state)}`);
  }
  native.setRngState(state.seed, state.offset);
}

/** The seed of the generator (torch.initial_seed). */
export function initialSeed(): number {
  return native.initialSeed();
}

declare module '../tensor' {
  interface Tensor {
    /** Fills with `value` in place; returns this. */
    fill_(value: number | boolean): Tensor;
    /** Fills with zeros in place; returns this. */
    zero_(): Tensor;
    /** Fills with uniform values in [low, high) (default [0, 1)) in place (floating dtypes); returns this. */
    uniform_(low?: number, high?: number, opts?: GeneratorOptions): Tensor;
    /** Fills with normal values (default mean 0, std 1) in place (floating dtypes); returns this. */
    normal_(mean?: number, std?: number, opts?: GeneratorOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.fill_ = function (this: Tensor, value: number | boolean) {
  if (typeof value !== 'number' && typeof value !== 'boolean') argError('fill_', 'a number', 'value', typeof value);
  runOp('fill', [this], [], { value: Number(value) });
  return this;
};
P.zero_ = function (this: Tensor) {
  runOp('fill', [this], [], { value: 0 });
  return this;
};
P.uniform_ = function (this: Tensor, low = 0, high = 1, opts?: GeneratorOptions) {
  const attrs = { low: checkNumber('uniform_', 'low', low), high: checkNumber('uniform_', 'high', high) };
  withGenerator('uniform_', opts?.generator, this.device, () => runOp('uniform', [this], [], attrs));
  return this;
};
P.normal_ = function (this: Tensor, mean = 0, std = 1, opts?: GeneratorOptions) {
  const attrs = { mean: checkNumber('normal_', 'mean', mean), std: checkNumber('normal_', 'std', std) };
  if (attrs.std < 0) throw codedError('TSGPU_ARG', `normal_: expects std >= 0.0, but found std ${attrs.std}`);
  withGenerator('normal_', opts?.generator, this.device, () => runOp('normal', [this], [], attrs));
  return this;
};
