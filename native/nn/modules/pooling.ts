/**
 * Pooling layers: MaxPool2d, AvgPool2d and AdaptiveAvgPool2d (ops/pool.ts),
 * and Flatten (a view from startDim to endDim) — PyTorch's arguments and
 * defaults; none has parameters.
 */
import { adaptiveAvgPool2d, avgPool2d, maxPool2d, AvgPool2dOptions, MaxPool2dOptions } from '../../ops/pool';
import { Pair } from '../../ops/conv_args';
import { Tensor } from '../../tensor';
import { Module } from '../module';
import { pyBool } from './args';

function show(v: Pair | null | undefined): string {
  if (v === null || v === undefined) return 'None';
  return typeof v === 'number' ? String(v) : `(${v.join(', ')})`;
}

/** Max over windows of kernelSize (stride defaults to kernelSize); with returnIndices, forward gives [values, indices]. */
export class MaxPool2d extends Module {
  readonly kernelSize: Pair;
  readonly opts: MaxPool2dOptions;

  constructor(kernelSize: Pair, opts: MaxPool2dOptions = {}) {
    super();
    this.kernelSize = kernelSize;
    this.opts = { ...opts };
  }

  /** The pooled tensor; [values, indices] when the layer was made with returnIndices. */
  forward(x: Tensor): any {
    if (this.opts.returnIndices) return maxPool2d(x, this.kernelSize, { ...this.opts, returnIndices: true });
    return maxPool2d(x, this.kernelSize, { ...this.opts, returnIndices: false });
  }

  extraRepr(): string {
    const o = this.opts;
    return `kernel_size=${show(this.kernelSize)}, stride=${show(o.stride ?? this.kernelSize)}, padding=${show(o.padding ?? 0)}, dilation=${show(o.dilation ?? 1)}, ceil_mode=${pyBool(o.ceilMode ?? false)}`;
  }
}

/** Mean over windows of kernelSize (stride defaults to kernelSize). */
export class AvgPool2d extends Module {
  readonly kernelSize: Pair;
  readonly opts: AvgPool2dOptions;

  constructor(kernelSize: Pair, opts: AvgPool2dOptions = {}) {
    super();
    this.kernelSize = kernelSize;
    this.opts = { ...opts };
  }

  forward(x: Tensor): Tensor {
    return avgPool2d(x, this.kernelSize, this.opts);
  }

  extraRepr(): string {
    const o = this.opts;
    return `kernel_size=${show(this.kernelSize)}, stride=${show(o.stride ?? this.kernelSize)}, padding=${show(o.padding ?? 0)}`;
  }
}

/** Average pool to a fixed [OH, OW] (a number is both; null keeps that dim's size). */
export class AdaptiveAvgPool2d extends Module {
  readonly outputSize: number | readonly (number | null)[];

  constructor(outputSize: number | readonly (number | null)[]) {
    super();
    this.outputSize = outputSize;
  }

  forward(x: Tensor): Tensor {
    return adaptiveAvgPool2d(x, this.outputSize);
  }

  extraRepr(): string {
    const s = this.outputSize;
    return `output_size=${typeof s === 'number' ? s : `(${s.map((v) => (v === null ? 'None' : v)).join(', ')})`}`;
  }
}

/** Flattens dims startDim..endDim into one (defaults 1 and -1: everything but the batch dim), a view where it can be. */
export class Flatten extends Module {
  readonly startDim: number;
  readonly endDim: number;

  constructor(startDim = 1, endDim = -1) {
    super();
    this.startDim = startDim;
    this.endDim = endDim;
  }

  forward(x: Tensor): Tensor {
    return x.flatten(this.startDim, this.endDim);
  }

  extraRepr(): string {
    return `start_dim=${this.startDim}, end_dim=${this.endDim}`;
  }
}
