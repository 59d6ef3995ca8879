/**
 * SGD with momentum, dampening, Nesterov momentum, weight decay and
 * maximize: PyTorch's single-tensor update, in place; on cuda (and with
 * foreach / fused) the multi-tensor one (multi_tensor.ts), the same formula
 * in one kernel.
 */
import { codedError } from '../errors';
import { zerosLike } from '../ops/creation';
import { Tensor } from '../tensor';
import { bucketsBy, checkImplementation, ImplementationOptions, runMultiTensor, usesMultiTensor } from './multi_tensor';
import { checkLr, checkNonNegative, Optimizer, ParamGroup, ParamsArg } from './optimizer';

/** SGD's hyperparameters (PyTorch 2's defaults), and foreach / fused (multi_tensor.ts). */
export interface SGDOptions extends ImplementationOptions {
  /** Learning rate (default 1e-3). */
  lr: number;
  /** Momentum factor (default 0: none). */
  momentum: number;
  /** Dampening of the momentum (default 0). */
  dampening: number;
  /** L2 penalty added to the gradient (default 0). */
  weightDecay: number;
  /** Nesterov momentum (default false; needs momentum > 0 and dampening 0). */
  nesterov: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/**
 * Stochastic gradient descent. For each parameter with a gradient g:
 * g += weightDecay·p; with momentum, buf = g at the first step, else
 * buf = momentum·buf + (1 - dampening)·g, and g = buf (Nesterov:
 * g + momentum·buf); then p -= lr·g.
 *
 * @example
 * const opt = new torch.optim.SGD(model.parameters(), { lr: 0.1, momentum: 0.9 });
 */
export class SGD extends Optimizer<SGDOptions> {
  constructor(params: ParamsArg<SGDOptions>, opts: Partial<SGDOptions> = {}) {
    super(params, { lr: 1e-3, momentum: 0, dampening: 0, weightDecay: 0, nesterov: false, maximize: false, foreach: null, fused: null, ...opts });
  }

  protected implementationKeys(): Record<string, unknown> {
    return { foreach: null, differentiable: false, fused: null };
  }

  protected checkGroup(g: ParamGroup<SGDOptions>): void {
    checkLr(g.lr);
    checkNonNegative('momentum', g.momentum);
    if (typeof g.dampening !== 'number' || Number.isNaN(g.dampening)) throw codedError('TSGPU_ARG', `Invalid dampening value: ${String(g.dampening)}`);
    checkNonNegative('weight_decay', g.weightDecay);
    if (g.nesterov && (g.momentum <= 0 || g.dampening !== 0)) throw codedError('TSGPU_ARG', 'Nesterov momentum requires a momentum and zero dampening');
    checkImplementation(g);
  }

  protected updateGroup(g: ParamGroup<SGDOptions>): void {
    const withGrad = g.params.filter((p) => p.grad !== null);
    if (!usesMultiTensor(g, withGrad)) return this.singleTensor(g, withGrad);
    const dense = withGrad.filter((p) => p.isContiguous());
    if (dense.length < withGrad.length) this.singleTensor(g, withGrad.filter((p) => !p.isContiguous()));
    this.multiTensor(g, dense);
  }

  /** The multi-tensor update: one sgdStep call per device, dtype and (with momentum) first step or not. */
  private multiTensor(g: ParamGroup<SGDOptions>, params: Tensor[]): void {
    const { momentum } = g;
    const first = (p: Tensor): boolean => momentum !== 0 && this.stateOf(p).momentum_buffer === undefined;
    const buckets = bucketsBy(params, (p) => `${p.device} ${p.dtype} ${first(p)}`);
    for (const ps of buckets.values()) {
      const firstStep = first(ps[0]);
      const lists = [ps, ps.map((p) => p.grad as Tensor)];
      if (momentum !== 0) {
        lists.push(ps.map((p) => {
          const s = this.stateOf(p);
          if (s.momentum_buffer === undefined) s.momentum_buffer = this.newState(p, 'momentum_buffer', () => zerosLike(p));
          return s.momentum_buffer as Tensor;
        }));
      }
      runMultiTensor('sgdStep', lists, {
        lr: g.lr, momentum, dampening: g.dampening, weightDecay: g.weightDecay, nesterov: g.nesterov, maximize: g.maximize, firstStep,
      });
    }
  }

  /** PyTorch's single-tensor update, op by op (the reference of the multi-tensor one). */
  private singleTensor(g: ParamGroup<SGDOptions>, params: Tensor[]): void {
    const { lr, momentum, dampening, weightDecay, nesterov, maximize } = g;
    for (const p of params) {
      const grad0 = p.grad;
      if (grad0 === null) continue;
      const temps: Tensor[] = [];
      let grad = grad0;
      if (maximize) temps.push((grad = grad.neg()));
      if (weightDecay !== 0) temps.push((grad = grad.add(p, { alpha: weightDecay })));
      if (momentum !== 0) {
        const s = this.stateOf(p);
        let buf = s.momentum_buffer as Tensor | undefined;
        if (buf === undefined) {
          const from = grad;
          buf = this.newState(p, 'momentum_buffer', () => from.clone());
          s.momentum_buffer = buf;
        } else {
          buf.mul_(momentum).add_(grad, { alpha: 1 - dampening });
        }
        if (nesterov) temps.push((grad = grad.add(buf, { alpha: momentum })));
        else grad = buf;
      }
      p.add_(grad, { alpha: -lr });
      for (const t of temps) t.dispose();
    }
  }
}
