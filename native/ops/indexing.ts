/**
 * Joining, repeating and indexing: cat, stack, repeat, tile, gather,
 * indexSelect, maskedFill, tril/triu, nonzero — PyTorch's semantics (the
 * scatter family is in scatter.ts). cat/stack/repeat copy into views of one
 * new tensor; gather runs a kernel; tril/triu and maskedFill are `where` over a mask.
 */
import { promoteTypes } from '../dtype';
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { arange, fromBuffer, zeros } from './creation';
import { argError, broadcastShapesFor, castTo, checkTensor, emptyTensor, runInto, runOp, sameDevice } from './helpers';
import { ge, le } from '../generated/binary_ops';
import { where } from './math';
import { tidy } from '../scope';
import { hasInternalOverlap } from './overlap';

/** Concatenates tensors along an existing dim (dtypes promote; 1-D empty tensors are skipped, as PyTorch). */
export function cat(tensors: readonly Tensor[], dim = 0): Tensor {
  if (!Array.isArray(tensors as unknown) || tensors.length === 0) argError('cat', 'a non-empty list of tensors', 'tensors', tensors);
  tensors.forEach((t, i) => checkTensor('cat', `tensors[${i}]`, t));
  const device = sameDevice('cat', tensors);
  const parts = tensors.filter((t) => !(t.ndim === 1 && t.shape[0] === 0));
  if (parts.length === 0) return tensors[0].clone();
  const first = parts[0];
  const d = first.normDim(dim, 'cat');
  for (const t of parts) {
    if (t.ndim !== first.ndim || t.shape.some((s, k) => k !== d && s !== first.shape[k])) {
      throw shapeError(`cat: expected tensors of shape ${formatShape(first.shape)} except in dim ${d}, got ${formatShape(t.shape)}`);
    }
  }
  const dtype = parts.reduce((acc, t) => promoteTypes(acc, t.dtype), first.dtype);
  const shape = first.shape.slice();
  shape[d] = parts.reduce((n, t) => n + t.shape[d], 0);
  const out = emptyTensor(shape, dtype, device);
  let offset = 0;
  for (const t of parts) {
    const slot = out.narrow(d, offset, t.shape[d]);
    runOp('copy', [slot], [t]);
    slot.dispose();
    offset += t.shape[d];
  }
  return out;
}

/** Stacks tensors of one shape along a new dim. */
export function stack(tensors: readonly Tensor[], dim = 0): Tensor {
  if (!Array.isArray(tensors as unknown) || tensors.length === 0) argError('stack', 'a non-empty list of tensors', 'tensors', tensors);
  tensors.forEach((t, i) => checkTensor('stack', `tensors[${i}]`, t));
  const first = tensors[0];
  for (const t of tensors) {
    if (t.ndim !== first.ndim || t.shape.some((s, k) => s !== first.shape[k])) {
      throw shapeError(`stack: expected every tensor of shape ${formatShape(first.shape)}, got ${formatShape(t.shape)}`);
    }
  }
  const d = first.normDim(dim, 'stack', first.ndim + 1);
  const views = tensors.map((t) => t.unsqueeze(d));
  try {
    return cat(views, d);
  } finally {
    views.forEach((v) => v.dispose());
  }
}

/** Repeats the tensor `repeats[i]` times along dim i (leading new dims when repeats are longer). */
export function repeat(t: Tensor, ...repeats: (number | readonly number[])[]): Tensor {
  checkTensor('repeat', 'self', t);
  const reps = repeats.flat() as number[];
  if (reps.length < t.ndim) argError('repeat', `at least ${t.ndim} repeats`, 'repeats', reps);
  if (reps.some((r) => !Number.isInteger(r) || r < 0)) argError('repeat', 'non-negative integers', 'repeats', reps);
  const lead = reps.length - t.ndim;
  const src = [...new Array(lead).fill(1), ...t.shape];
  // View as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], copy, then merge pairs.
  const pairShape = src.flatMap((s) => [1, s]);
  const expanded = src.flatMap((s, i) => [reps[i], s]);
  const v = t.reshape(pairShape);
  const e = v.expand(expanded);
  try {
    const out = emptyTensor(expanded, t.dtype, t.device);
    runOp('copy', [out], [e]);
    const merged = out.view(src.map((s, i) => s * reps[i]));
    out.dispose();
    return merged;
  } finally {
    e.dispose();
    v.dispose();
  }
}

/** repeat with PyTorch's tile rule: fewer repeats than dims are padded with 1s in front. */
export function tile(t: Tensor, ...dims: (number | readonly number[])[]): Tensor {
  checkTensor('tile', 'self', t);
  const reps = dims.flat() as number[];
  return repeat(t, [...new Array(Math.max(0, t.ndim - reps.length)).fill(1), ...reps]);
}

/** Checks that index is an int64 tensor and, on cpu, that every value is in [0, size) (the size along the indexed dim). */
export function checkIndexValues(op: string, index: Tensor, size: number): void {
  checkTensor(op, 'index', index);
  if (index.dtype !== 'int64') argError(op, 'an int64 index', 'index', index.dtype);
  // On cuda the kernel skips out-of-range indices (a check would wait for the device).
  if (index.device !== 'cpu' || index.numel === 0) return;
  const values = index.toArray() as BigInt64Array;
  for (let i = 0; i < values.length; i++) {
    const v = Number(values[i]);
    if (v < 0 || v >= size) throw codedError('TSGPU_ARG', `${op}: index ${v} is out of bounds for dimension with size ${size}`);
  }
}

/** Runs fn with an int64 copy of an int32 index (the kernels read int64 indices), disposed after. */
function withInt64Index(index: Tensor, fn: (wide: Tensor) => Tensor): Tensor {
  const wide = castTo(index, 'int64');
  try {
    return fn(wide);
  } finally {
    wide.dispose();
  }
}

/** out[i][j] = t[index[i][j]][j] (dim 0), etc.; out has index's shape. */
export function gather(t: Tensor, dim: number, index: Tensor): Tensor {
  checkTensor('gather', 'self', t);
  checkTensor('gather', 'index', index);
  // PyTorch 2's gather takes int32 indices too (1.13 refused them).
  if (index.dtype === 'int32') return withInt64Index(index, (wide) => gather(t, dim, wide));
  const d = t.ndim === 0 ? 0 : t.normDim(dim, 'gather');
  checkIndexValues('gather', index, t.ndim === 0 ? 1 : t.shape[d]);
  return runInto(emptyTensor(index.shape.slice(), t.dtype, t.device), (out) => runOp('gather', [out], [t, index], { dim: d }));
}

/** Rows (or slices along dim) of t picked by a 1-D int64 index. */
export function indexSelect(t: Tensor, dim: number, index: Tensor): Tensor {
  checkTensor('indexSelect', 'self', t);
  checkTensor('indexSelect', 'index', index);
  if (index.ndim > 1) argError('indexSelect', 'a 1-D index', 'index', formatShape(index.shape));
  // PyTorch's index_select takes int32 indices too.
  if (index.dtype === 'int32') return withInt64Index(index, (wide) => indexSelect(t, dim, wide));
  const d = t.ndim === 0 ? 0 : t.normDim(dim, 'indexSelect');
  checkIndexValues('indexSelect', index, t.ndim === 0 ? 1 : t.shape[d]);
  if (t.ndim === 0) return t.clone();
  const shape = t.shape.slice();
  shape[d] = index.numel;
  // The index, viewed along dim and expanded over the other dims, gathers whole slices.
  const along = shape.map((_, k) => (k === d ? index.numel : 1));
  const iv = index.reshape(along);
  const ix = iv.expand(shape);
  try {
    return runInto(emptyTensor(shape, t.dtype, t.device), (out) => runOp('gather', [out], [t, ix], { dim: d }));
  } finally {
    ix.dispose();
    iv.dispose();
  }
}

/** t with `value` where mask (bool, broadcast) is true. */
export function maskedFill(t: Tensor, mask: Tensor, value: number | Tensor): Tensor {
  checkTensor('maskedFill', 'self', t);
  checkTensor('maskedFill', 'mask', mask);
  if (mask.dtype !== 'bool') throw codedError('TSGPU_ARG', `maskedFill: only supports boolean masks, but got mask with dtype ${mask.dtype}`);
  if (value instanceof Tensor && value.ndim !== 0) argError('maskedFill', 'a number or a 0-dim tensor', 'value', formatShape(value.shape));
  if (!(value instanceof Tensor) && typeof value !== 'number' && typeof value !== 'boolean') {
    argError('maskedFill', 'a number or a 0-dim tensor', 'value', value === null ? 'null' : typeof value);
  }
  let shape: number[] | null = null;
  try {
    shape = broadcastShapesFor('maskedFill', [t.shape, mask.shape]);
  } catch {
    // reported below, with maskedFill's words
  }
  if (shape === null || shape.length !== t.ndim || shape.some((n, i) => n !== t.shape[i])) {
    throw shapeError(`maskedFill: the mask of shape ${formatShape(mask.shape)} cannot be broadcast to self of shape ${formatShape(t.shape)}`);
  }
  const v = value instanceof Tensor ? value.item() : value;
  const r = where(mask, v, t);
  if (r.dtype === t.dtype) return r;
  const c = castTo(r, t.dtype);
  r.dispose();
  return c;
}

/** The mask of the last two dims where col - row <= k (lower) or >= k (upper). */
function triangle(op: string, t: Tensor, k: number, lower: boolean): Tensor {
  checkTensor(op, 'self', t);
  if (t.ndim < 2) argError(op, 'a tensor of at least 2 dims', 'self', formatShape(t.shape));
  if (!Number.isInteger(k)) argError(op, 'an integer', 'diagonal', k);
  const [rows, cols] = t.shape.slice(-2);
  const opts = { dtype: 'int64' as const, device: t.device };
  const r0 = arange(rows, opts);
  const r = r0.view(rows, 1);
  const c = arange(cols, opts);
  const diff = c.sub(r);
  const mask = lower ? le(diff, k) : ge(diff, k);
  const out = where(mask, t, 0);
  for (const x of [r0, r, c, diff, mask]) x.dispose();
  if (out.dtype === t.dtype) return out;
  const cast = castTo(out, t.dtype);
  out.dispose();
  return cast;
}

/** The lower triangle of the last two dims (elements with col - row <= diagonal), zeros elsewhere. */
export function tril(t: Tensor, diagonal = 0): Tensor {
  return triangle('tril', t, diagonal, true);
}

/** The upper triangle (col - row >= diagonal). */
export function triu(t: Tensor, diagonal = 0): Tensor {
  return triangle('triu', t, diagonal, false);
}

/** Options of nonzero. */
export interface NonzeroOptions {
  /** Give one 1-D index tensor per dim (as PyTorch's as_tuple=True; a 0-dim input gives one) instead of [count, ndim]. */
  asTuple?: boolean;
}

/**
 * Indices of the nonzero elements, [count, ndim] int64, or with asTuple one
 * [count] tensor per dim (reads the values to the host, as PyTorch synchronizes).
 */
export function nonzero(t: Tensor): Tensor;
export function nonzero(t: Tensor, opts: NonzeroOptions & { asTuple: true }): Tensor[];
export function nonzero(t: Tensor, opts?: NonzeroOptions): Tensor | Tensor[];
export function nonzero(t: Tensor, opts?: NonzeroOptions): Tensor | Tensor[] {
  checkTensor('nonzero', 'self', t);
  const coords = nonzeroCoords(t);
  if (!opts?.asTuple) return coords;
  // PyTorch's as_tuple: the columns of the [count, ndim] result (views); a 0-dim input gives one [count] tensor.
  if (t.ndim === 0) {
    const n = coords.shape[0];
    coords.dispose();
    return [zeros([n], { dtype: 'int64', device: t.device })];
  }
  const parts = coords.unbind(1);
  coords.dispose();
  return parts;
}

/** [count, ndim] int64: the op counts first (self != 0), then writes the coordinates; on cuda through a host copy. */
function nonzeroCoords(t: Tensor): Tensor {
  if (t.device !== 'cpu') {
    const coords = tidy(() => nonzeroCoords(t.to('cpu')).to(t.device));
    return coords;
  }
  return tidy(() => {
    const x = t.isContiguous() ? t : t.contiguous();
    const count = Number(x.ne(0).sum().item());
    const out = emptyTensor([count, t.ndim], 'int64', 'cpu');
    runOp('nonzero', [out], [x]);
    return out;
  });
}

declare module '../tensor' {
  interface Tensor {
    repeat(...repeats: (number | readonly number[])[]): Tensor;
    tile(...dims: (number | readonly number[])[]): Tensor;
    gather(dim: number, index: Tensor): Tensor;
    indexSelect(dim: number, index: Tensor): Tensor;
    maskedFill(mask: Tensor, value: number | Tensor): Tensor;
    maskedFill_(mask: Tensor, value: number | Tensor): Tensor;
    tril(diagonal?: number): Tensor;
    triu(diagonal?: number): Tensor;
    nonzero(): Tensor;
    nonzero(opts: NonzeroOptions & { asTuple: true }): Tensor[];
    nonzero(opts?: NonzeroOptions): Tensor | Tensor[];
  }
}

const P = Tensor.prototype;
P.repeat = function (this: Tensor, ...r: (number | readonly number[])[]) { return repeat(this, ...r); };
P.tile = function (this: Tensor, ...r: (number | readonly number[])[]) { return tile(this, ...r); };
P.gather = function (this: Tensor, dim: number, index: Tensor) { return gather(this, dim, index); };
P.indexSelect = function (this: Tensor, dim: number, index: Tensor) { return indexSelect(this, dim, index); };
P.maskedFill = function (this: Tensor, mask: Tensor, value: number | Tensor) { return maskedFill(this, mask, value); };
P.maskedFill_ = function (this: Tensor, mask: Tensor, value: number | Tensor) {
  if (hasInternalOverlap(this)) {
    // An expanded self is written as PyTorch writes it: only where the mask is true.
    maskedFill(this, mask, value).dispose(); // the checks
    const wide = mask.expand(this.shape);
    try {
      return this.indexPut_([wide], value);
    } finally {
      wide.dispose();
    }
  }
  const r = maskedFill(this, mask, value);
  try {
    runOp('copy', [this], [r]);
  } finally {
    r.dispose();
  }
  return this;
};
P.tril = function (this: Tensor, k?: number) { return tril(this, k); };
P.triu = function (this: Tensor, k?: number) { return triu(this, k); };
P.nonzero = function (this: Tensor, opts?: NonzeroOptions) { return nonzero(this, opts); } as Tensor['nonzero'];
