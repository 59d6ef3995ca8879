/**
 * LayerNorm and RMSNorm over the trailing `normalizedShape` dims, with
 * PyTorch's defaults (weight ones, bias zeros).
 */
import { ones, zeros } from '../../ops/creation';
import { layerNorm, rmsNorm } from '../../amp/install';
import { codedError } from '../../errors';
import { Tensor } from '../../tensor';
import * as init from '../init';
import { Module } from '../module';
import { newParameter, Parameter } from '../parameter';
import { factoryOptions, FactoryOptions, pyBool, pyTuple } from './args';

function shapeOf(op: string, s: number | readonly number[]): number[] {
  const shape = typeof s === 'number' ? [s] : Array.isArray(s) ? s.slice() : null;
  if (shape === null || shape.some((d) => !Number.isInteger(d) || d < 0)) {
    throw codedError('TSGPU_ARG', `${op}: expected a non-negative integer or a list of them for normalizedShape, got ${String(s)}`);
  }
  return shape;
}

/** Options of LayerNorm. */
export interface LayerNormOptions extends FactoryOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** Learn a per-element weight and bias (default true). */
  elementwiseAffine?: boolean;
  /** Learn the bias too (default true; with elementwiseAffine). */
  bias?: boolean;
}

/** (x - mean) / √(var + eps) · weight + bias over the trailing dims. */
export class LayerNorm extends Module {
  readonly normalizedShape: number[];
  readonly eps: number;
  readonly elementwiseAffine: boolean;
  weight: Parameter | null;
  bias: Parameter | null;

  constructor(normalizedShape: number | readonly number[], opts: LayerNormOptions = {}) {
    super();
    this.normalizedShape = shapeOf('LayerNorm', normalizedShape);
    this.eps = opts.eps ?? 1e-5;
    this.elementwiseAffine = opts.elementwiseAffine ?? true;
    const t = factoryOptions('LayerNorm', opts);
    this.weight = this.elementwiseAffine ? newParameter(() => ones(this.normalizedShape, t)) : null;
    this.bias = this.elementwiseAffine && (opts.bias ?? true) ? newParameter(() => zeros(this.normalizedShape, t)) : null;
  }

  /** Weight ones, bias zeros. */
  resetParameters(): void {
    if (this.weight !== null) init.ones_(this.weight);
    if (this.bias !== null) init.zeros_(this.bias);
  }

  forward(x: Tensor): Tensor {
    return layerNorm(x, this.normalizedShape, this.weight, this.bias, this.eps);
  }

  extraRepr(): string {
    return `${pyTuple(this.normalizedShape)}, eps=${this.eps}, elementwise_affine=${pyBool(this.elementwiseAffine)}`;
  }
}

/** Options of RMSNorm. */
export interface RMSNormOptions extends FactoryOptions {
  /** Added to the mean square (default null: the dtype's machine epsilon). */
  eps?: number | null;
  /** Learn a per-element weight (default true). */
  elementwiseAffine?: boolean;
}

/** x / √(mean(x²) + eps) · weight over the trailing dims. */
export class RMSNorm extends Module {
  readonly normalizedShape: number[];
  readonly eps: number | null;
  readonly elementwiseAffine: boolean;
  weight: Parameter | null;

  constructor(normalizedShape: number | readonly number[], opts: RMSNormOptions = {}) {
    super();
    this.normalizedShape = shapeOf('RMSNorm', normalizedShape);
    this.eps = opts.eps ?? null;
    this.elementwiseAffine = opts.elementwiseAffine ?? true;
    const t = factoryOptions('RMSNorm', opts);
    this.weight = this.elementwiseAffine ? newParameter(() => ones(this.normalizedShape, t)) : null;
  }

  /** Weight ones. */
  resetParameters(): void {
    if (this.weight !== null) init.ones_(this.weight);
  }

  forward(x: Tensor): Tensor {
    return rmsNorm(x, this.normalizedShape, this.weight, this.eps);
  }

  extraRepr(): string {
    return `${pyTuple(this.normalizedShape)}, eps=${this.eps === null ? 'None' : this.eps}, elementwise_affine=${pyBool(this.elementwiseAffine)}`;
  }
}
