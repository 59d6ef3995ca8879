/**
 * Running scans along one dim, as PyTorch's: cumprod, logcumsumexp, and
 * cummax/cummin with the index of each running extreme (kernels of
 * native/src/ops/common/scan_kernels.h).
 */
import { DType, isFloatingPoint, normalizeDtype } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { argError, castTo, checkTensor, emptyTensor, runInto, runOp } from './helpers';
import { ValuesIndices } from './reduce';

function checkDim(op: string, t: Tensor, dim: unknown): number {
  checkTensor(op, 'self', t);
  if (typeof dim !== 'number' || !Number.isInteger(dim)) argError(op, 'an integer', 'dim', dim);
  if (t.ndim > 0) return t.normDim(dim, op);
  if (dim !== 0 && dim !== -1) t.normDim(dim, op);
  return 0;
}

/**
 * The running product along dim: out[i] = t[0] · … · t[i]. Integers and bool
 * give int64 (as PyTorch's); `{ dtype }` casts the input first.
 */
export function cumprod(t: Tensor, dim: number, opts?: { dtype?: DType }): Tensor {
  const d = checkDim('cumprod', t, dim);
  const x = opts?.dtype === undefined ? t : castTo(t, normalizeDtype(opts.dtype));
  try {
    const outDtype = isFloatingPoint(x.dtype) ? x.dtype : 'int64';
    return runInto(emptyTensor(x.shape.slice(), outDtype, x.device), (out) => runOp('cumprod', [out], [x], { dim: d }));
  } finally {
    if (x !== t) x.dispose();
  }
}

/** The running log(sum(exp(t))) along dim, computed stably (floating dtypes). */
export function logcumsumexp(t: Tensor, dim: number): Tensor {
  const d = checkDim('logcumsumexp', t, dim);
  if (!isFloatingPoint(t.dtype)) {
    throw codedError('TSGPU_ARG', `logcumsumexp: expected a floating point input, got ${t.dtype} (cast it first, e.g. t.float())`);
  }
  return runInto(emptyTensor(t.shape.slice(), t.dtype, t.device), (out) => runOp('logcumsumexp', [out], [t], { dim: d }));
}

function cumExtreme(op: 'cummax' | 'cummin', t: Tensor, dim: number): ValuesIndices {
  const d = checkDim(op, t, dim);
  if (t.dtype === 'bool') {
    // Bools scan as the bytes 0 and 1.
    const bytes = castTo(t, 'uint8');
    try {
      const r = cumExtreme(op, bytes, d);
      const values = castTo(r.values, 'bool');
      r.values.dispose();
      return { values, indices: r.indices };
    } finally {
      bytes.dispose();
    }
  }
  const values = emptyTensor(t.shape.slice(), t.dtype, t.device);
  const indices = emptyTensor(t.shape.slice(), 'int64', t.device);
  try {
    runOp(op, [values, indices], [t], { dim: d });
  } catch (e) {
    values.dispose();
    indices.dispose();
    throw e;
  }
  return { values, indices };
}

/**
 * { values, indices }: the running maximum along dim and the index it was at
 * (of equal values the last; NaN propagates), as PyTorch's torch.cummax.
 */
export function cummax(t: Tensor, dim: number): ValuesIndices {
  return cumExtreme('cummax', t, dim);
}

/** { values, indices }: the running minimum along dim, as cummax. */
export function cummin(t: Tensor, dim: number): ValuesIndices {
  return cumExtreme('cummin', t, dim);
}

declare module '../tensor' {
  interface Tensor {
    cumprod(dim: number, opts?: { dtype?: DType }): Tensor;
    logcumsumexp(dim: number): Tensor;
    cummax(dim: number): ValuesIndices;
    cummin(dim: number): ValuesIndices;
  }
}

const P = Tensor.prototype;
P.cumprod = function (this: Tensor, dim: number, opts?: { dtype?: DType }) { return cumprod(this, dim, opts); };
P.logcumsumexp = function (this: Tensor, dim: number) { return logcumsumexp(this, dim); };
P.cummax = function (this: Tensor, dim: number) { return cummax(this, dim); };
P.cummin = function (this: Tensor, dim: number) { return cummin(this, dim); };
