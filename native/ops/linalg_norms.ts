/**
 * The norms of torch.linalg: vectorNorm, matrixNorm and norm (which picks
 * one of the two from ord and dim, as PyTorch's), with PyTorch's
 * positional parameters (ord, dim, keepdim), the `dtype` option (the input
 * is cast to it first) and its errors. They compose from the reductions,
 * so their gradients come from those ops' backward formulas.
 *
 * The matrix norms that need singular values (ord 2, -2 and 'nuc') are
 * refused with that reason: the runtime has no SVD yet.
 */
import { DType, isFloatingPoint, normalizeDtype } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { argError, checkTensor } from './helpers';

/** The options of the linalg norms. */
export interface NormOptions {
  /** Cast the input to this floating dtype first; the result has it. */
  dtype?: DType;
}

/** The ord of a matrix norm. */
export type MatrixOrd = 'fro' | 'nuc' | number;

type DimArg = number | readonly number[] | null | undefined;

/** The input cast to opts.dtype, checked to be floating. */
function floating(op: string, x: Tensor, opts: NormOptions | undefined): Tensor {
  checkTensor(op, 'input', x);
  const d = opts?.dtype === undefined ? x.dtype : normalizeDtype(opts.dtype);
  if (!isFloatingPoint(x.dtype) || !isFloatingPoint(d)) {
    throw codedError('TSGPU_ARG', `${op}: Expected a floating point or complex tensor as input. Got ${isFloatingPoint(x.dtype) ? d : x.dtype}`);
  }
  return d === x.dtype ? x : x.to(d);
}

function dimList(op: string, x: Tensor, dim: DimArg): number[] | undefined {
  if (dim === null || dim === undefined) return undefined;
  const list = typeof dim === 'number' ? [dim] : Array.isArray(dim) ? dim : argError(op, 'an integer, a list of integers or null', 'dim', dim);
  return list.map((d) => {
    if (!Number.isInteger(d)) argError(op, 'an integer', 'dim', d);
    return x.ndim === 0 ? 0 : x.normDim(d, op);
  });
}

/**
 * ‖x‖_ord over `dim` (default: all elements), as torch.linalg.vector_norm:
 * ord 2 by default, any number, Infinity (max |x|), -Infinity (min |x|) or
 * 0 (the count of non-zero elements). Floating inputs only.
 */
export function vectorNorm(x: Tensor, ord: number = 2, dim?: DimArg, keepdim = false, opts?: NormOptions): Tensor {
  const op = 'linalg.vector_norm';
  if (typeof ord !== 'number' || Number.isNaN(ord)) argError(op, 'a number', 'ord', ord);
  if (typeof keepdim !== 'boolean') argError(op, 'a boolean', 'keepdim', keepdim);
  const v = floating(op, x, opts);
  const dims = dimList(op, v, dim);
  if (ord === Infinity || ord === -Infinity || ord < 0) {
    const empty = (dims ?? [...v.shape.keys()]).find((d) => v.shape[d] === 0);
    if (empty !== undefined || (dims === undefined && v.numel === 0)) {
      throw codedError('TSGPU_ARG', `${op}: ${op} cannot compute the ${ord === Infinity ? 'inf' : ord === -Infinity ? '-inf' : ord} norm on the dimension ${empty ?? 0} because this dimension is empty and the operation does not have an identity`);
    }
  }
  return tidy(() => {
    const all = dims === undefined;
    const ds = all ? [...v.shape.keys()] : dims;
    if (ord === 0) return v.ne(0).sum(ds, keepdim).to(v.dtype);
    if (all && !keepdim) return v.reshape(-1).norm(ord, 0);
    return v.norm(ord, ds, keepdim);
  });
}

/**
 * The matrix norm over the two dims of `dim` (default the last two), as
 * torch.linalg.matrix_norm: 'fro' (default; the 2-norm of the entries),
 * 1 / -1 (max / min column sum of |a|), Infinity / -Infinity (max / min
 * row sum). 2, -2 and 'nuc' need singular values and are refused.
 */
export function matrixNorm(a: Tensor, ord: MatrixOrd = 'fro', dim: readonly number[] = [-2, -1], keepdim = false, opts?: NormOptions): Tensor {
  const op = 'linalg.matrix_norm';
  checkTensor(op, 'A', a);
  if (a.ndim < 2) throw codedError('TSGPU_ARG', `${op}: The input tensor A must have at least 2 dimensions.`);
  if (typeof keepdim !== 'boolean') argError(op, 'a boolean', 'keepdim', keepdim);
  if (!Array.isArray(dim) || dim.length !== 2) argError(op, 'a list of two integers', 'dim', dim as unknown);
  const [d0, d1] = dim.map((d) => a.normDim(d, op));
  if (d0 === d1) throw codedError('TSGPU_ARG', `${op}: dims must be different. Got (${dim[0]}, ${dim[1]})`);
  if (ord !== 'fro' && ord !== 'nuc' && ![1, -1, 2, -2, Infinity, -Infinity].includes(ord as number)) {
    throw codedError('TSGPU_ARG', `${op}: Order ${typeof ord === 'number' && !Number.isFinite(ord) ? (ord > 0 ? 'inf' : '-inf') : ord} not supported.`);
  }
  if (ord === 'nuc' || ord === 2 || ord === -2) {
    throw codedError('TSGPU_ARG', `${op}: ord=${ord} needs the singular values of A, and tsgpu has no SVD yet; 'fro', 1, -1, Infinity and -Infinity are supported`);
  }
  const v = floating(op, a, opts);
  return tidy(() => {
    if (ord === 'fro') return v.norm(2, [d0, d1], keepdim);
    // 1: over rows (dim d0) first, then the max over columns; Infinity: the other way round.
    const [inner, outer] = ord === 1 || ord === -1 ? [d0, d1] : [d1, d0];
    const sums = v.abs().sum(inner, true);
    const r = (ord as number) > 0 ? sums.amax(outer, true) : sums.amin(outer, true);
    return keepdim ? r : r.squeeze([d0, d1]);
  });
}

/**
 * torch.linalg.norm: a vector norm when dim is one dim (or when neither
 * ord nor dim is given: the 2-norm of all elements), a matrix norm when dim
 * is two dims; with ord but no dim the input must be 1-D or 2-D.
 */
export function norm(a: Tensor, ord?: MatrixOrd | null, dim?: DimArg, keepdim = false, opts?: NormOptions): Tensor {
  const op = 'linalg.norm';
  checkTensor(op, 'A', a);
  const dims = dim === null || dim === undefined ? null : typeof dim === 'number' ? [dim] : dim;
  if (dims !== null && dims.length !== 1 && dims.length !== 2) {
    throw codedError('TSGPU_ARG', `${op}: If dim is specified, it must be of length 1 or 2. Got [${dims.join(', ')}]`);
  }
  if (dims === null && ord !== null && ord !== undefined && a.ndim !== 1 && a.ndim !== 2) {
    throw codedError('TSGPU_ARG', `${op}: If dim is not specified but ord is, the input must be 1D or 2D. Got ${a.ndim}D.`);
  }
  const matrix = dims !== null ? dims.length === 2 : typeof ord === 'string' || (ord !== null && ord !== undefined && a.ndim === 2);
  if (matrix) return matrixNorm(a, ord ?? 'fro', dims ?? [-2, -1], keepdim, opts);
  if (typeof ord === 'string') {
    throw codedError('TSGPU_ARG', `${op}: ord="${ord}" is a matrix norm: give two dims (dim of length 2) or a 2-D input`);
  }
  return vectorNorm(a, ord ?? 2, dims, keepdim, opts);
}
