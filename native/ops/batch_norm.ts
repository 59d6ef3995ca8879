/**
 * torch.nn.functional.batchNorm: normalization of each channel (dim 1) over
 * the batch and spatial dims, in training (batch statistics, running
 * statistics updated in place with momentum, the variance unbiased in the
 * running update as PyTorch's) or evaluation (the running statistics).
 * One kernel forward (batchNormForward: the statistics, the running update and
 * the normalized output) and one backward (batchNormBackward), as PyTorch's
 * native_batch_norm: autograd keeps the input and the two per-channel
 * statistics, nothing of the input's size besides.
 */
import { codedError } from '../errors';
import { DType } from '../dtype';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { argError, checkTensor, emptyTensor, runOp, sameDevice } from './helpers';
import { batchNormKernelOn } from './cuda_gates';
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
 * A float16/bfloat16 input may have float32 weight, bias and running
 * statistics (an autocast network's): computed in float32, the output in the
 * input's dtype, as PyTorch's. Other mixes are cast to the input's dtype.
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
  const count = input.numel / c;
  if (training && count <= 1) {
    throw codedError('TSGPU_ARG', `${op}: Expected more than 1 value per channel when training, got input size ${formatShape(input.shape)}`);
  }
  if (!training && (!runningMean || !runningVar)) {
    throw codedError('TSGPU_ARG', `${op}: running_mean and running_var must be defined in evaluation mode (training: false)`);
  }
  if (!batchNormKernelOn(input.device)) return batchNormComposed(input, runningMean, runningVar, weight ?? null, bias ?? null, training, momentum, eps);
  const [out, saveMean, saveInvstd] = batchNormRun(input, weight ?? null, bias ?? null, runningMean, runningVar, training, momentum, eps);
  saveMean.dispose();
  saveInvstd.dispose();
  return out;
}

/**
 * batchNorm composed of reductions and elementwise ops (whose rows give backward), in the statistics' dtype
 * (float32 for 16-bit inputs), the output in the input's dtype: the path of CUDA tensors while the kernels'
 * CUDA tests have not run on a GPU (cuda_gates.ts).
 */
function batchNormComposed(
  input: Tensor, runningMean: Tensor | null, runningVar: Tensor | null, weight: Tensor | null, bias: Tensor | null,
  training: boolean, momentum: number, eps: number,
): Tensor {
  const c = input.shape[1];
  const stat = batchNormStatDtype(input.dtype);
  const dims = [0, ...Array.from({ length: input.ndim - 2 }, (_, i) => i + 2)];
  const count = input.numel / c;
  const bshape = input.shape.map((s, i) => (i === 1 ? s : 1));
  return tidy(() => {
    const x = input.to(stat);
    let y: Tensor;
    if (training) {
      const mean = x.mean(dims, true);
      const centred = x.sub(mean);
      const v = centred.square().mean(dims, true);
      if (runningMean || runningVar) {
        const m = mean.detach().view([c]);
        const unbiased = v.detach().view([c]).mul(count / (count - 1));
        if (runningMean) runningMean.mul_(1 - momentum).add_(m.to(runningMean.dtype).mul(momentum));
        if (runningVar) runningVar.mul_(1 - momentum).add_(unbiased.to(runningVar.dtype).mul(momentum));
      }
      y = centred.mul(v.add(eps).rsqrt());
    } else {
      const mean = (runningMean as Tensor).view(bshape).to(stat);
      y = x.sub(mean).mul((runningVar as Tensor).view(bshape).to(stat).add(eps).rsqrt());
    }
    if (weight) y = y.mul(weight.view(bshape).to(stat));
    if (bias) y = y.add(bias.view(bshape).to(stat));
    return y.to(input.dtype);
  });
}

/** The dtype the statistics of a batch norm of `dtype` are computed and kept in. */
export function batchNormStatDtype(dtype: DType): DType {
  return dtype === 'float64' ? 'float64' : 'float32';
}

/**
 * The parameters' dtype the kernels take for an input of `dtype`: the input's, or float32 for a
 * float16/bfloat16 input whose given parameters are all float32 (as cuDNN's and PyTorch's mixed batch norm).
 */
function paramDtype(dtype: DType, params: (Tensor | null)[]): DType {
  const given = params.filter((p): p is Tensor => p !== null);
  if (given.every((p) => p.dtype === dtype)) return dtype;
  const half = dtype === 'float16' || dtype === 'bfloat16';
  return half ? 'float32' : dtype;
}

/**
 * Runs batchNormForward: [out, saveMean, saveInvstd] (the statistics [C], float64 for float64 and
 * float32 otherwise: the batch's in training, the running ones' in evaluation). The input goes to the
 * kernel contiguous, the parameters contiguous in one dtype (paramDtype); running statistics that had to
 * be copied for that are written back. Autograd saves the input, the weight and the two statistics.
 */
export function batchNormRun(
  input: Tensor, weight: Tensor | null, bias: Tensor | null, runningMean: Tensor | null, runningVar: Tensor | null,
  training: boolean, momentum: number, eps: number,
): [Tensor, Tensor, Tensor] {
  const c = input.shape[1];
  const p = paramDtype(input.dtype, [weight, bias, runningMean, runningVar]);
  const made: Tensor[] = [];
  const fit = (t: Tensor | null): Tensor | null => {
    if (t === null) return null;
    let r = t.dtype === p ? t : t.to(p);
    if (r !== t) made.push(r);
    if (!r.isContiguous()) {
      r = r.contiguous();
      made.push(r);
    }
    return r;
  };
  const x = input.contiguous();
  if (x !== input) made.push(x);
  const stat = batchNormStatDtype(input.dtype);
  const out = emptyTensor(input.shape.slice(), input.dtype, input.device);
  const mean = emptyTensor([c], stat, input.device);
  const invstd = emptyTensor([c], stat, input.device);
  try {
    const w = fit(weight), b = fit(bias), rm = fit(runningMean), rv = fit(runningVar);
    runOp('batchNormForward', [out, mean, invstd], [x, w, b, rm, rv], { training, momentum, eps });
    if (training) {
      for (const [orig, used] of [[runningMean, rm], [runningVar, rv]] as const) {
        if (orig === null || used === null) continue;
        if (used !== orig) orig.copy_(used);
        else orig.markWritten();
      }
    }
    return [out, mean, invstd];
  } catch (e) {
    out.dispose();
    mean.dispose();
    invstd.dispose();
    throw e;
  } finally {
    // Copies the node saved keep their storage through their own references.
    for (const t of made) t.dispose();
  }
}

/**
 * Runs batchNormBackward: [gradInput (null unless wanted), gradWeight, gradBias], the two [C] in the
 * statistics' dtype, from the gradient of out, the input, the weight and batchNormForward's statistics.
 */
export function batchNormBackward(
  gradOut: Tensor, input: Tensor, weight: Tensor | null, saveMean: Tensor, saveInvstd: Tensor, training: boolean, wantInput: boolean,
): [Tensor | null, Tensor, Tensor] {
  const c = input.shape[1];
  const made: Tensor[] = [];
  const keep = (t: Tensor): Tensor => {
    if (t !== gradOut && t !== input && t !== weight) made.push(t);
    return t;
  };
  let g = gradOut.dtype === input.dtype ? gradOut : keep(gradOut.to(input.dtype));
  if (!g.isContiguous()) g = keep(g.contiguous());
  const x = input.isContiguous() ? input : keep(input.contiguous());
  const p = paramDtype(input.dtype, [weight]);
  let w = weight === null || weight.dtype === p ? weight : keep(weight.to(p));
  if (w !== null && !w.isContiguous()) w = keep(w.contiguous());
  const stat = batchNormStatDtype(input.dtype);
  const dx = emptyTensor(wantInput ? input.shape.slice() : [0], input.dtype, input.device);
  const dw = emptyTensor([c], stat, input.device);
  const db = emptyTensor([c], stat, input.device);
  try {
    runOp('batchNormBackward', [dx, dw, db], [g, x, w, saveMean, saveInvstd], { training });
  } catch (e) {
    dx.dispose();
    dw.dispose();
    db.dispose();
    throw e;
  } finally {
    for (const t of made) t.dispose();
  }
  if (!wantInput) dx.dispose();
  return [wantInput ? dx : null, dw, db];
}
