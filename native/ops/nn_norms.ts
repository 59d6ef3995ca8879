/**
 * The normalizations of torch.nn.functional over channels and groups:
 * groupNorm, instanceNorm (with running statistics, as PyTorch's) and
 * localResponseNorm — PyTorch's positional parameters, defaults and
 * errors. They compose from reductions and elementwise ops, so their
 * gradients come from those ops' backward formulas.
 */
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { argError, checkTensor } from './helpers';
import { pad } from './nn_extras';

/** (x - mean) / sqrt(var + eps) over the last dim of x (population variance). */
function standardize(x: Tensor, eps: number): Tensor {
  const mean = x.mean(-1, true);
  const centered = x.sub(mean);
  const variance = centered.square().mean(-1, true);
  return centered.mul(variance.add(eps).rsqrt());
}

/** weight [C] and bias [C] applied along dim 1 of y [N, C, ...]. */
function affine(op: string, y: Tensor, input: Tensor, weight: Tensor | null | undefined, bias: Tensor | null | undefined): Tensor {
  const c = input.shape[1];
  const along = input.shape.map((_, d) => (d === 1 ? c : 1));
  let r = y;
  for (const [name, t] of [['weight', weight], ['bias', bias]] as const) {
    if (t === null || t === undefined) continue;
    checkTensor(op, name, t);
    if (t.ndim !== 1 || t.shape[0] !== c) {
      throw codedError('TSGPU_ARG', `${op}: Expected ${name} to be a vector of size equal to the number of channels in input, but got ${name} of shape ${formatShape(t.shape)} and input of shape ${formatShape(input.shape)}`);
    }
    r = name === 'weight' ? r.mul(t.reshape(along)) : r.add(t.reshape(along));
  }
  return r;
}

function checkEps(op: string, eps: unknown): number {
  if (typeof eps !== 'number' || !(eps >= 0)) argError(op, 'a non-negative number', 'eps', eps);
  return eps as number;
}

/**
 * Group normalization: the C channels of input [N, C, ...] split into
 * numGroups groups, each (with its spatial elements) normalized to mean 0
 * and variance 1, then scaled by weight [C] and shifted by bias [C]
 * (default eps 1e-5).
 */
export function groupNorm(input: Tensor, numGroups: number, weight?: Tensor | null, bias?: Tensor | null, eps = 1e-5): Tensor {
  const op = 'groupNorm';
  checkTensor(op, 'input', input);
  if (!Number.isInteger(numGroups) || numGroups <= 0) argError(op, 'a positive integer', 'numGroups', numGroups);
  checkEps(op, eps);
  if (input.ndim < 2) throw codedError('TSGPU_ARG', `${op}: Expected at least 2 dimensions for input tensor but received ${input.ndim}`);
  const [n, c] = input.shape;
  if (c % numGroups !== 0) {
    throw codedError('TSGPU_ARG', `${op}: Expected number of channels in input to be divisible by num_groups, but got input of shape ${formatShape(input.shape)} and num_groups=${numGroups}`);
  }
  return tidy(() => {
    const y = standardize(input.reshape([n, numGroups, -1]), eps).reshape(input.shape);
    return affine(op, y, input, weight, bias);
  });
}

/**
 * Instance normalization: each channel of each sample of input [N, C, ...]
 * normalized over its spatial elements (useInputStats, the default), then
 * weight [C] and bias [C]. With runningMean / runningVar [C] given and
 * useInputStats, they are updated in place: r = (1 - momentum)·r +
 * momentum·(the batch's mean of the instances' statistics; the variance
 * unbiased), as PyTorch's. With useInputStats false the running statistics
 * normalize instead. Defaults: momentum 0.1, eps 1e-5.
 */
export function instanceNorm(input: Tensor, runningMean?: Tensor | null, runningVar?: Tensor | null, weight?: Tensor | null,
                             bias?: Tensor | null, useInputStats = true, momentum = 0.1, eps = 1e-5): Tensor {
  const op = 'instanceNorm';
  checkTensor(op, 'input', input);
  checkEps(op, eps);
  if (typeof useInputStats !== 'boolean') argError(op, 'a boolean', 'useInputStats', useInputStats);
  if (typeof momentum !== 'number') argError(op, 'a number', 'momentum', momentum);
  if (input.ndim < 3) throw codedError('TSGPU_ARG', `${op}: Expected 3D or higher input (N, C, ...), got input of shape ${formatShape(input.shape)}`);
  const [n, c] = input.shape;
  const spatial = input.numel / Math.max(1, n * c);
  if (useInputStats && spatial <= 1) {
    throw codedError('TSGPU_ARG', `${op}: Expected more than 1 spatial element when training, got input size ${formatShape(input.shape)}`);
  }
  for (const [name, t] of [['runningMean', runningMean], ['runningVar', runningVar]] as const) {
    if (t === null || t === undefined) continue;
    checkTensor(op, name, t);
    if (t.ndim !== 1 || t.shape[0] !== c) argError(op, `a [${c}] tensor (one value per channel)`, name, formatShape(t.shape));
  }
  const along = input.shape.map((_, d) => (d === 1 ? c : 1));
  return tidy(() => {
    const rows = input.reshape([n, c, -1]);
    if (!useInputStats) {
      if (!runningMean || !runningVar) throw codedError('TSGPU_ARG', `${op}: Expected running_mean and running_var to be defined when use_input_stats is false`);
      const y = input.sub(runningMean.reshape(along)).mul(runningVar.reshape(along).add(eps).rsqrt());
      return affine(op, y, input, weight, bias);
    }
    if (runningMean || runningVar) {
      // Statistics of the detached input: the update records nothing for autograd.
      const r = rows.detach();
      if (runningMean) runningMean.mul_(1 - momentum).add_(r.mean(-1).mean(0).mul(momentum));
      if (runningVar) runningVar.mul_(1 - momentum).add_(r.var(-1, true).mean(0).mul(momentum));
    }
    return affine(op, standardize(rows, eps).reshape(input.shape), input, weight, bias);
  });
}

/**
 * Local response normalization across channels: x / (k + alpha/size ·
 * Σ x²)^beta, the sum over the `size` channels around each channel (zeros
 * beyond the edges), for input [N, C, ...] (defaults alpha 1e-4, beta
 * 0.75, k 1).
 */
export function localResponseNorm(input: Tensor, size: number, alpha = 1e-4, beta = 0.75, k = 1): Tensor {
  const op = 'localResponseNorm';
  checkTensor(op, 'input', input);
  if (!Number.isInteger(size) || size <= 0) argError(op, 'a positive integer', 'size', size);
  for (const [name, v] of [['alpha', alpha], ['beta', beta], ['k', k]] as const) if (typeof v !== 'number') argError(op, 'a number', name, v);
  if (input.ndim < 3) throw codedError('TSGPU_ARG', `${op}: Expected 3D or higher dimensionality input (got ${input.ndim} dimensions)`);
  if (input.numel === 0) return input.clone();
  const c = input.shape[1];
  const before = Math.floor(size / 2), after = Math.floor((size - 1) / 2);
  return tidy(() => {
    // Σ x² over the window [i - before, i + after] of channels, zeros beyond the edges: slices of the padded squares.
    const padding = [...new Array(2 * (input.ndim - 2)).fill(0), before, after];
    const sq = pad(input.square(), padding);
    let acc = sq.narrow(1, 0, c);
    for (let j = 1; j < size; j++) acc = acc.add(sq.narrow(1, j, c));
    return input.div(acc.mul(alpha / size).add(k).pow(beta));
  });
}
