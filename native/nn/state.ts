/**
 * Helpers of Module: the checks of loadStateDict (every missing, unexpected
 * or wrongly shaped key named in one error, PyTorch's wording), zeroing a
 * gradient, and telling a dtype from a device name.
 */
import { normalizeDtype } from '../dtype';
import { noGrad } from '../autograd/grad_mode';
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';

/**
 * Compares a state dict given to loadStateDict with the module's own
 * (`own`, by key): returns the missing and unexpected keys, or throws one
 * error naming every problem (missing and unexpected keys only when strict;
 * a wrong shape or a value that is not a live tensor always).
 */
export function checkStateDict(moduleName: string, own: Record<string, Tensor>, given: Map<string, Tensor>, strict: boolean): { missingKeys: string[]; unexpectedKeys: string[] } {
  const missingKeys: string[] = [];
  const unexpectedKeys: string[] = [];
  const errors: string[] = [];
  for (const key of Object.keys(own)) if (!given.has(key)) missingKeys.push(key);
  for (const [key, src] of given) {
    const dst = own[key];
    if (dst === undefined) {
      unexpectedKeys.push(key);
      continue;
    }
    if (!(src instanceof Tensor)) {
      errors.push(`While copying the parameter named "${key}", expected torch.Tensor or Tensor-like object from checkpoint but received ${typeof src}`);
    } else if (src.isDisposed) {
      errors.push(`While copying the parameter named "${key}", the checkpoint's tensor was disposed`);
    } else if (src.shape.length !== dst.shape.length || src.shape.some((s, i) => s !== dst.shape[i])) {
      errors.push(`size mismatch for ${key}: copying a param with shape ${formatShape(src.shape)} from checkpoint, the shape in current model is ${formatShape(dst.shape)}.`);
    }
  }
  if (strict) {
    if (unexpectedKeys.length > 0) errors.unshift(`Unexpected key(s) in state_dict: ${unexpectedKeys.map((k) => `"${k}"`).join(', ')}. `);
    if (missingKeys.length > 0) errors.unshift(`Missing key(s) in state_dict: ${missingKeys.map((k) => `"${k}"`).join(', ')}. `);
  }
  if (errors.length > 0) {
    throw codedError('TSGPU_NN', `Error(s) in loading state_dict for ${moduleName}:\n\t${errors.join('\n\t')}`);
  }
  return { missingKeys, unexpectedKeys };
}

/** Gives up or zeroes the gradient of `p` (Module.zeroGrad and Optimizer.zeroGrad). */
export function zeroGradOf(p: Tensor, setToNone: boolean): void {
  const g = p.grad;
  if (g === null) return;
  if (setToNone) {
    p.grad = null;
    return;
  }
  if (g.gradFn !== null) g.detach_();
  else g.requiresGrad_(false);
  noGrad(() => g.zero_());
}

/** Whether `s` names a dtype (else it is taken for a device). */
export function isDtypeName(s: string): boolean {
  try {
    normalizeDtype(s);
    return true;
  } catch {
    return false;
  }
}
