/**
 * The torch.linalg namespace: norm, vectorNorm, matrixNorm
 * (linalg_norms.ts), cross (linalg_vectors.ts, dim -1 by default), matmul
 * (linalg.ts) and vecdot. Functions of PyTorch's linalg that need a
 * factorization (svd, qr, solve, inv, eig…) are not there yet.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { checkTensor } from './helpers';
import { matmul } from './linalg';
import { matrixNorm, norm, vectorNorm } from './linalg_norms';
import { linalgCross } from './linalg_vectors';

export { NormOptions, MatrixOrd } from './linalg_norms';

/** Σ x·y along dim (default -1), broadcast: torch.linalg.vecdot. */
export function vecdot(x: Tensor, y: Tensor, dim = -1): Tensor {
  checkTensor('linalg.vecdot', 'x', x);
  checkTensor('linalg.vecdot', 'y', y);
  if (x.dtype !== y.dtype) {
    throw codedError('TSGPU_ARG', `linalg.vecdot: Expected x and y to have the same dtype, but found x of type ${x.dtype} and y of type ${y.dtype} instead`);
  }
  return tidy(() => x.mul(y).sum(dim));
}

/** torch.linalg. */
export const linalg = {
  /** See linalg_norms.ts norm. */
  norm,
  /** See linalg_norms.ts vectorNorm. */
  vectorNorm,
  /** See linalg_norms.ts matrixNorm. */
  matrixNorm,
  /** The cross product along dim (default -1); see linalg_vectors.ts. */
  cross: linalgCross,
  /** matmul with broadcasting, as torch.matmul. */
  matmul,
  /** See vecdot. */
  vecdot,
};
