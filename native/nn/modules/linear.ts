/**
 * Linear (y = x Wᵀ + b) and Identity, with PyTorch's default initialization.
 */
import { empty, TensorOptions } from '../../ops/creation';
import { linear } from '../../amp/install';
import { Tensor } from '../../tensor';
import * as init from '../init';
import { Module } from '../module';
import { newParameter, Parameter } from '../parameter';
import { checkPositiveInt, factoryOptions, FactoryOptions, pyBool } from './args';

/** Options of Linear. */
export interface LinearOptions extends FactoryOptions {
  /** Whether the layer adds a learned bias (default true). */
  bias?: boolean;
}

/**
 * y = x Wᵀ + b over the last dim: weight [outFeatures, inFeatures] from
 * kaiming uniform with a = √5 (U(±1/√inFeatures)), bias [outFeatures] from
 * U(±1/√inFeatures), as PyTorch initializes them.
 */
export class Linear extends Module {
  readonly inFeatures: number;
  readonly outFeatures: number;
  weight: Parameter;
  bias: Parameter | null;

  constructor(inFeatures: number, outFeatures: number, opts: LinearOptions = {}) {
    super();
    this.inFeatures = checkPositiveInt('Linear', 'inFeatures', inFeatures, true);
    this.outFeatures = checkPositiveInt('Linear', 'outFeatures', outFeatures, true);
    const t: TensorOptions = factoryOptions('Linear', opts);
    this.weight = newParameter(() => empty([outFeatures, inFeatures], t));
    this.bias = (opts.bias ?? true) ? newParameter(() => empty([outFeatures], t)) : null;
    this.resetParameters();
  }

  /** Draws the weight and bias again from PyTorch's defaults. */
  resetParameters(): void {
    init.kaimingUniform_(this.weight, { a: Math.sqrt(5) });
    if (this.bias !== null) {
      const [fanIn] = init.calculateFanInAndFanOut(this.weight);
      const bound = fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0;
      init.uniform_(this.bias, -bound, bound);
    }
  }

  forward(x: Tensor): Tensor {
    return linear(x, this.weight, this.bias);
  }

  extraRepr(): string {
    return `in_features=${this.inFeatures}, out_features=${this.outFeatures}, bias=${pyBool(this.bias !== null)}`;
  }
}

/**
 * Passes its input through (a placeholder layer): a view of the input, a new
 * tensor object on the same memory, so that the caller may dispose the
 * output as it disposes any other (the input stays alive).
 */
export class Identity extends Module {
  forward(x: Tensor): Tensor {
    return x.view(x.shape);
  }
}
