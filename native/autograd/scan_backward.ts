/**
 * The backward formulas of the running scans (cumprod, logcumsumexp,
 * cummax/cummin), written with the public ops so that createGraph records
 * them too; the rows of derivatives.ts call these.
 */
import { Tensor } from '../tensor';
import { where } from '../ops/math';
import { arange, zeros } from '../ops/creation';
import { cat } from '../ops/indexing';
import { isGradEnabled } from './grad_mode';
import { flip } from '../ops/reorder';
import { finfo } from '../ops/dtype_info';

/** The sum of v over the positions at or after each one along dim. */
function reverseCumsum(v: Tensor, dim: number): Tensor {
  return flip(flip(v, dim).cumsum(dim), dim);
}

/**
 * d cumprod(x) / dx with g: each x_k gets Σ_{j≥k} g_j Π_{i≤j, i≠k} x_i. Before the first zero
 * of a row that is Σ_{j≥k} g_j y_j / x_k; at the first zero it is the same sum over the products
 * with that zero left out (the cumprod of x with 1 in its place); after it, 0 (every product
 * holds the zero). Exact with zeros, as PyTorch's.
 */
export function cumprodBackward(x: Tensor, y: Tensor, g: Tensor, dim: number): Tensor {
  const zero = x.eq(0);
  // The masks above hold the zeros' places fixed, so under createGraph (a graph of this formula is being
  // built) a row with a zero takes the plain sum instead, whose derivatives are right there too.
  if (isGradEnabled() && Boolean(zero.any().item())) return cumprodBackwardByTerms(x, g, dim);
  const zerosUpTo = zero.cumsum(dim);
  const before = zerosUpTo.eq(0);
  const firstZero = zero.logicalAnd(zerosUpTo.eq(1));
  const safe = where(before, x, 1);
  const plain = reverseCumsum(g.mul(y), dim).div(safe);
  const without = where(firstZero, 1, x).cumprod(dim);
  const atZero = reverseCumsum(g.mul(without).mul(zerosUpTo.ge(1)), dim);
  return where(before, plain, where(firstZero, atZero, 0));
}

/**
 * d cumprod(x) / dx with g as the sum it is, differentiable everywhere: for each position k along dim,
 * Σ_{j≥k} g_j Π_{i≤j, i≠k} x_i is the cumprod of x with 1 in place of x_k, times g, summed from k on.
 * O(n²) in the length n of dim (PyTorch's double backward takes the same sum).
 */
function cumprodBackwardByTerms(x: Tensor, g: Tensor, dim: number): Tensor {
  const d = dim < 0 ? dim + x.ndim : dim;
  const n = x.shape[d];
  const place = arange(n, { device: x.device }).reshape(x.shape.map((s, i) => (i === d ? n : 1)));
  const terms: Tensor[] = [];
  for (let k = 0; k < n; k++) {
    const without = where(place.eq(k), 1, x).cumprod(d);
    terms.push(without.narrow(d, k, n - k).mul(g.narrow(d, k, n - k)).sum(d, { keepdim: true }));
  }
  return cat(terms, d);
}

/**
 * d logcumsumexp(x) / dx with g: x_k gets Σ_{j≥k} g_j exp(x_k − y_j). Computed in log space,
 * the positive and negative parts of g apart, so that no exp overflows. The other part's places
 * hold the dtype's lowest finite number rather than log 0 = −∞, so that the formula's own
 * derivative (double backward) is finite wherever g is not 0.
 */
export function logcumsumexpBackward(x: Tensor, y: Tensor, g: Tensor, dim: number): Tensor {
  const logAbs = g.abs().log();
  const lowest = finfo(g.dtype).min;
  const part = (sign: Tensor): Tensor => flip(flip(where(sign, logAbs, lowest).sub(y), dim).logcumsumexp(dim), dim).add(x).exp();
  return part(g.gt(0)).sub(part(g.lt(0)));
}

/** cummax/cummin: each output's gradient goes to the element it came from (indices). */
export function cumExtremeBackward(indices: Tensor, g: Tensor, shape: readonly number[], dim: number): Tensor {
  const z = zeros(shape as number[], { dtype: g.dtype, device: g.device });
  return z.scatterAdd(dim, indices, g);
}
