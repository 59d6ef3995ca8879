/**
 * Order statistics, as PyTorch's, composed over the stable sort (NaN sorts
 * last) and gather: median, nanmedian, kthvalue, mode, quantile and
 * nanquantile. Each works on CPU and CUDA alike and is differentiable through
 * the ops it is made of (the gradient goes to the element a value came from).
 * On CPU, kthvalue and the medians along a dim are one op each (one
 * nth_element a row: the element and index the stable sort would give).
 */
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { isFloatingPoint } from '../dtype';
import { arange, full, tensor, zeros } from './creation';
import { argError, checkTensor, emptyTensor, runOp } from './helpers';
import { cat } from './indexing';
import { where } from './math';
import { ValuesIndices } from './reduce';
import './scans';

/** The dim a statistic runs along (0 for a 0-dim tensor, which is one element). */
function alongDim(op: string, t: Tensor, dim: unknown): number {
  if (typeof dim !== 'number' || !Number.isInteger(dim)) argError(op, 'an integer', 'dim', dim);
  if (t.ndim === 0) {
    if (dim !== 0 && dim !== -1) t.normDim(dim, op);
    return 0;
  }
  return t.normDim(dim, op);
}

/** t seen with at least one dim. */
const atLeast1d = (t: Tensor): Tensor => (t.ndim === 0 ? t.reshape([1]) : t);

/**
 * The values and indices at sorted position `pos` (int64, keepdim shape: 1 along d) of each row
 * of t along d; the result has keepdim's shape or, without it, d removed (0-dim inputs stay 0-dim).
 */
function pick(t: Tensor, d: number, pos: Tensor, keepdim: boolean, ndim0: boolean): ValuesIndices {
  const { values, indices } = atLeast1d(t).sort(d);
  const v = values.gather(d, pos);
  const i = indices.gather(d, pos);
  if (ndim0) return { values: v.reshape([]), indices: i.reshape([]) };
  return keepdim ? { values: v, indices: i } : { values: v.squeeze(d), indices: i.squeeze(d) };
}

/** pick's result from the selection op of a CPU tensor (not bool, which no sort takes); null elsewhere. */
function selectOnCpu(op: 'kthvalue' | 'medianDim' | 'nanmedianDim', x: Tensor, d: number, keepdim: boolean, ndim0: boolean,
  k = 1): ValuesIndices | null {
  if (x.device !== 'cpu' || x.dtype === 'bool') return null;
  const shape = x.shape.slice();
  shape[d] = 1;
  const v = emptyTensor(shape, x.dtype, 'cpu');
  const i = emptyTensor(shape, 'int64', 'cpu');
  runOp(op, [v, i], [x], op === 'kthvalue' ? { dim: d, k } : { dim: d });
  if (ndim0) return { values: v.reshape([]), indices: i.reshape([]) };
  return keepdim ? { values: v, indices: i } : { values: v.squeeze(d), indices: i.squeeze(d) };
}

/** How many elements of each row along d are not NaN (keepdim shape, int64). */
const presentCount = (t: Tensor, d: number): Tensor => t.eq(t).sum(d, true);

function checkNonEmpty(op: string, t: Tensor, d: number | null): void {
  if (t.numel === 0 && (d === null || t.ndim === 0 || t.shape[d] === 0)) {
    throw codedError('TSGPU_ARG', d === null ? `${op}(): Expected reduction dim to be specified for input.numel() == 0 (input of shape ${formatShape(t.shape)})`
      : `${op}(): Expected reduction dim ${d} to have non-zero size.`);
  }
}

function medianOf(op: 'median' | 'nanmedian', t: Tensor, dim: number | undefined, keepdim: boolean): Tensor | ValuesIndices {
  checkTensor(op, 'self', t);
  if (typeof keepdim !== 'boolean') argError(op, 'a boolean', 'keepdim', keepdim);
  if (dim === undefined || dim === null) {
    // PyTorch's median of no elements is NaN (floating tensors).
    if (t.numel === 0 && isFloatingPoint(t.dtype)) return full([], NaN, { dtype: t.dtype, device: t.device });
    checkNonEmpty(op, t, null);
    return tidy(() => (medianOf(op, t.reshape([-1]), 0, false) as ValuesIndices).values);
  }
  const d = alongDim(op, t, dim);
  checkNonEmpty(op, t, d);
  return tidy(() => {
    const x = atLeast1d(t);
    const selected = selectOnCpu(op === 'median' ? 'medianDim' : 'nanmedianDim', x, d, keepdim, t.ndim === 0);
    if (selected) return selected;
    const n = x.shape[d];
    const count = presentCount(x, d);
    // median: the lower middle, or the first NaN of a row that has one; nanmedian: the lower middle of the
    // elements that are not NaN (the middle one when all are, as PyTorch's).
    const pos = op === 'median'
      ? where(count.lt(n), count, (n - 1) >> 1)
      : where(count.gt(0), count.sub(1).div(2, { roundingMode: 'floor' }), (n - 1) >> 1);
    return pick(x, d, pos, keepdim, t.ndim === 0);
  });
}

/**
 * median(t): the lower of the two middle values of all elements (NaN if any is NaN), 0-dim;
 * median(t, dim, keepdim = false): { values, indices } of each row along dim, as PyTorch's.
 */
export function median(t: Tensor): Tensor;
export function median(t: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
export function median(t: Tensor, dim?: number, keepdim = false): Tensor | ValuesIndices {
  return medianOf('median', t, dim, keepdim);
}

/** median that ignores NaN (NaN only where every element is NaN); nanmedian(t) or nanmedian(t, dim, keepdim). */
export function nanmedian(t: Tensor): Tensor;
export function nanmedian(t: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
export function nanmedian(t: Tensor, dim?: number, keepdim = false): Tensor | ValuesIndices {
  return medianOf('nanmedian', t, dim, keepdim);
}

/** { values, indices } of the k-th smallest element (k from 1) of each row along dim (default -1). */
export function kthvalue(t: Tensor, k: number, dim = -1, keepdim = false): ValuesIndices {
  checkTensor('kthvalue', 'self', t);
  if (typeof keepdim !== 'boolean') argError('kthvalue', 'a boolean', 'keepdim', keepdim);
  const d = alongDim('kthvalue', t, dim);
  const n = t.ndim === 0 ? 1 : t.shape[d];
  if (!Number.isInteger(k)) argError('kthvalue', 'an integer', 'k', k);
  if (k < 1 || k > n) throw codedError('TSGPU_ARG', `kthvalue(): selected number k out of range for dimension ${d}`);
  return tidy(() => {
    const x = atLeast1d(t);
    const selected = selectOnCpu('kthvalue', x, d, keepdim, t.ndim === 0, k);
    if (selected) return selected;
    const shape = x.shape.slice();
    shape[d] = 1;
    const pos = tensor([k - 1], { dtype: 'int64', device: t.device }).reshape(shape.map(() => 1)).expand(shape).contiguous();
    return pick(x, d, pos, keepdim, t.ndim === 0);
  });
}

/**
 * { values, indices }: the most frequent value of each row along dim (default -1), the smallest
 * of equally frequent ones, and the index of its last occurrence.
 */
export function mode(t: Tensor, dim = -1, keepdim = false): ValuesIndices {
  checkTensor('mode', 'self', t);
  if (typeof keepdim !== 'boolean') argError('mode', 'a boolean', 'keepdim', keepdim);
  const d = alongDim('mode', t, dim);
  checkNonEmpty('mode', t, d);
  return tidy(() => {
    const x = atLeast1d(t);
    const n = x.shape[d];
    const { values } = x.sort(d);
    // A run of equal sorted values starts where a value differs from the one before; the length of the
    // run so far is the distance from that start. The first position of the longest run length is the
    // last element of the first (smallest) most frequent value.
    const shape = x.shape.map((s, k) => (k === d ? s : 1));
    const j = arange(n, { device: t.device }).reshape(shape);
    const differs = n > 1 ? values.narrow(d, 1, n - 1).ne(values.narrow(d, 0, n - 1)) : null;
    const starts = differs ? where(differs, j.narrow(d, 1, n - 1), 0) : null;
    const first = zeros(x.shape.map((s, k) => (k === d ? 1 : s)), { dtype: 'int64', device: t.device });
    const runStart = starts ? cat([first, starts], d).cummax(d).values : first;
    const length = j.sub(runStart);
    const pos = length.max(d, true).indices;
    return pick(x, d, pos, keepdim, t.ndim === 0);
  });
}

// ---------------------------------------------------------------- quantiles

/** How quantile picks between the two sorted values around a rank (PyTorch's `interpolation`). */
export type QuantileInterpolation = 'linear' | 'lower' | 'higher' | 'midpoint' | 'nearest';

/** Options of quantile and nanquantile. */
export interface QuantileOptions {
  /** Along this dim (default: over all elements, flattened). */
  dim?: number | null;
  /** Keep the reduced dim as size 1 (default false). */
  keepdim?: boolean;
  /** Default 'linear'. */
  interpolation?: QuantileInterpolation;
}

const INTERPOLATIONS: readonly string[] = ['linear', 'lower', 'higher', 'midpoint', 'nearest'];

function quantileOf(op: 'quantile' | 'nanquantile', t: Tensor, q: number | Tensor, dimArg: number | null | undefined | QuantileOptions,
                    keepdimArg: boolean | undefined, opts: QuantileOptions | undefined): Tensor {
  checkTensor(op, 'self', t);
  if (typeof dimArg === 'object' && dimArg !== null) {
    if (keepdimArg !== undefined || opts !== undefined) argError(op, 'nothing after the options object', 'keepdim', keepdimArg);
    opts = dimArg;
    dimArg = dimArg.dim;
    keepdimArg = opts.keepdim;
  }
  const keepdim = keepdimArg ?? opts?.keepdim ?? false;
  const interpolation = opts?.interpolation ?? 'linear';
  if (typeof keepdim !== 'boolean') argError(op, 'a boolean', 'keepdim', keepdim);
  if (!INTERPOLATIONS.includes(interpolation)) {
    throw codedError('TSGPU_ARG', `${op}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ${String(interpolation)}`);
  }
  if (t.dtype !== 'float32' && t.dtype !== 'float64') {
    throw codedError('TSGPU_ARG', `${op}() input tensor must be either float or double dtype, got ${t.dtype}`);
  }
  if (t.numel === 0) throw codedError('TSGPU_ARG', `${op}() input tensor must be non-empty`);
  const scalarQ = !(q instanceof Tensor);
  if (scalarQ) {
    if (typeof q !== 'number') argError(op, 'a number or a Tensor', 'q', q);
    if (!(q >= 0 && q <= 1)) throw codedError('TSGPU_ARG', `${op}() q must be in the range [0, 1] but got ${q}`);
  } else {
    if (q.ndim > 1) throw codedError('TSGPU_ARG', `${op}() q must be a scalar or 1D tensor`);
    if (q.dtype !== t.dtype) throw codedError('TSGPU_ARG', `${op}() q tensor must be same dtype as the input tensor`);
    if (q.device !== t.device) throw codedError('TSGPU_ARG', `${op}() q tensor must be on the same device as the input tensor`);
    const bad = tidy(() => Boolean(q.lt(0).logicalOr(q.gt(1)).logicalOr(q.ne(q)).any().item()));
    if (bad) throw codedError('TSGPU_ARG', `${op}() q values must be in the range [0, 1]`);
  }
  const all = dimArg === undefined || dimArg === null;
  const d = all ? 0 : alongDim(op, t, dimArg);
  return tidy(() => {
    // Rows along the last dim: [..., n] sorted (NaN last).
    const x = all ? t.reshape([-1]) : atLeast1d(t).movedim(d, -1);
    const n = x.shape[x.ndim - 1];
    const sorted = x.sort(-1).values;
    const qs = (scalarQ ? tensor([q as number], { dtype: t.dtype, device: t.device }) : (q as Tensor).reshape([-1]));
    let ranks: Tensor;
    if (op === 'nanquantile') {
      const last = presentCount(sorted, -1).sub(1).to(t.dtype);
      // A row of NaN only reads its last (NaN) element.
      ranks = where(last.lt(0), n - 1, qs.mul(last));
    } else {
      const hasNan = sorted.narrow(-1, n - 1, 1).ne(sorted.narrow(-1, n - 1, 1));
      ranks = where(hasNan, n - 1, qs.mul(n - 1).expand([...sorted.shape.slice(0, -1), qs.numel]));
    }
    if (interpolation === 'lower') ranks = ranks.floor();
    else if (interpolation === 'higher') ranks = ranks.ceil();
    else if (interpolation === 'nearest') ranks = ranks.round();
    const below = ranks.floor().long();
    let result = sorted.gather(-1, below);
    if (interpolation === 'linear' || interpolation === 'midpoint') {
      const above = sorted.gather(-1, ranks.ceil().long());
      const weights = interpolation === 'midpoint' ? 0.5 : ranks.sub(below.to(t.dtype));
      result = result.lerp(above, weights instanceof Tensor ? weights : result.mul(0).add(weights));
    }
    // [..., Q] → [Q, ...], the reduced dim back as 1 with keepdim.
    result = result.movedim(-1, 0);
    if (keepdim) {
      result = all ? result.reshape([qs.numel, ...t.shape.map(() => 1)]) : result.unsqueeze(t.ndim === 0 ? 1 : d + 1);
      if (t.ndim === 0 && !all) result = result.reshape([qs.numel]);
    }
    return scalarQ ? result.squeeze(0) : result;
  });
}

/**
 * The q-th quantiles (q a number or a 1-D tensor in [0, 1]) over all elements or along dim:
 * `quantile(t, q, dim?, keepdim?, { interpolation })` or `quantile(t, q, { dim, keepdim,
 * interpolation })`. A 1-D q puts its dim first in the result. NaN where a row holds NaN.
 */
export function quantile(t: Tensor, q: number | Tensor, dim?: number | null | QuantileOptions, keepdim?: boolean,
                         opts?: QuantileOptions): Tensor {
  return quantileOf('quantile', t, q, dim, keepdim, opts);
}

/** quantile that ignores NaN (NaN only for a row of NaN only). */
export function nanquantile(t: Tensor, q: number | Tensor, dim?: number | null | QuantileOptions, keepdim?: boolean,
                            opts?: QuantileOptions): Tensor {
  return quantileOf('nanquantile', t, q, dim, keepdim, opts);
}

declare module '../tensor' {
  interface Tensor {
    median(): Tensor;
    median(dim: number, keepdim?: boolean): ValuesIndices;
    nanmedian(): Tensor;
    nanmedian(dim: number, keepdim?: boolean): ValuesIndices;
    kthvalue(k: number, dim?: number, keepdim?: boolean): ValuesIndices;
    mode(dim?: number, keepdim?: boolean): ValuesIndices;
    quantile(q: number | Tensor, dim?: number | null | QuantileOptions, keepdim?: boolean, opts?: QuantileOptions): Tensor;
    nanquantile(q: number | Tensor, dim?: number | null | QuantileOptions, keepdim?: boolean, opts?: QuantileOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.median = function (this: Tensor, dim?: number, keepdim?: boolean) {
  return dim === undefined ? median(this) : median(this, dim, keepdim);
} as Tensor['median'];
P.nanmedian = function (this: Tensor, dim?: number, keepdim?: boolean) {
  return dim === undefined ? nanmedian(this) : nanmedian(this, dim, keepdim);
} as Tensor['nanmedian'];
P.kthvalue = function (this: Tensor, k: number, dim?: number, keepdim?: boolean) { return kthvalue(this, k, dim, keepdim); };
P.mode = function (this: Tensor, dim?: number, keepdim?: boolean) { return mode(this, dim, keepdim); };
P.quantile = function (this: Tensor, q: number | Tensor, dim?: number | null | QuantileOptions, keepdim?: boolean, opts?: QuantileOptions) {
  return quantile(this, q, dim, keepdim, opts);
};
P.nanquantile = function (this: Tensor, q: number | Tensor, dim?: number | null | QuantileOptions, keepdim?: boolean, opts?: QuantileOptions) {
  return nanquantile(this, q, dim, keepdim, opts);
};
