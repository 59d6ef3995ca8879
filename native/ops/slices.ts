/**
 * Views of a part of a tensor along one dimension (no copy; in-place ops
 * write through to the base): narrow, select and slice, and the pieces of
 * split, chunk and unbind.
 */
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor, viewOf } from '../tensor';
import { argError } from './helpers';

function checkIndex(op: string, name: string, v: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v)) argError(op, 'an integer', name, v);
}

/** Elements start..start+length-1 of dimension `dim`. */
export function narrow(t: Tensor, dim: number, start: number, length: number): Tensor {
  const d = t.normDim(dim, 'narrow');
  checkIndex('narrow', 'start', start);
  checkIndex('narrow', 'length', length);
  const size = t.shape[d];
  const s = start < 0 ? start + size : start;
  if (s < 0 || length < 0 || s + length > size) {
    throw codedError('TSGPU_ARG', `narrow: start ${start} and length ${length} are out of range for dimension ${dim} of size ${size}`);
  }
  const shape = t.shape.slice();
  shape[d] = length;
  return viewOf(t, shape, t.stride(), t.storageOffset() + s * t.rawStrides[d]);
}

/** Index `index` of dimension `dim`, which is removed. */
export function select(t: Tensor, dim: number, index: number): Tensor {
  if (t.ndim === 0) throw codedError('TSGPU_ARG', 'select: cannot select from a 0-dimensional tensor');
  const d = t.normDim(dim, 'select');
  checkIndex('select', 'index', index);
  const size = t.shape[d];
  const i = index < 0 ? index + size : index;
  if (i < 0 || i >= size) {
    throw codedError('TSGPU_ARG', `select: index ${index} is out of range for dimension ${dim} of size ${size}`);
  }
  const shape = t.shape.slice();
  const strides = t.stride();
  const offset = t.storageOffset() + i * strides[d];
  shape.splice(d, 1);
  strides.splice(d, 1);
  return viewOf(t, shape, strides, offset);
}

/**
 * Elements start, start+step, ... below end of dimension `dim`, as Python's
 * `t[start:end:step]` (negative start/end count from the end, out-of-range
 * bounds are clamped; step >= 1).
 */
export function slice(t: Tensor, dim = 0, start?: number | null, end?: number | null, step = 1): Tensor {
  const d = t.normDim(dim, 'slice');
  if (!Number.isInteger(step) || step < 1) argError('slice', 'a positive integer', 'step', step);
  const size = t.shape[d];
  const clamp = (v: number | null | undefined, dflt: number): number => {
    if (v === undefined || v === null) return dflt;
    checkIndex('slice', 'start/end', v);
    const x = v < 0 ? v + size : v;
    return Math.min(Math.max(x, 0), size);
  };
  const s = clamp(start, 0);
  const e = Math.max(clamp(end, size), s);
  const shape = t.shape.slice();
  const strides = t.stride();
  shape[d] = Math.ceil((e - s) / step);
  const offset = t.storageOffset() + (shape[d] > 0 ? s * strides[d] : 0);
  strides[d] *= step;
  return viewOf(t, shape, strides, offset);
}

/** Pieces of `splitSize` along `dim` (the last may be smaller), or pieces of the given sizes. */
export function split(t: Tensor, splitSize: number | readonly number[], dim = 0): Tensor[] {
  const d = t.normDim(dim, 'split');
  const size = t.shape[d];
  let sizes: number[];
  if (typeof splitSize === 'number') {
    if (!Number.isInteger(splitSize) || splitSize < 1) argError('split', 'a positive integer', 'splitSize', splitSize);
    sizes = [];
    for (let s = 0; s < size; s += splitSize) sizes.push(Math.min(splitSize, size - s));
    if (size === 0) sizes.push(0);
  } else {
    sizes = splitSize.slice();
    if (sizes.reduce((a, b) => a + b, 0) !== size) {
      throw shapeError(`split: sizes ${formatShape(sizes)} do not add up to the size ${size} of dimension ${dim}`);
    }
  }
  const out: Tensor[] = [];
  let start = 0;
  for (const n of sizes) {
    out.push(narrow(t, d, start, n));
    start += n;
  }
  return out;
}

/** `chunks` pieces (or fewer) of equal size along `dim`, the last may be smaller. */
export function chunk(t: Tensor, chunks: number, dim = 0): Tensor[] {
  if (!Number.isInteger(chunks) || chunks < 1) argError('chunk', 'a positive integer', 'chunks', chunks);
  const size = t.shape[t.normDim(dim, 'chunk')];
  return split(t, Math.max(1, Math.ceil(size / chunks)), dim);
}

/** The slices along `dim`, that dim removed. */
export function unbind(t: Tensor, dim = 0): Tensor[] {
  const d = t.normDim(dim, 'unbind');
  return [...Array(t.shape[d]).keys()].map((i) => select(t, d, i));
}

declare module '../tensor' {
  interface Tensor {
    /** length elements from start along dim (a view). */
    narrow(dim: number, start: number, length: number): Tensor;
    /** Index along dim, that dim removed (a view). */
    select(dim: number, index: number): Tensor;
    /** t[start:end:step] along dim (a view). */
    slice(dim?: number, start?: number | null, end?: number | null, step?: number): Tensor;
    /** Pieces along dim (views). */
    split(splitSize: number | readonly number[], dim?: number): Tensor[];
    /** `chunks` pieces along dim (views). */
    chunk(chunks: number, dim?: number): Tensor[];
    /** Slices along dim (views). */
    unbind(dim?: number): Tensor[];
  }
}

const P = Tensor.prototype;
P.narrow = function (this: Tensor, dim: number, start: number, length: number) {
  return narrow(this, dim, start, length);
};
P.select = function (this: Tensor, dim: number, i: number) {
  return select(this, dim, i);
};
P.slice = function (this: Tensor, dim?: number, start?: number | null, end?: number | null, step?: number) {
  return slice(this, dim, start, end, step);
};
P.split = function (this: Tensor, splitSize: number | readonly number[], dim?: number) {
  return split(this, splitSize, dim);
};
P.chunk = function (this: Tensor, chunks: number, dim?: number) {
  return chunk(this, chunks, dim);
};
P.unbind = function (this: Tensor, dim?: number) {
  return unbind(this, dim);
};
