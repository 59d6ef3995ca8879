/**
 * Convolutions, NCHW as PyTorch: conv2d and convTranspose2d. On CUDA through
 * cuDNN where it loaded (cudnn.ts: one op per pass); elsewhere by GEMM over
 * the sliding windows of the input (the ops im2col and col2im, kernels in
 * native/src/ops/{cpu,cuda}/im2col.*, and the matmul path). Backward comes
 * from the rows of the cuDNN ops (each pass's gradients are the other two
 * passes) or of im2col and col2im (each the other's adjoint) and of the
 * matmul and views the functions are made of.
 */
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { checkTensor, emptyTensor, runInto, runOp, sameDevice } from './helpers';
import { matmul } from './linalg';
import { batched4d, checkFloating, pair, Pair } from './conv_args';
import { cudnnConvolution, cudnnConvolutionBackwardInput, useCudnn } from './cudnn';

/** The window geometry im2col and col2im take. */
export interface WindowGeometry {
  kernel: [number, number];
  stride: [number, number];
  padding: [number, number];
  dilation: [number, number];
  /** Window positions [OH, OW]. */
  outputSize: [number, number];
}

/**
 * The sliding windows of `x` [N, C, H, W]: [N, C*KH*KW, OH*OW], window
 * entries outside x read `padValue` (default 0). The building block of
 * conv2d and the pools; differentiable (its adjoint is col2im).
 */
export function im2col(x: Tensor, g: WindowGeometry, padValue = 0): Tensor {
  checkTensor('im2col', 'input', x);
  if (x.ndim !== 4) throw codedError('TSGPU_ARG', `im2col: expected a 4-D input, got ${formatShape(x.shape)}`);
  const [n, c] = x.shape;
  const src = x.contiguous();
  try {
    const shape = [n, c * g.kernel[0] * g.kernel[1], g.outputSize[0] * g.outputSize[1]];
    return runInto(emptyTensor(shape, x.dtype, x.device), (out) =>
      runOp('im2col', [out], [src], { ...g, padValue }));
  } finally {
    if (src !== x) src.dispose();
  }
}

/**
 * The adjoint of im2col: columns [N, C*KH*KW, OH*OW] summed back into an
 * image [N, C, H, W] of `imageSize` [H, W] (each image element gets the sum
 * of the window entries that im2col would copy it to).
 */
export function col2im(cols: Tensor, g: WindowGeometry, imageSize: readonly [number, number]): Tensor {
  checkTensor('col2im', 'input', cols);
  const kk = g.kernel[0] * g.kernel[1];
  if (cols.ndim !== 3 || cols.shape[1] % kk !== 0 || cols.shape[2] !== g.outputSize[0] * g.outputSize[1]) {
    throw codedError('TSGPU_ARG', `col2im: expected columns [N, C*${kk}, ${g.outputSize[0] * g.outputSize[1]}], got ${formatShape(cols.shape)}`);
  }
  const src = cols.contiguous();
  try {
    const shape = [cols.shape[0], cols.shape[1] / kk, imageSize[0], imageSize[1]];
    return runInto(emptyTensor(shape, cols.dtype, cols.device), (out) =>
      runOp('col2im', [out], [src], { ...g, imageSize: [imageSize[0], imageSize[1]] }));
  } finally {
    if (src !== cols) src.dispose();
  }
}

/** Options of conv2d (PyTorch's keyword arguments). */
export interface Conv2dOptions {
  /** Step between windows (default 1). */
  stride?: Pair;
  /** Zeros added on each side (default 0), or 'valid' (none) or 'same' (output as large as the input; stride 1 only). */
  padding?: Pair | 'same' | 'valid';
  /** Spacing between kernel elements (default 1). */
  dilation?: Pair;
  /** Blocked connections: input and output channels split in this many groups (default 1). */
  groups?: number;
}

/** Options of convTranspose2d (PyTorch's keyword arguments). */
export interface ConvTranspose2dOptions {
  /** Step of the convolution this is the transpose of (default 1). */
  stride?: Pair;
  /** dilation * (kernel - 1) - padding zeros on each side of the input (default 0). */
  padding?: Pair;
  /** Extra size added to one side of the output (default 0; smaller than stride or dilation). */
  outputPadding?: Pair;
  /** Blocked connections (default 1). */
  groups?: number;
  /** Spacing between kernel elements (default 1). */
  dilation?: Pair;
}

function checkGroups(op: string, groups: unknown): number {
  if (typeof groups !== 'number' || !Number.isInteger(groups)) {
    throw codedError('TSGPU_ARG', `${op}: expected a positive integer for groups, got ${String(groups)}`);
  }
  if (groups <= 0) throw codedError('TSGPU_ARG', `${op}: non-positive groups is not supported, got ${groups}`);
  return groups;
}

function checkOperands(op: string, input: Tensor, weight: Tensor, bias: Tensor | null | undefined): void {
  checkTensor(op, 'input', input);
  checkTensor(op, 'weight', weight);
  if (bias !== null && bias !== undefined) checkTensor(op, 'bias', bias);
  sameDevice(op, [input, weight, bias]);
  checkFloating(op, 'input', input, 'im2col');
  for (const [name, t] of [['weight', weight], ['bias', bias]] as const) {
    if (t && t.dtype !== input.dtype) {
      throw codedError('TSGPU_ARG', `${op}: Input type (${input.dtype}) and ${name} type (${t.dtype}) should be the same`);
    }
  }
  if (weight.ndim !== 4) {
    throw codedError('TSGPU_ARG', `${op}: expected a 4-D weight for weight, got weight of size ${formatShape(weight.shape)}`);
  }
}

function checkBias(op: string, weight: Tensor, bias: Tensor | null | undefined, channels: number): void {
  if (bias && (bias.ndim !== 1 || bias.shape[0] !== channels)) {
    throw codedError('TSGPU_ARG', `${op}: Given weight of size ${formatShape(weight.shape)}, expected bias to be 1-dimensional with ${channels} elements, but got bias of size ${formatShape(bias.shape)} instead`);
  }
}

/**
 * 2-D convolution (cross-correlation, as PyTorch's conv2d) of `input`
 * [N, C, H, W] or unbatched [C, H, W] with `weight` [O, C/groups, KH, KW],
 * plus `bias` [O] when given: [N, O, OH, OW] with
 * OH = floor((H + 2 padding - dilation (KH - 1) - 1) / stride) + 1.
 * Defaults: stride 1, padding 0, dilation 1, groups 1.
 */
export function conv2d(input: Tensor, weight: Tensor, bias?: Tensor | null, opts: Conv2dOptions = {}): Tensor {
  const op = 'conv2d';
  checkOperands(op, input, weight, bias);
  const { x, unbatched } = batched4d(op, input);
  const groups = checkGroups(op, opts.groups ?? 1);
  const stride = pair(op, 'stride', opts.stride ?? 1, 1);
  const dilation = pair(op, 'dilation', opts.dilation ?? 1, 1);
  const [o, cg, kh, kw] = weight.shape;
  const [n, c, h, w] = x.shape;
  if (o % groups !== 0) {
    throw codedError('TSGPU_ARG', `${op}: Given groups=${groups}, expected weight to be divisible by ${groups} at dimension 0, but got weight of size ${formatShape(weight.shape)} instead`);
  }
  if (c !== cg * groups) {
    throw codedError('TSGPU_ARG', `${op}: Given groups=${groups}, weight of size ${formatShape(weight.shape)}, expected input${formatShape(input.shape)} to have ${cg * groups} channels, but got ${c} channels instead`);
  }
  checkBias(op, weight, bias, o);
  const kernel: [number, number] = [kh, kw];
  const ek = [dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1];
  let padding: [number, number];
  let outputSize: [number, number];
  const p = opts.padding ?? 0;
  if (p === 'same') {
    if (stride[0] !== 1 || stride[1] !== 1) throw codedError('TSGPU_ARG', `${op}: padding='same' is not supported for strided convolutions`);
    // The total padding dilation * (k - 1) split with the extra one (when odd) on the right, as PyTorch.
    padding = [Math.floor((ek[0] - 1) / 2), Math.floor((ek[1] - 1) / 2)];
    outputSize = [h, w];
  } else {
    padding = p === 'valid' ? [0, 0] : typeof p === 'string' ? invalidPadding(op, p) : pair(op, 'padding', p, 0);
    const ph = h + 2 * padding[0];
    const pw = w + 2 * padding[1];
    if (ph < ek[0] || pw < ek[1]) {
      throw codedError('TSGPU_ARG', `${op}: Calculated padded input size per channel: (${ph} x ${pw}). Kernel size: (${ek[0]} x ${ek[1]}). Kernel size can't be greater than actual input size (input of size ${formatShape(input.shape)}, weight of size ${formatShape(weight.shape)})`);
    }
    outputSize = [Math.floor((ph - ek[0]) / stride[0]) + 1, Math.floor((pw - ek[1]) / stride[1]) + 1];
  }
  // cuDNN pads both sides alike: 'same' with an odd total padding (an even effective kernel) stays on im2col.
  const symmetric = p !== 'same' || ((ek[0] - 1) % 2 === 0 && (ek[1] - 1) % 2 === 0);
  if (symmetric && useCudnn(x)) {
    return finish(cudnnConvolution(x, weight, { stride, padding, dilation, groups }, outputSize), bias, o, unbatched ? x : null);
  }
  const cols = im2col(x, { kernel, stride, padding, dilation, outputSize });
  const l = outputSize[0] * outputSize[1];
  const k = cg * kh * kw;
  // One GEMM per group over the whole batch: [G, O/G, K] @ [G, K, N*L] -> [G, O/G, N*L], so that the
  // weight's gradient is a product too (a weight broadcast over the batch would be summed from N copies).
  const wm = weight.reshape([groups, o / groups, k]);
  const cv = cols.view([n, groups, k, l]);
  const cp = cv.permute([1, 2, 0, 3]);
  const cm = cp.reshape([groups, k, n * l]);
  const prod = matmul(wm, cm);
  const pv = prod.view([o, n, l]);
  const pp = pv.permute([1, 0, 2]);
  const y = pp.reshape([n, o, outputSize[0], outputSize[1]]);
  [cols, wm, cv, cp, cm, pv, pp].forEach((t) => t.dispose());
  prod.dispose();
  return finish(y, bias, o, unbatched ? x : null);
}

/**
 * The end both convolutions share: `y` [N, channels, OH, OW] plus `bias` [channels] when given, squeezed back to
 * 3-D when the input was unbatched (`batchedInput`, the 4-D view made of it, is then disposed).
 */
function finish(y: Tensor, bias: Tensor | null | undefined, channels: number, batchedInput: Tensor | null): Tensor {
  if (bias) {
    const b = bias.view([channels, 1, 1]);
    const yb = y.add(b);
    [b, y].forEach((t) => t.dispose());
    y = yb;
  }
  if (batchedInput === null) return y;
  const y3 = y.squeeze(0);
  y.dispose();
  batchedInput.dispose();
  return y3;
}

function invalidPadding(op: string, p: string): never {
  throw codedError('TSGPU_ARG', `${op}: Invalid padding string '${p}', should be one of ['valid', 'same']`);
}

/**
 * The transpose (gradient) of conv2d: `input` [N, Cin, H, W] or unbatched
 * [Cin, H, W], `weight` [Cin, Cout/groups, KH, KW], `bias` [Cout]: output
 * [N, Cout, OH, OW] with OH = (H - 1) stride - 2 padding + dilation (KH - 1)
 * + outputPadding + 1. Defaults: stride 1, padding 0, outputPadding 0,
 * groups 1, dilation 1.
 */
export function convTranspose2d(input: Tensor, weight: Tensor, bias?: Tensor | null, opts: ConvTranspose2dOptions = {}): Tensor {
  const op = 'convTranspose2d';
  checkOperands(op, input, weight, bias);
  const { x, unbatched } = batched4d(op, input);
  const groups = checkGroups(op, opts.groups ?? 1);
  const stride = pair(op, 'stride', opts.stride ?? 1, 1);
  const dilation = pair(op, 'dilation', opts.dilation ?? 1, 1);
  const padding = pair(op, 'padding', opts.padding ?? 0, 0);
  const outPad = pair(op, 'outputPadding', opts.outputPadding ?? 0, 0);
  for (let i = 0; i < 2; i++) {
    if (outPad[i] >= stride[i] && outPad[i] >= dilation[i]) {
      throw codedError('TSGPU_ARG', `${op}: output padding must be smaller than either stride or dilation, but got outputPadding [${outPad.join(', ')}], stride [${stride.join(', ')}] and dilation [${dilation.join(', ')}]`);
    }
  }
  const [ci, og, kh, kw] = weight.shape;
  const [n, c, h, w] = x.shape;
  if (ci % groups !== 0) {
    throw codedError('TSGPU_ARG', `${op}: Given groups=${groups}, expected weight to be divisible by ${groups} at dimension 0, but got weight of size ${formatShape(weight.shape)} instead`);
  }
  if (c !== ci) {
    throw codedError('TSGPU_ARG', `${op}: Given transposed=1, weight of size ${formatShape(weight.shape)}, expected input${formatShape(input.shape)} to have ${ci} channels, but got ${c} channels instead`);
  }
  const cout = og * groups;
  checkBias(op, weight, bias, cout);
  const oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + outPad[0] + 1;
  const ow = (w - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + outPad[1] + 1;
  if (oh <= 0 || ow <= 0) {
    throw codedError('TSGPU_ARG', `${op}: Given input size per channel: (${h} x ${w}). Calculated output size per channel: (${oh} x ${ow}). Output size is too small`);
  }
  if (useCudnn(x)) {
    // The transpose of a convolution is that convolution's gradient of its input: cuDNN's backward data.
    const y = cudnnConvolutionBackwardInput(x, weight, { stride, padding, dilation, groups }, [n, cout, oh, ow]);
    return finish(y, bias, cout, unbatched ? x : null);
  }
  const kk = kh * kw;
  // One GEMM per group over the whole batch: [G, Cout/G*K, Cin/G] @ [G, Cin/G, N*H*W] -> [G, Cout/G*K, N*H*W].
  const wm = weight.reshape([groups, ci / groups, og * kk]);
  const wt = wm.transpose(1, 2);
  const xv = x.reshape([n, groups, ci / groups, h * w]);
  const xp = xv.permute([1, 2, 0, 3]);
  const xm = xp.reshape([groups, ci / groups, n * h * w]);
  const prod = matmul(wt, xm);
  const pv = prod.view([groups, og * kk, n, h * w]);
  const pp = pv.permute([2, 0, 1, 3]);
  const cols = pp.reshape([n, cout * kk, h * w]);
  const y = col2im(cols, { kernel: [kh, kw], stride, padding, dilation, outputSize: [h, w] }, [oh, ow]);
  [wm, wt, xv, xp, xm, prod, pv, pp, cols].forEach((t) => t.dispose());
  return finish(y, bias, cout, unbatched ? x : null);
}
