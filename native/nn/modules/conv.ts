/**
 * Convolution layers: Conv2d and ConvTranspose2d (ops/conv.ts through
 * autocast's wrappers), with PyTorch's default initialization: weight from
 * kaiming uniform with a = √5, bias from U(±1/√fanIn).
 */
import { empty, TensorOptions } from '../../ops/creation';
import { conv2d, convTranspose2d } from '../../amp/install';
import { codedError } from '../../errors';
import { Tensor } from '../../tensor';
import { pair, Pair } from '../../ops/conv_args';
import * as init from '../init';
import { Module } from '../module';
import { newParameter, Parameter } from '../parameter';
import { checkPositiveInt, factoryOptions, FactoryOptions, pyBool, pyTuple } from './args';

/** Options of Conv2d (PyTorch's keyword arguments). */
export interface Conv2dLayerOptions extends FactoryOptions {
  /** Default 1. */
  stride?: Pair;
  /** Default 0; or 'same' / 'valid'. */
  padding?: Pair | 'same' | 'valid';
  /** Default 1. */
  dilation?: Pair;
  /** Default 1; must divide both channel counts. */
  groups?: number;
  /** Whether the layer adds a learned bias (default true). */
  bias?: boolean;
  /** Only 'zeros' (the default) is supported. */
  paddingMode?: 'zeros';
}

/** Options of ConvTranspose2d (PyTorch's keyword arguments). */
export interface ConvTranspose2dLayerOptions extends FactoryOptions {
  stride?: Pair;
  padding?: Pair;
  outputPadding?: Pair;
  groups?: number;
  bias?: boolean;
  dilation?: Pair;
}

function checkGroupsDivide(op: string, inC: number, outC: number, groups: number): void {
  checkPositiveInt(op, 'groups', groups);
  if (inC % groups !== 0) throw codedError('TSGPU_ARG', `${op}: in_channels must be divisible by groups (inChannels ${inC}, groups ${groups})`);
  if (outC % groups !== 0) throw codedError('TSGPU_ARG', `${op}: out_channels must be divisible by groups (outChannels ${outC}, groups ${groups})`);
}

/** PyTorch's _ConvNd.reset_parameters: kaiming uniform (a = √5) weight, U(±1/√fanIn) bias. */
function resetConv(weight: Parameter, bias: Parameter | null): void {
  init.kaimingUniform_(weight, { a: Math.sqrt(5) });
  if (bias !== null) {
    const [fanIn] = init.calculateFanInAndFanOut(weight);
    const bound = fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0;
    init.uniform_(bias, -bound, bound);
  }
}

/**
 * 2-D convolution over [N, C, H, W] (or [C, H, W]): weight
 * [outChannels, inChannels / groups, KH, KW], bias [outChannels].
 */
export class Conv2d extends Module {
  readonly inChannels: number;
  readonly outChannels: number;
  readonly kernelSize: [number, number];
  readonly stride: [number, number];
  readonly padding: [number, number] | 'same' | 'valid';
  readonly dilation: [number, number];
  readonly groups: number;
  weight: Parameter;
  bias: Parameter | null;

  constructor(inChannels: number, outChannels: number, kernelSize: Pair, opts: Conv2dLayerOptions = {}) {
    super();
    const op = 'Conv2d';
    this.inChannels = checkPositiveInt(op, 'inChannels', inChannels);
    this.outChannels = checkPositiveInt(op, 'outChannels', outChannels);
    this.kernelSize = pair(op, 'kernelSize', kernelSize, 1);
    this.stride = pair(op, 'stride', opts.stride ?? 1, 1);
    const p = opts.padding ?? 0;
    if (typeof p === 'string' && p !== 'same' && p !== 'valid') {
      throw codedError('TSGPU_ARG', `${op}: Invalid padding string '${p}', should be one of ['valid', 'same']`);
    }
    this.padding = typeof p === 'string' ? p : pair(op, 'padding', p, 0);
    this.dilation = pair(op, 'dilation', opts.dilation ?? 1, 1);
    this.groups = opts.groups ?? 1;
    checkGroupsDivide(op, inChannels, outChannels, this.groups);
    if (p === 'same' && (this.stride[0] !== 1 || this.stride[1] !== 1)) {
      throw codedError('TSGPU_ARG', `${op}: padding='same' is not supported for strided convolutions`);
    }
    if ((opts.paddingMode ?? 'zeros') !== 'zeros') {
      throw codedError('TSGPU_ARG', `${op}: only paddingMode 'zeros' is supported, got '${String(opts.paddingMode)}'`);
    }
    const t: TensorOptions = factoryOptions(op, opts);
    this.weight = newParameter(() => empty([outChannels, inChannels / this.groups, ...this.kernelSize], t));
    this.bias = (opts.bias ?? true) ? newParameter(() => empty([outChannels], t)) : null;
    this.resetParameters();
  }

  /** Draws the weight and bias again from PyTorch's defaults. */
  resetParameters(): void {
    resetConv(this.weight, this.bias);
  }

  forward(x: Tensor): Tensor {
    return conv2d(x, this.weight, this.bias, { stride: this.stride, padding: this.padding, dilation: this.dilation, groups: this.groups });
  }

  extraRepr(): string {
    let s = `${this.inChannels}, ${this.outChannels}, kernel_size=${pyTuple(this.kernelSize)}, stride=${pyTuple(this.stride)}`;
    const p = this.padding;
    if (typeof p === 'string') s += `, padding=${p}`;
    else if (p[0] !== 0 || p[1] !== 0) s += `, padding=${pyTuple(p)}`;
    if (this.dilation[0] !== 1 || this.dilation[1] !== 1) s += `, dilation=${pyTuple(this.dilation)}`;
    if (this.groups !== 1) s += `, groups=${this.groups}`;
    if (this.bias === null) s += `, bias=${pyBool(false)}`;
    return s;
  }
}

/**
 * The transpose of Conv2d (a "deconvolution"): weight
 * [inChannels, outChannels / groups, KH, KW], bias [outChannels];
 * forward takes an optional outputSize [OH, OW] that picks outputPadding.
 */
export class ConvTranspose2d extends Module {
  readonly inChannels: number;
  readonly outChannels: number;
  readonly kernelSize: [number, number];
  readonly stride: [number, number];
  readonly padding: [number, number];
  readonly outputPadding: [number, number];
  readonly dilation: [number, number];
  readonly groups: number;
  weight: Parameter;
  bias: Parameter | null;

  constructor(inChannels: number, outChannels: number, kernelSize: Pair, opts: ConvTranspose2dLayerOptions = {}) {
    super();
    const op = 'ConvTranspose2d';
    this.inChannels = checkPositiveInt(op, 'inChannels', inChannels);
    this.outChannels = checkPositiveInt(op, 'outChannels', outChannels);
    this.kernelSize = pair(op, 'kernelSize', kernelSize, 1);
    this.stride = pair(op, 'stride', opts.stride ?? 1, 1);
    this.padding = pair(op, 'padding', opts.padding ?? 0, 0);
    this.outputPadding = pair(op, 'outputPadding', opts.outputPadding ?? 0, 0);
    this.dilation = pair(op, 'dilation', opts.dilation ?? 1, 1);
    this.groups = opts.groups ?? 1;
    checkGroupsDivide(op, inChannels, outChannels, this.groups);
    const t: TensorOptions = factoryOptions(op, opts);
    this.weight = newParameter(() => empty([inChannels, outChannels / this.groups, ...this.kernelSize], t));
    this.bias = (opts.bias ?? true) ? newParameter(() => empty([outChannels], t)) : null;
    this.resetParameters();
  }

  /** Draws the weight and bias again from PyTorch's defaults (fan-in of this weight layout, as PyTorch computes it). */
  resetParameters(): void {
    resetConv(this.weight, this.bias);
  }

  /** outputSize, when given, is the [OH, OW] (or [N, C, OH, OW]) wanted; the output padding that gives it is derived. */
  forward(x: Tensor, outputSize?: readonly number[] | null): Tensor {
    let outPad = this.outputPadding;
    if (outputSize) {
      const want = outputSize.slice(-2);
      const h = x.shape[x.ndim - 2], w = x.shape[x.ndim - 1];
      const base = [h, w].map((s, i) => (s - 1) * this.stride[i] - 2 * this.padding[i] + this.dilation[i] * (this.kernelSize[i] - 1) + 1);
      const pads = want.map((s, i) => s - base[i]);
      if (pads.some((p, i) => p < 0 || p >= Math.max(this.stride[i], this.dilation[i]))) {
        throw codedError('TSGPU_ARG', `ConvTranspose2d: requested an output size of [${want.join(', ')}], but valid sizes range from [${base.join(', ')}] to [${base.map((b, i) => b + Math.max(this.stride[i], this.dilation[i]) - 1).join(', ')}] (for an input of [${h}, ${w}])`);
      }
      outPad = [pads[0], pads[1]];
    }
    return convTranspose2d(x, this.weight, this.bias, {
      stride: this.stride, padding: this.padding, outputPadding: outPad, groups: this.groups, dilation: this.dilation,
    });
  }

  extraRepr(): string {
    let s = `${this.inChannels}, ${this.outChannels}, kernel_size=${pyTuple(this.kernelSize)}, stride=${pyTuple(this.stride)}`;
    if (this.padding[0] !== 0 || this.padding[1] !== 0) s += `, padding=${pyTuple(this.padding)}`;
    if (this.outputPadding[0] !== 0 || this.outputPadding[1] !== 0) s += `, output_padding=${pyTuple(this.outputPadding)}`;
    if (this.dilation[0] !== 1 || this.dilation[1] !== 1) s += `, dilation=${pyTuple(this.dilation)}`;
    if (this.groups !== 1) s += `, groups=${this.groups}`;
    if (this.bias === null) s += `, bias=${pyBool(false)}`;
    return s;
  }
}
