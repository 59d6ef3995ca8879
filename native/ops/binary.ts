/**
 * The compute rules of the elementwise ops with two operands and one result,
 * which the generated plain binary ops and comparisons call
 * (native/generated/binary_ops.ts, written by scripts/gen_native_tables.js
 * from the rows of scripts/gen_binary_ops.js). Every rule broadcasts and takes
 * numbers as weak scalars (helpers.ts elementwise); they differ in how the
 * operands' dtypes combine:
 *
 * - promote: computed and returned in torch.result_type(self, other);
 * - float: as promote, but integer and bool compute in the default dtype;
 * - floating: floating operands only (integers refused, as PyTorch's hypot);
 * - compare: compared in torch.result_type(self, other), the result bool;
 * - bitwise: integer and bool operands; shift: integers, bool in int64.
 *
 * Each takes `out` (the in-place forms pass self) and the row's flags:
 * `numberSelf` (self may be a number as long as other is a tensor) and
 * `zeroDivisor` (an integer divisor of 0 is refused on cpu, see
 * checkIntegerDivisor). A refused dtype is reported through
 * supports.ts unsupportedError, from the op list.
 */
import { DType, isFloatingPoint, resultType } from '../dtype';
import { codedError } from '../errors';
import { OpName } from '../generated/op_list';
import { Tensor } from '../tensor';
import { argError, checkTensor, elementwise } from './helpers';
import { unsupportedError } from './supports';
import { floatOf } from './unary';

/** An operand of a binary op: a tensor, or a number (a weak scalar). */
export type Operand = Tensor | number | boolean;

/**
 * Integer division by zero (rounded div, remainder, fmod) throws as PyTorch's
 * does on cpu ("RuntimeError: ZeroDivisionError"), before anything runs; so
 * does a divisor given as the number 0, on any device (it is on the host
 * already). A cuda divisor tensor is not read back (that would wait for the
 * device), and the elements it divides by zero are 0, for every integer
 * dtype. PyTorch's cuda kernels do not check either; it documents their
 * result there as undefined ("may return any value": the hardware's all-ones
 * patterns, -1 for int32, 255 for uint8, 4294967295 for int64); the
 * zero-divisor guards proposed for those kernels (PyTorch pull requests
 * 178016 and 180781) give 0.
 */
export function checkIntegerDivisor(op: string, common: DType, other: Operand): void {
  if (isFloatingPoint(common) || common === 'bool') return;
  let zero: boolean;
  if (!(other instanceof Tensor)) {
    zero = Number(other) === 0;
  } else {
    if (other.device !== 'cpu' || other.numel === 0) return;
    const z = other.eq(0);
    const any = z.any();
    zero = Boolean(any.item());
    z.dispose();
    any.dispose();
  }
  if (zero) {
    throw codedError('TSGPU_ZERO_DIVISION', `${op}: ZeroDivisionError: integer division by zero (a divisor of dtype ${common} is 0)`);
  }
}

/** Checks self: a Tensor, or with `numberSelf` either operand a Tensor. */
function checkSelf(op: string, self: Operand, other: Operand, numberSelf: boolean): void {
  if (!numberSelf) checkTensor(op, 'self', self);
  else if (!(self instanceof Tensor) && !(other instanceof Tensor)) argError(op, 'at least one Tensor', 'self or other', typeof self);
}

/** The device a refusal names: self's, or other's when self is a number. */
function deviceOf(self: Operand, other: Operand): string {
  return self instanceof Tensor ? self.device : other instanceof Tensor ? other.device : 'cpu';
}

/** Rule promote: computed in torch.result_type(self, other). */
export function promoteBinary(op: OpName, self: Operand, other: Operand, out?: Tensor, numberSelf = false, zeroDivisor = false): Tensor {
  checkSelf(op, self, other, numberSelf);
  if (zeroDivisor) checkIntegerDivisor(op, resultType(self, other), other);
  return elementwise(op, [self, other], { out });
}

/** Rule float: integer and bool operands compute in the default dtype. */
export function floatBinary(op: OpName, self: Operand, other: Operand, out?: Tensor, numberSelf = false): Tensor {
  checkSelf(op, self, other, numberSelf);
  return elementwise(op, [self, other], { computeDtype: floatOf(resultType(self, other)), out });
}

/** Rule floating: the operands' result type must be floating. */
export function floatingBinary(op: OpName, self: Operand, other: Operand, out?: Tensor, numberSelf = false): Tensor {
  checkSelf(op, self, other, numberSelf);
  const common = resultType(self, other);
  if (!isFloatingPoint(common)) {
    throw unsupportedError(op, op, deviceOf(self, other), common, { reason: `"${op}_cpu" not implemented for '${common}'`, hint: 'cast to a floating dtype first' });
  }
  return elementwise(op, [self, other], { computeDtype: common, out });
}

/** Rule compare: compared in torch.result_type(self, other); the result is bool. */
export function compareBinary(op: OpName, self: Operand, other: Operand, out?: Tensor, numberSelf = false): Tensor {
  checkSelf(op, self, other, numberSelf);
  return elementwise(op, [self, other], { computeDtype: resultType(self, other), outDtype: 'bool', out });
}

/** The result type of a bitwise op, refusing floating ones. */
function integerCommon(op: OpName, self: Operand, other: Operand): DType {
  const common = resultType(self, other);
  if (isFloatingPoint(common)) {
    throw unsupportedError(op, op, deviceOf(self, other), common, { reason: `"${op}" not implemented for '${common}'` });
  }
  return common;
}

/** Rule bitwise: integer and bool operands, computed in their result type. */
export function bitwiseBinary(op: OpName, self: Operand, other: Operand, out?: Tensor, numberSelf = false): Tensor {
  checkSelf(op, self, other, numberSelf);
  return elementwise(op, [self, other], { computeDtype: integerCommon(op, self, other), out });
}

/** Rule shift: as bitwise, but bool computes in int64 (PyTorch's). */
export function shiftBinary(op: OpName, self: Operand, other: Operand, out?: Tensor, numberSelf = false): Tensor {
  checkSelf(op, self, other, numberSelf);
  const common = integerCommon(op, self, other);
  return elementwise(op, [self, other], { computeDtype: common === 'bool' ? 'int64' : common, out });
}
