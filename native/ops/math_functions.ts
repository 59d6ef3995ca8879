/**
 * More elementwise math, with PyTorch's names, dtypes and in-place `_` methods:
 *
 * - bitwiseNot, whose kernel takes integers and bool (its math in
 *   native/src/ops/common/*_functors.h); the other ops of this family with
 *   kernels are generated: the unary ones (tan, asin … erfinv) into
 *   native/generated/unary_ops.ts, the binary ones (atan2, hypot, copysign,
 *   fmod, bitwiseAnd/Or/Xor, the shifts) into native/generated/binary_ops.ts;
 * - compositions of existing ops: square, clip, isnan, isinf, isposinf,
 *   isneginf, isfinite, nanToNum, floorDivide, xlogy, heaviside, logit.
 */
import { isFloatingPoint, resultType } from '../dtype';
import { codedError } from '../errors';
import { mul } from '../generated/binary_ops';
import { log } from '../generated/unary_ops';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { finfo } from './dtype_info';
import { argError, castTo, checkTensor, elementwise } from './helpers';
import { clamp, div, where } from './math';
import { fullLike, zerosLike } from './creation';
import { unsupportedError } from './supports';
import { floatOf } from './unary';

type Operand = Tensor | number | boolean;

/** Writes `result` into `out` (an in-place call) when given; returns what the caller returns. */
function into(out: Tensor | undefined, result: Tensor): Tensor {
  if (out === undefined) return result;
  out.copy_(result);
  result.dispose();
  return out;
}

// ---------------------------------------------------------------- native

// The binary ops with kernels (atan2, hypot, copysign, fmod, bitwiseAnd/Or/Xor, the shifts) are
// generated from their rows (scripts/gen_binary_ops.js → native/generated/binary_ops.ts).

/** ~self of integers, not of bools (floating inputs refused here with PyTorch's message, so not generated). */
export function bitwiseNot(self: Tensor, out?: Tensor): Tensor {
  checkTensor('bitwiseNot', 'self', self);
  if (isFloatingPoint(self.dtype)) {
    throw unsupportedError('bitwiseNot', 'bitwiseNot', self.device, self.dtype, { reason: `"bitwise_not" not implemented for '${self.dtype}'` });
  }
  return elementwise('bitwiseNot', [self], { out });
}

// ---------------------------------------------------------------- compositions

/** self * self; bool gives int64 (as PyTorch's square, which is pow(self, 2)). */
export function square(t: Tensor, out?: Tensor): Tensor {
  checkTensor('square', 'self', t);
  if (t.dtype === 'bool') return into(out, tidy(() => castTo(t, 'int64').mul(t)));
  return mul(t, t, out);
}

/** Alias of clamp: min(max(self, min), max). */
export function clip(t: Tensor, min?: Tensor | number | null, max?: Tensor | number | null): Tensor {
  return clamp(t, min, max);
}

/** Where t is NaN (bool; false everywhere for integers). */
export function isnan(t: Tensor): Tensor {
  checkTensor('isnan', 'self', t);
  return t.ne(t);
}

/** Where t is +inf or -inf. */
export function isinf(t: Tensor): Tensor {
  checkTensor('isinf', 'self', t);
  if (!isFloatingPoint(t.dtype)) return zerosLike(t, { dtype: 'bool' });
  return tidy(() => t.abs().eq(Infinity));
}

/** Where t is +inf. */
export function isposinf(t: Tensor): Tensor {
  checkTensor('isposinf', 'self', t);
  return isFloatingPoint(t.dtype) ? t.eq(Infinity) : zerosLike(t, { dtype: 'bool' });
}

/** Where t is -inf. */
export function isneginf(t: Tensor): Tensor {
  checkTensor('isneginf', 'self', t);
  return isFloatingPoint(t.dtype) ? t.eq(-Infinity) : zerosLike(t, { dtype: 'bool' });
}

/** Where t is finite (neither NaN nor ±inf). */
export function isfinite(t: Tensor): Tensor {
  checkTensor('isfinite', 'self', t);
  if (!isFloatingPoint(t.dtype)) return fullLike(t, true, { dtype: 'bool' });
  // t - t is 0 for finite t and NaN for NaN and ±inf.
  return tidy(() => t.sub(t).eq(0));
}

/** Options of nanToNum. */
export interface NanToNumOptions {
  /** What NaN becomes (default 0). */
  nan?: number;
  /** What +inf becomes (default: the dtype's largest finite value). */
  posinf?: number | null;
  /** What -inf becomes (default: the dtype's most negative finite value). */
  neginf?: number | null;
}

/** NaN, +inf and -inf replaced by finite numbers (integers are returned as a copy). */
export function nanToNum(t: Tensor, opts?: NanToNumOptions, out?: Tensor): Tensor {
  checkTensor('nanToNum', 'self', t);
  if (!isFloatingPoint(t.dtype)) return into(out, t.clone());
  const info = finfo(t.dtype);
  const nan = opts?.nan ?? 0;
  const pos = opts?.posinf ?? info.max;
  const neg = opts?.neginf ?? info.min;
  for (const [name, v] of [['nan', nan], ['posinf', pos], ['neginf', neg]] as const) {
    if (typeof v !== 'number') argError('nanToNum', 'a number', name, v);
  }
  return into(out, tidy(() => where(t.ne(t), nan, where(t.eq(Infinity), pos, where(t.eq(-Infinity), neg, t))).to(t.dtype)));
}

/** self // other rounded toward -inf (div with roundingMode 'floor'). */
export function floorDivide(self: Tensor, other: Operand, out?: Tensor): Tensor {
  checkTensor('floorDivide', 'self', self);
  return div(self, other, { roundingMode: 'floor' }, out);
}

/** self * log(other), 0 where self is 0 (unless other is NaN), in a floating dtype. */
export function xlogy(self: Tensor | number, other: Tensor | number): Tensor {
  if (!(self instanceof Tensor) && !(other instanceof Tensor)) argError('xlogy', 'at least one Tensor', 'self or other', typeof self);
  const dtype = floatOf(resultType(self as Operand, other as Operand));
  return tidy(() => {
    const x = self instanceof Tensor ? castTo(self, dtype) : self;
    const y = other instanceof Tensor ? castTo(other, dtype) : other;
    const yt = y instanceof Tensor ? y : fullLike(x as Tensor, y);
    const xt = x instanceof Tensor ? x : fullLike(yt, x);
    const zero = xt.eq(0).logicalAnd(yt.eq(yt));
    return where(zero, 0, mul(xt, log(yt)));
  });
}

/** 0 where self < 0, values where self == 0, 1 where self > 0 (self and values of one dtype, as PyTorch's). */
export function heaviside(self: Tensor, values: Tensor): Tensor {
  checkTensor('heaviside', 'self', self);
  checkTensor('heaviside', 'values', values);
  if (self.dtype !== values.dtype) {
    throw codedError('TSGPU_ARG', `heaviside: heaviside is not yet implemented for tensors with different dtypes (${self.dtype} and ${values.dtype})`);
  }
  return tidy(() => castTo(where(self.eq(0), values, self.gt(0)), resultType(self, values)));
}

/** log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given; integers compute in the default dtype. */
export function logit(t: Tensor, eps?: number | null): Tensor {
  checkTensor('logit', 'self', t);
  if (eps !== undefined && eps !== null && typeof eps !== 'number') argError('logit', 'a number or null', 'eps', eps);
  return tidy(() => {
    let p = castTo(t, floatOf(t.dtype));
    // One pass on cpu (a vector loop for float32); on cuda the composition.
    if (p.device === 'cpu') return elementwise('logit', [p], { attrs: { eps: eps ?? -1 } });
    if (eps !== undefined && eps !== null) p = p.clamp(eps, 1 - eps);
    return p.div(p.neg().add(1)).log();
  });
}

// ---------------------------------------------------------------- methods

declare module '../tensor' {
  interface Tensor {
    bitwiseNot(): Tensor; bitwiseNot_(): Tensor;
    square(): Tensor; square_(): Tensor;
    clip(min?: Tensor | number | null, max?: Tensor | number | null): Tensor;
    clip_(min?: Tensor | number | null, max?: Tensor | number | null): Tensor;
    isnan(): Tensor; isinf(): Tensor; isposinf(): Tensor; isneginf(): Tensor; isfinite(): Tensor;
    nanToNum(opts?: NanToNumOptions): Tensor; nanToNum_(opts?: NanToNumOptions): Tensor;
    floorDivide(other: Operand): Tensor; floorDivide_(other: Operand): Tensor;
    xlogy(other: Tensor | number): Tensor;
    heaviside(values: Tensor): Tensor;
    logit(eps?: number | null): Tensor;
  }
}

const P = Tensor.prototype as unknown as Record<string, unknown>;
P.bitwiseNot = function (this: Tensor) { return bitwiseNot(this); };
P.bitwiseNot_ = function (this: Tensor) { return bitwiseNot(this, this); };
P.square = function (this: Tensor) { return square(this); };
P.square_ = function (this: Tensor) { return square(this, this); };
P.clip = function (this: Tensor, lo?: Tensor | number | null, hi?: Tensor | number | null) { return clamp(this, lo, hi); };
P.clip_ = function (this: Tensor, lo?: Tensor | number | null, hi?: Tensor | number | null) { return clamp(this, lo, hi, this); };
P.isnan = function (this: Tensor) { return isnan(this); };
P.isinf = function (this: Tensor) { return isinf(this); };
P.isposinf = function (this: Tensor) { return isposinf(this); };
P.isneginf = function (this: Tensor) { return isneginf(this); };
P.isfinite = function (this: Tensor) { return isfinite(this); };
P.nanToNum = function (this: Tensor, o?: NanToNumOptions) { return nanToNum(this, o); };
P.nanToNum_ = function (this: Tensor, o?: NanToNumOptions) { return nanToNum(this, o, this); };
P.floorDivide = function (this: Tensor, o: Operand) { return floorDivide(this, o); };
P.floorDivide_ = function (this: Tensor, o: Operand) { return floorDivide(this, o, this); };
P.xlogy = function (this: Tensor, o: Tensor | number) { return xlogy(this, o); };
P.heaviside = function (this: Tensor, v: Tensor) { return heaviside(this, v); };
P.logit = function (this: Tensor, eps?: number | null) { return logit(this, eps); };
