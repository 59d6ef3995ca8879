/**
 * Reductions (sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std,
 * norm, logsumexp, all/any) over all or given dims with keepdim, and the ops
 * along one dim (softmax, logSoftmax, cumsum, sort, argsort, topk), as PyTorch defines them:
 * sums of integers or bool are int64, all/any are bool, floating-only ops
 * refuse integer inputs unless a `dtype` option casts them first.
 */
import { DType, getDefaultDtype, isFloatingPoint, normalizeDtype } from '../dtype';
import { codedError } from '../errors';
import { OpAttrs, OpName } from '../generated/op_list';
import { formatShape, Tensor } from '../tensor';
import { argError, castTo, checkTensor, emptyTensor, runInto, runOp } from './helpers';
import { maximum, minimum } from '../generated/binary_ops';

/** A dim or a list of dims; undefined (or []) means every dim. */
export type Dims = number | readonly number[] | undefined | null;

/** Options shared by reductions. */
export interface ReduceOptions {
  /** Keep reduced dims as size 1 (default false). */
  keepdim?: boolean;
  /** Cast the input to this dtype first (sum, prod, mean, cumsum, softmax, logSoftmax). */
  dtype?: DType;
}

/** Normalized dims (sorted, in range, no repeats) and the output shape. */
function reduceShape(op: string, t: Tensor, dims: Dims, keepdim: boolean): { dims: number[]; shape: number[] } {
  if (dims !== undefined && dims !== null && typeof dims !== 'number' && !Array.isArray(dims)) {
    argError(op, 'an integer or a list of integers', 'dim', dims);
  }
  const list = dims === undefined || dims === null ? [] : typeof dims === 'number' ? [dims] : [...dims];
  for (const d of list) if (typeof d !== 'number' || !Number.isInteger(d)) argError(op, 'an integer or a list of integers', 'dim', dims);
  const norm = list.map((d) => (t.ndim === 0 && (d === 0 || d === -1) ? 0 : t.normDim(d, op)));
  if (new Set(norm).size !== norm.length) argError(op, 'distinct dims', 'dim', list);
  const all = norm.length === 0;
  const reduced = (d: number): boolean => all || norm.includes(d);
  const shape: number[] = [];
  for (let d = 0; d < t.ndim; d++) {
    if (!reduced(d)) shape.push(t.shape[d]);
    else if (keepdim) shape.push(1);
  }
  return { dims: t.ndim === 0 ? [] : norm, shape };
}

function inputOf(op: string, t: Tensor, dtype: DType | undefined): Tensor {
  checkTensor(op, 'self', t);
  return dtype === undefined ? t : castTo(t, normalizeDtype(dtype));
}

/** Runs reduction `op` of `t` over `dims` into a new tensor of `outDtype` (default: t's dtype). */
function reduce(op: OpName, t: Tensor, dims: Dims, opts: ReduceOptions | undefined, outDtype?: (d: DType) => DType,
                attrs?: Record<string, unknown>): Tensor {
  const x = inputOf(op, t, opts?.dtype);
  try {
    const { dims: d, shape } = reduceShape(op, x, dims, opts?.keepdim ?? false);
    if (op === 'amax' || op === 'amin' || op === 'argmax' || op === 'argmin') checkReducedSizes(op, x, d, dims);
    const result = runInto(emptyTensor(shape, outDtype ? outDtype(x.dtype) : x.dtype, x.device), (out) =>
      runOp(op, [out], [x], { dims: d, ...attrs } as OpAttrs[typeof op]));
    return asRequested(result, opts?.dtype);
  } finally {
    if (x !== t) x.dispose();
  }
}

/**
 * The result in the dtype a `dtype` option asked for: integer sums are
 * accumulated in int64 and then cast (sum(bool, { dtype: 'int32' }) is int32, as PyTorch's).
 */
function asRequested(result: Tensor, dtype: DType | undefined): Tensor {
  if (dtype === undefined) return result;
  const want = normalizeDtype(dtype);
  if (result.dtype === want) return result;
  const cast = castTo(result, want);
  result.dispose();
  return cast;
}

/** int64 for integers and bool, the dtype itself for floating types. */
const accumulated = (d: DType): DType => (isFloatingPoint(d) ? d : 'int64');

/** Sum over dims (all by default). */
export function sum(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('sum', t, dim, keepdimArgs('sum', keepdim, opts), accumulated);
}

/** Product over dims. */
export function prod(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('prod', t, dim, keepdimArgs('prod', keepdim, opts), accumulated);
}

/** Mean over dims (floating dtypes; pass { dtype } to cast integers). */
export function mean(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('mean', t, dim, keepdimArgs('mean', keepdim, opts));
}

/** Largest value over dims (NaN propagates). */
export function amax(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('amax', t, dim, keepdimArgs('amax', keepdim, opts));
}

/** Smallest value over dims. */
export function amin(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('amin', t, dim, keepdimArgs('amin', keepdim, opts));
}

/** all/any give bool, except uint8 in, uint8 out (PyTorch keeps that old rule). */
const logicalDtype = (d: DType): DType => (d === 'uint8' ? 'uint8' : 'bool');

/** Whether every element over dims is nonzero (bool; uint8 for uint8 input). */
export function all(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('all', t, dim, keepdimArgs('all', keepdim, opts), logicalDtype);
}

/** Whether any element over dims is nonzero (bool). */
export function any(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  return reduce('any', t, dim, keepdimArgs('any', keepdim, opts), logicalDtype);
}

/** Index of the largest value (over the flattened tensor when dim is omitted), int64. */
export function argmax(t: Tensor, dim?: number | null, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  checkTensor('argmax', 'self', t);
  if (dim !== undefined && dim !== null && typeof dim !== 'number') argError('argmax', 'an integer or null', 'dim', dim);
  return reduce('argmax', t, dim, keepdimArgs('argmax', keepdim, opts), () => 'int64');
}

/** Index of the smallest value, int64. */
export function argmin(t: Tensor, dim?: number | null, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  checkTensor('argmin', 'self', t);
  if (dim !== undefined && dim !== null && typeof dim !== 'number') argError('argmin', 'an integer or null', 'dim', dim);
  return reduce('argmin', t, dim, keepdimArgs('argmin', keepdim, opts), () => 'int64');
}

/**
 * Reductions without an identity (amax, argmax, max along a dim, ...) of an
 * empty tensor, as PyTorch: fine when every reduced dim has elements (the
 * result is empty too), refused when one has none or when no dim is given.
 */
function checkReducedSizes(op: string, t: Tensor, dims: readonly number[], asked: Dims): void {
  if (t.numel !== 0) return;
  const none = asked === undefined || asked === null || (Array.isArray(asked) && asked.length === 0);
  if (none || t.ndim === 0) {
    throw codedError('TSGPU_ARG', `${op}(): Expected reduction dim to be specified for input.numel() == 0 (input of shape ${formatShape(t.shape)})`);
  }
  for (const d of dims) {
    if (t.shape[d] === 0) throw codedError('TSGPU_ARG', `${op}(): Expected reduction dim ${d} to have non-zero size (input of shape ${formatShape(t.shape)})`);
  }
}

/**
 * PyTorch's positional parameters after dim: `sum(1, true)` is keepdim, and
 * an options object may follow (or stand in its place); anything else is refused.
 */
function keepdimArgs<O extends ReduceOptions>(op: string, keepdim: boolean | O | undefined | null, opts?: O): O | undefined {
  if (keepdim === undefined || keepdim === null) return opts;
  if (typeof keepdim === 'boolean') {
    if (opts !== undefined && (typeof opts !== 'object' || opts === null)) argError(op, 'an options object', 'options', opts);
    return { ...opts, keepdim } as O;
  }
  if (typeof keepdim === 'object' && !Array.isArray(keepdim)) {
    if (opts !== undefined) argError(op, 'a boolean keepdim before an options object', 'keepdim', 'an options object');
    return keepdim;
  }
  return argError(op, 'a boolean (keepdim) or an options object', 'keepdim', keepdim as unknown);
}

/** Options of var and std. */
export interface VarOptions extends ReduceOptions {
  /** Difference between the count and the divisor (default 1: Bessel's correction). */
  correction?: number;
  /** Older spelling: true is correction 1, false correction 0. */
  unbiased?: boolean;
}

/**
 * PyTorch's positional parameters of var and std: `var(dim, unbiased,
 * keepdim)`; an options object may follow the booleans or stand in their place.
 */
function varArgs(op: string, unbiased: boolean | VarOptions | undefined | null, keepdim?: boolean | VarOptions,
                 opts?: VarOptions): VarOptions | undefined {
  if (unbiased === undefined || unbiased === null || typeof unbiased === 'object') {
    if (keepdim !== undefined || opts !== undefined) {
      if (unbiased !== undefined && unbiased !== null) argError(op, 'nothing after the options object', 'keepdim', keepdim as unknown);
      return keepdimArgs(op, keepdim, opts);
    }
    return (unbiased ?? undefined) as VarOptions | undefined;
  }
  if (typeof unbiased !== 'boolean') return argError(op, 'a boolean (unbiased) or an options object', 'unbiased', unbiased as unknown);
  return { ...keepdimArgs(op, keepdim, opts), unbiased };
}

function variance(op: 'var' | 'std', t: Tensor, dim: Dims, opts?: VarOptions): Tensor {
  if (opts?.correction !== undefined && opts?.unbiased !== undefined) {
    throw codedError('TSGPU_ARG', `${op}: cannot specify both correction and unbiased`);
  }
  const correction = opts?.correction ?? (opts?.unbiased === false ? 0 : 1);
  return reduce(op, t, dim, opts, undefined, { correction });
}

/** Variance over dims with `correction` (default 1); `var(dim, unbiased, keepdim)` as PyTorch's positional form. */
export function varOf(t: Tensor, dim?: Dims, unbiased?: boolean | VarOptions, keepdim?: boolean | VarOptions, opts?: VarOptions): Tensor {
  return variance('var', t, dim, varArgs('var', unbiased, keepdim, opts));
}
export { varOf as var };

/** Standard deviation over dims with `correction` (default 1); `std(dim, unbiased, keepdim)` too. */
export function std(t: Tensor, dim?: Dims, unbiased?: boolean | VarOptions, keepdim?: boolean | VarOptions, opts?: VarOptions): Tensor {
  return variance('std', t, dim, varArgs('std', unbiased, keepdim, opts));
}

/** p-norm over dims (p = 2 or 'fro' by default; Infinity, -Infinity, 0, 1 or any number). */
export function norm(t: Tensor, p: number | 'fro' | null = 'fro', dim?: Dims, keepdim?: boolean | ReduceOptions,
                     opts?: ReduceOptions): Tensor {
  if (p !== 'fro' && p !== null && typeof p !== 'number') argError('norm', "a number or 'fro'", 'p', p);
  return reduce('norm', t, dim, keepdimArgs('norm', keepdim, opts), undefined, { p: p === 'fro' || p === null ? 2 : p });
}

/** log(sum(exp(t))) over dims, computed stably. */
export function logsumexp(t: Tensor, dim: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  checkTensor('logsumexp', 'self', t);
  opts = keepdimArgs('logsumexp', keepdim, opts);
  // Integers and bool are computed in the default dtype, as PyTorch's.
  if (!isFloatingPoint(t.dtype) && opts?.dtype === undefined) return reduce('logsumexp', t, dim, { ...opts, dtype: getDefaultDtype() });
  return reduce('logsumexp', t, dim, opts);
}

/** Values and indices of max/min along a dim. */
export interface ValuesIndices {
  values: Tensor;
  indices: Tensor;
}

function valuesIndices(op: 'maxDim' | 'minDim', name: string, t: Tensor, dim: number, keepdim: boolean): ValuesIndices {
  checkTensor(name, 'self', t);
  if (typeof keepdim !== 'boolean') argError(name, 'a boolean', 'keepdim', keepdim);
  const { dims, shape } = reduceShape(name, t, dim, keepdim);
  checkReducedSizes(name, t, dims, dim);
  const values = emptyTensor(shape, t.dtype, t.device);
  const indices = emptyTensor(shape.slice(), 'int64', t.device);
  try {
    runOp(op, [values, indices], [t], { dim: dims.length ? dims[0] : 0 });
  } catch (e) {
    values.dispose();
    indices.dispose();
    throw e;
  }
  return { values, indices };
}

/**
 * max(t): the largest value (0-dim); max(t, dim, keepdim?): { values, indices }
 * along dim; max(t, other): the elementwise maximum (torch.maximum), as PyTorch's overloads.
 */
export function max(t: Tensor): Tensor;
export function max(t: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
export function max(t: Tensor, other: Tensor): Tensor;
export function max(t: Tensor, dim?: number | Tensor, keepdim = false): Tensor | ValuesIndices {
  if (dim === undefined) {
    checkTensor('max', 'self', t);
    checkReducedSizes('max', t, [], undefined);
    return reduce('amax', t, undefined, undefined);
  }
  if (dim instanceof Tensor) return maximum(t, dim);
  return valuesIndices('maxDim', 'max', t, dim, keepdim);
}

/** min(t), min(t, dim, keepdim?) or min(t, other) (torch.minimum), as max. */
export function min(t: Tensor): Tensor;
export function min(t: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
export function min(t: Tensor, other: Tensor): Tensor;
export function min(t: Tensor, dim?: number | Tensor, keepdim = false): Tensor | ValuesIndices {
  if (dim === undefined) {
    checkTensor('min', 'self', t);
    checkReducedSizes('min', t, [], undefined);
    return reduce('amin', t, undefined, undefined);
  }
  if (dim instanceof Tensor) return minimum(t, dim);
  return valuesIndices('minDim', 'min', t, dim, keepdim);
}

// ---------------------------------------------------------------- along one dim

function alongDim(op: 'softmax' | 'logSoftmax' | 'cumsum', t: Tensor, dim: number, dtype: DType | undefined,
                  outDtype: (d: DType) => DType): Tensor {
  if (typeof dim !== 'number' || !Number.isInteger(dim)) argError(op, 'an integer', 'dim', dim);
  const x = inputOf(op, t, dtype);
  try {
    if (x.ndim > 0) x.normDim(dim, op);
    return asRequested(runInto(emptyTensor(x.shape.slice(), outDtype(x.dtype), x.device), (out) => runOp(op, [out], [x], { dim })), dtype);
  } finally {
    if (x !== t) x.dispose();
  }
}

/** exp(t) / sum(exp(t)) along dim (floating dtypes; { dtype } casts first). */
export function softmax(t: Tensor, dim: number, opts?: { dtype?: DType }): Tensor {
  return alongDim('softmax', t, dim, opts?.dtype, (d) => d);
}

/** t - logsumexp(t) along dim. */
export function logSoftmax(t: Tensor, dim: number, opts?: { dtype?: DType }): Tensor {
  return alongDim('logSoftmax', t, dim, opts?.dtype, (d) => d);
}

/** Running sum along dim (integers and bool give int64). */
export function cumsum(t: Tensor, dim: number, opts?: { dtype?: DType }): Tensor {
  return alongDim('cumsum', t, dim, opts?.dtype, accumulated);
}

// ---------------------------------------------------------------- sorting

/** Longest row of which cuda's sort kernel keeps only the first k; longer rows are sorted whole. */
const CUDA_PARTIAL_SORT_MAX = 2048;

function sorted(op: string, t: Tensor, k: number, dim: number, descending: boolean): ValuesIndices {
  checkTensor(op, 'self', t);
  if (t.dtype === 'bool') {
    // Bools sort as the bytes 0 and 1.
    const bytes = castTo(t, 'uint8');
    try {
      const r = sorted(op, bytes, k, dim, descending);
      const values = castTo(r.values, 'bool');
      r.values.dispose();
      return { values, indices: r.indices };
    } finally {
      bytes.dispose();
    }
  }
  if (typeof dim !== 'number' || !Number.isInteger(dim)) argError(op, 'an integer', 'dim', dim);
  const d = t.ndim === 0 ? 0 : t.normDim(dim, op);
  const len = t.ndim === 0 ? 1 : t.shape[d];
  if (!Number.isInteger(k) || k < 0 || k > len) argError(op, `an integer k in [0, ${len}]`, 'k', k);
  if (t.device !== 'cpu' && len > CUDA_PARTIAL_SORT_MAX && k < len) {
    // topk of long rows on cuda: the first k of the whole sorted row, copied out.
    const whole = sorted(op, t, len, d, descending);
    const parts = [whole.values.narrow(d, 0, k), whole.indices.narrow(d, 0, k)];
    try {
      return { values: parts[0].clone(), indices: parts[1].clone() };
    } finally {
      [...parts, whole.values, whole.indices].forEach((x) => x.dispose());
    }
  }
  const shape = t.shape.slice();
  if (t.ndim > 0) shape[d] = k;
  const values = emptyTensor(shape, t.dtype, t.device);
  const indices = emptyTensor(shape.slice(), 'int64', t.device);
  try {
    runOp('sort', [values, indices], [t], { dim: d, descending, k });
  } catch (e) {
    values.dispose();
    indices.dispose();
    throw e;
  }
  return { values, indices };
}

/**
 * Values along dim in ascending (or descending) order, and where each came
 * from; NaN sorts as the largest. The sort is always stable (equal values keep
 * their order), so `stable` (PyTorch's keyword; default false there) changes nothing.
 */
export function sort(t: Tensor, dim = -1, descending = false, stable = false): ValuesIndices {
  if (typeof stable !== 'boolean') argError('sort', 'a boolean', 'stable', stable);
  return sorted('sort', t, t.ndim === 0 ? 1 : t.shape[t.normDim(dim, 'sort')], dim, descending);
}

/** The indices that sort t along dim (always stable; `stable` is PyTorch's keyword). */
export function argsort(t: Tensor, dim = -1, descending = false, stable = false): Tensor {
  const { values, indices } = sort(t, dim, descending, stable);
  values.dispose();
  return indices;
}

/**
 * The k largest (or smallest) values along dim with their indices. They come
 * sorted whether `sorted` is true or false (false lets PyTorch return any order).
 */
export function topk(t: Tensor, k: number, dim = -1, largest = true, sorted_ = true): ValuesIndices {
  if (typeof sorted_ !== 'boolean') argError('topk', 'a boolean', 'sorted', sorted_);
  return sorted('topk', t, k, dim, largest);
}

// ---------------------------------------------------------------- methods

declare module '../tensor' {
  interface Tensor {
    /** Sum over dims; `sum(dim, keepdim)` or `sum(dim, { keepdim, dtype })`. */
    sum(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    prod(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    mean(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    amax(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    amin(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    all(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    any(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    argmax(dim?: number | null, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    argmin(dim?: number | null, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    /** Variance; `var(dim, unbiased, keepdim)` or `var(dim, { correction, keepdim })`. */
    var(dim?: Dims, unbiased?: boolean | VarOptions, keepdim?: boolean | VarOptions, opts?: VarOptions): Tensor;
    std(dim?: Dims, unbiased?: boolean | VarOptions, keepdim?: boolean | VarOptions, opts?: VarOptions): Tensor;
    norm(p?: number | 'fro' | null, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    logsumexp(dim: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    max(): Tensor;
    max(dim: number, keepdim?: boolean): ValuesIndices;
    max(other: Tensor): Tensor;
    min(): Tensor;
    min(dim: number, keepdim?: boolean): ValuesIndices;
    min(other: Tensor): Tensor;
    softmax(dim: number, opts?: { dtype?: DType }): Tensor;
    logSoftmax(dim: number, opts?: { dtype?: DType }): Tensor;
    cumsum(dim: number, opts?: { dtype?: DType }): Tensor;
    sort(dim?: number, descending?: boolean, stable?: boolean): ValuesIndices;
    argsort(dim?: number, descending?: boolean, stable?: boolean): Tensor;
    topk(k: number, dim?: number, largest?: boolean, sorted?: boolean): ValuesIndices;
  }
}

const P = Tensor.prototype;
type KeepdimArg = boolean | ReduceOptions | undefined;
type VarArg = boolean | VarOptions | undefined;
P.sum = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return sum(this, dim, k, o); };
P.prod = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return prod(this, dim, k, o); };
P.mean = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return mean(this, dim, k, o); };
P.amax = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return amax(this, dim, k, o); };
P.amin = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return amin(this, dim, k, o); };
P.all = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return all(this, dim, k, o); };
P.any = function (this: Tensor, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) { return any(this, dim, k, o); };
P.argmax = function (this: Tensor, dim?: number | null, k?: KeepdimArg, o?: ReduceOptions) { return argmax(this, dim, k, o); };
P.argmin = function (this: Tensor, dim?: number | null, k?: KeepdimArg, o?: ReduceOptions) { return argmin(this, dim, k, o); };
P.var = function (this: Tensor, dim?: Dims, u?: VarArg, k?: VarArg, o?: VarOptions) { return varOf(this, dim, u, k, o); };
P.std = function (this: Tensor, dim?: Dims, u?: VarArg, k?: VarArg, o?: VarOptions) { return std(this, dim, u, k, o); };
P.norm = function (this: Tensor, p?: number | 'fro' | null, dim?: Dims, k?: KeepdimArg, o?: ReduceOptions) {
  return norm(this, p, dim, k, o);
};
P.logsumexp = function (this: Tensor, dim: Dims, k?: KeepdimArg, o?: ReduceOptions) { return logsumexp(this, dim, k, o); };
P.max = function (this: Tensor, dim?: number | Tensor, keepdim?: boolean) {
  return dim === undefined ? max(this) : dim instanceof Tensor ? max(this, dim) : max(this, dim, keepdim);
} as Tensor['max'];
P.min = function (this: Tensor, dim?: number | Tensor, keepdim?: boolean) {
  return dim === undefined ? min(this) : dim instanceof Tensor ? min(this, dim) : min(this, dim, keepdim);
} as Tensor['min'];
P.softmax = function (this: Tensor, dim: number, opts?: { dtype?: DType }) { return softmax(this, dim, opts); };
P.logSoftmax = function (this: Tensor, dim: number, opts?: { dtype?: DType }) { return logSoftmax(this, dim, opts); };
P.sort = function (this: Tensor, dim?: number, descending?: boolean, stable?: boolean) { return sort(this, dim, descending, stable); };
P.argsort = function (this: Tensor, dim?: number, descending?: boolean, stable?: boolean) { return argsort(this, dim, descending, stable); };
P.topk = function (this: Tensor, k: number, dim?: number, largest?: boolean, s?: boolean) { return topk(this, k, dim, largest, s); };
P.cumsum = function (this: Tensor, dim: number, opts?: { dtype?: DType }) { return cumsum(this, dim, opts); };
