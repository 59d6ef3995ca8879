/**
 * The two compute rules of the elementwise ops with one tensor in and one
 * out, shared by the generated plain unary ops (native/generated/unary_ops.ts,
 * written by scripts/gen_native_tables.js from the op list) and the
 * hand-written ones whose TypeScript does more (round with decimals, gelu and
 * softplus with their options, in native/ops/math.ts):
 *
 * - a floating op (its op-list row says `float`) computes in the input's dtype
 *   when that is floating, else in the default dtype (PyTorch's: integers and
 *   bool promote);
 * - a numeric op (`numeric`) computes in the input's own dtype; the binding
 *   refuses the dtypes the row does not list.
 */
import { DType, getDefaultDtype, isFloatingPoint } from '../dtype';
import { OpAttrs, OpName } from '../generated/op_list';
import { Tensor } from '../tensor';
import { checkTensor, elementwise } from './helpers';

/** The dtype a floating function computes in for inputs of dtype `d`: `d` if floating, else the default dtype. */
export function floatOf(d: DType): DType {
  return isFloatingPoint(d) ? d : getDefaultDtype();
}

/**
 * Runs floating op `op` on `t`: into `out` when given (the in-place form
 * passes `t` itself), else into a new tensor of the compute dtype.
 */
export function unaryFloat<N extends OpName>(op: N, t: Tensor, out?: Tensor, attrs?: OpAttrs[N]): Tensor {
  checkTensor(op, 'self', t);
  return elementwise(op, [t], { computeDtype: floatOf(t.dtype), attrs, out });
}

/** Runs numeric op `op` on `t` in its own dtype: into `out` when given, else into a new tensor. */
export function unaryNumeric(op: OpName, t: Tensor, out?: Tensor): Tensor {
  checkTensor(op, 'self', t);
  return elementwise(op, [t], { out });
}
