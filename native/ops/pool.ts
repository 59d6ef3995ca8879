/**
 * Pooling over the last two dims, NCHW as PyTorch: maxPool2d (kernel,
 * stride, padding, dilation, ceilMode, returnIndices), avgPool2d
 * (countIncludePad, ceilMode, divisorOverride) and adaptiveAvgPool2d.
 * maxPool2d and avgPool2d reduce the windows im2col makes (conv.ts); the
 * adaptive pool is two matrix products with averaging matrices. Backward
 * comes from the rows of the ops they are made of (col2im scatters the
 * window gradients back).
 */
import { codedError } from '../errors';
import { tidy } from '../scope';
import { formatShape, Tensor } from '../tensor';
import { fromBuffer } from './creation';
import { argError, checkTensor } from './helpers';
import { matmul } from './linalg';
import { batched4d, checkFloating, pair, Pair, windowCount } from './conv_args';
import { im2col } from './conv';

/** Options of maxPool2d (PyTorch's keyword arguments). */
export interface MaxPool2dOptions {
  /** Step between windows (default: the kernel size). */
  stride?: Pair | null;
  /** -Infinity added on each side (default 0; at most half the dilated kernel). */
  padding?: Pair;
  /** Spacing between window elements (default 1). */
  dilation?: Pair;
  /** Count windows with ceil instead of floor, so that the last partial window is kept (default false). */
  ceilMode?: boolean;
  /** Also return, for each output, the flat index (h * W + w) of the input element it came from (default false). */
  returnIndices?: boolean;
}

/** Options of avgPool2d (PyTorch's keyword arguments). */
export interface AvgPool2dOptions {
  /** Step between windows (default: the kernel size). */
  stride?: Pair | null;
  /** Zeros added on each side (default 0; at most half the kernel). */
  padding?: Pair;
  /** Count windows with ceil instead of floor (default false). */
  ceilMode?: boolean;
  /** Divide by the whole window, padding included (default true), rather than by the input elements in it. */
  countIncludePad?: boolean;
  /** Divide every window's sum by this instead (default null: the window's count). */
  divisorOverride?: number | null;
}

interface PoolGeometry {
  kernel: [number, number];
  stride: [number, number];
  padding: [number, number];
  dilation: [number, number];
  outputSize: [number, number];
}

function poolGeometry(op: string, x: Tensor, input: Tensor, kernelSize: Pair, o: { stride?: Pair | null; padding?: Pair; dilation?: Pair; ceilMode?: boolean }, dilated: boolean): PoolGeometry {
  const kernel = pair(op, 'kernelSize', kernelSize, 1);
  const stride = o.stride === undefined || o.stride === null || (Array.isArray(o.stride) && o.stride.length === 0) ? kernel : pair(op, 'stride', o.stride, 1);
  const padding = pair(op, 'padding', o.padding ?? 0, 0);
  const dilation = pair(op, 'dilation', o.dilation ?? 1, 1);
  const ceil = o.ceilMode ?? false;
  if (typeof ceil !== 'boolean') argError(op, 'a boolean', 'ceilMode', ceil);
  for (let i = 0; i < 2; i++) {
    const ek = dilation[i] * (kernel[i] - 1) + 1;
    if (padding[i] * 2 > (dilated ? ek : kernel[i])) {
      throw codedError('TSGPU_ARG', `${op}: pad should be at most half of effective kernel size, but got pad=${padding[i]}, kernel_size=${kernel[i]} and dilation=${dilation[i]}`);
    }
  }
  const [, c, h, w] = x.shape;
  const oh = windowCount(h, kernel[0], stride[0], padding[0], dilation[0], ceil);
  const ow = windowCount(w, kernel[1], stride[1], padding[1], dilation[1], ceil);
  if (oh < 1 || ow < 1) {
    throw codedError('TSGPU_ARG', `${op}: Given input size: (${c}x${h}x${w}). Calculated output size: (${c}x${oh}x${ow}). Output size is too small (input of size ${formatShape(input.shape)})`);
  }
  return { kernel, stride, padding, dilation, outputSize: [oh, ow] };
}

function checkPoolInput(op: string, input: Tensor): { x: Tensor; unbatched: boolean } {
  checkTensor(op, 'input', input);
  checkFloating(op, 'input', input, 'im2col');
  const r = batched4d(op, input);
  if (r.x.shape.slice(1).some((s) => s === 0)) {
    throw codedError('TSGPU_ARG', `${op}: Expected input's non-batch dimensions to have positive length, but input has a shape of ${formatShape(input.shape)}`);
  }
  return r;
}

/** The windows of every plane of x [N, C, H, W] as [N*C, KH*KW, OH*OW]. */
function planeWindows(x: Tensor, g: PoolGeometry, padValue: number): Tensor {
  const [n, c, h, w] = x.shape;
  return im2col(x.reshape([n * c, 1, h, w]), g, padValue);
}

/**
 * Max over sliding windows of `input` [N, C, H, W] or [C, H, W]; stride
 * defaults to the kernel size. With returnIndices, [values, indices]: the
 * indices (int64) are flat positions h * W + w in each input plane, as PyTorch's.
 */
export function maxPool2d(input: Tensor, kernelSize: Pair, opts?: MaxPool2dOptions & { returnIndices?: false }): Tensor;
export function maxPool2d(input: Tensor, kernelSize: Pair, opts: MaxPool2dOptions & { returnIndices: true }): [Tensor, Tensor];
export function maxPool2d(input: Tensor, kernelSize: Pair, opts: MaxPool2dOptions = {}): Tensor | [Tensor, Tensor] {
  const op = 'maxPool2d';
  const { x, unbatched } = checkPoolInput(op, input);
  const g = poolGeometry(op, x, input, kernelSize, opts, true);
  const [n, c, h, w] = x.shape;
  const [oh, ow] = g.outputSize;
  const outShape = unbatched ? [c, oh, ow] : [n, c, oh, ow];
  return tidy(() => {
    const cols = planeWindows(x, g, -Infinity);
    const { values, indices } = cols.max(1);
    const out = values.view(outShape);
    if (!opts.returnIndices) return out;
    // Window entry k of output (y, x) reads input (y*sh - ph + ki*dh, x*sw - pw + kj*dw).
    const koff = new BigInt64Array(g.kernel[0] * g.kernel[1]);
    for (let ki = 0; ki < g.kernel[0]; ki++) {
      for (let kj = 0; kj < g.kernel[1]; kj++) koff[ki * g.kernel[1] + kj] = BigInt(ki * g.dilation[0] * w + kj * g.dilation[1]);
    }
    const base = new BigInt64Array(oh * ow);
    for (let y = 0; y < oh; y++) {
      for (let xx = 0; xx < ow; xx++) base[y * ow + xx] = BigInt((y * g.stride[0] - g.padding[0]) * w + xx * g.stride[1] - g.padding[1]);
    }
    const dev = { dtype: 'int64' as const, device: input.device };
    const kt = fromBuffer(koff, { ...dev, shape: [koff.length] });
    const bt = fromBuffer(base, { ...dev, shape: [oh * ow] });
    const flat = kt.take(indices).add(bt);
    void h;
    return [out, flat.view(outShape)] as [Tensor, Tensor];
  });
}

/**
 * Mean over sliding windows of `input` [N, C, H, W] or [C, H, W]; stride
 * defaults to the kernel size; the divisor is the window's size with
 * countIncludePad (the default), else the number of input elements in it,
 * or divisorOverride when given.
 */
export function avgPool2d(input: Tensor, kernelSize: Pair, opts: AvgPool2dOptions = {}): Tensor {
  const op = 'avgPool2d';
  const { x, unbatched } = checkPoolInput(op, input);
  const g = poolGeometry(op, x, input, kernelSize, { ...opts, dilation: 1 }, false);
  const includePad = opts.countIncludePad ?? true;
  if (typeof includePad !== 'boolean') argError(op, 'a boolean', 'countIncludePad', includePad);
  const div = opts.divisorOverride ?? null;
  if (div !== null && (typeof div !== 'number' || !Number.isInteger(div) || div === 0)) {
    throw codedError('TSGPU_ARG', `${op}: divisor must be not zero (divisorOverride ${String(div)}; expected a non-zero integer)`);
  }
  const [n, c, h, w] = x.shape;
  const [oh, ow] = g.outputSize;
  const outShape = unbatched ? [c, oh, ow] : [n, c, oh, ow];
  return tidy(() => {
    const cols = planeWindows(x, g, 0);
    const sums = cols.sum(1);
    let y: Tensor;
    if (div !== null) {
      y = sums.div(div);
    } else {
      // PyTorch's divisor: the window clipped to the padded input, or to the input without countIncludePad.
      const d = new Float64Array(oh * ow);
      for (let i = 0; i < oh; i++) {
        for (let j = 0; j < ow; j++) {
          let h0 = i * g.stride[0] - g.padding[0];
          let w0 = j * g.stride[1] - g.padding[1];
          let h1 = Math.min(h0 + g.kernel[0], h + g.padding[0]);
          let w1 = Math.min(w0 + g.kernel[1], w + g.padding[1]);
          const whole = (h1 - h0) * (w1 - w0);
          h0 = Math.max(h0, 0);
          w0 = Math.max(w0, 0);
          h1 = Math.min(h1, h);
          w1 = Math.min(w1, w);
          d[i * ow + j] = includePad ? whole : (h1 - h0) * (w1 - w0);
        }
      }
      const dt = fromBuffer(d, { dtype: 'float64', device: input.device, shape: [oh * ow] }).to(input.dtype);
      y = sums.div(dt);
    }
    return y.view(outShape);
  });
}

/** The averaging matrix [out, size] of one dim of adaptiveAvgPool2d: row i averages [floor(i size / out), ceil((i + 1) size / out)). */
function adaptiveMatrix(size: number, out: number, like: Tensor): Tensor {
  const m = new Float64Array(out * size);
  for (let i = 0; i < out; i++) {
    const a = Math.floor((i * size) / out);
    const b = Math.ceil(((i + 1) * size) / out);
    for (let j = a; j < b; j++) m[i * size + j] = 1 / (b - a);
  }
  return fromBuffer(m, { dtype: 'float64', device: like.device, shape: [out, size] }).to(like.dtype);
}

/**
 * Average pool to a fixed output size [OH, OW] (a number is both; null keeps
 * the input's size) over the last two dims of [N, C, H, W] or [C, H, W]:
 * output (i, j) averages rows [floor(i H / OH), ceil((i + 1) H / OH)) and
 * the same for columns, as PyTorch's.
 */
export function adaptiveAvgPool2d(input: Tensor, outputSize: number | readonly (number | null)[]): Tensor {
  const op = 'adaptiveAvgPool2d';
  checkTensor(op, 'input', input);
  checkFloating(op, 'input', input, 'gemm');
  if (input.ndim !== 3 && input.ndim !== 4) {
    throw codedError('TSGPU_ARG', `${op}: Expected 3D or 4D tensor, but got input of size ${formatShape(input.shape)} (${input.ndim}-D)`);
  }
  const h = input.shape[input.ndim - 2];
  const w = input.shape[input.ndim - 1];
  const given = typeof outputSize === 'number' ? [outputSize, outputSize] : Array.isArray(outputSize) ? outputSize : null;
  if (given === null || given.length !== 2) argError(op, 'an integer or a list of two', 'outputSize', outputSize);
  const oh = given[0] ?? h;
  const ow = given[1] ?? w;
  for (const s of [oh, ow]) {
    if (!Number.isInteger(s) || s < 0) argError(op, 'non-negative integers', 'outputSize', `[${given.join(', ')}]`);
  }
  if (input.shape.slice(1).some((s) => s === 0)) {
    throw codedError('TSGPU_ARG', `${op}: Expected input to have non-zero size for non-batch dimensions, but input has sizes ${formatShape(input.shape)}`);
  }
  return tidy(() => {
    if (oh === 1 && ow === 1) return input.mean([-2, -1], true);
    const rows = oh === h ? null : adaptiveMatrix(h, oh, input);
    const cols = ow === w ? null : adaptiveMatrix(w, ow, input);
    let y = input;
    if (rows) y = matmul(rows, y);
    if (cols) y = matmul(y, cols.t());
    return y === input ? input.clone() : y;
  });
}
