/**
 * Reordering and diagonals, as PyTorch's: flip, fliplr, flipud, roll (copies,
 * as PyTorch's), diagonal (a view) and diag (a vector's matrix, or a
 * matrix's diagonal as a copy).
 */
import { codedError } from '../errors';
import { formatShape, Tensor, viewOf } from '../tensor';
import { tidy } from '../scope';
import { arange, zeros } from './creation';
import { argError, checkTensor } from './helpers';
import { cat, indexSelect } from './indexing';

function dimList(op: string, t: Tensor, dims: number | readonly number[]): number[] {
  const list = typeof dims === 'number' ? [dims] : dims;
  if (!Array.isArray(list)) argError(op, 'an integer or a list of integers', 'dims', dims as unknown);
  const d = list.map((x) => t.normDim(x, op));
  if (new Set(d).size !== d.length) throw codedError('TSGPU_ARG', `${op}: dims has duplicates, original flip dims size=${list.length}, but unique flip dims size=${new Set(d).size}`);
  return d;
}

/** The elements in reverse order along each of dims (a copy). */
export function flip(t: Tensor, dims: number | readonly number[]): Tensor {
  checkTensor('flip', 'self', t);
  const d = dimList('flip', t, dims);
  return tidy(() => {
    let cur = t;
    for (const k of d) {
      if (t.shape[k] <= 1) continue;
      cur = indexSelect(cur, k, arange(t.shape[k] - 1, -1, -1, { device: t.device }));
    }
    return cur === t ? t.clone() : cur;
  });
}

/** flip(t, 1) of a tensor of at least 2 dims. */
export function fliplr(t: Tensor): Tensor {
  checkTensor('fliplr', 'self', t);
  if (t.ndim < 2) throw codedError('TSGPU_ARG', `fliplr: Input must be >= 2-d, got ${t.ndim}-d`);
  return flip(t, 1);
}

/** flip(t, 0) of a tensor of at least 1 dim. */
export function flipud(t: Tensor): Tensor {
  checkTensor('flipud', 'self', t);
  if (t.ndim < 1) throw codedError('TSGPU_ARG', 'flipud: Input must be >= 1-d.');
  return flip(t, 0);
}

/**
 * The elements shifted by `shifts` along dims (wrapping around); without
 * dims, of the flattened tensor, reshaped back.
 */
export function roll(t: Tensor, shifts: number | readonly number[], dims?: number | readonly number[] | null): Tensor {
  checkTensor('roll', 'self', t);
  const s = typeof shifts === 'number' ? [shifts] : shifts;
  if (!Array.isArray(s) || s.some((x) => !Number.isInteger(x))) argError('roll', 'an integer or a list of integers', 'shifts', shifts as unknown);
  return tidy(() => {
    if (dims === undefined || dims === null || (Array.isArray(dims) && dims.length === 0)) {
      if (s.length !== 1) throw codedError('TSGPU_ARG', `roll: shifts and dimensions must align. shifts: ${s.length}, dims: 0`);
      return roll(t.flatten(), s[0], 0).view(t.shape);
    }
    const d = typeof dims === 'number' ? [dims] : dims;
    if (d.length !== s.length) throw codedError('TSGPU_ARG', `roll: shifts and dimensions must align. shifts: ${s.length}, dims: ${d.length}`);
    let cur = t;
    d.forEach((dim, i) => {
      const k = cur.normDim(dim, 'roll');
      const n = cur.shape[k];
      if (n === 0) return;
      const by = ((s[i] % n) + n) % n;
      if (by === 0) return;
      cur = cat([cur.narrow(k, n - by, by), cur.narrow(k, 0, n - by)], k);
    });
    return cur === t ? t.clone() : cur;
  });
}

/** The diagonal `offset` (above the main one when positive) of dims dim1 and dim2, as a view; those dims are replaced by one last dim. */
export function diagonal(t: Tensor, offset = 0, dim1 = 0, dim2 = 1): Tensor {
  checkTensor('diagonal', 'self', t);
  if (!Number.isInteger(offset)) argError('diagonal', 'an integer', 'offset', offset);
  const a = t.normDim(dim1, 'diagonal');
  const b = t.normDim(dim2, 'diagonal');
  if (a === b) throw codedError('TSGPU_ARG', `diagonal: diagonal dimensions cannot be identical ${dim1}, ${dim2}`);
  const st = t.rawStrides;
  let start = t.storageOffset();
  let n: number;
  if (offset >= 0) {
    n = Math.max(0, Math.min(t.shape[a], t.shape[b] - offset));
    if (n > 0) start += offset * st[b];
  } else {
    n = Math.max(0, Math.min(t.shape[a] + offset, t.shape[b]));
    if (n > 0) start -= offset * st[a];
  }
  const keep = [...t.shape.keys()].filter((d) => d !== a && d !== b);
  return viewOf(t, [...keep.map((d) => t.shape[d]), n], [...keep.map((d) => st[d]), st[a] + st[b]], start);
}

/** A 1-D tensor's square matrix with it on diagonal `offset`; a 2-D tensor's diagonal `offset` (a copy). */
export function diag(t: Tensor, offset = 0): Tensor {
  checkTensor('diag', 'self', t);
  if (!Number.isInteger(offset)) argError('diag', 'an integer', 'diagonal', offset);
  if (t.ndim === 2) return tidy(() => diagonal(t, offset).clone());
  if (t.ndim !== 1) throw codedError('TSGPU_ARG', `diag: matrix or a vector expected, got a tensor of shape ${formatShape(t.shape)}`);
  const n = t.shape[0] + Math.abs(offset);
  const out = zeros([n, n], { dtype: t.dtype, device: t.device });
  const d = diagonal(out, offset);
  try {
    d.copy_(t);
  } finally {
    d.dispose();
  }
  return out;
}

declare module '../tensor' {
  interface Tensor {
    flip(dims: number | readonly number[]): Tensor;
    fliplr(): Tensor;
    flipud(): Tensor;
    roll(shifts: number | readonly number[], dims?: number | readonly number[] | null): Tensor;
    diagonal(offset?: number, dim1?: number, dim2?: number): Tensor;
    diag(offset?: number): Tensor;
  }
}

const P = Tensor.prototype;
P.flip = function (this: Tensor, dims: number | readonly number[]) { return flip(this, dims); };
P.fliplr = function (this: Tensor) { return fliplr(this); };
P.flipud = function (this: Tensor) { return flipud(this); };
P.roll = function (this: Tensor, s: number | readonly number[], d?: number | readonly number[] | null) { return roll(this, s, d); };
P.diagonal = function (this: Tensor, o?: number, a?: number, b?: number) { return diagonal(this, o, a, b); };
P.diag = function (this: Tensor, o?: number) { return diag(this, o); };
