/**
 * dropout: zeroes each element with probability p and scales the others by
 * 1/(1-p). The keep mask is `rand(shape) >= p` from the runtime's generator
 * (Philox, counter-based), so a run after torch.manualSeed(n) drops the same
 * elements on cpu and cuda. scaledDotProductAttention's dropoutP uses it too.
 */
import { DType, getDefaultDtype, isFloatingPoint } from '../dtype';
import { Tensor } from '../tensor';
import { rand } from './creation';
import { argError, checkTensor } from './helpers';
import { where } from './math';

/**
 * The uniform numbers dropout compares with p for a tensor of `shape` and
 * `dtype` on `device`: float32 for half and bfloat16 tensors (a finer grid than
 * theirs), the tensor's dtype for float32/float64, the default dtype otherwise.
 */
export function dropoutUniform(shape: readonly number[], dtype: DType, device: string): Tensor {
  const d: DType = dtype === 'float16' || dtype === 'bfloat16' ? 'float32' : isFloatingPoint(dtype) ? dtype : getDefaultDtype();
  return rand(shape.slice(), { dtype: d, device });
}

/**
 * Zeroes elements with probability p and scales the rest by 1/(1-p) (a copy,
 * unchanged, when not training); `inplace` writes the result into t and returns t.
 */
export function dropout(t: Tensor, p = 0.5, training = true, inplace = false): Tensor {
  checkTensor('dropout', 'input', t);
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) argError('dropout', 'a probability in [0, 1]', 'p', p);
  if (inplace) {
    if (!training || p === 0) return t;
    const r = dropout(t, p, training);
    t.copy_(r);
    r.dispose();
    return t;
  }
  if (!training || p === 0) return t.clone();
  if (p === 1) return t.mul(0);
  const u = dropoutUniform(t.shape, t.dtype, t.device);
  const keep = u.ge(p);
  const scaled = t.mul(1 / (1 - p));
  try {
    return where(keep, scaled, 0);
  } finally {
    u.dispose();
    keep.dispose();
    scaled.dispose();
  }
}
