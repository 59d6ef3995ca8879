/**
 * Elementwise math beyond add/sub: the unary functions whose TypeScript does
 * more than hand the tensor to its kernel (sign, round, gelu, softplus,
 * logicalNot; the plain unary ops such as exp or neg are generated from the
 * op list into native/generated/unary_ops.ts), div and pow (the plain binary
 * ops and comparisons, mul … logicalXor, are generated into
 * native/generated/binary_ops.ts), where, clamp, lerp, addcmul/addcdiv.
 * PyTorch's names and semantics: broadcasting, type promotion with numbers as
 * weak scalars, integer inputs of floating functions computed in the default
 * dtype, comparisons giving bool; every op has an in-place `_` method.
 */
import { getDefaultDtype, isFloatingPoint, resultType } from '../dtype';
import { codedError } from '../errors';
import { mul } from '../generated/binary_ops';
import { Tensor } from '../tensor';
import { checkIntegerDivisor } from './binary';
import { argError, checkTensor, elementwise } from './helpers';
import { unaryFloat, unaryNumeric } from './unary';

type Scalar = number | boolean;
type Operand = Tensor | Scalar;

// ---------------------------------------------------------------- unary

// Written by hand, each for the reason its comment gives (sign and round have
// the plain unary shape in the op list and are listed as hand-written in
// scripts/gen_unary_ops.js; gelu and softplus take options). The other unary
// ops are generated (native/generated/unary_ops.ts).

/**
 * -1, 0 or 1 by the sign (a bool tensor is its own sign, as PyTorch's).
 * Not generated: the kernel is numeric, so bool is answered here.
 */
export const sign = (t: Tensor): Tensor => (t instanceof Tensor && t.dtype === 'bool' ? t.clone() : unaryNumeric('sign', t));

/** Options of round. */
export interface RoundOptions {
  /** Round to this many decimal places (negative: to tens, hundreds, ...; default 0). */
  decimals?: number;
}

/**
 * Rounds half to even; with `decimals`, as PyTorch: round(x · 10^d) / 10^d
 * (d < 0: round(x / 10^-d) · 10^-d), floating tensors only. Not generated:
 * the decimals option scales around the kernel.
 */
export function round(t: Tensor, opts?: RoundOptions, out?: Tensor): Tensor {
  const d = opts?.decimals ?? 0;
  if (!Number.isInteger(d)) argError('round', 'an integer', 'decimals', d);
  if (d === 0) return unaryNumeric('round', t, out);
  checkTensor('round', 'self', t);
  if (!isFloatingPoint(t.dtype)) argError('round', 'a floating-point tensor when decimals is given', 'self', t.dtype);
  const p = 10 ** Math.abs(d);
  const scaled = d > 0 ? mul(t, p) : div(t, p);
  unaryNumeric('round', scaled, scaled);
  try {
    return d > 0 ? div(scaled, p, undefined, out) : mul(scaled, p, out);
  } finally {
    scaled.dispose();
  }
}

/** Options of gelu. */
export interface GeluOptions {
  /** 'none' (exact, with erf; the default) or 'tanh' (the tanh approximation). */
  approximate?: 'none' | 'tanh';
}

/** x * Φ(x), exactly or with the tanh approximation (its option checked here, so not generated). */
export function gelu(t: Tensor, opts?: GeluOptions): Tensor {
  const approximate = opts?.approximate ?? 'none';
  if (approximate !== 'none' && approximate !== 'tanh') argError('gelu', "'none' or 'tanh'", 'approximate', approximate);
  return unaryFloat('gelu', t, undefined, { approximate });
}

/** Options of softplus. */
export interface SoftplusOptions {
  /** Scale of the input (default 1). */
  beta?: number;
  /** Above beta * x > threshold the result is x (default 20). */
  threshold?: number;
}

/** log(1 + exp(beta x)) / beta (with its options, so not generated). */
export function softplus(t: Tensor, opts?: SoftplusOptions): Tensor {
  return unaryFloat('softplus', t, undefined, { beta: opts?.beta, threshold: opts?.threshold });
}

/** Logical not: bool, true where t is zero (a bool result whatever the input, so not generated). */
export function logicalNot(t: Tensor): Tensor {
  checkTensor('logicalNot', 'self', t);
  return elementwise('logicalNot', [t], { computeDtype: t.dtype, outDtype: 'bool' });
}

// ---------------------------------------------------------------- binary

// The plain binary ops and comparisons (mul, remainder, maximum, minimum, eq … logicalXor) are
// generated from their rows (scripts/gen_binary_ops.js → native/generated/binary_ops.ts). The two
// here are written by hand (listed in the generator's HAND_WRITTEN): div for its roundingMode and
// integer true division, pow for its refusal of negative integer powers.

function firstTensor(op: string, a: Operand, b: Operand): void {
  if (!(a instanceof Tensor) && !(b instanceof Tensor)) argError(op, 'at least one Tensor', 'self or other', typeof a);
}

/** Options of div. */
export interface DivOptions {
  /** undefined: true division (integers give floats); 'trunc' or 'floor': rounded, in the inputs' dtype. */
  roundingMode?: 'trunc' | 'floor' | null;
}

/**
 * self / other, broadcast; see DivOptions. Rounded integer division by zero
 * throws on cpu and gives 0 on cuda (see checkIntegerDivisor in binary.ts).
 * Not generated: the rounding mode picks the compute dtype and the check.
 */
export function div(self: Operand, other: Operand, opts?: DivOptions, out?: Tensor): Tensor {
  firstTensor('div', self, other);
  const mode = opts?.roundingMode ?? undefined;
  if (mode !== undefined && mode !== 'trunc' && mode !== 'floor') argError('div', "'trunc', 'floor' or null", 'roundingMode', mode);
  const common = resultType(self, other);
  if (mode !== undefined) checkIntegerDivisor(`div (roundingMode '${mode}')`, common, other);
  const computeDtype = mode === undefined && !isFloatingPoint(common) ? getDefaultDtype() : common;
  return elementwise('div', [self, other], { computeDtype, attrs: { roundingMode: mode }, out });
}

/**
 * self ** exponent, broadcast (integer tensors to negative integer powers are
 * refused, as PyTorch). Not generated: that refusal.
 */
export function pow(self: Operand, exponent: Operand, out?: Tensor): Tensor {
  firstTensor('pow', self, exponent);
  if (self instanceof Tensor && !isFloatingPoint(self.dtype) && typeof exponent === 'number' &&
      Number.isInteger(exponent) && exponent < 0) {
    throw argError('pow', 'a non-negative exponent for an integer tensor', 'exponent', exponent);
  }
  return elementwise('pow', [self, exponent], { out });
}

// ---------------------------------------------------------------- ternary

/**
 * condition ? self : other, broadcast; condition must be bool. With the
 * condition alone, as PyTorch: nonzero(condition, { asTuple: true }).
 */
export function where(condition: Tensor): Tensor[];
export function where(condition: Tensor, self: Operand, other: Operand): Tensor;
export function where(condition: Tensor, self?: Operand, other?: Operand): Tensor | Tensor[] {
  checkTensor('where', 'condition', condition);
  // Through the method (indexing.ts adds it, and imports this module): no import back.
  if (self === undefined && other === undefined) return condition.nonzero({ asTuple: true });
  if (self === undefined || other === undefined) argError('where', 'both self and other (or neither)', self === undefined ? 'self' : 'other', 'undefined');
  if (condition.dtype !== 'bool') argError('where', 'a bool tensor', 'condition', condition.dtype);
  return elementwise('where', [condition, self, other], { computeDtype: resultType(self, other), keepDtype: [0] });
}

/** min(max(self, min), max); either bound may be omitted (null/undefined), a number or a tensor. */
export function clamp(self: Tensor, min?: Tensor | number | null, max?: Tensor | number | null, out?: Tensor): Tensor {
  checkTensor('clamp', 'self', self);
  const hasMin = min !== undefined && min !== null;
  const hasMax = max !== undefined && max !== null;
  if (!hasMin && !hasMax) argError('clamp', 'at least one of min and max', 'min/max', 'neither');
  if (!hasMax) return elementwise('maximum', [self, min as Operand], { out });
  if (!hasMin) return elementwise('minimum', [self, max as Operand], { out });
  return elementwise('clamp', [self, min as Operand, max as Operand], { out });
}

/** self + weight * (end - self) (floating dtypes). */
export function lerp(self: Tensor, end: Tensor, weight: Tensor | number, out?: Tensor): Tensor {
  checkTensor('lerp', 'self', self);
  checkTensor('lerp', 'end', end);
  return elementwise('lerp', [self, end, weight], { computeDtype: resultType(self, end), out });
}

/** Options of addcmul and addcdiv. */
export interface AddcOptions {
  /** Multiplier of the product or quotient (default 1). */
  value?: number;
}

/** self + value * tensor1 * tensor2. */
export function addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, opts?: AddcOptions, out?: Tensor): Tensor {
  checkTensor('addcmul', 'self', self);
  return elementwise('addcmul', [self, tensor1, tensor2], { attrs: { value: opts?.value }, out });
}

/** self + value * tensor1 / tensor2 (integer inputs compute in the default dtype). */
export function addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, opts?: AddcOptions, out?: Tensor): Tensor {
  checkTensor('addcdiv', 'self', self);
  checkTensor('addcdiv', 'tensor1', tensor1);
  checkTensor('addcdiv', 'tensor2', tensor2);
  if (!isFloatingPoint(tensor1.dtype) && !isFloatingPoint(tensor2.dtype)) {
    throw codedError('TSGPU_ARG', `addcdiv: integer division (tensor1 ${tensor1.dtype} / tensor2 ${tensor2.dtype}) is not supported; cast one of them to a floating dtype, or use div with roundingMode 'trunc'`);
  }
  const common = resultType(self, tensor1, tensor2);
  const computeDtype = isFloatingPoint(common) ? common : getDefaultDtype();
  return elementwise('addcdiv', [self, tensor1, tensor2], { computeDtype, attrs: { value: opts?.value }, out });
}

// ---------------------------------------------------------------- methods

declare module '../tensor' {
  interface Tensor {
    sign(): Tensor; sign_(): Tensor;
    /** Half to even; see RoundOptions. */
    round(opts?: RoundOptions): Tensor; round_(opts?: RoundOptions): Tensor;
    /** x * Φ(x); see GeluOptions. */
    gelu(opts?: GeluOptions): Tensor;
    gelu_(opts?: GeluOptions): Tensor;
    softplus(opts?: SoftplusOptions): Tensor;
    logicalNot(): Tensor;
    div(other: Operand, opts?: DivOptions): Tensor; div_(other: Operand, opts?: DivOptions): Tensor;
    pow(exponent: Operand): Tensor; pow_(exponent: Operand): Tensor;
    /** condition ? this : other (torch.where(condition, this, other)). */
    where(condition: Tensor, other: Operand): Tensor;
    clamp(min?: Tensor | number | null, max?: Tensor | number | null): Tensor;
    clamp_(min?: Tensor | number | null, max?: Tensor | number | null): Tensor;
    lerp(end: Tensor, weight: Tensor | number): Tensor; lerp_(end: Tensor, weight: Tensor | number): Tensor;
    addcmul(t1: Tensor, t2: Tensor, opts?: AddcOptions): Tensor; addcmul_(t1: Tensor, t2: Tensor, opts?: AddcOptions): Tensor;
    addcdiv(t1: Tensor, t2: Tensor, opts?: AddcOptions): Tensor; addcdiv_(t1: Tensor, t2: Tensor, opts?: AddcOptions): Tensor;
  }
}

const P = Tensor.prototype as unknown as Record<string, unknown>;
P.gelu = function (this: Tensor, opts?: GeluOptions) { return gelu(this, opts); };
P.gelu_ = function (this: Tensor, opts?: GeluOptions) {
  return unaryFloat('gelu', this, this, { approximate: opts?.approximate ?? 'none' });
};
P.sign = function (this: Tensor) { return sign(this); };
P.sign_ = function (this: Tensor) { return this.dtype === 'bool' ? this : unaryNumeric('sign', this, this); };
P.round = function (this: Tensor, opts?: RoundOptions) { return round(this, opts); };
P.round_ = function (this: Tensor, opts?: RoundOptions) { return round(this, opts, this); };
P.softplus = function (this: Tensor, opts?: SoftplusOptions) { return softplus(this, opts); };
P.logicalNot = function (this: Tensor) { return logicalNot(this); };
P.div = function (this: Tensor, o: Operand, opts?: DivOptions) { return div(this, o, opts); };
P.div_ = function (this: Tensor, o: Operand, opts?: DivOptions) { return div(this, o, opts, this); };
P.pow = function (this: Tensor, o: Operand) { return pow(this, o); };
P.pow_ = function (this: Tensor, o: Operand) { return pow(this, o, this); };
P.where = function (this: Tensor, c: Tensor, o: Operand) { return where(c, this, o); };
P.clamp = function (this: Tensor, lo?: Tensor | number | null, hi?: Tensor | number | null) { return clamp(this, lo, hi); };
P.clamp_ = function (this: Tensor, lo?: Tensor | number | null, hi?: Tensor | number | null) { return clamp(this, lo, hi, this); };
P.lerp = function (this: Tensor, e: Tensor, w: Tensor | number) { return lerp(this, e, w); };
P.lerp_ = function (this: Tensor, e: Tensor, w: Tensor | number) { return lerp(this, e, w, this); };
P.addcmul = function (this: Tensor, a: Tensor, b: Tensor, o?: AddcOptions) { return addcmul(this, a, b, o); };
P.addcmul_ = function (this: Tensor, a: Tensor, b: Tensor, o?: AddcOptions) { return addcmul(this, a, b, o, this); };
P.addcdiv = function (this: Tensor, a: Tensor, b: Tensor, o?: AddcOptions) { return addcdiv(this, a, b, o); };
P.addcdiv_ = function (this: Tensor, a: Tensor, b: Tensor, o?: AddcOptions) { return addcdiv(this, a, b, o, this); };
