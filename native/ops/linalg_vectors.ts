/**
 * Products and distances of vectors: torch.cross / torch.linalg.cross (the
 * 3-D cross product along a dim, broadcast) and torch.cdist (the p-norm
 * distance of every row of x1 to every row of x2, batched). Both compose
 * from existing ops (their gradients are those ops'); cdist's Euclidean
 * distance takes the matmul path, as PyTorch's, for more than 25 rows.
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { fromValues } from './creation';
import { argError, broadcastShapesFor, checkTensor, sameDevice } from './helpers';
import { cat, indexSelect } from './indexing';
import { onesLike } from './creation';
import { vectorNorm } from './linalg_norms';

/** a × b along dim d of tensors of one shape whose dim d has size 3. */
function crossAlong(a: Tensor, b: Tensor, d: number): Tensor {
  // c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3).
  const next = fromValues([1, 2, 0], [3], 'int64', a.device);
  const after = fromValues([2, 0, 1], [3], 'int64', a.device);
  const a1 = indexSelect(a, d, next), a2 = indexSelect(a, d, after);
  const b1 = indexSelect(b, d, next), b2 = indexSelect(b, d, after);
  return a1.mul(b2).sub(a2.mul(b1));
}

function crossOf(op: string, input: Tensor, other: Tensor, dim: number | null): Tensor {
  checkTensor(op, 'input', input);
  checkTensor(op, 'other', other);
  sameDevice(op, [input, other]);
  if (input.dtype === 'bool' || other.dtype === 'bool') argError(op, 'numeric tensors', 'input', 'bool');
  if (op === 'linalg.cross' && input.ndim !== other.ndim) {
    throw codedError('TSGPU_ARG', `${op}: inputs must have the same number of dimensions.`);
  }
  const shape = broadcastShapesFor(op, [input.shape, other.shape]);
  let d: number;
  if (dim === null) {
    // torch.cross without dim: the first dim of size 3 (PyTorch deprecates this default).
    d = shape.findIndex((s) => s === 3);
    if (d < 0) throw codedError('TSGPU_ARG', `${op}: no dimension of size 3 in input`);
  } else {
    if (!Number.isInteger(dim)) argError(op, 'an integer', 'dim', dim);
    if (dim < -shape.length || dim >= shape.length) {
      throw codedError('TSGPU_ARG', `${op}: Dimension out of range (expected to be in range of [${-shape.length}, ${shape.length - 1}], but got ${dim})`);
    }
    d = dim < 0 ? dim + shape.length : dim;
    const sa = input.shape[d - (shape.length - input.ndim)] ?? 1, sb = other.shape[d - (shape.length - other.ndim)] ?? 1;
    if (sa !== 3 || sb !== 3) throw codedError('TSGPU_ARG', `${op}: inputs dimension ${dim} must have length 3. Got ${sa} and ${sb}`);
  }
  return tidy(() => crossAlong(input.expand(shape), other.expand(shape), d));
}

/** The cross product of 3-vectors along dim (default: the first dim of size 3), broadcast; torch.cross. */
export function cross(input: Tensor, other: Tensor, dim: number | null = null): Tensor {
  return crossOf('cross', input, other, dim);
}

/** The cross product along dim (default -1), broadcast; torch.linalg.cross. */
export function linalgCross(input: Tensor, other: Tensor, dim = -1): Tensor {
  return crossOf('linalg.cross', input, other, dim);
}

/** How cdist computes Euclidean distances (PyTorch's compute_mode). */
export type CdistMode = 'use_mm_for_euclid_dist_if_necessary' | 'use_mm_for_euclid_dist' | 'donot_use_mm_for_euclid_dist';

const MODES: readonly CdistMode[] = ['use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist', 'donot_use_mm_for_euclid_dist'];

/**
 * The p-norm distance between each row of x1 [..., P, M] and each row of
 * x2 [..., R, M] (batch dims broadcast): [..., P, R]. p defaults to 2; for
 * p = 2 the 'use_mm_for_euclid_dist_if_necessary' mode (the default) uses
 * ‖a‖² + ‖b‖² - 2a·b through matmul when P or R exceeds 25, as PyTorch's.
 */
export function cdist(x1: Tensor, x2: Tensor, p = 2, computeMode: CdistMode = 'use_mm_for_euclid_dist_if_necessary'): Tensor {
  checkTensor('cdist', 'x1', x1);
  checkTensor('cdist', 'x2', x2);
  sameDevice('cdist', [x1, x2]);
  if (typeof p !== 'number' || Number.isNaN(p)) argError('cdist', 'a number', 'p', p);
  if (!MODES.includes(computeMode)) argError('cdist', MODES.map((m) => `'${m}'`).join(', '), 'computeMode', computeMode);
  if (x1.ndim < 2) throw codedError('TSGPU_ARG', `cdist: cdist only supports at least 2D tensors, X1 got: ${x1.ndim}D`);
  if (x2.ndim < 2) throw codedError('TSGPU_ARG', `cdist: cdist only supports at least 2D tensors, X2 got: ${x2.ndim}D`);
  if (!isFloatingPoint(x1.dtype)) throw codedError('TSGPU_ARG', `cdist: cdist only supports floating-point dtypes, X1 got: ${x1.dtype}`);
  if (!isFloatingPoint(x2.dtype)) throw codedError('TSGPU_ARG', `cdist: cdist only supports floating-point dtypes, X2 got: ${x2.dtype}`);
  const m1 = x1.shape[x1.ndim - 1], m2 = x2.shape[x2.ndim - 1];
  if (m1 !== m2) throw codedError('TSGPU_ARG', `cdist: X1 and X2 must have the same number of columns. X1: ${m1} X2: ${m2}`);
  if (p < 0) throw codedError('TSGPU_ARG', 'cdist: cdist only supports non-negative p values');
  if (x1.dtype !== x2.dtype) throw codedError('TSGPU_ARG', `cdist: expected both inputs to have the same dtype, but got ${x1.dtype} and ${x2.dtype}`);
  const rows1 = x1.shape[x1.ndim - 2], rows2 = x2.shape[x2.ndim - 2];
  const mm = p === 2 && (computeMode === 'use_mm_for_euclid_dist' || (computeMode === 'use_mm_for_euclid_dist_if_necessary' && (rows1 > 25 || rows2 > 25)));
  return tidy(() => {
    if (mm) {
      // One matmul of augmented rows, as PyTorch's: [-2 x1, ‖x1‖², 1] · [x2, 1, ‖x2‖²] = ‖x1 - x2‖².
      const n1 = x1.square().sum(-1, true);
      const n2 = x2.square().sum(-1, true);
      const a = cat([x1.mul(-2), n1, onesLike(n1)], -1);
      const b = cat([x2, onesLike(n2), n2], -1);
      const sq = a.matmul(b.transpose(-2, -1));
      // In place when no gradient flows (two passes over the result instead of two new results).
      return sq.requiresGrad ? sq.clampMin(1e-30).sqrt() : sq.clamp_(1e-30).sqrt_();
    }
    const diff = x1.unsqueeze(-2).sub(x2.unsqueeze(-3));
    return vectorNorm(diff, p, -1);
  });
}

declare module '../tensor' {
  interface Tensor {
    /** torch.cross(this, other, dim). */
    cross(other: Tensor, dim?: number | null): Tensor;
  }
}

Tensor.prototype.cross = function (this: Tensor, other: Tensor, dim: number | null = null) {
  return cross(this, other, dim);
};
