/**
 * torch.nn.functional's helpers that compose from existing ops: pad
 * (constant, reflect, replicate, circular), oneHot, normalize,
 * cosineSimilarity and pairwiseDistance — PyTorch's parameters, defaults
 * and errors.
 */
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { fromBuffer, full, zeros } from './creation';
import { argError, checkTensor } from './helpers';
import { indexSelect } from './indexing';

/** The modes of pad. */
export type PadMode = 'constant' | 'reflect' | 'replicate' | 'circular';

/**
 * Pads (or, with negative amounts, crops) the last dims: `pad` lists
 * (left, right) amounts from the last dim backward, as PyTorch's
 * `F.pad(x, (1, 1, 2, 0))` pads the last dim by 1 and 1 and the one before
 * by 2 and 0. 'constant' fills with `value` (default 0); 'reflect' mirrors
 * without repeating the edge (amounts below the dim's size), 'replicate'
 * repeats the edge, 'circular' wraps around (amounts up to the dim's size).
 */
export function pad(input: Tensor, padding: readonly number[], mode: PadMode = 'constant', value?: number | null): Tensor {
  checkTensor('pad', 'input', input);
  if (!Array.isArray(padding) || padding.some((p) => !Number.isInteger(p))) argError('pad', 'a list of integers', 'pad', padding as unknown);
  if (padding.length % 2 !== 0) throw codedError('TSGPU_ARG', `pad: Padding length must be divisible by 2, got ${padding.length}`);
  if (padding.length / 2 > input.ndim) {
    throw codedError('TSGPU_ARG', `pad: Padding length should be less than or equal to two times the input dimension but got padding length ${padding.length} and input of dimension ${input.ndim}`);
  }
  if (!['constant', 'reflect', 'replicate', 'circular'].includes(mode)) argError('pad', "'constant', 'reflect', 'replicate' or 'circular'", 'mode', mode);
  if (mode !== 'constant' && value !== undefined && value !== null && value !== 0) {
    throw codedError('TSGPU_ARG', `pad: Padding mode "${mode}" doesn't take in value argument`);
  }
  const dims = padding.length / 2;
  return tidy(() => {
    if (mode === 'constant') return padConstant(input, padding, value ?? 0);
    let cur = input;
    for (let k = 0; k < dims; k++) {
      const d = input.ndim - 1 - k;
      const left = padding[2 * k];
      const right = padding[2 * k + 1];
      if (left === 0 && right === 0) continue;
      const size = cur.shape[d];
      const n = size + left + right;
      if (n < 0) throw codedError('TSGPU_ARG', `pad: the padded size of dimension ${d} is negative (${n}), input of shape ${formatShape(input.shape)}`);
      if (mode === 'reflect' && (left >= size || right >= size)) {
        throw shapeError(`pad: Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (${left}, ${right}) at dimension ${d} of input ${formatShape(input.shape)}`);
      }
      if (mode === 'circular' && (left > size || right > size)) {
        throw codedError('TSGPU_ARG', `pad: Padding value causes wrapping around more than once (padding (${left}, ${right}) of dimension ${d} of size ${size})`);
      }
      const index = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const j = i - left;
        let src: number;
        if (mode === 'replicate') src = Math.min(Math.max(j, 0), size - 1);
        else if (mode === 'circular') src = ((j % size) + size) % size;
        else {
          const period = 2 * (size - 1);
          let r = period === 0 ? 0 : ((j % period) + period) % period;
          if (r >= size) r = period - r;
          src = r;
        }
        index[i] = BigInt(src);
      }
      const idx = tensorOf(index, cur.device);
      cur = indexSelect(cur, d, idx);
    }
    return cur === input ? input.clone() : cur;
  });
}

/** An int64 tensor of `values` on `device`. */
function tensorOf(values: BigInt64Array, device: string): Tensor {
  const t = fromBuffer(values, { dtype: 'int64' });
  return device === 'cpu' ? t : t.to(device);
}

function padConstant(input: Tensor, padding: readonly number[], value: number): Tensor {
  const shape = input.shape.slice();
  let src = input;
  const dstRanges: [number, number, number][] = [];
  for (let k = 0; k < padding.length / 2; k++) {
    const d = input.ndim - 1 - k;
    const left = padding[2 * k];
    const right = padding[2 * k + 1];
    const n = input.shape[d] + left + right;
    if (n < 0) throw codedError('TSGPU_ARG', `pad: the padded size of dimension ${d} is negative (${n}), input of shape ${formatShape(input.shape)}`);
    shape[d] = n;
    // Negative amounts crop the input; positive ones leave room in the output.
    const cropL = Math.max(0, -left);
    const cropR = Math.max(0, -right);
    const keep = Math.max(0, input.shape[d] - cropL - cropR);
    src = src.narrow(d, Math.min(cropL, input.shape[d]), keep);
    dstRanges.push([d, Math.max(0, left), keep]);
  }
  const out = full(shape, value, { dtype: input.dtype, device: input.device });
  let slot = out;
  for (const [d, start, len] of dstRanges) slot = slot.narrow(d, Math.min(start, slot.shape[d]), Math.min(len, Math.max(0, slot.shape[d] - start)));
  if (slot.numel > 0) slot.copy_(src);
  return out;
}

/**
 * int64 one-hot vectors: out[..., c] = 1 where input == c, for c below
 * numClasses (default -1: one more than the largest value).
 */
export function oneHot(input: Tensor, numClasses = -1): Tensor {
  checkTensor('oneHot', 'input', input);
  if (input.dtype !== 'int64') throw codedError('TSGPU_ARG', `oneHot: one_hot is only applicable to index tensor of type LongTensor, got ${input.dtype}`);
  if (!Number.isInteger(numClasses)) argError('oneHot', 'an integer', 'numClasses', numClasses);
  return tidy(() => {
    let n = numClasses;
    if (input.numel > 0) {
      if (Number(input.min().item()) < 0) throw codedError('TSGPU_ARG', 'oneHot: Class values must be non-negative.');
      const top = Number(input.max().item());
      if (n === -1) n = top + 1;
      else if (top >= n) throw codedError('TSGPU_ARG', `oneHot: Class values must be smaller than num_classes (got ${top} for ${n} classes).`);
    } else if (n === -1) {
      throw codedError('TSGPU_ARG', 'oneHot: Can not infer total number of classes from empty tensor.');
    }
    if (input.numel === 0) return zeros([...input.shape, n], { dtype: 'int64', device: input.device });
    // Zeros with a 1 scattered into each row, as PyTorch's.
    return zeros([...input.shape, n], { dtype: 'int64', device: input.device }).scatter_(-1, input.unsqueeze(-1), 1);
  });
}

/** input / max(‖input‖_p along dim, eps) (defaults p 2, dim 1, eps 1e-12). */
export function normalize(input: Tensor, p = 2, dim = 1, eps = 1e-12): Tensor {
  checkTensor('normalize', 'input', input);
  return tidy(() => input.div(input.norm(p, dim, true).clampMin(eps)));
}

/** Σ x1·x2 / max(‖x1‖·‖x2‖, eps) along dim (defaults dim 1, eps 1e-8), broadcast. */
export function cosineSimilarity(x1: Tensor, x2: Tensor, dim = 1, eps = 1e-8): Tensor {
  checkTensor('cosineSimilarity', 'x1', x1);
  checkTensor('cosineSimilarity', 'x2', x2);
  return tidy(() => {
    const n1 = x1.norm(2, dim);
    const n2 = x2.norm(2, dim);
    return x1.mul(x2).sum(dim).div(n1.mul(n2).clampMin(eps));
  });
}

/** ‖x1 - x2 + eps‖_p along the last dim (defaults p 2, eps 1e-6, keepdim false). */
export function pairwiseDistance(x1: Tensor, x2: Tensor, p = 2, eps = 1e-6, keepdim = false): Tensor {
  checkTensor('pairwiseDistance', 'x1', x1);
  checkTensor('pairwiseDistance', 'x2', x2);
  return tidy(() => {
    const d = x1.sub(x2).add(eps);
    return d.norm(p, d.ndim === 0 ? undefined : -1, keepdim);
  });
}

declare module '../tensor' {
  interface Tensor {
    /** max(this, min): clamp with a lower bound only. */
    clampMin(min: Tensor | number): Tensor;
    /** min(this, max): clamp with an upper bound only. */
    clampMax(max: Tensor | number): Tensor;
  }
}

Tensor.prototype.clampMin = function (this: Tensor, min: Tensor | number) { return this.clamp(min, null); };
Tensor.prototype.clampMax = function (this: Tensor, max: Tensor | number) { return this.clamp(null, max); };
