/**
 * Sliding blocks of images, as torch.nn.functional's: unfold (im2col:
 * every kernel-sized block of input [N, C, H, W] as a column of
 * [N, C·kh·kw, L]) and fold (col2im: the columns summed back into an image,
 * overlaps added). Both are one indexed op over the padded image viewed as
 * [N, C, H·W]: unfold a gather (indexSelect), fold a scatterAdd, with the
 * same index of every block's elements, so each is the other's gradient.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { fromValues, zeros } from './creation';
import { argError, checkTensor } from './helpers';
import { indexSelect } from './indexing';
import { pad } from './nn_extras';

type Pair = number | readonly number[];

function pair(op: string, name: string, v: Pair, min: number): [number, number] {
  const p = typeof v === 'number' ? [v, v] : v;
  if (!Array.isArray(p) || p.length !== 2 || p.some((x) => !Number.isInteger(x) || x < min)) {
    argError(op, `an integer or a pair of integers (each at least ${min})`, name, v as unknown);
  }
  return [p[0], p[1]];
}

const fmt = (p: readonly number[]): string => `(${p.join(', ')})`;

/** The geometry of the blocks: kernel, dilation, padding, stride, padded size, blocks per dim. */
interface Blocks {
  k: [number, number];
  d: [number, number];
  p: [number, number];
  s: [number, number];
  padded: [number, number];
  out: [number, number];
}

function blocks(op: string, size: readonly number[], kernelSize: Pair, dilation: Pair, padding: Pair, stride: Pair): Blocks {
  const k = pair(op, 'kernelSize', kernelSize, 1);
  const d = pair(op, 'dilation', dilation, 1);
  const p = pair(op, 'padding', padding, 0);
  const s = pair(op, 'stride', stride, 1);
  const padded: [number, number] = [size[0] + 2 * p[0], size[1] + 2 * p[1]];
  const out = [0, 1].map((i) => Math.floor((padded[i] - d[i] * (k[i] - 1) - 1) / s[i]) + 1) as [number, number];
  return { k, d, p, s, padded, out };
}

/** For block element (i, j) of block (y, x), row-major: its flat position in the padded image. */
function blockIndex(b: Blocks, device: string): Tensor {
  const [kh, kw] = b.k, [oh, ow] = b.out, wp = b.padded[1];
  const idx = new Array<number>(kh * kw * oh * ow);
  let n = 0;
  for (let i = 0; i < kh; i++) {
    for (let j = 0; j < kw; j++) {
      for (let y = 0; y < oh; y++) {
        const row = (y * b.s[0] + i * b.d[0]) * wp;
        for (let x = 0; x < ow; x++) idx[n++] = row + x * b.s[1] + j * b.d[1];
      }
    }
  }
  return fromValues(idx, [idx.length], 'int64', device);
}

/**
 * The sliding blocks of input [N, C, H, W] (or unbatched [C, H, W]) as
 * columns: [N, C·kh·kw, L], L the number of blocks (defaults dilation 1,
 * padding 0, stride 1; each an integer or a pair).
 */
export function unfold(input: Tensor, kernelSize: Pair, dilation: Pair = 1, padding: Pair = 0, stride: Pair = 1): Tensor {
  const op = 'unfold';
  checkTensor(op, 'input', input);
  if (input.ndim !== 3 && input.ndim !== 4) {
    throw codedError('TSGPU_ARG', `${op}: Expected 3D or 4D (batch mode) tensor for input, but got input of shape [${input.shape.join(', ')}]`);
  }
  const batched = input.ndim === 4;
  const [n, c, h, w] = batched ? input.shape : [1, ...input.shape];
  const b = blocks(op, [h, w], kernelSize, dilation, padding, stride);
  if (b.out[0] < 1 || b.out[1] < 1) {
    throw codedError('TSGPU_ARG', `${op}: Given input with spatial size ${fmt([h, w])}, kernel_size=${fmt(b.k)}, dilation=${fmt(b.d)}, padding=${fmt(b.p)}, calculated shape of the array of sliding blocks as ${fmt(b.out)}, but its components must be at least one.`);
  }
  return tidy(() => {
    const x = batched ? input : input.unsqueeze(0);
    const padded = b.p[0] === 0 && b.p[1] === 0 ? x : pad(x, [b.p[1], b.p[1], b.p[0], b.p[0]]);
    const cols = indexSelect(padded.reshape([n, c, b.padded[0] * b.padded[1]]), 2, blockIndex(b, input.device));
    const r = cols.reshape([n, c * b.k[0] * b.k[1], b.out[0] * b.out[1]]);
    return batched ? r : r.squeeze(0);
  });
}

/**
 * The inverse of unfold: columns [N, C·kh·kw, L] (or unbatched
 * [C·kh·kw, L]) summed into images [N, C, outputSize[0], outputSize[1]],
 * where blocks overlap their values add (defaults dilation 1, padding 0,
 * stride 1).
 */
export function fold(input: Tensor, outputSize: Pair, kernelSize: Pair, dilation: Pair = 1, padding: Pair = 0, stride: Pair = 1): Tensor {
  const op = 'fold';
  checkTensor(op, 'input', input);
  if (input.ndim !== 2 && input.ndim !== 3) {
    throw codedError('TSGPU_ARG', `${op}: Expected 2D or 3D (batch mode) tensor for input, but got input of shape [${input.shape.join(', ')}]`);
  }
  const size = pair(op, 'outputSize', outputSize, 1);
  const batched = input.ndim === 3;
  const [n, ck, l] = batched ? input.shape : [1, ...input.shape];
  const b = blocks(op, size, kernelSize, dilation, padding, stride);
  const kk = b.k[0] * b.k[1];
  if (ck % kk !== 0) {
    throw codedError('TSGPU_ARG', `${op}: Expected size of input's dimension ${batched ? 1 : 0} to be divisible by the product of kernel_size, but got input.size(${batched ? 1 : 0})=${ck} and kernel_size=${fmt(b.k)}.`);
  }
  if (b.out[0] < 1 || b.out[1] < 1 || b.out[0] * b.out[1] !== l) {
    throw codedError('TSGPU_ARG', `${op}: Given output_size=${fmt(size)}, kernel_size=${fmt(b.k)}, dilation=${fmt(b.d)}, padding=${fmt(b.p)}, stride=${fmt(b.s)}, expected size of input's dimension ${batched ? 2 : 1} to match the calculated number of sliding blocks ${b.out[0]} * ${b.out[1]} = ${b.out[0] * b.out[1]}, but got input.size(${batched ? 2 : 1})=${l}.`);
  }
  const c = ck / kk;
  return tidy(() => {
    const cols = (batched ? input : input.unsqueeze(0)).reshape([n, c, kk * l]);
    const index = blockIndex(b, input.device).view(1, 1, -1).expand(n, c, kk * l);
    const image = zeros([n, c, b.padded[0] * b.padded[1]], { dtype: input.dtype, device: input.device })
      .scatterAdd(2, index, cols).reshape([n, c, b.padded[0], b.padded[1]]);
    const cropped = b.p[0] === 0 && b.p[1] === 0 ? image : image.narrow(2, b.p[0], size[0]).narrow(3, b.p[1], size[1]).contiguous();
    return batched ? cropped : cropped.squeeze(0);
  });
}
