/**
 * scatter (with PyTorch's `reduce: 'add' | 'multiply'`), scatterAdd and
 * scatterReduce ('sum', 'prod', 'mean', 'amax', 'amin', with includeSelf) —
 * PyTorch's semantics: the values of src (a tensor; for scatter also a
 * number) are written or combined into a copy of self (or into self, for the
 * `_` methods) at `index` along `dim`:
 *
 *   out[index[i][j]][j] = src[i][j]                    (dim 0; scatter)
 *   out[index[i][j]][j] = reduce(out[...], src[i][j])  (scatterAdd, scatterReduce, scatter with reduce)
 *
 * index is int64 with self's number of dims, no larger than src in any dim
 * and than self in every dim but `dim`; on cpu every index value is checked
 * before anything is written. Repeated targets combine in index order on cpu;
 * on cuda atomically, in an unspecified order (float sums and products may
 * then differ in the last bits, as PyTorch's do).
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { ones, onesLike, zerosLike } from './creation';
import { argError, castTo, checkTensor, runOp } from './helpers';
import { checkIndexValues } from './indexing';
import { eq } from '../generated/binary_ops';
import { where } from './math';

/** Options of scatter: PyTorch's `reduce` argument of Tensor.scatter. */
export interface ScatterOptions {
  /** Combine with what is in self instead of overwriting: 'add' (+=) or 'multiply' (*=). */
  reduce?: 'add' | 'multiply' | null;
}

/** The reductions of scatterReduce (PyTorch's names). */
export type ScatterReduction = 'sum' | 'prod' | 'mean' | 'amax' | 'amin';

/** Options of scatterReduce. */
export interface ScatterReduceOptions {
  /**
   * Whether self's values take part in the reduction (default true). With
   * false, each position that src is scattered to holds the reduction of what
   * it receives only; positions nothing is scattered to keep self's value.
   */
  includeSelf?: boolean;
}

const REDUCTIONS: readonly ScatterReduction[] = ['sum', 'prod', 'mean', 'amax', 'amin'];

/** Normalizes dim and checks the index values (cpu) for out, the tensor written. */
function targetDim(op: string, out: Tensor, dim: number, index: Tensor): number {
  const d = out.ndim === 0 ? 0 : out.normDim(dim, op);
  checkIndexValues(op, index, out.ndim === 0 ? 1 : out.shape[d]);
  return d;
}

/** Runs a scatter kernel into out (in place) with src cast to out's dtype. */
function runScatter(kernel: 'scatter' | 'scatterAdd' | 'scatterReduce', out: Tensor, d: number, index: Tensor,
  src: Tensor | number, attrs: Record<string, string | boolean> = {}): Tensor {
  const s = src instanceof Tensor ? castTo(src, out.dtype) : src;
  try {
    runOp(kernel, [out], [out, index, s], { dim: d, ...attrs });
  } finally {
    if (s instanceof Tensor && s !== src) s.dispose();
  }
  return out;
}

/** scatter into out itself: overwrite, or combine with reduce 'add' / 'multiply'. */
function scatterInPlace(out: Tensor, dim: number, index: Tensor, src: Tensor | number, opts?: ScatterOptions): Tensor {
  checkTensor('scatter', 'self', out);
  const reduce = opts?.reduce ?? null;
  if (reduce !== null && reduce !== 'add' && reduce !== 'multiply') {
    throw codedError('TSGPU_ARG', `scatter: expected 'add', 'multiply' or null for reduce, got '${String(reduce)}' ` +
      "(the reductions 'sum', 'prod', 'mean', 'amax' and 'amin' are scatterReduce's)");
  }
  const d = targetDim('scatter', out, dim, index);
  if (reduce === null) return runScatter('scatter', out, d, index, src);
  return runScatter('scatterReduce', out, d, index, src, { reduce: reduce === 'add' ? 'sum' : 'prod', includeSelf: true });
}

/** A copy of t with src (a tensor or a number) written, or combined by opts.reduce, at index along dim. */
export function scatter(t: Tensor, dim: number, index: Tensor, src: Tensor | number, opts?: ScatterOptions): Tensor {
  checkTensor('scatter', 'self', t);
  return scatterInPlace(t.clone(), dim, index, src, opts);
}

function scatterAddInPlace(out: Tensor, dim: number, index: Tensor, src: Tensor): Tensor {
  checkTensor('scatterAdd', 'self', out);
  checkTensor('scatterAdd', 'src', src);
  return runScatter('scatterAdd', out, targetDim('scatterAdd', out, dim, index), index, src);
}

/** A copy of t with src added at index along dim (repeated indices accumulate). */
export function scatterAdd(t: Tensor, dim: number, index: Tensor, src: Tensor): Tensor {
  checkTensor('scatterAdd', 'self', t);
  return scatterAddInPlace(t.clone(), dim, index, src);
}

/**
 * 'mean': the sum (with or without self), divided by how many values each
 * position received (+1 for self's own when included; positions that received
 * none divide by 1). Integer dtypes divide rounding down, as PyTorch's does.
 */
function scatterMean(out: Tensor, d: number, index: Tensor, src: Tensor, includeSelf: boolean): Tensor {
  if (out.dtype === 'bool') throw codedError('TSGPU_ARG', "scatterReduce: reduce 'mean' is not supported for bool tensors");
  runScatter('scatterReduce', out, d, index, src, { reduce: 'sum', includeSelf });
  const count = includeSelf ? onesLike(out) : zerosLike(out);
  const received = ones(index.shape, { dtype: out.dtype, device: out.device });
  runOp('scatterAdd', [count], [count, index, received], { dim: d });
  const none = eq(count, 0);
  const divisor = where(none, 1, count);
  try {
    return out.div_(divisor, isFloatingPoint(out.dtype) ? undefined : { roundingMode: 'floor' });
  } finally {
    for (const x of [count, received, none, divisor]) x.dispose();
  }
}

function scatterReduceInPlace(out: Tensor, dim: number, index: Tensor, src: Tensor, reduce: ScatterReduction,
  opts?: ScatterReduceOptions): Tensor {
  checkTensor('scatterReduce', 'self', out);
  checkTensor('scatterReduce', 'src', src);
  if (!REDUCTIONS.includes(reduce)) argError('scatterReduce', "'sum', 'prod', 'mean', 'amax' or 'amin'", 'reduce', reduce);
  const includeSelf = opts?.includeSelf ?? true;
  if (typeof includeSelf !== 'boolean') argError('scatterReduce', 'a boolean', 'includeSelf', includeSelf);
  const d = targetDim('scatterReduce', out, dim, index);
  if (reduce === 'mean') return scatterMean(out, d, index, src, includeSelf);
  return runScatter('scatterReduce', out, d, index, src, { reduce, includeSelf });
}

/** A copy of t with src reduced into it at index along dim by reduce; see ScatterReduceOptions. */
export function scatterReduce(t: Tensor, dim: number, index: Tensor, src: Tensor, reduce: ScatterReduction,
  opts?: ScatterReduceOptions): Tensor {
  checkTensor('scatterReduce', 'self', t);
  return scatterReduceInPlace(t.clone(), dim, index, src, reduce, opts);
}

declare module '../tensor' {
  interface Tensor {
    scatter(dim: number, index: Tensor, src: Tensor | number, opts?: ScatterOptions): Tensor;
    scatter_(dim: number, index: Tensor, src: Tensor | number, opts?: ScatterOptions): Tensor;
    scatterAdd(dim: number, index: Tensor, src: Tensor): Tensor;
    scatterAdd_(dim: number, index: Tensor, src: Tensor): Tensor;
    scatterReduce(dim: number, index: Tensor, src: Tensor, reduce: ScatterReduction, opts?: ScatterReduceOptions): Tensor;
    scatterReduce_(dim: number, index: Tensor, src: Tensor, reduce: ScatterReduction, opts?: ScatterReduceOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.scatter = function (this: Tensor, dim: number, index: Tensor, src: Tensor | number, opts?: ScatterOptions) { return scatter(this, dim, index, src, opts); };
P.scatter_ = function (this: Tensor, dim: number, index: Tensor, src: Tensor | number, opts?: ScatterOptions) { return scatterInPlace(this, dim, index, src, opts); };
P.scatterAdd = function (this: Tensor, dim: number, index: Tensor, src: Tensor) { return scatterAdd(this, dim, index, src); };
P.scatterAdd_ = function (this: Tensor, dim: number, index: Tensor, src: Tensor) { return scatterAddInPlace(this, dim, index, src); };
P.scatterReduce = function (this: Tensor, dim: number, index: Tensor, src: Tensor, reduce: ScatterReduction, opts?: ScatterReduceOptions) {
  return scatterReduce(this, dim, index, src, reduce, opts);
};
P.scatterReduce_ = function (this: Tensor, dim: number, index: Tensor, src: Tensor, reduce: ScatterReduction, opts?: ScatterReduceOptions) {
  return scatterReduceInPlace(this, dim, index, src, reduce, opts);
};
