/**
 * Reductions and comparisons that compose from existing ops, with PyTorch's
 * signatures: nansum, nanmean, countNonzero, stdMean, varMean, aminmax,
 * isclose, allclose, equal.
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { argError, checkTensor } from './helpers';
import { where } from './math';
import { Dims, ReduceOptions, VarOptions } from './reduce';

/** The sum over dims with NaN counted as 0. */
export function nansum(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  checkTensor('nansum', 'self', t);
  if (!isFloatingPoint(t.dtype)) return t.sum(dim, keepdim, opts);
  return tidy(() => where(t.ne(t), 0, t).sum(dim, keepdim, opts));
}

/** The mean over dims of the elements that are not NaN (floating tensors; NaN where all are NaN). */
export function nanmean(t: Tensor, dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor {
  checkTensor('nanmean', 'self', t);
  if (!isFloatingPoint(t.dtype) && opts?.dtype === undefined && !(typeof keepdim === 'object' && keepdim?.dtype)) {
    throw codedError('TSGPU_ARG', `nanmean: expected a float input tensor, but got ${t.dtype}`);
  }
  return tidy(() => {
    const present = t.eq(t);
    return nansum(t, dim, keepdim, opts).div(present.sum(dim, keepdim));
  });
}

/** How many elements are nonzero over dims (all by default), int64. */
export function countNonzero(t: Tensor, dim?: Dims): Tensor {
  checkTensor('countNonzero', 'self', t);
  return tidy(() => t.ne(0).sum(dim));
}

/** The keepdim of std/var's arguments (unbiased, keepdim, options), for the mean beside them. */
function keepdimOf(unbiased: boolean | VarOptions | undefined, keepdim: boolean | VarOptions | undefined, opts?: VarOptions): boolean {
  if (typeof unbiased === 'object' && unbiased !== null) return unbiased.keepdim ?? false;
  if (typeof keepdim === 'boolean') return keepdim;
  if (typeof keepdim === 'object' && keepdim !== null) return keepdim.keepdim ?? false;
  return opts?.keepdim ?? false;
}

/** [std, mean] over dims (same options as std: correction, keepdim; `stdMean(dim, unbiased, keepdim)` too). */
export function stdMean(t: Tensor, dim?: Dims, unbiased?: boolean | VarOptions, keepdim?: boolean | VarOptions, opts?: VarOptions): [Tensor, Tensor] {
  checkTensor('stdMean', 'self', t);
  const s = t.std(dim, unbiased, keepdim, opts);
  const keep = keepdimOf(unbiased, keepdim, opts);
  return [s, t.mean(dim, keep)];
}

/** [var, mean] over dims, as stdMean. */
export function varMean(t: Tensor, dim?: Dims, unbiased?: boolean | VarOptions, keepdim?: boolean | VarOptions, opts?: VarOptions): [Tensor, Tensor] {
  checkTensor('varMean', 'self', t);
  const v = t.var(dim, unbiased, keepdim, opts);
  const keep = keepdimOf(unbiased, keepdim, opts);
  return [v, t.mean(dim, keep)];
}

/** Options of aminmax. */
export interface AminmaxOptions {
  /** Reduce along this dim only (default: all). */
  dim?: number | null;
  /** Keep the reduced dim as size 1 (default false). */
  keepdim?: boolean;
}

/** { min, max } over all elements or along opts.dim. */
export function aminmax(t: Tensor, opts?: AminmaxOptions): { min: Tensor; max: Tensor } {
  checkTensor('aminmax', 'self', t);
  const dim = opts?.dim ?? undefined;
  const keepdim = opts?.keepdim ?? false;
  const min = t.amin(dim, keepdim);
  try {
    return { min, max: t.amax(dim, keepdim) };
  } catch (e) {
    min.dispose();
    throw e;
  }
}

/** Options of isclose and allclose. */
export interface CloseOptions {
  /** Relative tolerance (default 1e-5). */
  rtol?: number;
  /** Absolute tolerance (default 1e-8). */
  atol?: number;
  /** Whether NaN equals NaN (default false). */
  equalNan?: boolean;
}

/** Where |self - other| <= atol + rtol |other| (equal infinities are close; NaN per equalNan), bool. */
export function isclose(self: Tensor, other: Tensor, opts?: CloseOptions): Tensor {
  checkTensor('isclose', 'self', self);
  checkTensor('isclose', 'other', other);
  const rtol = opts?.rtol ?? 1e-5;
  const atol = opts?.atol ?? 1e-8;
  if (typeof rtol !== 'number' || rtol < 0) argError('isclose', 'a non-negative number', 'rtol', rtol);
  if (typeof atol !== 'number' || atol < 0) argError('isclose', 'a non-negative number', 'atol', atol);
  if (self.dtype !== other.dtype) {
    throw codedError('TSGPU_ARG', `isclose: ${self.dtype} did not match ${other.dtype}`);
  }
  return tidy(() => {
    const equal = self.eq(other);
    if (!isFloatingPoint(self.dtype)) {
      if (self.dtype === 'bool') return equal;
      const diff = self.sub(other).abs().double();
      return equal.logicalOr(diff.le(other.abs().double().mul(rtol).add(atol)));
    }
    const diff = self.sub(other).abs();
    const within = diff.le(other.abs().mul(rtol).add(atol)).logicalAnd(diff.ne(Infinity));
    let close = equal.logicalOr(within);
    if (opts?.equalNan) close = close.logicalOr(self.ne(self).logicalAnd(other.ne(other)));
    return close;
  });
}

/** Whether every element is close (isclose), a boolean. */
export function allclose(self: Tensor, other: Tensor, opts?: CloseOptions): boolean {
  return tidy(() => Boolean(isclose(self, other, opts).all().item()));
}

/** Whether the tensors have one shape and equal elements, a boolean. */
export function equal(self: Tensor, other: Tensor): boolean {
  checkTensor('equal', 'self', self);
  checkTensor('equal', 'other', other);
  if (self.ndim !== other.ndim || self.shape.some((s, i) => s !== other.shape[i])) return false;
  return tidy(() => Boolean(self.eq(other).all().item()));
}

declare module '../tensor' {
  interface Tensor {
    nansum(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    nanmean(dim?: Dims, keepdim?: boolean | ReduceOptions, opts?: ReduceOptions): Tensor;
    countNonzero(dim?: Dims): Tensor;
    aminmax(opts?: AminmaxOptions): { min: Tensor; max: Tensor };
    isclose(other: Tensor, opts?: CloseOptions): Tensor;
    allclose(other: Tensor, opts?: CloseOptions): boolean;
    equal(other: Tensor): boolean;
  }
}

const P = Tensor.prototype;
P.nansum = function (this: Tensor, d?: Dims, k?: boolean | ReduceOptions, o?: ReduceOptions) { return nansum(this, d, k, o); };
P.nanmean = function (this: Tensor, d?: Dims, k?: boolean | ReduceOptions, o?: ReduceOptions) { return nanmean(this, d, k, o); };
P.countNonzero = function (this: Tensor, d?: Dims) { return countNonzero(this, d); };
P.aminmax = function (this: Tensor, o?: AminmaxOptions) { return aminmax(this, o); };
P.isclose = function (this: Tensor, o: Tensor, opts?: CloseOptions) { return isclose(this, o, opts); };
P.allclose = function (this: Tensor, o: Tensor, opts?: CloseOptions) { return allclose(this, o, opts); };
P.equal = function (this: Tensor, o: Tensor) { return equal(this, o); };
