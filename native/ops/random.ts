/**
 * Random sampling beyond the creation functions, as PyTorch's: torch.normal
 * (tensor or number mean and std), torch.bernoulli, torch.multinomial (with
 * and without replacement), and the in-place fills bernoulli_ and
 * exponential_ — each with the `generator` option (generator.ts). They
 * compose from the uniform and normal draws of the op list, so a seed gives
 * the same numbers on cpu and cuda; PyTorch's own streams differ (its CPU
 * generator is a Mersenne Twister), so only the distributions agree.
 */
import { DType, isFloatingPoint, promoteTypes } from '../dtype';
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { empty, RandomTensorOptions, sizeAndOptions } from './creation';
import { GeneratorOptions, withGenerator } from './generator';
import { argError, broadcastShapesFor, checkTensor, runOp } from './helpers';
import { cat } from './indexing';

/** `t` filled, in place, by `op` on the generator's stream. */
function fill(name: string, t: Tensor, op: 'uniform' | 'normal', attrs: Record<string, number>, opts: GeneratorOptions | undefined): Tensor {
  withGenerator(name, opts?.generator, t.device, () => runOp(op, [t], [], attrs));
  return t;
}

/** Uniform [0, 1) values of a shape, dtype and device (for the samplers below). */
function uniform(name: string, shape: readonly number[], dtype: DType, device: string, opts: GeneratorOptions | undefined): Tensor {
  return fill(name, empty(shape as number[], { dtype, device }), 'uniform', { low: 0, high: 1 }, opts);
}

function checkStd(std: number): void {
  if (!(std >= 0)) throw codedError('TSGPU_ARG', `normal: normal expects std >= 0.0, but found std ${std}`);
}

/**
 * Normal samples with elementwise means and standard deviations (PyTorch's
 * four forms): `normal(meanTensor, stdTensor)` (broadcast together),
 * `normal(meanTensor, std = 1)`, `normal(mean, stdTensor)`, and
 * `normal(mean, std, size, { dtype, device, generator })`. The result is
 * mean + std · z for standard normal z, so its gradient flows to tensor
 * means and standard deviations.
 */
export function normal(mean: Tensor | number, std?: Tensor | number, size?: number | readonly number[] | RandomTensorOptions,
                       opts?: RandomTensorOptions): Tensor {
  const mt = mean instanceof Tensor, st = std instanceof Tensor;
  if (!mt && typeof mean !== 'number') argError('normal', 'a Tensor or a number', 'mean', mean);
  if (std !== undefined && !st && typeof std !== 'number') argError('normal', 'a Tensor or a number', 'std', std);
  if (!mt && !st) {
    // normal(mean, std, size, options): a new tensor of that size.
    if (std === undefined) argError('normal', 'a Tensor or a number', 'std', 'nothing');
    if (size === undefined || (typeof size === 'object' && !Array.isArray(size))) argError('normal', 'a size (with number mean and std)', 'size', 'nothing');
    const { shape } = sizeAndOptions('normal', [size as number | readonly number[]]);
    checkStd(std as number);
    const t = empty(shape, { dtype: opts?.dtype, device: opts?.device });
    return fill('normal', t, 'normal', { mean: mean as number, std: std as number }, opts);
  }
  const o = (size !== undefined && typeof size === 'object' && !Array.isArray(size) ? size : opts) as RandomTensorOptions | undefined;
  if (size !== undefined && (typeof size === 'number' || Array.isArray(size))) {
    throw codedError('TSGPU_ARG', 'normal: a size is taken only with a number mean and a number std (the tensors give the shape)');
  }
  const m = mt ? mean as Tensor : null, s = st ? std as Tensor : null;
  for (const [name, t] of [['mean', m], ['std', s]] as const) {
    if (t !== null && !isFloatingPoint(t.dtype)) {
      throw codedError('TSGPU_ARG', `normal: expected a floating point tensor for ${name}, got ${t.dtype}`);
    }
  }
  if (m !== null && s !== null && m.device !== s.device) {
    throw codedError('TSGPU_ARG', `normal: Expected all tensors to be on the same device, but found ${m.device} and ${s.device}`);
  }
  const like = (m ?? s) as Tensor;
  const shape = broadcastShapesFor('normal', [m?.shape ?? [], s?.shape ?? []]);
  if (s === null) checkStd((std ?? 1) as number);
  else if (s.numel > 0 && !(s.min().item() as number >= 0)) throw codedError('TSGPU_ARG', 'normal: normal expects all elements of std >= 0.0');
  const dtype = m !== null && s !== null ? promoteTypes(m.dtype, s.dtype) : like.dtype;
  return tidy(() => {
    const z = fill('normal', empty(shape, { dtype, device: like.device }), 'normal', { mean: 0, std: 1 }, o);
    const scaled = s === null ? z.mul((std ?? 1) as number) : z.mul(s);
    return m === null ? scaled.add(mean as number) : scaled.add(m);
  });
}

/**
 * 0 or 1 samples (in input's dtype): 1 with probability input[i], or with
 * probability `p` for every element when p is given. Probabilities must lie
 * in [0, 1].
 */
export function bernoulli(input: Tensor, p?: number | GeneratorOptions, opts?: GeneratorOptions): Tensor {
  checkTensor('bernoulli', 'input', input);
  const o = typeof p === 'object' && p !== null ? p : opts;
  const prob = typeof p === 'number' ? p : undefined;
  if (p !== undefined && p !== null && typeof p !== 'number' && typeof p !== 'object') argError('bernoulli', 'a number', 'p', p);
  if (!isFloatingPoint(input.dtype)) throw codedError('TSGPU_ARG', `bernoulli: expected a floating point tensor for input, got ${input.dtype}`);
  if (prob !== undefined) return bernoulliInto('bernoulli', empty(input.shape, { dtype: input.dtype, device: input.device }), prob, o);
  if (input.numel > 0) {
    const lo = input.min().item() as number, hi = input.max().item() as number;
    if (!(lo >= 0 && hi <= 1)) throw codedError('TSGPU_ARG', 'bernoulli: expected every probability of input to be in [0, 1], got values in [' + lo + ', ' + hi + ']');
  }
  return tidy(() => uniform('bernoulli', input.shape, input.dtype, input.device, o).lt(input).to(input.dtype));
}

/** `t` filled in place with 0/1 samples of probability p (a number in [0, 1] or a tensor broadcast to t). */
function bernoulliInto(name: string, t: Tensor, p: number | Tensor, opts: GeneratorOptions | undefined): Tensor {
  if (typeof p === 'number') {
    if (!(p >= 0 && p <= 1)) throw codedError('TSGPU_ARG', `${name}: ${name} expects p to be in [0, 1], but got p=${p}`);
  } else {
    checkTensor(name, 'p', p);
    if (p.numel > 0 && !((p.min().item() as number) >= 0 && (p.max().item() as number) <= 1)) {
      throw codedError('TSGPU_ARG', `${name}: ${name} expects all elements of p to be in [0, 1]`);
    }
  }
  tidy(() => {
    const u = uniform(name, t.shape, isFloatingPoint(t.dtype) ? t.dtype : 'float32', t.device, opts);
    t.copy_(u.lt(p));
  });
  return t;
}

/**
 * Indices of `numSamples` categories drawn for each row of `input` (1-D
 * [k] or 2-D [rows, k] non-negative weights, not necessarily summing to 1):
 * int64 [numSamples] or [rows, numSamples]. Without replacement (the
 * default) a row's samples are distinct, drawn in order as PyTorch's: keys
 * w / e with e exponential, the largest keys first. With replacement each
 * sample is the category whose slice of the cumulative distribution holds a
 * uniform draw.
 */
export function multinomial(input: Tensor, numSamples: number, replacement: boolean | GeneratorOptions = false,
                            opts?: GeneratorOptions): Tensor {
  checkTensor('multinomial', 'input', input);
  const o = typeof replacement === 'object' && replacement !== null ? replacement : opts;
  const repl = typeof replacement === 'boolean' ? replacement : false;
  if (typeof replacement !== 'boolean' && (typeof replacement !== 'object' || replacement === null)) argError('multinomial', 'a boolean', 'replacement', replacement);
  if (!Number.isInteger(numSamples)) argError('multinomial', 'an integer', 'numSamples', numSamples);
  if (!isFloatingPoint(input.dtype)) throw codedError('TSGPU_ARG', `multinomial: multinomial only supports floating-point dtypes for input, got: ${input.dtype}`);
  if (input.ndim !== 1 && input.ndim !== 2) throw codedError('TSGPU_ARG', `multinomial: prob_dist must be 1 or 2 dim, got input of shape ${formatShape(input.shape)}`);
  if (numSamples <= 0) throw codedError('TSGPU_ARG', 'multinomial: cannot sample n_sample <= 0 samples');
  const k = input.shape[input.ndim - 1];
  if (!repl && numSamples > k) throw codedError('TSGPU_ARG', 'multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement');
  return tidy(() => {
    const w = (input.ndim === 1 ? input.unsqueeze(0) : input).to('float64');
    const rows = w.shape[0];
    if (w.numel > 0) {
      const bad = w.lt(0).logicalOr(w.isfinite().logicalNot()).any().item();
      if (bad) throw codedError('TSGPU_ARG', 'multinomial: probability tensor contains either `inf`, `nan` or element < 0');
    }
    const total = w.sum(1, true);
    if (rows > 0 && (total.min().item() as number) <= 0) throw codedError('TSGPU_ARG', 'multinomial: invalid multinomial distribution (sum of probabilities <= 0)');
    let picked: Tensor;
    if (!repl) {
      // Keys w / e (e exponential): the largest numSamples keys are a sample without replacement, in order.
      const e = uniform('multinomial', w.shape, 'float64', w.device, o).neg().log1p().neg();
      picked = w.div(e.clampMin(1e-300)).topk(numSamples, 1).indices;
    } else {
      // The cumulative distribution, its last entry exactly 1; sample = #{c : cdf[c] <= u}.
      const cdf = w.cumsum(1);
      const unit = cdf.div(cdf.narrow(1, k - 1, 1));
      const u = uniform('multinomial', [rows, numSamples], 'float64', w.device, o);
      // Compared in chunks of samples, so that the [rows, chunk, k] comparison stays below 2^24 elements.
      const chunk = Math.max(1, Math.floor((1 << 24) / Math.max(1, rows * k)));
      const parts: Tensor[] = [];
      for (let at = 0; at < numSamples; at += chunk) {
        const uc = u.narrow(1, at, Math.min(chunk, numSamples - at));
        parts.push(unit.unsqueeze(1).le(uc.unsqueeze(2)).sum(2).clampMax(k - 1));
      }
      picked = parts.length === 1 ? parts[0] : cat(parts, 1);
    }
    return input.ndim === 1 ? picked.squeeze(0) : picked;
  });
}

declare module '../tensor' {
  interface Tensor {
    /** torch.bernoulli(this, …): 0/1 samples with the probabilities in this. */
    bernoulli(p?: number | GeneratorOptions, opts?: GeneratorOptions): Tensor;
    /** Fills in place with 0/1 samples of probability p (default 0.5; a number or a tensor broadcast to this); returns this. */
    bernoulli_(p?: number | Tensor, opts?: GeneratorOptions): Tensor;
    /** Fills in place with samples of the exponential distribution of rate lambd (default 1); returns this. */
    exponential_(lambd?: number, opts?: GeneratorOptions): Tensor;
    /** torch.multinomial(this, numSamples, replacement, …). */
    multinomial(numSamples: number, replacement?: boolean | GeneratorOptions, opts?: GeneratorOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.bernoulli = function (this: Tensor, p?: number | GeneratorOptions, o?: GeneratorOptions) { return bernoulli(this, p, o); };
P.bernoulli_ = function (this: Tensor, p: number | Tensor = 0.5, o?: GeneratorOptions) { return bernoulliInto('bernoulli_', this, p, o); };
P.exponential_ = function (this: Tensor, lambd = 1, o?: GeneratorOptions) {
  if (typeof lambd !== 'number' || Number.isNaN(lambd)) argError('exponential_', 'a number', 'lambd', lambd);
  if (lambd < 0) throw codedError('TSGPU_ARG', `exponential_: exponential_ expects lambda >= 0.0, but found lambda=${lambd}`);
  if (!isFloatingPoint(this.dtype)) throw codedError('TSGPU_ARG', `exponential_: expected a floating point tensor, got ${this.dtype}`);
  tidy(() => {
    // -log(1 - u) / lambd for u uniform in [0, 1): finite, and 0 only where u is 0.
    const u = uniform('exponential_', this.shape, this.dtype, this.device, o);
    this.copy_(u.neg().log1p().neg().div(lambd));
  });
  return this;
};
P.multinomial = function (this: Tensor, n: number, r?: boolean | GeneratorOptions, o?: GeneratorOptions) { return multinomial(this, n, r, o); };
