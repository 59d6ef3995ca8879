/** Tensor factories: empty, zeros, ones, full, randn, rand, tensor. */
import { native } from './addon';
import { DType, DeviceLike, normalizeDevice, normalizeDtype, normalizeShape } from './device';
import { codedError } from './errors';
import { allocate, Tensor } from './tensor';

/** Where and how to create a tensor. */
export interface TensorOptions {
  /** "cpu" (default), "cuda", "cuda:N", or a CUDA index. */
  device?: DeviceLike;
  /** Element type (default "float32"). */
  dtype?: DType;
}

function make(shape: number | readonly number[], opts?: TensorOptions): Tensor {
  return allocate(normalizeShape(shape), normalizeDevice(opts?.device), normalizeDtype(opts?.dtype));
}

/** An uninitialized tensor of `shape`. @example torch.empty([2, 3], { device: 'cuda' }) */
export function empty(shape: number | readonly number[], opts?: TensorOptions): Tensor {
  return make(shape, opts);
}

/** A tensor filled with `value`. */
export function full(shape: number | readonly number[], value: number, opts?: TensorOptions): Tensor {
  if (typeof value !== 'number') throw codedError('TSGPU_ARG', `expected a number for value, got ${typeof value}`);
  const t = make(shape, opts);
  native.fill(t.storage(), value);
  return t;
}

/** A tensor of zeros. */
export function zeros(shape: number | readonly number[], opts?: TensorOptions): Tensor {
  return full(shape, 0, opts);
}

/** A tensor of ones. */
export function ones(shape: number | readonly number[], opts?: TensorOptions): Tensor {
  return full(shape, 1, opts);
}

/** Standard normal random values (Box–Muller over a seeded counter-based generator; see manualSeed). */
export function randn(shape: number | readonly number[], opts?: TensorOptions): Tensor {
  const t = make(shape, opts);
  native.randn(t.storage());
  return t;
}

/** Uniform random values in [0, 1). */
export function rand(shape: number | readonly number[], opts?: TensorOptions): Tensor {
  const t = make(shape, opts);
  native.rand(t.storage());
  return t;
}

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

function flatten(data: unknown, shape: number[], depth: number, out: number[]): void {
  if (depth === shape.length) {
    if (typeof data !== 'number') throw codedError('TSGPU_ARG', `expected a number in tensor data, got ${typeof data}`);
    out.push(data);
    return;
  }
  const arr = data as ArrayLike<unknown>;
  if (!(Array.isArray(arr) || ArrayBuffer.isView(arr)) || arr.length !== shape[depth]) {
    throw codedError('TSGPU_ARG', `tensor data is ragged: expected ${shape[depth]} elements at depth ${depth}`);
  }
  for (let i = 0; i < arr.length; i++) flatten(arr[i], shape, depth + 1, out);
}

/** A tensor from a number, a (nested) array of numbers, or a typed array. @example torch.tensor([[1, 2], [3, 4]]) */
export function tensor(data: number | number[] | number[][] | number[][][] | ArrayLike<number>, opts?: TensorOptions): Tensor {
  const shape = inferShape(data);
  const flat: number[] = [];
  flatten(data, shape, 0, flat);
  const t = make(shape, opts);
  native.write(t.storage(), Float32Array.from(flat));
  return t;
}

/** Seeds the random generator used by randn and rand (same values on cpu and cuda). */
export function manualSeed(seed: number): void {
  if (!Number.isInteger(seed) || seed < 0) {
    throw codedError('TSGPU_ARG', `expected a non-negative integer for seed, got ${seed}`);
  }
  native.manualSeed(seed);
}

/** Matrix product of two 2-D tensors. */
export function matmul(a: Tensor, b: Tensor): Tensor {
  return a.matmul(b);
}
