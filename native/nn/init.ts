/**
 * nn.init: PyTorch's parameter initializations, in place and outside
 * autograd, with its formulas for the gain and the fans: kaimingUniform_,
 * kaimingNormal_, xavierUniform_, xavierNormal_, normal_, uniform_,
 * truncNormal_, zeros_, ones_, constant_, calculateGain.
 */
import { noGrad } from '../autograd/grad_mode';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { where } from '../ops/math';

/** The nonlinearities calculateGain knows. */
export type Nonlinearity =
  | 'linear' | 'conv1d' | 'conv2d' | 'conv3d' | 'conv_transpose1d' | 'conv_transpose2d' | 'conv_transpose3d'
  | 'sigmoid' | 'tanh' | 'relu' | 'leaky_relu' | 'selu';

/** Which fan kaiming initialization keeps the variance of: 'fanIn' (forward, the default) or 'fanOut' (backward). PyTorch's 'fan_in'/'fan_out' are accepted too. */
export type FanMode = 'fanIn' | 'fanOut' | 'fan_in' | 'fan_out';

/**
 * The recommended gain for a nonlinearity (PyTorch's calculate_gain): 1 for
 * linear, conv and sigmoid, 5/3 for tanh, √2 for relu, √(2 / (1 + slope²))
 * for leaky_relu (slope `param`, default 0.01), 3/4 for selu.
 */
export function calculateGain(nonlinearity: Nonlinearity, param?: number | null): number {
  switch (nonlinearity) {
    case 'linear': case 'conv1d': case 'conv2d': case 'conv3d':
    case 'conv_transpose1d': case 'conv_transpose2d': case 'conv_transpose3d': case 'sigmoid':
      return 1;
    case 'tanh':
      return 5 / 3;
    case 'relu':
      return Math.SQRT2;
    case 'leaky_relu': {
      const slope = param ?? 0.01;
      if (typeof slope !== 'number' || Number.isNaN(slope)) throw codedError('TSGPU_ARG', `negative_slope ${slope} not a valid number`);
      return Math.sqrt(2 / (1 + slope * slope));
    }
    case 'selu':
      return 3 / 4;
    default:
      throw codedError('TSGPU_ARG', `Unsupported nonlinearity ${nonlinearity}`);
  }
}

function checkTensorArg(op: string, t: unknown): Tensor {
  if (!(t instanceof Tensor)) throw codedError('TSGPU_ARG', `${op}: expected a Tensor for tensor, got ${t === null ? 'null' : typeof t}`);
  return t;
}

/**
 * fan_in and fan_out of a weight (PyTorch's _calculate_fan_in_and_fan_out):
 * size(1) and size(0), each times the product of the dims after the second.
 */
export function calculateFanInAndFanOut(t: Tensor): [number, number] {
  if (t.ndim < 2) throw codedError('TSGPU_ARG', 'Fan in and fan out can not be computed for tensor with fewer than 2 dimensions');
  let receptive = 1;
  for (let i = 2; i < t.ndim; i++) receptive *= t.shape[i];
  return [t.shape[1] * receptive, t.shape[0] * receptive];
}

function fan(t: Tensor, mode: FanMode): number {
  const [fanIn, fanOut] = calculateFanInAndFanOut(t);
  if (mode === 'fanIn' || mode === 'fan_in') return fanIn;
  if (mode === 'fanOut' || mode === 'fan_out') return fanOut;
  throw codedError('TSGPU_ARG', `Mode ${mode} not supported, please use one of fanIn, fanOut`);
}

/** Fills `t` from U(a, b) (defaults 0, 1), in place; returns t. */
export function uniform_(t: Tensor, a = 0, b = 1): Tensor {
  checkTensorArg('uniform_', t);
  return noGrad(() => t.uniform_(a, b));
}

/** Fills `t` from N(mean, std²) (defaults 0, 1), in place; returns t. */
export function normal_(t: Tensor, mean = 0, std = 1): Tensor {
  checkTensorArg('normal_', t);
  return noGrad(() => t.normal_(mean, std));
}

/** Fills `t` with `value`; returns t. */
export function constant_(t: Tensor, value: number): Tensor {
  checkTensorArg('constant_', t);
  return noGrad(() => t.fill_(value));
}

/** Fills `t` with zeros; returns t. */
export function zeros_(t: Tensor): Tensor {
  return constant_(t, 0);
}

/** Fills `t` with ones; returns t. */
export function ones_(t: Tensor): Tensor {
  return constant_(t, 1);
}

/**
 * Fills `t` from N(mean, std²) truncated to [a, b] (defaults 0, 1, -2, 2):
 * values outside are drawn again until none is left.
 */
export function truncNormal_(t: Tensor, mean = 0, std = 1, a = -2, b = 2): Tensor {
  checkTensorArg('truncNormal_', t);
  if (!(a < b)) throw codedError('TSGPU_ARG', `truncNormal_: expected a < b, got a=${a}, b=${b}`);
  return noGrad(() => {
    t.normal_(mean, std);
    for (;;) {
      const low = t.lt(a);
      const high = t.gt(b);
      const bad = low.logicalOr(high);
      low.dispose();
      high.dispose();
      const any = bad.any();
      const n = any.item();
      any.dispose();
      if (!n) {
        bad.dispose();
        return t;
      }
      const fresh = t.clone().normal_(mean, std);
      const mixed = where(bad, fresh, t);
      t.copy_(mixed);
      for (const x of [bad, fresh, mixed]) x.dispose();
    }
  });
}

/** Options of the kaiming initializations (PyTorch's defaults). */
export interface KaimingOptions {
  /** The negative slope of the leaky_relu after this layer (default 0). */
  a?: number;
  /** 'fanIn' (default) or 'fanOut'. */
  mode?: FanMode;
  /** The nonlinearity after this layer (default 'leaky_relu'). */
  nonlinearity?: Nonlinearity;
}

function kaimingStd(t: Tensor, opts: KaimingOptions): number {
  const gain = calculateGain(opts.nonlinearity ?? 'leaky_relu', opts.a ?? 0);
  return gain / Math.sqrt(fan(t, opts.mode ?? 'fanIn'));
}

/** He initialization: U(-bound, bound) with bound = gain · √(3 / fan) (PyTorch's kaiming_uniform_); returns t. */
export function kaimingUniform_(t: Tensor, opts: KaimingOptions = {}): Tensor {
  checkTensorArg('kaimingUniform_', t);
  if (t.numel === 0) return t;
  const bound = Math.sqrt(3) * kaimingStd(t, opts);
  return uniform_(t, -bound, bound);
}

/** He initialization: N(0, std²) with std = gain / √fan (PyTorch's kaiming_normal_); returns t. */
export function kaimingNormal_(t: Tensor, opts: KaimingOptions = {}): Tensor {
  checkTensorArg('kaimingNormal_', t);
  if (t.numel === 0) return t;
  return normal_(t, 0, kaimingStd(t, opts));
}

/** Glorot initialization: U(-a, a) with a = gain · √(6 / (fan_in + fan_out)) (gain default 1); returns t. */
export function xavierUniform_(t: Tensor, gain = 1): Tensor {
  checkTensorArg('xavierUniform_', t);
  const [fanIn, fanOut] = calculateFanInAndFanOut(t);
  const a = Math.sqrt(3) * gain * Math.sqrt(2 / (fanIn + fanOut));
  return uniform_(t, -a, a);
}

/** Glorot initialization: N(0, std²) with std = gain · √(2 / (fan_in + fan_out)) (gain default 1); returns t. */
export function xavierNormal_(t: Tensor, gain = 1): Tensor {
  checkTensorArg('xavierNormal_', t);
  const [fanIn, fanOut] = calculateFanInAndFanOut(t);
  return normal_(t, 0, gain * Math.sqrt(2 / (fanIn + fanOut)));
}
