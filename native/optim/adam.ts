/**
 * Adam (with amsgrad and L2 or decoupled weight decay) and AdamW (Adam with
 * decoupled weight decay, 0.01 by default): PyTorch's single-tensor update,
 * in place. The state of each parameter is exp_avg and exp_avg_sq (plus
 * max_exp_avg_sq with amsgrad), of the parameter's shape and dtype, and a
 * step count. On cuda (and with foreach / fused) the update is the
 * multi-tensor one (multi_tensor.ts), the same formula in one kernel.
 */
import { codedError } from '../errors';
import { zerosLike } from '../ops/creation';
import { maximum } from '../generated/binary_ops';
import { Tensor } from '../tensor';
import { bucketsBy, checkImplementation, ImplementationOptions, runMultiTensor, usesMultiTensor } from './multi_tensor';
import { checkLr, checkNonNegative, Optimizer, ParamGroup, ParamsArg } from './optimizer';

/** Adam's hyperparameters (PyTorch 2's defaults), and foreach / fused (multi_tensor.ts). */
export interface AdamOptions extends ImplementationOptions {
  /** Learning rate (default 1e-3). */
  lr: number;
  /** Decay rates of the running averages of the gradient and its square (default [0.9, 0.999]). */
  betas: [number, number];
  /** Added to the denominator (default 1e-8). */
  eps: number;
  /** Weight decay (default 0 for Adam: L2 added to the gradient; 0.01 for AdamW: decoupled). */
  weightDecay: number;
  /** Use the maximum of the past squared averages (AMSGrad; default false). */
  amsgrad: boolean;
  /** Maximize the objective (default false). */
  maximize: boolean;
  /** Decay the weights directly, p *= 1 - lr·weightDecay (AdamW), instead of adding weightDecay·p to the gradient (default false for Adam). */
  decoupledWeightDecay: boolean;
}

/**
 * Adam. Per step t and parameter with gradient g: (weight decay), then
 * m = lerp(m, g, 1 - β1), v = β2·v + (1 - β2)·g², and
 * p -= lr / (1 - β1ᵗ) · m / (√v / √(1 - β2ᵗ) + eps) (v: its running maximum with amsgrad).
 *
 * @example
 * const opt = new torch.optim.Adam(model.parameters(), { lr: 1e-3 });
 */
export class Adam extends Optimizer<AdamOptions> {
  constructor(params: ParamsArg<AdamOptions>, opts: Partial<AdamOptions> = {}) {
    super(params, { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0, amsgrad: false, maximize: false, decoupledWeightDecay: false, foreach: null, fused: null, ...opts });
  }

  protected implementationKeys(): Record<string, unknown> {
    return { foreach: null, capturable: false, differentiable: false, fused: null };
  }

  protected checkGroup(g: ParamGroup<AdamOptions>): void {
    checkLr(g.lr);
    checkNonNegative('epsilon', g.eps);
    if (!Array.isArray(g.betas) || g.betas.length !== 2) throw codedError('TSGPU_ARG', `expected a pair [beta1, beta2] for betas, got ${String(g.betas)}`);
    g.betas.forEach((b, i) => {
      if (typeof b !== 'number' || !(b >= 0 && b < 1)) throw codedError('TSGPU_ARG', `Invalid beta parameter at index ${i}: ${String(b)}`);
    });
    checkNonNegative('weight_decay', g.weightDecay);
    checkImplementation(g);
  }

  /** p's state, made (zeros of p's shape and dtype, step 0) at its first update. */
  private initState(p: Tensor, amsgrad: boolean): Record<string, Tensor | number> {
    const s = this.stateOf(p);
    if (s.step === undefined) {
      s.step = 0;
      s.exp_avg = this.newState(p, 'exp_avg', () => zerosLike(p));
      s.exp_avg_sq = this.newState(p, 'exp_avg_sq', () => zerosLike(p));
      if (amsgrad) s.max_exp_avg_sq = this.newState(p, 'max_exp_avg_sq', () => zerosLike(p));
    }
    if (amsgrad && s.max_exp_avg_sq === undefined) s.max_exp_avg_sq = this.newState(p, 'max_exp_avg_sq', () => zerosLike(p));
    return s;
  }

  protected updateGroup(g: ParamGroup<AdamOptions>): void {
    const withGrad = g.params.filter((p) => p.grad !== null);
    if (!usesMultiTensor(g, withGrad)) return this.singleTensor(g, withGrad);
    const dense = withGrad.filter((p) => p.isContiguous());
    if (dense.length < withGrad.length) this.singleTensor(g, withGrad.filter((p) => !p.isContiguous()));
    this.multiTensor(g, dense);
  }

  /** The multi-tensor update: one adamStep call per device, dtype and step count. */
  private multiTensor(g: ParamGroup<AdamOptions>, params: Tensor[]): void {
    const { amsgrad } = g;
    for (const p of params) {
      const s = this.initState(p, amsgrad);
      s.step = (s.step as number) + 1;
    }
    const buckets = bucketsBy(params, (p) => `${p.device} ${p.dtype} ${this.stateOf(p).step as number}`);
    for (const ps of buckets.values()) {
      const st = ps.map((p) => this.stateOf(p));
      const lists = [ps, ps.map((p) => p.grad as Tensor), st.map((s) => s.exp_avg as Tensor), st.map((s) => s.exp_avg_sq as Tensor)];
      if (amsgrad) lists.push(st.map((s) => s.max_exp_avg_sq as Tensor));
      runMultiTensor('adamStep', lists, {
        lr: g.lr, beta1: g.betas[0], beta2: g.betas[1], eps: g.eps, weightDecay: g.weightDecay, step: st[0].step as number,
        amsgrad, maximize: g.maximize, decoupledWeightDecay: g.decoupledWeightDecay,
      });
    }
  }

  /** PyTorch's single-tensor update, op by op (the reference of the multi-tensor one). */
  private singleTensor(g: ParamGroup<AdamOptions>, params: Tensor[]): void {
    const { lr, eps, weightDecay, amsgrad, maximize, decoupledWeightDecay } = g;
    const [beta1, beta2] = g.betas;
    for (const p of params) {
      const grad0 = p.grad;
      if (grad0 === null) continue;
      const s = this.initState(p, amsgrad);
      const expAvg = s.exp_avg as Tensor;
      const expAvgSq = s.exp_avg_sq as Tensor;
      const temps: Tensor[] = [];
      let grad = grad0;
      if (maximize) temps.push((grad = grad.neg()));
      const step = (s.step as number) + 1;
      s.step = step;
      if (weightDecay !== 0) {
        if (decoupledWeightDecay) p.mul_(1 - lr * weightDecay);
        else temps.push((grad = grad.add(p, { alpha: weightDecay })));
      }
      expAvg.lerp_(grad, 1 - beta1);
      expAvgSq.mul_(beta2).addcmul_(grad, grad, { value: 1 - beta2 });
      const biasCorrection1 = 1 - beta1 ** step;
      const biasCorrection2 = 1 - beta2 ** step;
      const stepSize = lr / biasCorrection1;
      const bc2Sqrt = Math.sqrt(biasCorrection2);
      let second = expAvgSq;
      if (amsgrad) {
        const maxSq = s.max_exp_avg_sq as Tensor;
        maximum(maxSq, expAvgSq, maxSq);
        second = maxSq;
      }
      const denom = second.sqrt();
      denom.div_(bc2Sqrt).add_(eps);
      p.addcdiv_(expAvg, denom, { value: -stepSize });
      denom.dispose();
      for (const t of temps) t.dispose();
    }
  }
}

/** AdamW: Adam with decoupled weight decay (default 0.01), as PyTorch's. */
export class AdamW extends Adam {
  constructor(params: ParamsArg<AdamOptions>, opts: Partial<AdamOptions> = {}) {
    super(params, { weightDecay: 1e-2, ...opts, decoupledWeightDecay: true });
  }
}
