/**
 * The functions of torch.nn.functional that training needs: embedding
 * (paddingIdx, maxNorm, scaleGradByFreq), layerNorm, rmsNorm, dropout — plus the losses of
 * losses.ts (crossEntropy, nllLoss, mseLoss), the activations of math.ts
 * (gelu, silu, softplus, relu, sigmoid, tanh), softmax/logSoftmax of
 * reduce.ts and linear and scaledDotProductAttention of linalg.ts under their nn names.
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { argError, checkTensor, emptyTensor, runInto, runOp } from './helpers';
import { indexSelect } from './indexing';
import { where } from './math';

export { gelu, silu, softplus, relu, sigmoid, tanh } from './math';
export { softmax, logSoftmax } from './reduce';
export { dropout } from './dropout';
export { scaledDotProductAttention, linear } from './linalg';
export { nllLoss, crossEntropy, mseLoss, LossOptions, CrossEntropyOptions, Reduction } from './losses';

/** Options of embedding (PyTorch's names, camelCase). */
export interface EmbeddingOptions {
  /**
   * The padding row, in [-numEmbeddings, numEmbeddings) (negative counts from
   * the end). The forward result is the same as without it: the row is looked
   * up like any other (in PyTorch it only keeps its gradient at zero).
   */
  paddingIdx?: number | null;
  /** Rows looked up whose normType-norm exceeds this are rescaled in `weight`, in place, to this norm first. */
  maxNorm?: number | null;
  /** The p of the norm maxNorm bounds (default 2). */
  normType?: number;
  /**
   * Scale the gradient of each row by the inverse of how often its index
   * occurs in `indices` (PyTorch's scale_grad_by_freq). Gradient only: the
   * forward result is the same either way.
   */
  scaleGradByFreq?: boolean;
  /**
   * A sparse gradient for weight. Not supported (there are no sparse
   * tensors): true is refused; false (the default) gives the dense gradient.
   */
  sparse?: boolean;
}

/**
 * Rows of `weight` [numEmbeddings, dim] picked by integer `indices` (any
 * shape): result [...indices.shape, dim]; see EmbeddingOptions.
 */
export function embedding(indices: Tensor, weight: Tensor, opts?: EmbeddingOptions): Tensor {
  checkTensor('embedding', 'input', indices);
  checkTensor('embedding', 'weight', weight);
  if (weight.ndim !== 2) argError('embedding', 'a 2-D weight', 'weight', formatShape(weight.shape));
  if (isFloatingPoint(indices.dtype) || indices.dtype === 'bool') argError('embedding', 'integer indices', 'input', indices.dtype);
  for (const name of ['scaleGradByFreq', 'sparse'] as const) {
    const flag = opts?.[name];
    if (flag !== undefined && typeof flag !== 'boolean') argError('embedding', 'a boolean', name, flag);
  }
  if (opts?.sparse) {
    throw codedError('TSGPU_ARG', 'embedding: sparse gradients are not supported (tsgpu has no sparse tensors); ' +
      'pass sparse: false (the default) for a dense gradient of weight\'s shape');
  }
  const rowsCount = weight.shape[0];
  const pad = opts?.paddingIdx ?? null;
  if (pad !== null && (!Number.isInteger(pad) || pad < -rowsCount || pad >= rowsCount)) {
    argError('embedding', `a paddingIdx in [${-rowsCount}, ${rowsCount - 1}] (within numEmbeddings)`, 'paddingIdx', pad);
  }
  const flat = indices.reshape(-1);
  const idx = flat.dtype === 'int64' ? flat : flat.long();
  try {
    const maxNorm = opts?.maxNorm ?? null;
    if (maxNorm !== null) renormRows(weight, idx, maxNorm, opts?.normType ?? 2);
    const rows = indexSelect(weight, 0, idx);
    const out = rows.view([...indices.shape, weight.shape[1]]);
    rows.dispose();
    return out;
  } finally {
    if (idx !== flat) idx.dispose();
    flat.dispose();
  }
}

/** Scales, in place, the rows of weight at idx whose p-norm exceeds maxNorm to maxNorm / (norm + 1e-7) of themselves. */
function renormRows(weight: Tensor, idx: Tensor, maxNorm: number, p: number): void {
  if (typeof maxNorm !== 'number' || !(maxNorm >= 0)) argError('embedding', 'a non-negative number', 'maxNorm', maxNorm);
  if (typeof p !== 'number' || Number.isNaN(p)) argError('embedding', 'a number', 'normType', p);
  if (idx.numel === 0) return;
  const rows = indexSelect(weight, 0, idx);
  const norms = rows.norm(p, 1, { keepdim: true });
  const over = norms.gt(maxNorm);
  const denom = norms.add(1e-7);
  const factor = denom.reciprocal();
  const scaled = factor.mul(maxNorm);
  const scale = where(over, scaled, 1);
  const renormed = rows.mul(scale);
  const col = idx.view(-1, 1);
  const at = col.expand(idx.numel, weight.shape[1]);
  try {
    weight.scatter_(0, at, renormed);
  } finally {
    for (const t of [rows, norms, over, denom, factor, scaled, scale, renormed, col, at]) t.dispose();
  }
}

function normalizedNumel(op: string, t: Tensor, normalizedShape: readonly number[]): number {
  const n = normalizedShape.length;
  const tail = t.shape.slice(t.ndim - n);
  if (n > t.ndim || tail.some((s, i) => s !== normalizedShape[i])) {
    throw codedError('TSGPU_ARG', `${op}: normalized shape ${formatShape(normalizedShape)} does not match the last dims of input of shape ${formatShape(t.shape)}`);
  }
  return normalizedShape.reduce((a, b) => a * b, 1);
}

function rowNorm(op: 'layerNorm' | 'rmsNorm', t: Tensor, shape: readonly number[], inputs: (Tensor | null | undefined)[], eps: number): Tensor {
  checkTensor(op, 'input', t);
  const n = normalizedNumel(op, t, shape);
  const x = t.contiguous();
  const extra = inputs.map((w) => (w ? w.contiguous() : null));
  try {
    return runInto(emptyTensor(t.shape.slice(), t.dtype, t.device), (out) =>
      runOp(op, [out], [x, ...extra], { normalizedNumel: n, eps }));
  } finally {
    if (x !== t) x.dispose();
    extra.forEach((e, i) => e && e !== inputs[i] && e.dispose());
  }
}

/** (x - mean) / sqrt(var + eps) * weight + bias over the trailing `normalizedShape` dims. */
export function layerNorm(t: Tensor, normalizedShape: readonly number[], weight?: Tensor | null, bias?: Tensor | null, eps = 1e-5): Tensor {
  return rowNorm('layerNorm', t, normalizedShape, [weight, bias], eps);
}

/** Machine epsilon of a floating dtype: rmsNorm's default eps, as PyTorch's. */
const EPS: Record<string, number> = { float32: 1.1920928955078125e-7, float64: 2.220446049250313e-16, float16: 0.0009765625, bfloat16: 0.0078125 };

/** x / sqrt(mean(x^2) + eps) * weight over the trailing dims (eps defaults to the dtype's epsilon). */
export function rmsNorm(t: Tensor, normalizedShape: readonly number[], weight?: Tensor | null, eps?: number | null): Tensor {
  checkTensor('rmsNorm', 'input', t);
  return rowNorm('rmsNorm', t, normalizedShape, [weight], eps ?? EPS[t.dtype] ?? EPS.float32);
}

