/**
 * The losses of torch.nn.functional with PyTorch's full signatures:
 * nllLoss and crossEntropy over input [C], [N, C] or [N, C, d1, ...] (classes
 * along dim 1, or dim 0 unbatched) with class-index targets (int64,
 * [N, d1, ...]) or, for crossEntropy, class-probability targets (the input's
 * shape); per-class `weight`, `ignoreIndex`, `labelSmoothing` and
 * `reduction` 'none' | 'mean' | 'sum' — and mseLoss.
 *
 * The means are PyTorch's: with class indices, the sum of the per-element
 * losses divided by the sum of the weights of the targets that count (their
 * number without weights; NaN when none count); with probabilities, divided
 * by the number of elements of the batch (N·d1·…). Label smoothing mixes
 * the target with the uniform distribution: (1 - ε)·nll + ε/C·Σ_c -w_c·logp_c.
 * crossEntropy with class indices runs fused (fused_losses.ts): one pass over
 * the logits forward and one backward, keeping only each row's logsumexp.
 */
import { isFloatingPoint } from '../dtype';
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { argError, checkTensor, sameDevice } from './helpers';
import { crossEntropyRows, RowLosses } from './fused_losses';
import { fusedKernelsOn } from './cuda_gates';
import { gather, indexSelect } from './indexing';
import { where } from './math';
import { logSoftmax, mean, sum } from './reduce';

/** How a loss combines its elements. */
export type Reduction = 'mean' | 'sum' | 'none';

/** Options of nllLoss. */
export interface LossOptions {
  /** Per-class weights [C] (of the input's dtype): each element's loss is scaled by its target's weight. */
  weight?: Tensor | null;
  /** A target value that contributes nothing, neither to the sum nor to the mean's divisor (default -100). */
  ignoreIndex?: number;
  /** 'mean' (default; weighted mean over the targets that count), 'sum' or 'none' (the target's shape). */
  reduction?: Reduction;
}

/** Options of crossEntropy. */
export interface CrossEntropyOptions extends LossOptions {
  /** Mixes the target with the uniform distribution over the C classes by this amount in [0, 1] (default 0). */
  labelSmoothing?: number;
}

function checkReduction(op: string, r: unknown): Reduction {
  if (r !== 'mean' && r !== 'sum' && r !== 'none') argError(op, "'mean', 'sum' or 'none'", 'reduction', r);
  return r as Reduction;
}

/** Disposes every tensor given (null and undefined skipped). */
function disposeAll(...ts: (Tensor | null | undefined)[]): void {
  for (const t of ts) t?.dispose();
}

/** The checked pieces of a classification loss call. */
interface Setup {
  classDim: number;
  classes: number;
  reduction: Reduction;
  ignoreIndex: number;
  weight: Tensor | null;
}

function setup(op: string, input: Tensor, target: Tensor, opts: LossOptions | undefined): Setup {
  checkTensor(op, 'input', input);
  checkTensor(op, 'target', target);
  if (input.ndim === 0) argError(op, 'an input of at least 1 dimension ([C], [N, C] or [N, C, d1, ...])', 'input', formatShape(input.shape));
  if (!isFloatingPoint(input.dtype)) argError(op, 'a floating-point input', 'input', input.dtype);
  const reduction = checkReduction(op, opts?.reduction ?? 'mean');
  const ignoreIndex = opts?.ignoreIndex ?? -100;
  if (!Number.isInteger(ignoreIndex)) argError(op, 'an integer', 'ignoreIndex', ignoreIndex);
  const classDim = input.ndim === 1 ? 0 : 1;
  const classes = input.shape[classDim];
  const weight = opts?.weight ?? null;
  if (weight !== null) {
    checkTensor(op, 'weight', weight);
    if (weight.ndim !== 1 || weight.shape[0] !== classes) {
      argError(op, `a weight of shape [${classes}] (one per class)`, 'weight', formatShape(weight.shape));
    }
    if (weight.dtype !== input.dtype) argError(op, `a weight of the input's dtype ${input.dtype}`, 'weight', weight.dtype);
  }
  sameDevice(op, [input, target, weight]);
  return { classDim, classes, reduction, ignoreIndex, weight };
}

/** Checks a class-index target's dtype, shape and (on cpu) values. */
function checkIndexTarget(op: string, input: Tensor, target: Tensor, s: Setup): void {
  const want = input.shape.filter((_, d) => d !== s.classDim);
  if (target.dtype !== 'int64') {
    const expected = op === 'crossEntropy' ? 'an int64 target of class indices (or a floating target of class probabilities)' : 'an int64 target of class indices';
    argError(op, expected, 'target', target.dtype);
  }
  if (target.ndim !== want.length || target.shape.some((n, d) => n !== want[d])) {
    throw codedError(
      'TSGPU_ARG',
      `${op}: expected a target of shape ${formatShape(want)} for input of shape ${formatShape(input.shape)}, got ${formatShape(target.shape)}`,
    );
  }
  // Reading the targets would wait for a cuda device; there an out-of-range target is skipped by gather.
  if (target.device !== 'cpu') return;
  const values = target.toArray() as BigInt64Array;
  for (let i = 0; i < values.length; i++) {
    const v = Number(values[i]);
    if (v !== s.ignoreIndex && (v < 0 || v >= s.classes)) {
      throw codedError('TSGPU_ARG', `${op}: target ${v} is out of bounds for ${s.classes} classes (expected 0 <= target < ${s.classes} or ignoreIndex ${s.ignoreIndex})`);
    }
  }
}

/** The weights [C] viewed along the class dim of `like` ([1, C, 1, ...]), to broadcast over it. */
function classWeights(weight: Tensor, like: Tensor, classDim: number): Tensor {
  return weight.view(like.shape.map((n, d) => (d === classDim ? n : 1)));
}

/**
 * The per-element losses of class-index targets: nll = -w[y]·logp[y] (0 where
 * ignored), the smoothing term -Σ_c w_c·logp_c (0 where ignored) when asked,
 * and the divisor of the mean, Σ w[y] over the kept targets.
 */
function classIndexLoss(logp: Tensor, target: Tensor, s: Setup, smoothing: number): { loss: Tensor; divisor: Tensor } {
  const kept = target.ne(s.ignoreIndex);
  const safe = where(kept, target, 0);
  const idx = safe.unsqueeze(s.classDim);
  const picked = gather(logp, s.classDim, idx);
  const pickedFlat = picked.squeeze(s.classDim);
  let wy: Tensor | null = null;
  let scaled: Tensor;
  if (s.weight) {
    const flat = safe.reshape(-1);
    const rows = indexSelect(s.weight, 0, flat);
    wy = rows.view(target.shape.slice());
    scaled = pickedFlat.mul(wy);
    disposeAll(flat, rows);
  } else {
    scaled = pickedFlat.neg();
  }
  const nll = s.weight ? scaled.neg() : scaled;
  let loss = where(kept, nll, 0);
  disposeAll(idx, picked, pickedFlat, safe, nll !== scaled ? scaled : null, nll);
  if (smoothing > 0) {
    let weighted: Tensor = logp;
    if (s.weight) {
      const w = classWeights(s.weight, logp, s.classDim);
      weighted = logp.mul(w);
      w.dispose();
    }
    const total = sum(weighted, s.classDim);
    const smooth = total.mul(-smoothing / s.classes);
    const smoothKept = where(kept, smooth, 0);
    const a = loss.mul(1 - smoothing);
    const mixed = a.add(smoothKept);
    disposeAll(weighted !== logp ? weighted : null, total, smooth, smoothKept, a, loss);
    loss = mixed;
  }
  let divisor: Tensor;
  if (wy) {
    const w = where(kept, wy, 0);
    divisor = sum(w);
    disposeAll(w, wy);
  } else {
    divisor = sum(kept);
  }
  kept.dispose();
  return { loss, divisor };
}

/** classIndexLoss, reduced as the options say. */
function reducedClassIndexLoss(logp: Tensor, target: Tensor, s: Setup, smoothing: number): Tensor {
  const { loss, divisor } = classIndexLoss(logp, target, s, smoothing);
  try {
    return reduceLoss(loss, divisor, s.reduction);
  } finally {
    divisor.dispose();
  }
}

/** Applies the reduction; `divisor` is the mean's denominator (a 0-dim tensor). */
function reduceLoss(loss: Tensor, divisor: Tensor, reduction: Reduction): Tensor {
  if (reduction === 'none') return loss;
  const total = sum(loss);
  loss.dispose();
  if (reduction === 'sum') return total;
  const out = total.div(divisor);
  total.dispose();
  return out;
}

/**
 * Negative log likelihood of log-probabilities `input` ([C], [N, C] or
 * [N, C, d1, ...]) at int64 class indices `target` ([], [N] or [N, d1, ...]):
 * -weight[y]·input[n, y, ...], reduced as LossOptions says.
 */
export function nllLoss(input: Tensor, target: Tensor, opts?: LossOptions): Tensor {
  const s = setup('nllLoss', input, target, opts);
  checkIndexTarget('nllLoss', input, target, s);
  return reducedClassIndexLoss(input, target, s, 0);
}

/**
 * logSoftmax over the classes + nllLoss, for logits `input` ([C], [N, C] or
 * [N, C, d1, ...]) and either int64 class indices `target` ([], [N] or
 * [N, d1, ...]) or class probabilities (a floating target of the input's
 * shape; ignoreIndex must then be negative, as PyTorch's).
 */
export function crossEntropy(input: Tensor, target: Tensor, opts?: CrossEntropyOptions): Tensor {
  const op = 'crossEntropy';
  const s = setup(op, input, target, opts);
  const eps = opts?.labelSmoothing ?? 0;
  if (typeof eps !== 'number' || !(eps >= 0 && eps <= 1)) argError(op, 'a number in [0, 1]', 'labelSmoothing', eps);
  const probabilities = isFloatingPoint(target.dtype);
  if (!probabilities) checkIndexTarget(op, input, target, s);
  else if (target.ndim !== input.ndim || target.shape.some((n, d) => n !== input.shape[d])) {
    throw shapeError(`${op}: expected a probability target of the input's shape ${formatShape(input.shape)}, got ${formatShape(target.shape)}`);
  } else if (s.ignoreIndex >= 0) {
    argError(op, 'a negative ignoreIndex with a floating (class probability) target', 'ignoreIndex', s.ignoreIndex);
  }
  if (!probabilities && fusedKernelsOn(input.device)) return fusedClassIndexLoss(input, target, s, eps);
  const logp = logSoftmax(input, s.classDim);
  try {
    return probabilities ? probabilityLoss(logp, target, s, eps) : reducedClassIndexLoss(logp, target, s, eps);
  } finally {
    logp.dispose();
  }
}

/**
 * crossEntropy with class indices through the fused kernel (fused_losses.ts):
 * the logits as rows [N·d1·…, C] (the class dim moved last: a copy for
 * [N, C, d1, ...]), one pass for the per-row losses, then the reduction.
 * The mean divides by Σ w[y] over the targets that count (their number
 * without weights), as PyTorch's.
 */
function fusedClassIndexLoss(input: Tensor, target: Tensor, s: Setup, eps: number): Tensor {
  const C = s.classes;
  const moved = input.ndim > 2 ? input.movedim(1, -1) : null;
  const rows = (moved ?? input).reshape([-1, C]);
  const dense = rows.contiguous();
  const flatTarget = target.reshape([-1]);
  const t = flatTarget.contiguous();
  const w = s.weight ? s.weight.contiguous() : null;
  let r: RowLosses;
  try {
    r = crossEntropyRows(dense, t, w, s.ignoreIndex, eps);
  } finally {
    disposeAll(moved, rows, dense !== rows ? dense : null, flatTarget, t !== flatTarget ? t : null, w !== s.weight ? w : null);
  }
  r.lse.dispose();
  const loss = r.loss;
  if (s.reduction === 'none') {
    const shaped = loss.view(target.shape.slice());
    const out = shaped.to(input.dtype);
    disposeAll(loss, out !== shaped ? shaped : null);
    return out;
  }
  const total = sum(loss);
  loss.dispose();
  let reduced = total;
  if (s.reduction === 'mean') {
    const kept = target.ne(s.ignoreIndex);
    let divisor: Tensor;
    if (s.weight) {
      const safe = where(kept, target, 0);
      const flat = safe.reshape(-1);
      const keptFlat = kept.reshape(-1);
      const wy = indexSelect(s.weight, 0, flat);
      const wKept = where(keptFlat, wy, 0);
      const wAcc = wKept.to(total.dtype);
      divisor = sum(wAcc);
      disposeAll(safe, flat, keptFlat, wy, wKept, wAcc !== wKept ? wAcc : null);
    } else {
      divisor = sum(kept);
    }
    reduced = total.div(divisor);
    disposeAll(kept, divisor, total);
  }
  const out = reduced.to(input.dtype);
  if (out !== reduced) reduced.dispose();
  return out;
}

/** -Σ_c w_c·target_c·logp_c per element (target smoothed first), mean over the N·d1·… elements. */
function probabilityLoss(logp: Tensor, target: Tensor, s: Setup, eps: number): Tensor {
  const t0 = target.dtype === logp.dtype ? target : target.to(logp.dtype);
  let t = t0;
  if (eps > 0) {
    const kept = t0.mul(1 - eps);
    t = kept.add(eps / s.classes);
    kept.dispose();
    if (t0 !== target) t0.dispose();
  }
  let prod = logp.mul(t);
  if (t !== target) t.dispose();
  if (s.weight) {
    const w = classWeights(s.weight, logp, s.classDim);
    const weighted = prod.mul(w);
    disposeAll(w, prod);
    prod = weighted;
  }
  const per = sum(prod, s.classDim);
  prod.dispose();
  const neg = per.neg();
  per.dispose();
  if (s.reduction === 'none') return neg;
  const total = sum(neg);
  neg.dispose();
  if (s.reduction === 'sum') return total;
  const out = total.div(logp.numel / s.classes);
  total.dispose();
  return out;
}

/** Mean (or sum / none) of the squared differences (shapes broadcast). */
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
