/**
 * Loss layers: CrossEntropyLoss and MSELoss (the functions of
 * ops/losses.ts with their options kept on the module).
 */
import { crossEntropy, mseLoss } from '../../amp/install';
import { Reduction } from '../../ops/losses';
import { Tensor } from '../../tensor';
import { Module } from '../module';

/** Options of CrossEntropyLoss (PyTorch's defaults). */
export interface CrossEntropyLossOptions {
  /** Per-class weights [C] (registered as a buffer). */
  weight?: Tensor | null;
  /** A target value that contributes nothing (default -100). */
  ignoreIndex?: number;
  /** 'mean' (default), 'sum' or 'none'. */
  reduction?: Reduction;
  /** Mixes the target with the uniform distribution by this amount (default 0). */
  labelSmoothing?: number;
}

/** crossEntropy(input, target) with class indices or probabilities as target. */
export class CrossEntropyLoss extends Module {
  readonly ignoreIndex: number;
  readonly reduction: Reduction;
  readonly labelSmoothing: number;
  declare weight: Tensor | null;

  constructor(opts: CrossEntropyLossOptions = {}) {
    super();
    this.registerBuffer('weight', opts.weight ?? null);
    this.ignoreIndex = opts.ignoreIndex ?? -100;
    this.reduction = opts.reduction ?? 'mean';
    this.labelSmoothing = opts.labelSmoothing ?? 0;
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return crossEntropy(input, target, {
      weight: this.weight, ignoreIndex: this.ignoreIndex, reduction: this.reduction, labelSmoothing: this.labelSmoothing,
    });
  }
}

/** Mean (or sum, or none) of the squared differences. */
export class MSELoss extends Module {
  constructor(readonly opts: { reduction?: Reduction } = {}) {
    super();
  }

  /** 'mean' (default), 'sum' or 'none'. */
  get reduction(): Reduction {
    return this.opts.reduction ?? 'mean';
  }

  forward(input: Tensor, target: Tensor): Tensor {
    return mseLoss(input, target, { reduction: this.reduction });
  }
}
