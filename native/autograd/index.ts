/**
 * Autograd: recording of op calls (record.ts, through the op layer's hook),
 * the backward formulas (derivatives.ts), the engine (engine.ts), the Tensor
 * API (tensor_api.ts), grad mode (grad_mode.ts), custom Functions and
 * gradcheck. Importing this module installs it; `torch.autograd` is this
 * module's `autograd` namespace.
 */
import './record';
import './tensor_api';
import { labelTensor } from './labels';
export { labelTensor, LabelKind } from './labels';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { runBackward, BackwardOptions } from './engine';
import { Function, FunctionCtx } from './function';
import { gradcheck, gradgradcheck } from './gradcheck';

export { noGrad, enableGrad, inferenceMode, setGradEnabled, isGradEnabled, isInferenceModeEnabled, GradModeGuard } from './grad_mode';
export type { BackwardOptions } from './engine';
export type { GradcheckOptions } from './gradcheck';

/** Options of torch.autograd.grad. */
type GradOptionsShape = GradOptions;
export interface GradOptions extends BackwardOptions {
  /** Gradients of the outputs (required for outputs that are not scalars). */
  gradOutputs?: (Tensor | null)[] | Tensor | null;
  /** Give null for inputs no gradient reaches instead of throwing (default false). */
  allowUnused?: boolean;
}

function list<T>(x: T | T[] | undefined): T[] | undefined {
  return x === undefined ? undefined : Array.isArray(x) ? x : [x];
}

/**
 * The gradients of `outputs` with respect to `inputs` (PyTorch's
 * torch.autograd.grad), returned, with no `grad` of any tensor changed.
 */
function grad(outputs: Tensor | Tensor[], inputs: Tensor | Tensor[], opts: GradOptions = {}): (Tensor | null)[] {
  const outs = list(outputs)!;
  const ins = list(inputs)!;
  const r = runBackward(outs, list(opts.gradOutputs ?? undefined), opts, ins);
  if (!opts.allowUnused) {
    const i = r.findIndex((g) => g === null);
    if (i >= 0) {
      throw codedError('TSGPU_AUTOGRAD', `One of the differentiated Tensors (input ${i}) appears to not have been used in the graph. Set allowUnused: true if this is the desired behavior.`);
    }
  }
  return r;
}

/** backward() of several outputs at once (PyTorch's torch.autograd.backward). */
function backward(tensors: Tensor | Tensor[], gradTensors?: (Tensor | null)[] | Tensor | null, opts: BackwardOptions = {}): void {
  runBackward(list(tensors)!, list(gradTensors ?? undefined), opts);
}

/** torch.autograd: grad, backward, Function (custom ops), gradcheck, gradgradcheck. */
export const autograd = { grad, backward, Function, FunctionCtx, gradcheck, gradgradcheck, labelTensor };
// Types under the namespace's name, for `torch.autograd.GradcheckOptions` in user code.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace autograd {
  type GradcheckOptions = import('./gradcheck').GradcheckOptions;
  type GradOptions = GradOptionsShape;
  type Function = import('./function').Function;
  type FunctionCtx = import('./function').FunctionCtx;
}
