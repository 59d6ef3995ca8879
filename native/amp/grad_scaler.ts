/**
 * torch.amp.GradScaler: loss scaling for float16 training. scale(loss)
 * multiplies the loss by the scale so that small gradients survive float16;
 * unscale_(optimizer) divides the gradients back and looks for inf and NaN;
 * step(optimizer) skips the step when it found any; update() lowers the scale
 * after a skipped step (backoffFactor) and raises it after growthInterval
 * clean steps (growthFactor). PyTorch's defaults and messages.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { noGrad } from '../autograd/grad_mode';

/** What GradScaler needs of an optimizer: its parameter groups and step(). */
export interface ScalableOptimizer {
  readonly paramGroups: readonly { readonly params: readonly Tensor[] }[];
  step(): unknown;
}

/** Options of GradScaler. */
export interface GradScalerOptions {
  /** First scale (default 2^16). */
  initScale?: number;
  /** Factor of the scale after growthInterval steps without inf or NaN (default 2). */
  growthFactor?: number;
  /** Factor of the scale after a step with inf or NaN (default 0.5). */
  backoffFactor?: number;
  /** Clean steps before the scale grows (default 2000). */
  growthInterval?: number;
  /** With false every method passes through (default true). */
  enabled?: boolean;
}

/** GradScaler's state, as stateDict() gives it (PyTorch's keys). */
export interface GradScalerState {
  scale: number;
  growth_factor: number;
  backoff_factor: number;
  growth_interval: number;
  _growth_tracker: number;
}

type Stage = 'ready' | 'unscaled' | 'stepped';

export class GradScaler {
  private scaleValue: number;
  private growthFactor: number;
  private backoffFactor: number;
  private growthInterval: number;
  private growthTracker = 0;
  private readonly enabled: boolean;
  /** Per optimizer since the last update(): what was done and whether inf/NaN was found. */
  private perOptimizer = new Map<ScalableOptimizer, { stage: Stage; foundInf: boolean }>();

  constructor(deviceType: 'cuda' | 'cpu' = 'cuda', opts: GradScalerOptions = {}) {
    if (deviceType !== 'cuda' && deviceType !== 'cpu') throw codedError('TSGPU_ARG', `GradScaler: expected 'cuda' or 'cpu' for device, got ${String(deviceType)}`);
    const num = (name: string, v: number | undefined, dflt: number, ok: (x: number) => boolean, what: string): number => {
      const x = v ?? dflt;
      if (typeof x !== 'number' || !ok(x)) throw codedError('TSGPU_ARG', `GradScaler: expected ${what} for ${name}, got ${String(x)}`);
      return x;
    };
    this.scaleValue = num('initScale', opts.initScale, 2 ** 16, (x) => x > 0 && Number.isFinite(x), 'a positive number');
    this.growthFactor = num('growthFactor', opts.growthFactor, 2, (x) => x > 1, 'a number > 1');
    this.backoffFactor = num('backoffFactor', opts.backoffFactor, 0.5, (x) => x > 0 && x < 1, 'a number in (0, 1)');
    this.growthInterval = num('growthInterval', opts.growthInterval, 2000, (x) => Number.isInteger(x) && x > 0, 'a positive integer');
    this.enabled = opts.enabled ?? true;
  }

  /** Whether the scaler does anything. */
  isEnabled(): boolean {
    return this.enabled;
  }

  /** The current scale (1 when disabled). */
  getScale(): number {
    return this.enabled ? this.scaleValue : 1;
  }

  /** `outputs` multiplied by the scale (a tensor, or each tensor of an array). */
  scale<T extends Tensor | Tensor[]>(outputs: T): T {
    if (!this.enabled) return outputs;
    if (Array.isArray(outputs)) return outputs.map((t) => t.mul(this.scaleValue)) as T;
    if (!(outputs instanceof Tensor)) throw codedError('TSGPU_ARG', `GradScaler.scale: expected a Tensor or an array of Tensors, got ${typeof outputs}`);
    return outputs.mul(this.scaleValue) as T;
  }

  private entry(opt: ScalableOptimizer) {
    let e = this.perOptimizer.get(opt);
    if (e === undefined) {
      e = { stage: 'ready', foundInf: false };
      this.perOptimizer.set(opt, e);
    }
    return e;
  }

  /** Divides the optimizer's gradients by the scale in place and records whether any holds inf or NaN. */
  unscale_(optimizer: ScalableOptimizer): void {
    if (!this.enabled) return;
    const e = this.entry(optimizer);
    if (e.stage === 'unscaled') throw codedError('TSGPU_AMP', 'unscale_() has already been called on this optimizer since the last update().');
    if (e.stage === 'stepped') throw codedError('TSGPU_AMP', 'unscale_() is being called after step().');
    const inv = 1 / this.scaleValue;
    let bad: Tensor | null = null;
    noGrad(() => {
      for (const g of optimizer.paramGroups) {
        for (const p of g.params) {
          const grad = p.grad;
          if (grad === null) continue;
          grad.mul_(inv);
          // x - x is 0 for every finite x, NaN for inf and NaN.
          const d = grad.sub(grad);
          const nonzero = d.ne(0);
          d.dispose();
          const f = nonzero.any();
          nonzero.dispose();
          if (bad === null) bad = f;
          else {
            const b: Tensor = bad;
            bad = b.logicalOr(f);
            b.dispose();
            f.dispose();
          }
        }
      }
    });
    let found = false;
    if (bad !== null) {
      const b: Tensor = bad;
      found = Boolean(b.item());
      b.dispose();
    }
    e.foundInf = found;
    e.stage = 'unscaled';
  }

  /** Unscales (unless unscale_ was called), then runs optimizer.step() unless a gradient held inf or NaN. */
  step(optimizer: ScalableOptimizer): unknown {
    if (!this.enabled) return optimizer.step();
    const e = this.entry(optimizer);
    if (e.stage === 'stepped') throw codedError('TSGPU_AMP', 'step() has already been called since the last update().');
    if (e.stage === 'ready') this.unscale_(optimizer);
    e.stage = 'stepped';
    if (e.foundInf) return undefined;
    return optimizer.step();
  }

  /** Adjusts the scale for the next iteration (or sets it to `newScale`). */
  update(newScale?: number): void {
    if (!this.enabled) return;
    if (newScale !== undefined) {
      if (typeof newScale !== 'number' || !(newScale > 0)) throw codedError('TSGPU_ARG', `GradScaler.update: expected a positive number for newScale, got ${String(newScale)}`);
      this.scaleValue = newScale;
    } else {
      const entries = [...this.perOptimizer.values()];
      if (entries.length === 0) throw codedError('TSGPU_AMP', 'No inf checks were recorded prior to update().');
      if (entries.some((x) => x.foundInf)) {
        this.scaleValue *= this.backoffFactor;
        this.growthTracker = 0;
      } else if (++this.growthTracker >= this.growthInterval) {
        this.scaleValue *= this.growthFactor;
        this.growthTracker = 0;
      }
    }
    this.perOptimizer = new Map();
  }

  /** The scaler's state (PyTorch's keys), for saving. */
  stateDict(): GradScalerState {
    return {
      scale: this.getScale(),
      growth_factor: this.growthFactor,
      backoff_factor: this.backoffFactor,
      growth_interval: this.growthInterval,
      _growth_tracker: this.growthTracker,
    };
  }

  /** Restores a state stateDict() gave. */
  loadStateDict(sd: GradScalerState): void {
    for (const k of ['scale', 'growth_factor', 'backoff_factor', 'growth_interval', '_growth_tracker'] as const) {
      if (typeof sd?.[k] !== 'number') throw codedError('TSGPU_ARG', `GradScaler.loadStateDict: missing or non-numeric key '${k}'`);
    }
    this.scaleValue = sd.scale;
    this.growthFactor = sd.growth_factor;
    this.backoffFactor = sd.backoff_factor;
    this.growthInterval = sd.growth_interval;
    this.growthTracker = sd._growth_tracker;
  }
}
