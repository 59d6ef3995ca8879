/**
 * BatchNorm2d: per-channel normalization of [N, C, H, W] (or [C, H, W]...
 * as PyTorch, 4-D only) with learned weight and bias (affine) and running
 * statistics (trackRunningStats) held as buffers under PyTorch's names —
 * `running_mean`, `running_var`, `num_batches_tracked` — so that stateDict
 * keys are torchvision's (`bn1.running_mean`).
 */
import { ones, zeros, tensor } from '../../ops/creation';
import { batchNorm } from '../../amp/install';
import { codedError } from '../../errors';
import { formatShape, Tensor } from '../../tensor';
import { noGrad } from '../../autograd/grad_mode';
import * as init from '../init';
import { Module } from '../module';
import { newParameter, Parameter } from '../parameter';
import { checkPositiveInt, factoryOptions, FactoryOptions, pyBool } from './args';

/** Options of BatchNorm2d (PyTorch's keyword arguments). */
export interface BatchNormLayerOptions extends FactoryOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** Weight of each batch in the running statistics (default 0.1); null: a cumulative average over numBatchesTracked. */
  momentum?: number | null;
  /** Learned weight (ones) and bias (zeros) (default true). */
  affine?: boolean;
  /** Keep running statistics, used in eval mode (default true); without them eval mode uses the batch's. */
  trackRunningStats?: boolean;
}

/** A float as Python's repr writes it (1e-05, 0.1, 1.0). */
function pyFloat(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  if (x !== 0 && (Math.abs(x) < 1e-4 || Math.abs(x) >= 1e16)) {
    const [mant, exp] = x.toExponential().split('e');
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(x);
}

/** Batch normalization over [N, C, H, W], as PyTorch's BatchNorm2d. */
export class BatchNorm2d extends Module {
  readonly numFeatures: number;
  readonly eps: number;
  momentum: number | null;
  readonly affine: boolean;
  readonly trackRunningStats: boolean;
  weight: Parameter | null;
  bias: Parameter | null;

  constructor(numFeatures: number, opts: BatchNormLayerOptions = {}) {
    super();
    const op = 'BatchNorm2d';
    this.numFeatures = checkPositiveInt(op, 'numFeatures', numFeatures);
    this.eps = opts.eps ?? 1e-5;
    this.momentum = opts.momentum === undefined ? 0.1 : opts.momentum;
    this.affine = opts.affine ?? true;
    this.trackRunningStats = opts.trackRunningStats ?? true;
    const t = factoryOptions(op, opts);
    this.weight = this.affine ? newParameter(() => ones([numFeatures], t)) : null;
    this.bias = this.affine ? newParameter(() => zeros([numFeatures], t)) : null;
    if (this.trackRunningStats) {
      this.registerBuffer('running_mean', zeros([numFeatures], t));
      this.registerBuffer('running_var', ones([numFeatures], t));
      this.registerBuffer('num_batches_tracked', tensor(0, { dtype: 'int64', device: t.device }));
    } else {
      this.registerBuffer('running_mean', null);
      this.registerBuffer('running_var', null);
      this.registerBuffer('num_batches_tracked', null);
    }
  }

  private buf(name: string): Tensor | null {
    return (this as unknown as Record<string, Tensor | null>)[name];
  }

  /** The running mean buffer (`running_mean` in the stateDict), or null without trackRunningStats. */
  get runningMean(): Tensor | null {
    return this.buf('running_mean');
  }

  /** The running variance buffer (`running_var`), or null. */
  get runningVar(): Tensor | null {
    return this.buf('running_var');
  }

  /** The number of training batches seen (`num_batches_tracked`, int64), or null. */
  get numBatchesTracked(): Tensor | null {
    return this.buf('num_batches_tracked');
  }

  /** Running statistics back to mean 0, variance 1, no batches. */
  resetRunningStats(): void {
    if (!this.trackRunningStats) return;
    noGrad(() => {
      this.runningMean!.zero_();
      this.runningVar!.fill_(1);
      this.numBatchesTracked!.zero_();
    });
  }

  /** resetRunningStats, and weight 1, bias 0. */
  resetParameters(): void {
    this.resetRunningStats();
    if (this.weight) init.ones_(this.weight);
    if (this.bias) init.zeros_(this.bias);
  }

  forward(x: Tensor): Tensor {
    if (x.ndim !== 4) throw codedError('TSGPU_ARG', `BatchNorm2d: expected 4D input (got ${x.ndim}D input of size ${formatShape(x.shape)})`);
    let factor = this.momentum ?? 0;
    if (this.training && this.trackRunningStats) {
      const n = this.numBatchesTracked!;
      noGrad(() => n.add_(1));
      // momentum null: the cumulative moving average, 1 / batches seen.
      if (this.momentum === null) factor = 1 / Number(n.item());
    }
    // Batch statistics in training, and in eval mode too when there are no running statistics.
    const useBatch = this.training || !this.trackRunningStats;
    const track = !this.training || this.trackRunningStats;
    return batchNorm(x, track ? this.runningMean : null, track ? this.runningVar : null, this.weight, this.bias, {
      training: useBatch, momentum: factor, eps: this.eps,
    });
  }

  extraRepr(): string {
    const m = this.momentum === null ? 'None' : pyFloat(this.momentum);
    return `${this.numFeatures}, eps=${pyFloat(this.eps)}, momentum=${m}, affine=${pyBool(this.affine)}, bias=${pyBool(this.bias !== null)}, track_running_stats=${pyBool(this.trackRunningStats)}`;
  }
}
