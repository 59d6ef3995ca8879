/**
 * torch.nn.functional.batchNorm: normalization of each channel (dim 1) over
 * the batch and spatial dims, in training (batch statistics, running
 * statistics updated in place with momentum, the variance unbiased in the
 * running update as PyTorch's) or evaluation (the running statistics).
 * Composed from reductions and elementwise ops, whose rows give backward.
 */
import { codedError } from '../errors';
import { tidy } from '../scope';
import { formatShape, Tensor } from '../tensor';
import { argError, checkTensor, sameDevice } from './helpers';
import { checkFloating } from './conv_args';

/** Options of batchNorm (PyTorch's keyword arguments). */
export interface BatchNormOptions {
  /** Use the batch's statistics and update the running ones (default false: use the running ones). */
  training?: boolean;
  /** Weight of the batch statistic in the running update: running = (1 - m) running + m batch (default 0.1). */
  momentum?: number;
  /** Added to the variance before the square root (default 1e-5). */
  eps?: number;
}

/**
 * (x - mean) / sqrt(var + eps) * weight + bias per channel of `input`
 * [N, C, ...]. In training the statistics are the batch's (biased
 * variance), and runningMean/runningVar (when given) are updated in place:
 * running = (1 - momentum) running + momentum batch, with the unbiased
 * variance n / (n - 1) var. In evaluation the running statistics are used.
 */
export function batchNorm(
  input: Tensor, runningMean: Tensor | null, runningVar: Tensor | null,
  weight?: Tensor | null, bias?: Tensor | null, opts: BatchNormOptions = {},
): Tensor {
  const op = 'batchNorm';
  checkTensor(op, 'input', input);
  checkFloating(op, 'input', input);
  const named = { runningMean, runningVar, weight, bias };
  for (const [name, t] of Object.entries(named)) if (t !== null && t !== undefined) checkTensor(op, name, t);
  sameDevice(op, [input, runningMean, runningVar, weight, bias]);
  const training = opts.training ?? false;
  const momentum = opts.momentum ?? 0.1;
  const eps = opts.eps ?? 1e-5;
  if (typeof training !== 'boolean') argError(op, 'a boolean', 'training', training);
  if (typeof momentum !== 'number' || Number.isNaN(momentum)) argError(op, 'a number', 'momentum', momentum);
  if (typeof eps !== 'number' || !(eps >= 0)) argError(op, 'a non-negative number', 'eps', eps);
  if (input.ndim < 2) {
    throw codedError('TSGPU_ARG', `${op}: expected an input of 2 or more dims [N, C, ...] for input, got ${formatShape(input.shape)}`);
  }
  const c = input.shape[1];
  for (const [name, t] of Object.entries(named)) {
    if (t && t.numel !== c) {
      throw codedError('TSGPU_ARG', `${op}: ${name} should contain ${c} elements not ${t.numel} (input of size ${formatShape(input.shape)})`);
    }
  }
  const dims = [0, ...Array.from({ length: input.ndim - 2 }, (_, i) => i + 2)];
  const count = input.numel / c;
  const bshape = input.shape.map((s, i) => (i === 1 ? s : 1));
  if (training && count <= 1) {
    throw codedError('TSGPU_ARG', `${op}: Expected more than 1 value per channel when training, got input size ${formatShape(input.shape)}`);
  }
  if (!training && (!runningMean || !runningVar)) {
    throw codedError('TSGPU_ARG', `${op}: running_mean and running_var must be defined in evaluation mode (training: false)`);
  }
  return tidy(() => {
    let mean: Tensor;
    let invStd: Tensor;
    if (training) {
      mean = input.mean(dims, true);
      const centred = input.sub(mean);
      const v = centred.square().mean(dims, true);
      invStd = v.add(eps).rsqrt();
      if (runningMean || runningVar) {
        const m = mean.detach().view([c]);
        const unbiased = v.detach().view([c]).mul(count / (count - 1));
        if (runningMean) runningMean.mul_(1 - momentum).add_(m.to(runningMean.dtype).mul(momentum));
        if (runningVar) runningVar.mul_(1 - momentum).add_(unbiased.to(runningVar.dtype).mul(momentum));
      }
      let y = centred.mul(invStd);
      if (weight) y = y.mul(weight.view(bshape));
      if (bias) y = y.add(bias.view(bshape));
      return y;
    }
    mean = (runningMean as Tensor).view(bshape).to(input.dtype);
    invStd = (runningVar as Tensor).view(bshape).to(input.dtype).add(eps).rsqrt();
    let y = input.sub(mean).mul(invStd);
    if (weight) y = y.mul(weight.view(bshape));
    if (bias) y = y.add(bias.view(bshape));
    return y;
  });
}
