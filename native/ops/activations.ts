/**
 * The activations of torch.nn.functional that compose from elementwise ops,
 * with PyTorch's positional parameters and defaults (and `inplace`, which
 * writes the result into the input and returns it): leakyRelu, elu, selu,
 * celu, mish, hardtanh, relu6, hardsigmoid, hardswish, glu, logsigmoid,
 * softmin, softsign, tanhshrink, threshold, hardshrink, softshrink.
 * Exported as torch.nn.functional.* (nn_functional.ts) and as torch.*
 * where PyTorch has them there too.
 */
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { isFloatingPoint } from '../dtype';
import { argError, checkTensor, elementwise } from './helpers';
import { where } from './math';
import { softmax } from './reduce';

/** The result, or for inplace, the result written into x (returned). */
function result(op: string, x: Tensor, inplace: boolean | undefined, fn: () => Tensor): Tensor {
  checkTensor(op, 'input', x);
  if (inplace !== undefined && typeof inplace !== 'boolean') argError(op, 'a boolean', 'inplace', inplace);
  const r = tidy(fn);
  if (!inplace) return r;
  x.copy_(r);
  r.dispose();
  return x;
}

function num(op: string, name: string, v: unknown): number {
  if (typeof v !== 'number') argError(op, 'a number', name, v);
  return v as number;
}

/** x where x > 0, else negativeSlope * x (default slope 0.01): one pass of its own op on floating tensors. */
export function leakyRelu(x: Tensor, negativeSlope = 0.01, inplace = false): Tensor {
  const s = num('leakyRelu', 'negativeSlope', negativeSlope);
  checkTensor('leakyRelu', 'input', x);
  if (typeof inplace !== 'boolean') argError('leakyRelu', 'a boolean', 'inplace', inplace);
  if (!isFloatingPoint(x.dtype)) return result('leakyRelu', x, inplace, () => where(x.gt(0), x, x.mul(s)));
  return elementwise('leakyRelu', [x], { attrs: { negativeSlope: s }, out: inplace ? x : undefined });
}

/** x where x > 0, else alpha * (exp(x) - 1) (default alpha 1). */
export function elu(x: Tensor, alpha = 1, inplace = false): Tensor {
  const a = num('elu', 'alpha', alpha);
  return result('elu', x, inplace, () => where(x.gt(0), x, x.expm1().mul(a)));
}

const SELU_ALPHA = 1.6732632423543772848170429916717;
const SELU_SCALE = 1.0507009873554804934193349852946;

/** scale * elu(x, alpha) with SELU's fixed alpha ≈ 1.6733 and scale ≈ 1.0507. */
export function selu(x: Tensor, inplace = false): Tensor {
  return result('selu', x, inplace, () => where(x.gt(0), x, x.expm1().mul(SELU_ALPHA)).mul(SELU_SCALE));
}

/** max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (default alpha 1). */
export function celu(x: Tensor, alpha = 1, inplace = false): Tensor {
  const a = num('celu', 'alpha', alpha);
  if (a === 0) throw codedError('TSGPU_ARG', 'celu: ZeroDivisionError: alpha cannot be 0 for CELU');
  return result('celu', x, inplace, () => where(x.gt(0), x, x.div(a).expm1().mul(a)));
}

/** x * tanh(softplus(x)). */
export function mish(x: Tensor, inplace = false): Tensor {
  return result('mish', x, inplace, () => x.mul(x.softplus().tanh()));
}

/** x clamped to [minVal, maxVal] (default [-1, 1]). */
export function hardtanh(x: Tensor, minVal = -1, maxVal = 1, inplace = false): Tensor {
  const lo = num('hardtanh', 'minVal', minVal);
  const hi = num('hardtanh', 'maxVal', maxVal);
  if (lo > hi) throw codedError('TSGPU_ARG', `hardtanh: minVal ${lo} cannot be greater than maxVal ${hi}`);
  return result('hardtanh', x, inplace, () => x.clamp(lo, hi));
}

/** min(max(0, x), 6). */
export function relu6(x: Tensor, inplace = false): Tensor {
  return result('relu6', x, inplace, () => x.clamp(0, 6));
}

/** relu6(x + 3) / 6: 0 below -3, 1 above 3, linear between. */
export function hardsigmoid(x: Tensor, inplace = false): Tensor {
  return result('hardsigmoid', x, inplace, () => x.add(3).clamp(0, 6).div(6));
}

/** x * relu6(x + 3) / 6. */
export function hardswish(x: Tensor, inplace = false): Tensor {
  return result('hardswish', x, inplace, () => x.mul(x.add(3).clamp(0, 6)).div(6));
}

/** The gated linear unit: a * sigmoid(b), a and b the halves of x along dim (default -1). */
export function glu(x: Tensor, dim = -1): Tensor {
  checkTensor('glu', 'input', x);
  if (x.ndim === 0) throw codedError('TSGPU_ARG', 'glu: glu does not support scalars because halving size must be even');
  const d = x.normDim(dim, 'glu');
  if (x.shape[d] % 2 !== 0) {
    throw shapeError(`glu: Halving dimension must be even, but dimension ${d} is size ${x.shape[d]} (input of shape ${formatShape(x.shape)})`);
  }
  return tidy(() => {
    const [a, b] = x.chunk(2, d);
    return a.mul(b.sigmoid());
  });
}

/** log(sigmoid(x)) = -softplus(-x), computed stably. */
export function logsigmoid(x: Tensor): Tensor {
  return result('logsigmoid', x, false, () => x.neg().softplus().neg());
}

/** softmax(-x) along dim. */
export function softmin(x: Tensor, dim: number): Tensor {
  checkTensor('softmin', 'input', x);
  if (typeof dim !== 'number') argError('softmin', 'an integer', 'dim', dim);
  return tidy(() => softmax(x.neg(), dim));
}

/** x / (1 + |x|). */
export function softsign(x: Tensor): Tensor {
  return result('softsign', x, false, () => x.div(x.abs().add(1)));
}

/** x - tanh(x). */
export function tanhshrink(x: Tensor): Tensor {
  return result('tanhshrink', x, false, () => x.sub(x.tanh()));
}

/** x where x > threshold, else value. */
export function threshold(x: Tensor, thresholdValue: number, value: number, inplace = false): Tensor {
  const t = num('threshold', 'threshold', thresholdValue);
  const v = num('threshold', 'value', value);
  return result('threshold', x, inplace, () => where(x.gt(t), x, v));
}

/** x where |x| > lambd, else 0 (default lambd 0.5). */
export function hardshrink(x: Tensor, lambd = 0.5): Tensor {
  const l = num('hardshrink', 'lambd', lambd);
  return result('hardshrink', x, false, () => where(x.abs().gt(l), x, 0));
}

/** x - lambd above lambd, x + lambd below -lambd, else 0 (default lambd 0.5). */
export function softshrink(x: Tensor, lambd = 0.5): Tensor {
  const l = num('softshrink', 'lambd', lambd);
  if (l < 0) throw codedError('TSGPU_ARG', `softshrink: lambda must be greater or equal to 0, but found to be ${l}.`);
  return result('softshrink', x, false, () => where(x.gt(l), x.sub(l), where(x.lt(-l), x.add(l), 0)));
}
