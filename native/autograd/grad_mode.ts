/**
 * Grad mode (PyTorch's torch.no_grad / enable_grad / inference_mode /
 * set_grad_enabled): whether op calls are recorded for backward. The op
 * layer's hook (ops/dispatch.ts gradHook.active) follows it, so with grad
 * mode off an op costs nothing for autograd.
 *
 * Each function takes a callback, or with no callback returns a guard for
 * `using`, which restores the previous mode when it is disposed:
 *
 *   const y = torch.noGrad(() => model.forward(x));
 *   { using _ = torch.noGrad(); const y = model.forward(x); }
 */
import { codedError } from '../errors';
import { gradHook } from '../ops/dispatch';

let enabled = true;
let inference = false;
let installed = false;

/** @internal Autograd's recorder is installed (record.ts): the hook follows grad mode from now on. */
export function markInstalled(): void {
  installed = true;
  gradHook.active = enabled;
}

function setMode(on: boolean, inf: boolean): void {
  enabled = on;
  inference = inf;
  gradHook.active = installed && on;
}

/** Whether op calls are recorded for backward now (PyTorch's torch.is_grad_enabled()). */
export function isGradEnabled(): boolean {
  return enabled;
}

/** Whether inference mode is on (PyTorch's torch.is_inference_mode_enabled()). */
export function isInferenceModeEnabled(): boolean {
  return inference;
}

/** Restores a saved mode when disposed (`using`). */
export class GradModeGuard implements Disposable {
  private done = false;
  constructor(private readonly prevEnabled: boolean, private readonly prevInference: boolean) {}
  [Symbol.dispose](): void {
    if (this.done) return;
    this.done = true;
    setMode(this.prevEnabled, this.prevInference);
  }
  /** Same as [Symbol.dispose](). */
  dispose(): void {
    this[Symbol.dispose]();
  }
}

function withMode<T>(op: string, on: boolean, inf: boolean, fn?: () => T): T | GradModeGuard {
  const prevEnabled = enabled, prevInference = inference;
  if (fn === undefined) {
    setMode(on, inf);
    return new GradModeGuard(prevEnabled, prevInference);
  }
  if (typeof fn !== 'function') throw codedError('TSGPU_ARG', `${op}: expected a function for fn, got ${typeof fn}`);
  setMode(on, inf);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    setMode(prevEnabled, prevInference);
    throw e;
  }
  if (result instanceof Promise) {
    // The mode holds until the promise settles (other cells' code running meanwhile sees it too, as in PyTorch's threads).
    return result.finally(() => setMode(prevEnabled, prevInference)) as T;
  }
  setMode(prevEnabled, prevInference);
  return result;
}

/** Runs `fn` with grad mode off: nothing is recorded, no activation is saved (PyTorch's torch.no_grad()). */
export function noGrad<T>(fn: () => T): T;
export function noGrad(): GradModeGuard;
export function noGrad<T>(fn?: () => T): T | GradModeGuard {
  return withMode('noGrad', false, inference, fn);
}

/** Runs `fn` with grad mode on, inside a noGrad region too (PyTorch's torch.enable_grad()). */
export function enableGrad<T>(fn: () => T): T;
export function enableGrad(): GradModeGuard;
export function enableGrad<T>(fn?: () => T): T | GradModeGuard {
  return withMode('enableGrad', true, false, fn);
}

/**
 * Runs `fn` in inference mode: as noGrad, and the results are marked as
 * inference tensors that autograd refuses to record later (PyTorch's
 * torch.inference_mode()). `mode: false` runs fn normally.
 */
export function inferenceMode<T>(fn: () => T): T;
export function inferenceMode(): GradModeGuard;
export function inferenceMode<T>(fn?: () => T): T | GradModeGuard {
  return withMode('inferenceMode', false, true, fn);
}

/** Sets grad mode on or off (PyTorch's torch.set_grad_enabled(mode)); with `fn`, only while it runs. */
export function setGradEnabled<T>(mode: boolean, fn: () => T): T;
export function setGradEnabled(mode: boolean): GradModeGuard;
export function setGradEnabled<T>(mode: boolean, fn?: () => T): T | GradModeGuard {
  if (typeof mode !== 'boolean') throw codedError('TSGPU_ARG', `setGradEnabled: expected a boolean for mode, got ${typeof mode}`);
  return withMode('setGradEnabled', mode, inference && !mode, fn);
}
