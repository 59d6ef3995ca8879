/**
 * The fused row kernels behind crossEntropy with class indices and the
 * backward of softmax / logSoftmax: one pass over the logits forward (the
 * per-row loss and logsumexp, nothing else kept), one pass backward (the
 * gradient from the saved logsumexp, no probabilities materialized). The
 * public losses (losses.ts) and the backward formulas
 * (autograd/derivatives.ts) call these; they are not part of `torch`.
 */
import { DType } from '../dtype';
import { Tensor } from '../tensor';
import { emptyTensor, runInto, runOp } from './helpers';

/** The dtype of the fused loss and logsumexp of logits of dtype `d`: float64 stays, the rest float32. */
export function lossAccDtype(d: DType): DType {
  return d === 'float64' ? 'float64' : 'float32';
}

/** `t` as a contiguous tensor of `dtype` (t itself when it is one already). */
function dense(t: Tensor, dtype: DType): Tensor {
  const cast = t.dtype === dtype ? t : t.to(dtype);
  const c = cast.contiguous();
  if (cast !== t && cast !== c) cast.dispose();
  return c;
}

/** The per-row cross entropy of contiguous logits [N, C] and its saved logsumexp. */
export interface RowLosses {
  /** [N]: (1 - ε)·w[y]·(lse - x[y]) + ε/C·Σ_c w_c·(lse - x_c); 0 where the target is ignoreIndex. */
  loss: Tensor;
  /** [N]: log Σ_c exp(x_c), which the backward reads. */
  lse: Tensor;
}

/**
 * Runs the fused cross entropy on logits `x` [N, C] (contiguous) at int64
 * targets `target` [N] with optional class weights [C] (the logits' dtype).
 * Recorded by autograd (CrossEntropyLossBackward0 in derivatives.ts).
 */
export function crossEntropyRows(x: Tensor, target: Tensor, weight: Tensor | null, ignoreIndex: number, labelSmoothing: number): RowLosses {
  const n = x.shape[0];
  const acc = lossAccDtype(x.dtype);
  const loss = emptyTensor([n], acc, x.device);
  const lse = emptyTensor([n], acc, x.device);
  try {
    runOp('crossEntropyLoss', [loss, lse], [x, target, weight], { ignoreIndex, labelSmoothing });
  } catch (e) {
    loss.dispose();
    lse.dispose();
    throw e;
  }
  return { loss, lse };
}

/**
 * The gradient of the fused cross entropy with respect to the logits `x`
 * [N, C]: gradLoss[n]·(p - smoothed one-hot) (weighted), written in one pass
 * from the saved `lse`. gradLoss is [N] of the loss's dtype.
 */
export function crossEntropyBackward(gradLoss: Tensor, x: Tensor, target: Tensor, lse: Tensor, weight: Tensor | null,
                                     ignoreIndex: number, labelSmoothing: number): Tensor {
  const g = dense(gradLoss, lse.dtype);
  try {
    return runInto(emptyTensor(x.shape.slice(), x.dtype, x.device), (out) =>
      runOp('crossEntropyBackward', [out], [g, x, target, lse, weight], { ignoreIndex, labelSmoothing }));
  } finally {
    if (g !== gradLoss) g.dispose();
  }
}

/**
 * The gradient of softmax (`log` false: y·(g - Σ g·y)) or logSoftmax (`log`
 * true: g - exp(y)·Σ g) over the last dim, from the output `y` and the
 * output's gradient `g` (any layout; made contiguous), in one kernel.
 */
export function softmaxBackwardLastDim(g: Tensor, y: Tensor, log: boolean): Tensor {
  const gc = dense(g, y.dtype);
  const yc = dense(y, y.dtype);
  try {
    return runInto(emptyTensor(y.shape.slice(), y.dtype, y.device), (out) =>
      runOp(log ? 'logSoftmaxBackward' : 'softmaxBackward', [out], [gc, yc], {}));
  } finally {
    if (gc !== g) gc.dispose();
    if (yc !== y) yc.dispose();
  }
}
