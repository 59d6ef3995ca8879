/**
 * nn.utils: clipGradNorm_, clipGradValue_, parametersToVector,
 * vectorToParameters — PyTorch's torch.nn.utils, on the gradients in place
 * and outside autograd.
 */
import { noGrad } from '../autograd/grad_mode';
import { codedError } from '../errors';
import { tensor } from '../ops/creation';
import { cat, stack } from '../ops/indexing';
import { norm } from '../ops/reduce';
import { Tensor } from '../tensor';

/** One tensor or an iterable of them (a module's parameters()). */
export type TensorOrTensors = Tensor | Iterable<Tensor>;

function tensorList(op: string, ps: TensorOrTensors): Tensor[] {
  if (ps instanceof Tensor) return [ps];
  if (ps === null || typeof ps !== 'object' || !(Symbol.iterator in ps)) {
    throw codedError('TSGPU_ARG', `${op}: expected a Tensor or an iterable of Tensors for parameters, got ${ps === null ? 'null' : typeof ps}`);
  }
  const list = [...ps];
  list.forEach((p, i) => {
    if (!(p instanceof Tensor)) throw codedError('TSGPU_ARG', `${op}: expected a Tensor for parameters[${i}], got ${typeof p}`);
  });
  return list;
}

/** Options of clipGradNorm_. */
export interface ClipGradNormOptions {
  /** The p of the norm (default 2; Infinity for the largest absolute value). */
  normType?: number;
  /** Throw when the total norm is NaN or infinite (default false: the gradients are scaled by it anyway). */
  errorIfNonfinite?: boolean;
}

/**
 * Scales the gradients of `parameters` in place so that their total norm
 * (the norm of the per-gradient norms, as if all were one vector) is at most
 * maxNorm: each is multiplied by min(1, maxNorm / (total + 1e-6)). Returns
 * the total norm before clipping (a 0-dim tensor the caller owns).
 */
export function clipGradNorm_(parameters: TensorOrTensors, maxNorm: number, opts: ClipGradNormOptions = {}): Tensor {
  const params = tensorList('clipGradNorm_', parameters);
  if (typeof maxNorm !== 'number' || Number.isNaN(maxNorm)) throw codedError('TSGPU_ARG', `clipGradNorm_: expected a number for maxNorm, got ${String(maxNorm)}`);
  const p = opts.normType ?? 2;
  if (typeof p !== 'number' || Number.isNaN(p)) throw codedError('TSGPU_ARG', `clipGradNorm_: expected a number for normType, got ${String(p)}`);
  const grads = params.map((q) => q.grad).filter((g): g is Tensor => g !== null);
  return noGrad(() => {
    if (grads.length === 0) return tensor(0);
    const norms = grads.map((g) => norm(g, p));
    const moved = norms.map((n) => (n.device === grads[0].device ? n : n.to(grads[0].device)));
    const all = stack(moved);
    const total = norm(all, p);
    for (const t of new Set([...norms, ...moved, all])) t.dispose();
    const value = total.item();
    if (opts.errorIfNonfinite && !Number.isFinite(value)) {
      total.dispose();
      throw codedError('TSGPU_NN', `The total norm of order ${p} for gradients from \`parameters\` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set \`errorIfNonfinite: false\``);
    }
    const denom = total.add(1e-6);
    const coef = denom.reciprocal().mul_(maxNorm).clamp_(null, 1);
    denom.dispose();
    for (const g of grads) {
      const c = coef.device === g.device && coef.dtype === g.dtype ? coef : coef.to({ device: g.device, dtype: g.dtype });
      g.mul_(c);
      if (c !== coef) c.dispose();
    }
    coef.dispose();
    return total;
  });
}

/** Clamps every gradient of `parameters` to [-clipValue, clipValue] in place. */
export function clipGradValue_(parameters: TensorOrTensors, clipValue: number): void {
  const params = tensorList('clipGradValue_', parameters);
  if (typeof clipValue !== 'number' || Number.isNaN(clipValue)) throw codedError('TSGPU_ARG', `clipGradValue_: expected a number for clipValue, got ${String(clipValue)}`);
  noGrad(() => {
    for (const q of params) q.grad?.clamp_(-clipValue, clipValue);
  });
}

/** The parameters flattened and concatenated into one vector (a copy, outside autograd's graph of them only if they need no grad). */
export function parametersToVector(parameters: TensorOrTensors): Tensor {
  const params = tensorList('parametersToVector', parameters);
  if (params.length === 0) throw codedError('TSGPU_ARG', 'parametersToVector: expected at least one parameter');
  const device = params[0].device;
  params.forEach((q, i) => {
    if (q.device !== device) throw codedError('TSGPU_ARG', `Found two parameters on different devices, this is currently not supported (parameters[${i}] is on ${q.device}, parameters[0] on ${device})`);
  });
  const flat = params.map((q) => q.reshape(-1));
  try {
    return cat(flat);
  } finally {
    for (const f of flat) f.dispose();
  }
}

/** Copies the slices of `vec` (as parametersToVector makes it) into the parameters, in place. */
export function vectorToParameters(vec: Tensor, parameters: TensorOrTensors): void {
  if (!(vec instanceof Tensor)) throw codedError('TSGPU_ARG', `expected torch.Tensor, but got: ${typeof vec}`);
  if (vec.ndim !== 1) throw codedError('TSGPU_ARG', `vectorToParameters: expected a 1-D tensor for vec, got ${vec.ndim}-D`);
  const params = tensorList('vectorToParameters', parameters);
  const total = params.reduce((n, q) => n + q.numel, 0);
  if (total !== vec.numel) throw codedError('TSGPU_ARG', `vectorToParameters: vec has ${vec.numel} elements, the parameters ${total}`);
  noGrad(() => {
    let at = 0;
    for (const q of params) {
      const part = vec.narrow(0, at, q.numel);
      const shaped = part.view(q.shape);
      q.copy_(shaped);
      shaped.dispose();
      part.dispose();
      at += q.numel;
    }
  });
}
