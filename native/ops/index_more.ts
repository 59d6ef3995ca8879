/**
 * More indexing, as PyTorch's, composed from advanced indexing, gather and
 * scatter: maskedSelect, take, argwhere, indexAdd, indexCopy, indexFill
 * (each with an in-place `_` method), meshgrid, triuIndices, trilIndices.
 */
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { fromBuffer, TensorOptions } from './creation';
import { argError, broadcastShapesFor, checkTensor } from './helpers';
import { nonzero } from './indexing';

/** The elements of t where mask (bool, broadcast with t) is true, as a 1-D tensor. */
export function maskedSelect(t: Tensor, mask: Tensor): Tensor {
  checkTensor('maskedSelect', 'self', t);
  checkTensor('maskedSelect', 'mask', mask);
  if (mask.dtype !== 'bool') throw codedError('TSGPU_ARG', `maskedSelect: expected a bool mask, got ${mask.dtype}`);
  return tidy(() => {
    const shape = broadcastShapesFor('maskedSelect', [t.shape, mask.shape]);
    return t.expand(shape).index(mask.expand(shape));
  });
}

/** The elements of t at the flat positions of index (negative from the end), in index's shape. */
export function take(t: Tensor, index: Tensor): Tensor {
  checkTensor('take', 'self', t);
  checkTensor('take', 'index', index);
  return tidy(() => t.reshape(-1).index(index));
}

/** The coordinates of the nonzero elements, [count, ndim] int64 (nonzero). */
export function argwhere(t: Tensor): Tensor {
  checkTensor('argwhere', 'self', t);
  return nonzero(t);
}

/** The index along dim, viewed and expanded to `shape` (its size along dim is the index's length). */
function expandedIndex(op: string, t: Tensor, dim: number, index: Tensor, shape: readonly number[]): Tensor {
  if (index.ndim > 1) argError(op, 'a 1-D index', 'index', formatShape(index.shape));
  const d = t.ndim === 0 ? 0 : t.normDim(dim, op);
  const along = shape.map((n, k) => (k === d ? index.numel : 1));
  return index.long().reshape(along).expand(shape as number[]);
}

function checkSource(op: string, t: Tensor, dim: number, index: Tensor, source: Tensor): number {
  checkTensor(op, 'self', t);
  checkTensor(op, 'index', index);
  checkTensor(op, 'source', source);
  const d = t.ndim === 0 ? 0 : t.normDim(dim, op);
  const want = t.shape.map((n, k) => (k === d ? index.numel : n));
  if (t.ndim > 0 && (source.ndim !== t.ndim || source.shape.some((n, k) => n !== want[k]))) {
    throw shapeError(`${op}: source of shape ${formatShape(source.shape)} does not match self of shape ${formatShape(t.shape)} ` +
      `with ${index.numel} indices along dim ${d} (expected ${formatShape(want)})`);
  }
  return d;
}

/** In place: t[..., index[i], ...] += alpha * source[..., i, ...] along dim (repeated indices add up). */
export function indexAdd_(t: Tensor, dim: number, index: Tensor, source: Tensor, opts?: { alpha?: number }): Tensor {
  const d = checkSource('indexAdd_', t, dim, index, source);
  tidy(() => {
    const src = (opts?.alpha ?? 1) === 1 ? source : source.mul(opts?.alpha as number);
    t.scatterAdd_(d, expandedIndex('indexAdd_', t, d, index, source.shape), src.to(t.dtype));
  });
  return t;
}

/** In place: t[..., index[i], ...] = source[..., i, ...] along dim. */
export function indexCopy_(t: Tensor, dim: number, index: Tensor, source: Tensor): Tensor {
  const d = checkSource('indexCopy_', t, dim, index, source);
  tidy(() => { t.scatter_(d, expandedIndex('indexCopy_', t, d, index, source.shape), source.to(t.dtype)); });
  return t;
}

/** In place: the slices at index along dim filled with value. */
export function indexFill_(t: Tensor, dim: number, index: Tensor, value: number | boolean): Tensor {
  checkTensor('indexFill_', 'self', t);
  checkTensor('indexFill_', 'index', index);
  if (typeof value !== 'number' && typeof value !== 'boolean') argError('indexFill_', 'a number', 'value', typeof value);
  const d = t.ndim === 0 ? 0 : t.normDim(dim, 'indexFill_');
  const shape = t.shape.map((n, k) => (k === d ? index.numel : n));
  tidy(() => { t.scatter_(d, expandedIndex('indexFill_', t, d, index, shape), Number(value)); });
  return t;
}

/** Out of place forms: a copy of t with the `_` op applied. */
export function indexAdd(t: Tensor, dim: number, index: Tensor, source: Tensor, opts?: { alpha?: number }): Tensor {
  checkTensor('indexAdd', 'self', t);
  return indexAdd_(t.clone(), dim, index, source, opts);
}
export function indexCopy(t: Tensor, dim: number, index: Tensor, source: Tensor): Tensor {
  checkTensor('indexCopy', 'self', t);
  return indexCopy_(t.clone(), dim, index, source);
}
export function indexFill(t: Tensor, dim: number, index: Tensor, value: number | boolean): Tensor {
  checkTensor('indexFill', 'self', t);
  return indexFill_(t.clone(), dim, index, value);
}

/** Options of meshgrid. */
export interface MeshgridOptions {
  /** 'ij' (matrix indexing: the first tensor varies along dim 0; PyTorch's default) or 'xy' (Cartesian: the first two swapped). */
  indexing?: 'ij' | 'xy';
}

/** Grids of 1-D (or 0-D) tensors: out[i] varies along dim i (expanded views). */
export function meshgrid(tensors: readonly Tensor[], opts?: MeshgridOptions): Tensor[] {
  if (!Array.isArray(tensors as unknown) || tensors.length === 0) argError('meshgrid', 'a non-empty list of tensors', 'tensors', tensors as unknown);
  tensors.forEach((t, i) => {
    checkTensor('meshgrid', `tensors[${i}]`, t);
    if (t.ndim > 1) throw codedError('TSGPU_ARG', `meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape ${formatShape(t.shape)}`);
  });
  const indexing = opts?.indexing ?? 'ij';
  if (indexing !== 'ij' && indexing !== 'xy') argError('meshgrid', "'ij' or 'xy'", 'indexing', indexing);
  const list = tensors.slice();
  const swap = indexing === 'xy' && list.length >= 2;
  if (swap) [list[0], list[1]] = [list[1], list[0]];
  const shape = list.map((t) => t.numel);
  const grids = list.map((t, i) => tidy(() => t.reshape(shape.map((n, k) => (k === i ? n : 1))).expand(shape)));
  // 'xy': the grids of the swapped list, of shape [n1, n0, ...], given back in the callers' order.
  if (swap) [grids[0], grids[1]] = [grids[1], grids[0]];
  return grids;
}

function triangleIndices(op: string, row: number, col: number, offset: number, lower: boolean, opts?: TensorOptions): Tensor {
  for (const [name, v] of [['row', row], ['col', col], ['offset', offset]] as const) {
    if (!Number.isInteger(v)) argError(op, 'an integer', name, v);
  }
  if (row < 0 || col < 0) throw codedError('TSGPU_ARG', `${op}: row and col must be non-negative, got ${row} and ${col}`);
  const rows: bigint[] = [];
  const cols: bigint[] = [];
  for (let r = 0; r < row; r++) {
    for (let c = 0; c < col; c++) {
      if (lower ? c - r <= offset : c - r >= offset) {
        rows.push(BigInt(r));
        cols.push(BigInt(c));
      }
    }
  }
  const host = fromBuffer(BigInt64Array.from([...rows, ...cols]), { dtype: 'int64', shape: [2, rows.length] });
  if ((opts?.dtype ?? 'int64') === 'int64' && (opts?.device === undefined || opts.device === 'cpu')) return host;
  try {
    return host.to({ dtype: opts?.dtype ?? 'int64', device: opts?.device ?? 'cpu' });
  } finally {
    host.dispose();
  }
}

/** The [2, N] coordinates of the lower triangle (col - row <= offset) of a row × col matrix, row by row. */
export function trilIndices(row: number, col: number, offset = 0, opts?: TensorOptions): Tensor {
  return triangleIndices('trilIndices', row, col, offset, true, opts);
}

/** The [2, N] coordinates of the upper triangle (col - row >= offset), row by row. */
export function triuIndices(row: number, col: number, offset = 0, opts?: TensorOptions): Tensor {
  return triangleIndices('triuIndices', row, col, offset, false, opts);
}

declare module '../tensor' {
  interface Tensor {
    maskedSelect(mask: Tensor): Tensor;
    take(index: Tensor): Tensor;
    argwhere(): Tensor;
    indexAdd(dim: number, index: Tensor, source: Tensor, opts?: { alpha?: number }): Tensor;
    indexAdd_(dim: number, index: Tensor, source: Tensor, opts?: { alpha?: number }): Tensor;
    indexCopy(dim: number, index: Tensor, source: Tensor): Tensor;
    indexCopy_(dim: number, index: Tensor, source: Tensor): Tensor;
    indexFill(dim: number, index: Tensor, value: number | boolean): Tensor;
    indexFill_(dim: number, index: Tensor, value: number | boolean): Tensor;
  }
}

const P = Tensor.prototype;
P.maskedSelect = function (this: Tensor, m: Tensor) { return maskedSelect(this, m); };
P.take = function (this: Tensor, i: Tensor) { return take(this, i); };
P.argwhere = function (this: Tensor) { return argwhere(this); };
P.indexAdd = function (this: Tensor, d: number, i: Tensor, s: Tensor, o?: { alpha?: number }) { return indexAdd(this, d, i, s, o); };
P.indexAdd_ = function (this: Tensor, d: number, i: Tensor, s: Tensor, o?: { alpha?: number }) { return indexAdd_(this, d, i, s, o); };
P.indexCopy = function (this: Tensor, d: number, i: Tensor, s: Tensor) { return indexCopy(this, d, i, s); };
P.indexCopy_ = function (this: Tensor, d: number, i: Tensor, s: Tensor) { return indexCopy_(this, d, i, s); };
P.indexFill = function (this: Tensor, d: number, i: Tensor, v: number | boolean) { return indexFill(this, d, i, v); };
P.indexFill_ = function (this: Tensor, d: number, i: Tensor, v: number | boolean) { return indexFill_(this, d, i, v); };
