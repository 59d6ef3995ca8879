/**
 * The functions of torch.nn.functional that training needs: embedding,
 * layerNorm, rmsNorm, dropout, crossEntropy (ignoreIndex, label smoothing),
 * nllLoss, mseLoss — plus the activations of math.ts (gelu, silu, softplus,
 * relu, sigmoid, tanh) and softmax/logSoftmax of reduce.ts under their nn
 * names. Reductions follow PyTorch: 'mean' (default), 'sum' or 'none'.
 */
import { getDefaultDtype, isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { rand } from './creation';
import { argError, checkTensor, emptyTensor, runInto, runOp } from './helpers';
import { indexSelect, gather } from './indexing';
import { logSoftmax, mean, sum } from './reduce';
import { where } from './math';

export { gelu, silu, softplus, relu, sigmoid, tanh } from './math';
export { softmax, logSoftmax } from './reduce';

/** How a loss combines its elements. */
export type Reduction = 'mean' | 'sum' | 'none';

function checkReduction(op: string, r: unknown): Reduction {
  if (r !== 'mean' && r !== 'sum' && r !== 'none') argError(op, "'mean', 'sum' or 'none'", 'reduction', r);
  return r as Reduction;
}

/** Rows of `weight` picked by integer `indices` (any shape): result [...indices.shape, dim]. */
export function embedding(indices: Tensor, weight: Tensor): Tensor {
  checkTensor('embedding', 'input', indices);
  checkTensor('embedding', 'weight', weight);
  if (weight.ndim !== 2) argError('embedding', 'a 2-D weight', 'weight', formatShape(weight.shape));
  const flat = indices.reshape(-1);
  const idx = flat.dtype === 'int64' ? flat : flat.long();
  try {
    const rows = indexSelect(weight, 0, idx);
    const out = rows.view([...indices.shape, weight.shape[1]]);
    rows.dispose();
    return out;
  } finally {
    if (idx !== flat) idx.dispose();
    flat.dispose();
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

/** Zeroes elements with probability p and scales the rest by 1/(1-p) (identity when not training). */
export function dropout(t: Tensor, p = 0.5, training = true): Tensor {
  checkTensor('dropout', 'input', t);
  if (!(p >= 0 && p <= 1)) argError('dropout', 'a probability in [0, 1]', 'p', p);
  if (!training || p === 0) return t.clone();
  if (p === 1) return t.mul(0);
  const u = rand(t.shape.slice(), { dtype: isFloatingPoint(t.dtype) ? t.dtype : getDefaultDtype(), device: t.device });
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

/** Options of nllLoss and crossEntropy. */
export interface LossOptions {
  /** 'mean' (over the targets that are not ignored; default), 'sum' or 'none'. */
  reduction?: Reduction;
  /** A target value that contributes nothing (default -100). */
  ignoreIndex?: number;
}

/** Per-sample losses -logp[i, target[i]] (0 where ignored), the mask of counted samples, for [N, C] or [C]. */
function pickedLoss(op: string, logp: Tensor, target: Tensor, ignoreIndex: number): { loss: Tensor; kept: Tensor } {
  checkTensor(op, 'target', target);
  if (target.dtype !== 'int64') argError(op, 'an int64 target', 'target', target.dtype);
  if (logp.ndim !== 2 || target.ndim !== 1 || target.shape[0] !== logp.shape[0]) {
    throw codedError('TSGPU_ARG', `${op}: expected input [N, C] and target [N], got ${formatShape(logp.shape)} and ${formatShape(target.shape)}`);
  }
  const kept = target.ne(ignoreIndex);
  const safe = where(kept, target, 0);
  const col = safe.view(-1, 1);
  const picked = gather(logp, 1, col);
  const flat = picked.view(-1);
  const negated = flat.neg();
  const loss = where(kept, negated, 0);
  for (const x of [safe, col, picked, flat, negated]) x.dispose();
  return { loss, kept };
}

function reduceLoss(loss: Tensor, kept: Tensor, reduction: Reduction): Tensor {
  if (reduction === 'none') return loss;
  const total = sum(loss);
  if (reduction === 'sum') return total;
  const count = sum(kept);
  const out = total.div(count);
  for (const x of [total, count]) x.dispose();
  return out;
}

/** Negative log likelihood of log-probabilities [N, C] at integer targets [N]. */
export function nllLoss(input: Tensor, target: Tensor, opts?: LossOptions): Tensor {
  checkTensor('nllLoss', 'input', input);
  const reduction = checkReduction('nllLoss', opts?.reduction ?? 'mean');
  const { loss, kept } = pickedLoss('nllLoss', input, target, opts?.ignoreIndex ?? -100);
  const out = reduceLoss(loss, kept, reduction);
  if (out !== loss) loss.dispose();
  kept.dispose();
  return out;
}

/** Options of crossEntropy. */
export interface CrossEntropyOptions extends LossOptions {
  /** Mixes the target with the uniform distribution by this amount (default 0). */
  labelSmoothing?: number;
}

/** logSoftmax + nllLoss over logits [N, C] and integer targets [N], with label smoothing. */
export function crossEntropy(input: Tensor, target: Tensor, opts?: CrossEntropyOptions): Tensor {
  checkTensor('crossEntropy', 'input', input);
  const reduction = checkReduction('crossEntropy', opts?.reduction ?? 'mean');
  const eps = opts?.labelSmoothing ?? 0;
  if (!(eps >= 0 && eps <= 1)) argError('crossEntropy', 'a number in [0, 1]', 'labelSmoothing', eps);
  const logp = logSoftmax(input, 1);
  const { loss, kept } = pickedLoss('crossEntropy', logp, target, opts?.ignoreIndex ?? -100);
  let perSample = loss;
  if (eps > 0) {
    // (1 - eps) * nll + eps * mean over classes of -logp, for the samples that count.
    const C = input.shape[1];
    const total = sum(logp, 1);
    const smooth = total.mul(-eps / C);
    const smoothKept = where(kept, smooth, 0);
    const a = loss.mul(1 - eps);
    perSample = a.add(smoothKept);
    for (const x of [total, smooth, smoothKept, a, loss]) x.dispose();
  }
  logp.dispose();
  const out = reduceLoss(perSample, kept, reduction);
  if (out !== perSample) perSample.dispose();
  kept.dispose();
  return out;
}

/** Mean (or sum / none) of the squared differences. */
export function mseLoss(input: Tensor, target: Tensor, opts?: { reduction?: Reduction }): Tensor {
  checkTensor('mseLoss', 'input', input);
  checkTensor('mseLoss', 'target', target);
  const reduction = checkReduction('mseLoss', opts?.reduction ?? 'mean');
  const d = input.sub(target);
  const sq = d.mul(d);
  d.dispose();
  if (reduction === 'none') return sq;
  const out = reduction === 'sum' ? sum(sq) : mean(sq);
  sq.dispose();
  return out;
}
