/**
 * optim.lrScheduler: StepLR, CosineAnnealingLR, LambdaLR and OneCycleLR,
 * with PyTorch's formulas (its recursive forms where PyTorch uses them, so
 * that the sequences agree to the last bits). A scheduler sets each group's
 * lr when made (step 0) and at every step(), called after optimizer.step().
 */
import { codedError } from '../errors';
import { Optimizer } from './optimizer';

type AnyOptimizer = Optimizer<{ lr: number }>;
type Group = Record<string, unknown> & { lr: number };

/** The base of the schedulers (PyTorch's LRScheduler). */
export abstract class LRScheduler {
  /** The optimizer whose groups' lr this sets. */
  readonly optimizer: AnyOptimizer;
  /** The lr of each group when the scheduler was made (its initialLr). */
  readonly baseLrs: number[];
  /** How many times step() ran (0 after construction). */
  lastEpoch: number;
  private lastLr: number[] = [];

  protected constructor(optimizer: AnyOptimizer, lastEpoch = -1) {
    if (!(optimizer instanceof Optimizer)) throw codedError('TSGPU_ARG', `${this.constructor.name}: expected an Optimizer for optimizer, got ${optimizer === null ? 'null' : typeof optimizer}`);
    this.optimizer = optimizer;
    const groups = this.groups();
    if (lastEpoch === -1) {
      for (const g of groups) if (g.initialLr === undefined) g.initialLr = g.lr;
    } else {
      groups.forEach((g, i) => {
        if (g.initialLr === undefined) throw codedError('TSGPU_ARG', `param 'initial_lr' is not specified in param_groups[${i}] when resuming an optimizer`);
      });
    }
    this.baseLrs = groups.map((g) => g.initialLr as number);
    this.lastEpoch = lastEpoch;
  }

  /** Subclasses call this at the end of their constructor: the first step (to epoch 0). */
  protected initialStep(): void {
    this.step();
  }

  protected groups(): Group[] {
    return this.optimizer.paramGroups as unknown as Group[];
  }

  /** The lr of each group at lastEpoch (from the groups' current lr, as PyTorch's get_lr). */
  protected abstract getLr(): number[];

  /** Advances one step and sets each group's lr. */
  step(): void {
    this.lastEpoch++;
    const lrs = this.getLr();
    this.groups().forEach((g, i) => {
      g.lr = lrs[i];
    });
    this.lastLr = lrs.slice();
  }

  /** The lr of each group set by the last step (PyTorch's get_last_lr()). */
  getLastLr(): number[] {
    return this.lastLr.slice();
  }

  /** lastEpoch and the scheduler's settings (not the optimizer), as PyTorch's state_dict. */
  stateDict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this)) if (k !== 'optimizer' && typeof v !== 'function') out[k] = Array.isArray(v) ? v.slice() : v;
    return out;
  }

  /** Restores what stateDict() gave. */
  loadStateDict(sd: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(sd)) if (k !== 'optimizer' && k in this) (this as unknown as Record<string, unknown>)[k] = v;
  }
}

function checkInt(op: string, name: string, v: unknown, min: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw codedError('TSGPU_ARG', `${op}: expected an integer >= ${min} for ${name}, got ${String(v)}`);
  return v;
}

/** Multiplies the lr by gamma (default 0.1) every stepSize steps. */
export class StepLR extends LRScheduler {
  constructor(optimizer: AnyOptimizer, readonly stepSize: number, readonly gamma = 0.1, lastEpoch = -1) {
    super(optimizer, lastEpoch);
    checkInt('StepLR', 'stepSize', stepSize, 1);
    this.initialStep();
  }

  protected getLr(): number[] {
    const gs = this.groups();
    if (this.lastEpoch === 0 || this.lastEpoch % this.stepSize !== 0) return gs.map((g) => g.lr);
    return gs.map((g) => g.lr * this.gamma);
  }
}

/** lr = base · lambda(epoch), one function for all groups or one per group. */
export class LambdaLR extends LRScheduler {
  private readonly lambdas: ((epoch: number) => number)[];

  constructor(optimizer: AnyOptimizer, lrLambda: ((epoch: number) => number) | ((epoch: number) => number)[], lastEpoch = -1) {
    super(optimizer, lastEpoch);
    const n = this.groups().length;
    if (Array.isArray(lrLambda)) {
      if (lrLambda.length !== n) throw codedError('TSGPU_ARG', `Expected ${n} lr_lambdas, but got ${lrLambda.length}`);
      this.lambdas = lrLambda.slice();
    } else {
      if (typeof lrLambda !== 'function') throw codedError('TSGPU_ARG', `LambdaLR: expected a function for lrLambda, got ${typeof lrLambda}`);
      this.lambdas = Array.from({ length: n }, () => lrLambda);
    }
    Object.defineProperty(this, 'lambdas', { enumerable: false });
    this.initialStep();
  }

  protected getLr(): number[] {
    return this.baseLrs.map((b, i) => b * this.lambdas[i](this.lastEpoch));
  }
}

/**
 * Cosine annealing from the base lr to etaMin (default 0) over tMax steps
 * (then back up, periodically), by PyTorch's recursive formula.
 */
export class CosineAnnealingLR extends LRScheduler {
  constructor(optimizer: AnyOptimizer, readonly tMax: number, readonly etaMin = 0, lastEpoch = -1) {
    super(optimizer, lastEpoch);
    checkInt('CosineAnnealingLR', 'tMax', tMax, 1);
    this.initialStep();
  }

  protected getLr(): number[] {
    const gs = this.groups();
    const e = this.lastEpoch, T = this.tMax, m = this.etaMin;
    if (e === 0) return gs.map((g) => g.lr);
    if ((e - 1 - T) % (2 * T) === 0) return gs.map((g, i) => g.lr + ((this.baseLrs[i] - m) * (1 - Math.cos(Math.PI / T))) / 2);
    return gs.map((g) => ((1 + Math.cos((Math.PI * e) / T)) / (1 + Math.cos((Math.PI * (e - 1)) / T))) * (g.lr - m) + m);
  }
}

/** Options of OneCycleLR (PyTorch's defaults). */
export interface OneCycleOptions {
  /** Steps in the cycle; or give epochs and stepsPerEpoch. */
  totalSteps?: number;
  epochs?: number;
  stepsPerEpoch?: number;
  /** Fraction of the cycle spent raising the lr (default 0.3). */
  pctStart?: number;
  /** 'cos' (default) or 'linear'. */
  annealStrategy?: 'cos' | 'linear';
  /** Cycle the momentum (SGD's momentum, or Adam's beta1) inversely to the lr (default true). */
  cycleMomentum?: boolean;
  /** Lowest momentum (default 0.85). */
  baseMomentum?: number;
  /** Highest momentum (default 0.95). */
  maxMomentum?: number;
  /** initial lr = maxLr / divFactor (default 25). */
  divFactor?: number;
  /** min lr = initial lr / finalDivFactor (default 1e4). */
  finalDivFactor?: number;
  /** Three phases (up, down to the initial lr, down to the min lr) instead of two (default false). */
  threePhase?: boolean;
  lastEpoch?: number;
}

interface Phase {
  endStep: number;
  startLr: 'initialLr' | 'maxLr' | 'minLr';
  endLr: 'initialLr' | 'maxLr' | 'minLr';
  startMomentum: 'maxMomentum' | 'baseMomentum';
  endMomentum: 'maxMomentum' | 'baseMomentum';
}

/** The 1cycle policy: the lr rises from maxLr/divFactor to maxLr, then anneals to far below the start. */
export class OneCycleLR extends LRScheduler {
  readonly totalSteps: number;
  private readonly phases: Phase[];
  private readonly anneal: 'cos' | 'linear';
  private readonly cycleMomentum: boolean;
  private readonly useBeta1: boolean;

  constructor(optimizer: AnyOptimizer, maxLr: number | number[], opts: OneCycleOptions = {}) {
    const groups = optimizer.paramGroups as unknown as Group[];
    let total: number;
    if (opts.totalSteps !== undefined) {
      total = checkInt('OneCycleLR', 'totalSteps', opts.totalSteps, 1);
    } else if (opts.epochs !== undefined && opts.stepsPerEpoch !== undefined) {
      total = checkInt('OneCycleLR', 'epochs', opts.epochs, 1) * checkInt('OneCycleLR', 'stepsPerEpoch', opts.stepsPerEpoch, 1);
    } else {
      throw codedError('TSGPU_ARG', 'You must define either total_steps OR (epochs AND steps_per_epoch)');
    }
    const pct = opts.pctStart ?? 0.3;
    if (typeof pct !== 'number' || !(pct >= 0 && pct <= 1)) throw codedError('TSGPU_ARG', `Expected float between 0 and 1 pct_start, but got ${String(pct)}`);
    const anneal = opts.annealStrategy ?? 'cos';
    if (anneal !== 'cos' && anneal !== 'linear') throw codedError('TSGPU_ARG', `anneal_strategy must be one of 'cos' or 'linear', instead got ${String(anneal)}`);
    const maxLrs = Array.isArray(maxLr) ? maxLr.slice() : groups.map(() => maxLr);
    if (maxLrs.length !== groups.length) throw codedError('TSGPU_ARG', `expected ${groups.length} values for max_lr, got ${maxLrs.length}`);
    const div = opts.divFactor ?? 25, finalDiv = opts.finalDivFactor ?? 1e4;
    const lastEpoch = opts.lastEpoch ?? -1;
    if (lastEpoch === -1) {
      groups.forEach((g, i) => {
        g.initialLr = maxLrs[i] / div;
        g.maxLr = maxLrs[i];
        g.minLr = (g.initialLr as number) / finalDiv;
      });
    }
    const cycleMomentum = opts.cycleMomentum ?? true;
    let useBeta1 = false;
    if (cycleMomentum) {
      const d = optimizer.defaults as Record<string, unknown>;
      if (!('momentum' in d) && !('betas' in d)) throw codedError('TSGPU_ARG', 'optimizer must support momentum or beta1 with `cycle_momentum` option enabled');
      useBeta1 = 'betas' in d;
      const base = opts.baseMomentum ?? 0.85, max = opts.maxMomentum ?? 0.95;
      if (lastEpoch === -1) {
        for (const g of groups) {
          if (useBeta1) g.betas = [max, (g.betas as number[])[1]];
          else g.momentum = max;
          g.maxMomentum = max;
          g.baseMomentum = base;
        }
      }
    }
    super(optimizer, lastEpoch);
    this.totalSteps = total;
    this.anneal = anneal;
    this.cycleMomentum = cycleMomentum;
    this.useBeta1 = useBeta1;
    this.phases = opts.threePhase
      ? [
        { endStep: pct * total - 1, startLr: 'initialLr', endLr: 'maxLr', startMomentum: 'maxMomentum', endMomentum: 'baseMomentum' },
        { endStep: 2 * pct * total - 2, startLr: 'maxLr', endLr: 'initialLr', startMomentum: 'baseMomentum', endMomentum: 'maxMomentum' },
        { endStep: total - 1, startLr: 'initialLr', endLr: 'minLr', startMomentum: 'maxMomentum', endMomentum: 'maxMomentum' },
      ]
      : [
        { endStep: pct * total - 1, startLr: 'initialLr', endLr: 'maxLr', startMomentum: 'maxMomentum', endMomentum: 'baseMomentum' },
        { endStep: total - 1, startLr: 'maxLr', endLr: 'minLr', startMomentum: 'baseMomentum', endMomentum: 'maxMomentum' },
      ];
    this.initialStep();
  }

  private annealFn(start: number, end: number, pct: number): number {
    if (this.anneal === 'cos') return end + ((start - end) / 2) * (Math.cos(Math.PI * pct) + 1);
    return (end - start) * pct + start;
  }

  protected getLr(): number[] {
    const step = this.lastEpoch;
    if (step > this.totalSteps) {
      throw codedError('TSGPU_ARG', `Tried to step ${step} times. The specified number of total steps is ${this.totalSteps}`);
    }
    return this.groups().map((g) => {
      let start = 0;
      let lr = 0;
      for (let i = 0; i < this.phases.length; i++) {
        const ph = this.phases[i];
        if (step <= ph.endStep || i === this.phases.length - 1) {
          const pct = (step - start) / (ph.endStep - start);
          lr = this.annealFn(g[ph.startLr] as number, g[ph.endLr] as number, pct);
          if (this.cycleMomentum) {
            const m = this.annealFn(g[ph.startMomentum] as number, g[ph.endMomentum] as number, pct);
            if (this.useBeta1) g.betas = [m, (g.betas as number[])[1]];
            else g.momentum = m;
          }
          break;
        }
        start = ph.endStep;
      }
      return lr;
    });
  }
}
