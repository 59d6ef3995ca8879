/**
 * The first float32 op (matmul) over whole contiguous
 * storages, through the addon's original entry points; they move to the op
 * registry with its kernels. Inputs are made contiguous (and broadcast)
 * here, so that every shape works.
 */
import { native } from '../addon';
import { codedError } from '../errors';
import { throwIfInterrupted } from '../interrupt';
import { formatShape, Tensor } from '../tensor';
import { checkTensor, emptyTensor, sameDevice } from './helpers';

function float32Only(op: string, t: Tensor): void {
  if (t.dtype !== 'float32') throw codedError('TSGPU_UNSUPPORTED', `${op}: dtype ${t.dtype} is not supported yet (float32 only)`);
}

/** A tensor that is exactly its whole storage, contiguous (t itself when it is). */
function compact(t: Tensor): Tensor {
  if (t.isContiguous() && t.storageOffset() === 0 && t.untypedStorage().nbytes === t.nbytes) return t;
  return t.clone();
}

/** Matrix product of two 2-D float32 tensors: [m, k] · [k, n] → [m, n]. */
export function matmul(a: Tensor, b: Tensor): Tensor {
  checkTensor('matmul', 'self', a);
  checkTensor('matmul', 'other', b);
  if (a.ndim !== 2 || b.ndim !== 2 || a.shape[1] !== b.shape[0]) {
    throw codedError('TSGPU_ARG', `matmul: shapes ${formatShape(a.shape)} and ${formatShape(b.shape)} cannot be multiplied (expected [m, k] and [k, n])`);
  }
  float32Only('matmul', a);
  float32Only('matmul', b);
  const device = sameDevice('matmul', [a, b]);
  const ca = compact(a);
  const cb = compact(b);
  try {
    const [m, k] = a.shape;
    const n = b.shape[1];
    const out = emptyTensor([m, n], 'float32', device);
    native.matmul(out.handle(), ca.handle(), cb.handle(), m, k, n);
    throwIfInterrupted('matmul');
    return out;
  } finally {
    if (ca !== a) ca.dispose();
    if (cb !== b) cb.dispose();
  }
}

declare module '../tensor' {
  interface Tensor {
    /** Matrix product of 2-D tensors. */
    matmul(other: Tensor): Tensor;
  }
}

const P = Tensor.prototype;
P.matmul = function (this: Tensor, other: Tensor) {
  return matmul(this, other);
};
