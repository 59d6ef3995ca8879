/**
 * torch.nn.functional.interpolate for 4-D input [N, C, H, W]: 'nearest'
 * (PyTorch's floor(dst * scale) source index, computed in float32 as its
 * kernels do) by indexSelect along each dim, and 'bilinear' (alignCorners
 * or half-pixel centres) as two matrix products with interpolation
 * matrices, so that backward is the rows of indexSelect and matmul.
 */
import { codedError } from '../errors';
import { tidy } from '../scope';
import { formatShape, Tensor } from '../tensor';
import { fromBuffer } from './creation';
import { argError, checkTensor } from './helpers';
import { indexSelect } from './indexing';
import { matmul } from './linalg';
import { checkFloating } from './conv_args';

/** The modes interpolate takes. */
export type InterpolateMode = 'nearest' | 'bilinear';

/** Options of interpolate (PyTorch's keyword arguments). */
export interface InterpolateOptions {
  /** Output [OH, OW] (a number is both). Give this or scaleFactor. */
  size?: number | readonly number[] | null;
  /** Output = floor(input * scaleFactor) per dim (a number is both). Give this or size. */
  scaleFactor?: number | readonly number[] | null;
  /** 'nearest' (default) or 'bilinear'. */
  mode?: InterpolateMode;
  /** bilinear: corner pixels of input and output aligned (default false: pixel centres). Not for 'nearest'. */
  alignCorners?: boolean | null;
}

function twoOf(op: string, name: string, v: number | readonly number[]): [number, number] {
  const xs = typeof v === 'number' ? [v, v] : Array.isArray(v) ? v.slice() : null;
  if (xs === null || xs.length !== 2 || xs.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    argError(op, 'a number or a list of two numbers for a 4-D input', name, v);
  }
  return [xs[0], xs[1]];
}

/** Source index of output index i along a dim (PyTorch's nearest_idx). */
function nearestIndex(i: number, inSize: number, outSize: number, scale: number | null): number {
  if (outSize === inSize) return i;
  if (outSize === 2 * inSize) return i >> 1;
  const s = Math.fround(scale !== null && scale > 0 ? 1 / scale : inSize / outSize);
  return Math.min(Math.floor(Math.fround(i * s)), inSize - 1);
}

/** The [out, in] bilinear (linear along one dim) interpolation matrix. */
function linearMatrix(inSize: number, outSize: number, alignCorners: boolean, scale: number | null, like: Tensor): Tensor {
  const m = new Float64Array(outSize * inSize);
  const ratio = alignCorners
    ? (outSize > 1 ? (inSize - 1) / (outSize - 1) : 0)
    : (scale !== null && scale > 0 ? 1 / scale : inSize / outSize);
  for (let i = 0; i < outSize; i++) {
    const src = alignCorners ? ratio * i : Math.max(ratio * (i + 0.5) - 0.5, 0);
    const i0 = Math.min(Math.floor(src), inSize - 1);
    const i1 = i0 < inSize - 1 ? i0 + 1 : i0;
    const l1 = Math.min(src - i0, 1);
    m[i * inSize + i0] += 1 - l1;
    m[i * inSize + i1] += l1;
  }
  return fromBuffer(m, { dtype: 'float64', device: like.device, shape: [outSize, inSize] }).to(like.dtype);
}

/**
 * Resizes the last two dims of `input` [N, C, H, W] to `size` or by
 * `scaleFactor` (exactly one of them), mode 'nearest' (default) or
 * 'bilinear' (alignCorners default false), as PyTorch's interpolate.
 */
export function interpolate(input: Tensor, opts: InterpolateOptions = {}): Tensor {
  const op = 'interpolate';
  checkTensor(op, 'input', input);
  const mode = opts.mode ?? 'nearest';
  if (mode !== 'nearest' && mode !== 'bilinear') argError(op, "'nearest' or 'bilinear'", 'mode', mode);
  if (input.ndim !== 4) {
    throw codedError('TSGPU_ARG', `${op}: Got ${input.ndim}D input (size ${formatShape(input.shape)}), but ${mode} mode needs 4D input [N, C, H, W]`);
  }
  checkFloating(op, 'input', input);
  const ac = opts.alignCorners ?? null;
  if (mode === 'nearest' && ac !== null) {
    throw codedError('TSGPU_ARG', `${op}: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear`);
  }
  const hasSize = opts.size !== undefined && opts.size !== null;
  const hasScale = opts.scaleFactor !== undefined && opts.scaleFactor !== null;
  if (hasSize && hasScale) throw codedError('TSGPU_ARG', `${op}: only one of size or scale_factor should be defined`);
  if (!hasSize && !hasScale) throw codedError('TSGPU_ARG', `${op}: either size or scale_factor should be defined`);
  const [h, w] = input.shape.slice(2);
  let out: [number, number];
  let scales: [number | null, number | null] = [null, null];
  if (hasSize) {
    out = twoOf(op, 'size', opts.size as number | number[]);
    if (out.some((s) => !Number.isInteger(s) || s <= 0)) argError(op, 'positive integers', 'size', `[${out.join(', ')}]`);
  } else {
    const sf = twoOf(op, 'scaleFactor', opts.scaleFactor as number | number[]);
    if (sf.some((s) => !(s > 0))) argError(op, 'positive numbers', 'scaleFactor', `[${sf.join(', ')}]`);
    scales = sf;
    out = [Math.floor(h * sf[0]), Math.floor(w * sf[1])];
    if (out.some((s) => s <= 0)) {
      throw codedError('TSGPU_ARG', `${op}: Input and output sizes should be greater than 0, but got input (H: ${h}, W: ${w}) output (H: ${out[0]}, W: ${out[1]})`);
    }
  }
  return tidy(() => {
    if (mode === 'nearest') {
      const idx = (inSize: number, outSize: number, s: number | null) => {
        const a = new BigInt64Array(outSize);
        for (let i = 0; i < outSize; i++) a[i] = BigInt(nearestIndex(i, inSize, outSize, s));
        return fromBuffer(a, { dtype: 'int64', device: input.device, shape: [outSize] });
      };
      const rows = indexSelect(input, 2, idx(h, out[0], scales[0]));
      return indexSelect(rows, 3, idx(w, out[1], scales[1]));
    }
    const align = ac ?? false;
    if (typeof align !== 'boolean') argError(op, 'a boolean', 'alignCorners', align);
    const mh = linearMatrix(h, out[0], align, scales[0], input);
    const mw = linearMatrix(w, out[1], align, scales[1], input);
    return matmul(matmul(mh, input), mw.t());
  });
}
