/**
 * More losses of torch.nn.functional, composed from elementwise ops and
 * reductions, with PyTorch's options and defaults (reduction 'mean'):
 * l1Loss, smoothL1Loss (beta), huberLoss (delta), binaryCrossEntropy
 * (weight; logs clamped at -100, as PyTorch's), binaryCrossEntropyWithLogits
 * (weight, posWeight; computed stably), klDiv (logTarget, 'batchmean'),
 * marginRankingLoss and cosineEmbeddingLoss (margin).
 */
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { argError, checkTensor } from './helpers';
import { Reduction } from './losses';
import { where } from './math';
import { xlogy } from './math_functions';

/** Options of the losses with a reduction only. */
export interface ReductionOptions {
  /** 'mean' (default), 'sum' or 'none' (the elementwise losses). */
  reduction?: Reduction;
}

function reduced(op: string, loss: Tensor, reduction: string | undefined): Tensor {
  const r = reduction ?? 'mean';
  if (r === 'none') return loss;
  if (r === 'mean') return loss.mean();
  if (r === 'sum') return loss.sum();
  return argError(op, "'mean', 'sum' or 'none'", 'reduction', r);
}

function pair(op: string, input: Tensor, target: Tensor): void {
  checkTensor(op, 'input', input);
  checkTensor(op, 'target', target);
}

/** |input - target|, reduced. */
export function l1Loss(input: Tensor, target: Tensor, opts?: ReductionOptions): Tensor {
  pair('l1Loss', input, target);
  return tidy(() => reduced('l1Loss', input.sub(target).abs(), opts?.reduction));
}

/** Options of smoothL1Loss. */
export interface SmoothL1Options extends ReductionOptions {
  /** Where the loss turns from quadratic to linear (default 1; 0 is l1Loss). */
  beta?: number;
}

/** 0.5 d² / beta where d = |input - target| < beta, else d - 0.5 beta; reduced. */
export function smoothL1Loss(input: Tensor, target: Tensor, opts?: SmoothL1Options): Tensor {
  pair('smoothL1Loss', input, target);
  const beta = opts?.beta ?? 1;
  if (typeof beta !== 'number' || beta < 0) argError('smoothL1Loss', 'a non-negative number', 'beta', beta);
  return tidy(() => {
    const d = input.sub(target).abs();
    const loss = beta === 0 ? d : where(d.lt(beta), d.mul(d).mul(0.5 / beta), d.sub(0.5 * beta));
    return reduced('smoothL1Loss', loss, opts?.reduction);
  });
}

/** Options of huberLoss. */
export interface HuberOptions extends ReductionOptions {
  /** Where the loss turns from quadratic to linear (default 1; must be positive). */
  delta?: number;
}

/** 0.5 d² where d = |input - target| < delta, else delta (d - 0.5 delta); reduced. */
export function huberLoss(input: Tensor, target: Tensor, opts?: HuberOptions): Tensor {
  pair('huberLoss', input, target);
  const delta = opts?.delta ?? 1;
  if (typeof delta !== 'number' || !(delta > 0)) {
    throw codedError('TSGPU_ARG', `huberLoss: huber_loss does not support non-positive values for delta, got ${String(delta)}`);
  }
  return tidy(() => {
    const d = input.sub(target).abs();
    const loss = where(d.lt(delta), d.mul(d).mul(0.5), d.sub(0.5 * delta).mul(delta));
    return reduced('huberLoss', loss, opts?.reduction);
  });
}

/** Options of binaryCrossEntropy. */
export interface BceOptions extends ReductionOptions {
  /** Weights of the elements (broadcast to input's shape). */
  weight?: Tensor | null;
}

/** -w (t log(x) + (1 - t) log(1 - x)) for probabilities x, logs clamped at -100; reduced. */
export function binaryCrossEntropy(input: Tensor, target: Tensor, opts?: BceOptions): Tensor {
  pair('binaryCrossEntropy', input, target);
  if (input.shape.length !== target.shape.length || input.shape.some((s, i) => s !== target.shape[i])) {
    throw shapeError(`binaryCrossEntropy: Using a target size (${formatShape(target.shape)}) that is different to the input size (${formatShape(input.shape)}) is deprecated. Please ensure they have the same size.`);
  }
  return tidy(() => {
    const logX = input.log().clampMin(-100);
    const log1mX = input.neg().add(1).log().clampMin(-100);
    let loss = target.mul(logX).add(target.neg().add(1).mul(log1mX)).neg();
    if (opts?.weight) loss = loss.mul(opts.weight);
    return reduced('binaryCrossEntropy', loss, opts?.reduction);
  });
}

/** Options of binaryCrossEntropyWithLogits. */
export interface BceWithLogitsOptions extends BceOptions {
  /** Weights of the positive targets per class (broadcast along the last dim). */
  posWeight?: Tensor | null;
}

/**
 * binaryCrossEntropy of sigmoid(input), computed stably from the logits:
 * (1 - t) x + (1 + (p - 1) t) (log(1 + exp(-|x|)) + max(-x, 0)), p the posWeight; reduced.
 */
export function binaryCrossEntropyWithLogits(input: Tensor, target: Tensor, opts?: BceWithLogitsOptions): Tensor {
  pair('binaryCrossEntropyWithLogits', input, target);
  if (input.shape.length !== target.shape.length || input.shape.some((s, i) => s !== target.shape[i])) {
    throw shapeError(`binaryCrossEntropyWithLogits: Target size (${formatShape(target.shape)}) must be the same as input size (${formatShape(input.shape)})`);
  }
  return tidy(() => {
    const softTerm = input.abs().neg().exp().log1p().add(input.neg().clampMin(0));
    const logWeight = opts?.posWeight ? opts.posWeight.sub(1).mul(target).add(1) : null;
    let loss = target.neg().add(1).mul(input).add(logWeight ? logWeight.mul(softTerm) : softTerm);
    if (opts?.weight) loss = loss.mul(opts.weight);
    return reduced('binaryCrossEntropyWithLogits', loss, opts?.reduction);
  });
}

/** Options of klDiv. */
export interface KlDivOptions {
  /** 'mean' (default; over every element), 'batchmean' (the sum over the batch size, KL's mathematical mean), 'sum' or 'none'. */
  reduction?: Reduction | 'batchmean';
  /** target holds log-probabilities (default false: probabilities). */
  logTarget?: boolean;
}

/** The pointwise KL divergence target · (log target - input) for log-probabilities input; reduced. */
export function klDiv(input: Tensor, target: Tensor, opts?: KlDivOptions): Tensor {
  pair('klDiv', input, target);
  const reduction = opts?.reduction ?? 'mean';
  return tidy(() => {
    const loss = opts?.logTarget ? target.exp().mul(target.sub(input)) : xlogy(target, target).sub(target.mul(input));
    if (reduction === 'batchmean') return input.ndim === 0 ? loss.sum() : loss.sum().div(input.shape[0]);
    return reduced('klDiv', loss, reduction);
  });
}

/** Options of the margin losses. */
export interface MarginOptions extends ReductionOptions {
  /** Default 0. */
  margin?: number;
}

/** max(0, -y (x1 - x2) + margin), y in {1, -1}; reduced. */
export function marginRankingLoss(input1: Tensor, input2: Tensor, target: Tensor, opts?: MarginOptions): Tensor {
  checkTensor('marginRankingLoss', 'input1', input1);
  checkTensor('marginRankingLoss', 'input2', input2);
  checkTensor('marginRankingLoss', 'target', target);
  const margin = opts?.margin ?? 0;
  return tidy(() => reduced('marginRankingLoss', target.neg().mul(input1.sub(input2)).add(margin).clampMin(0), opts?.reduction));
}

/** 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1 (cos along the last dim); reduced. */
export function cosineEmbeddingLoss(input1: Tensor, input2: Tensor, target: Tensor, opts?: MarginOptions): Tensor {
  checkTensor('cosineEmbeddingLoss', 'input1', input1);
  checkTensor('cosineEmbeddingLoss', 'input2', input2);
  checkTensor('cosineEmbeddingLoss', 'target', target);
  const margin = opts?.margin ?? 0;
  const eps = 1e-12; // PyTorch's EPSILON in cosine_embedding_loss
  return tidy(() => {
    const d = input1.ndim - 1;
    const prod = input1.mul(input2).sum(d);
    const mag1 = input1.mul(input1).sum(d).add(eps);
    const mag2 = input2.mul(input2).sum(d).add(eps);
    const cos = prod.div(mag1.mul(mag2).sqrt());
    const pos = cos.neg().add(1);
    const neg = cos.sub(margin).clampMin(0);
    const loss = where(target.eq(1), pos, where(target.eq(-1), neg, 0));
    return reduced('cosineEmbeddingLoss', loss, opts?.reduction);
  });
}
