/**
 * The functions of torch.nn.functional that training needs: embedding
 * (paddingIdx, maxNorm, scaleGradByFreq), embeddingBag, layerNorm, rmsNorm, dropout — plus the convolutions,
 * pools, batchNorm and interpolate of conv.ts, pool.ts, batch_norm.ts, interpolate.ts, the losses of
 * losses.ts (crossEntropy, nllLoss, mseLoss), the activations of math.ts
 * (gelu, silu, softplus, relu, sigmoid, tanh), softmax/logSoftmax of
 * reduce.ts and linear and scaledDotProductAttention of linalg.ts under their nn names.
 */
import { isFloatingPoint } from '../dtype';
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { argError, checkTensor, emptyTensor, runInto, runOp } from './helpers';
import { tidy } from '../scope';
import { fromValues, full, zeros } from './creation';
import { cat } from './indexing';
import { checkIndexValues, indexSelect } from './indexing';
import { where } from './math';

export { gelu, softplus } from './math';
export { silu, relu, sigmoid, tanh } from '../generated/unary_ops';
export { softmax, logSoftmax } from './reduce';
export { dropout } from './dropout';
export { scaledDotProductAttention, linear } from './linalg';
export { nllLoss, crossEntropy, mseLoss, LossOptions, CrossEntropyOptions, Reduction } from './losses';
export {
  leakyRelu, elu, selu, celu, mish, hardtanh, relu6, hardsigmoid, hardswish, glu, logsigmoid, softmin, softsign,
  tanhshrink, threshold, hardshrink, softshrink,
} from './activations';
export { pad, PadMode, oneHot, normalize, cosineSimilarity, pairwiseDistance } from './nn_extras';
export { conv2d, convTranspose2d, Conv2dOptions, ConvTranspose2dOptions } from './conv';
export { maxPool2d, avgPool2d, adaptiveAvgPool2d, MaxPool2dOptions, AvgPool2dOptions } from './pool';
export { batchNorm, BatchNormOptions } from './batch_norm';
export { interpolate, InterpolateOptions, InterpolateMode } from './interpolate';
export {
  l1Loss, smoothL1Loss, huberLoss, binaryCrossEntropy, binaryCrossEntropyWithLogits, klDiv, marginRankingLoss,
  cosineEmbeddingLoss, ReductionOptions, SmoothL1Options, HuberOptions, BceOptions, BceWithLogitsOptions, KlDivOptions,
  MarginOptions,
} from './losses_more';
export { groupNorm, instanceNorm, localResponseNorm } from './nn_norms';
export { unfold, fold } from './nn_patches';

/** Options of embedding (PyTorch's names, camelCase). */
export interface EmbeddingOptions {
  /**
   * The padding row, in [-numEmbeddings, numEmbeddings) (negative counts from
   * the end). The forward result is the same as without it: the row is looked
   * up like any other (in PyTorch it only keeps its gradient at zero).
   */
  paddingIdx?: number | null;
  /** Rows looked up whose normType-norm exceeds this are rescaled in `weight`, in place, to this norm first. */
  maxNorm?: number | null;
  /** The p of the norm maxNorm bounds (default 2). */
  normType?: number;
  /**
   * Scale the gradient of each row by the inverse of how often its index
   * occurs in `indices` (PyTorch's scale_grad_by_freq). Gradient only: the
   * forward result is the same either way.
   */
  scaleGradByFreq?: boolean;
  /**
   * A sparse gradient for weight. Not supported (there are no sparse
   * tensors): true is refused; false (the default) gives the dense gradient.
   */
  sparse?: boolean;
}

/**
 * Rows of `weight` [numEmbeddings, dim] picked by integer `indices` (any
 * shape): result [...indices.shape, dim]; see EmbeddingOptions.
 */
export function embedding(indices: Tensor, weight: Tensor, opts?: EmbeddingOptions): Tensor {
  checkTensor('embedding', 'input', indices);
  checkTensor('embedding', 'weight', weight);
  if (weight.ndim !== 2) argError('embedding', 'a 2-D weight', 'weight', formatShape(weight.shape));
  if (isFloatingPoint(indices.dtype) || indices.dtype === 'bool') argError('embedding', 'integer indices', 'input', indices.dtype);
  for (const name of ['scaleGradByFreq', 'sparse'] as const) {
    const flag = opts?.[name];
    if (flag !== undefined && typeof flag !== 'boolean') argError('embedding', 'a boolean', name, flag);
  }
  if (opts?.sparse) {
    throw codedError('TSGPU_ARG', 'embedding: sparse gradients are not supported (tsgpu has no sparse tensors); ' +
      'pass sparse: false (the default) for a dense gradient of weight\'s shape');
  }
  const rowsCount = weight.shape[0];
  const pad = opts?.paddingIdx ?? null;
  if (pad !== null && (!Number.isInteger(pad) || pad < -rowsCount || pad >= rowsCount)) {
    argError('embedding', `a paddingIdx in [${-rowsCount}, ${rowsCount - 1}] (within numEmbeddings)`, 'paddingIdx', pad);
  }
  const flat = indices.reshape(-1);
  const idx = flat.dtype === 'int64' ? flat : flat.long();
  try {
    const maxNorm = opts?.maxNorm ?? null;
    // Checked here so that an index out of range is reported as embedding's.
    checkIndexValues('embedding', idx, rowsCount);
    if (maxNorm !== null) renormRows(weight, idx, maxNorm, opts?.normType ?? 2);
    const rows = indexSelect(weight, 0, idx);
    const out = rows.view([...indices.shape, weight.shape[1]]);
    rows.dispose();
    return out;
  } finally {
    if (idx !== flat) idx.dispose();
    flat.dispose();
  }
}

/** Options of embeddingBag (PyTorch's names, camelCase). */
export interface EmbeddingBagOptions {
  /** As embedding's: looked-up rows whose norm exceeds it are rescaled in weight first. */
  maxNorm?: number | null;
  /** The p of that norm (default 2). */
  normType?: number;
  /** Not supported yet: true is refused (false, the default, is PyTorch's default). */
  scaleGradByFreq?: boolean;
  /** How a bag's rows combine: 'sum', 'mean' (the default) or 'max'. */
  mode?: 'sum' | 'mean' | 'max';
  /** Refused, as embedding's (no sparse tensors). */
  sparse?: boolean;
  /** A weight per index (input's shape), multiplying its row; mode 'sum' only. */
  perSampleWeights?: Tensor | null;
  /** offsets has one entry more than there are bags: its last is the end of the last bag. */
  includeLastOffset?: boolean;
  /** Indices equal to it are left out of their bag (not summed, not counted in the mean). */
  paddingIdx?: number | null;
}

/**
 * Sums, means or maxima of bags of embedding rows without building the
 * rows of each bag: input [B, N] (B bags of N indices) or input [T] with
 * offsets [B] (bag b is input[offsets[b] : offsets[b + 1]]). Result
 * [B, dim]; an empty bag gives zeros.
 */
export function embeddingBag(input: Tensor, weight: Tensor, offsets?: Tensor | null, opts?: EmbeddingBagOptions): Tensor {
  const op = 'embeddingBag';
  checkTensor(op, 'input', input);
  checkTensor(op, 'weight', weight);
  const mode = opts?.mode ?? 'mean';
  if (!['sum', 'mean', 'max'].includes(mode)) argError(op, "'sum', 'mean' or 'max'", 'mode', mode);
  if (opts?.scaleGradByFreq) {
    throw codedError('TSGPU_ARG', `${op}: scaleGradByFreq is not supported by embeddingBag yet (its gradient would not be scaled); use embedding and a sum per bag`);
  }
  const psw = opts?.perSampleWeights ?? null;
  if (psw !== null && mode !== 'sum') {
    throw codedError('TSGPU_ARG', `${op}: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='${mode}').`);
  }
  let bags: number[];
  if (input.ndim === 2) {
    if (offsets !== null && offsets !== undefined) {
      throw codedError('TSGPU_ARG', `${op}: if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type Tensor`);
    }
    const [b, n] = input.shape;
    bags = Array.from({ length: b * n }, (_, i) => Math.floor(i / n));
  } else if (input.ndim === 1) {
    if (offsets === null || offsets === undefined) throw codedError('TSGPU_ARG', `${op}: offsets has to be a 1D Tensor but got None`);
    checkTensor(op, 'offsets', offsets);
    if (offsets.ndim !== 1) throw codedError('TSGPU_ARG', `${op}: offsets has to be a 1D Tensor`);
    const starts = Array.from(offsets.toArray() as ArrayLike<number | bigint>, Number);
    if (starts.length > 0 && starts[0] !== 0) {
      throw codedError('TSGPU_ARG', `${op}: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got ${starts[0]}`);
    }
    // Bag b is [starts[b], ends[b]); with includeLastOffset the last offset only ends the last bag.
    const count = opts?.includeLastOffset ? Math.max(starts.length - 1, 0) : starts.length;
    const ends = opts?.includeLastOffset ? starts.slice(1) : [...starts.slice(1), input.numel];
    bags = new Array<number>(input.numel).fill(-1);
    for (let b = 0; b < count; b++) {
      if (starts[b] > ends[b] || ends[b] > input.numel) {
        throw codedError('TSGPU_ARG', `${op}: offsets must be non-decreasing and at most input's length ${input.numel}, got offsets [${starts.join(', ')}]`);
      }
      for (let i = starts[b]; i < ends[b]; i++) bags[i] = b;
    }
    return reduceBags(op, input, weight, bags, count, mode, psw, opts);
  } else {
    throw codedError('TSGPU_ARG', `${op}: input has to be 1D or 2D Tensor, but got Tensor of dimension ${input.ndim}`);
  }
  return reduceBags(op, input, weight, bags, input.shape[0], mode, psw, opts);
}

/** The rows of input's indices combined per bag (bags[i]: the bag of index i, -1 for none). */
function reduceBags(op: string, input: Tensor, weight: Tensor, bags: number[], count: number, mode: 'sum' | 'mean' | 'max',
                    psw: Tensor | null, opts: EmbeddingBagOptions | undefined): Tensor {
  if (weight.ndim !== 2) argError(op, 'a 2-D weight', 'weight', formatShape(weight.shape));
  const dim = weight.shape[1];
  const flat = Array.from(input.reshape(-1).toArray() as ArrayLike<number | bigint>, Number);
  const rowsCount = weight.shape[0];
  const padIdx = opts?.paddingIdx ?? null;
  const padding = padIdx === null ? null : padIdx < 0 ? padIdx + rowsCount : padIdx;
  // The indices that count: in a bag and not the padding index.
  const kept: number[] = [];
  flat.forEach((v, i) => { if (bags[i] >= 0 && v !== padding) kept.push(i); });
  const device = weight.device;
  return tidy(() => {
    const sizes = new Array<number>(count).fill(0);
    for (const i of kept) sizes[bags[i]]++;
    if (kept.length === 0) return zeros([count, dim], { dtype: weight.dtype, device });
    const positions = fromValues(kept, [kept.length], 'int64', input.device);
    const ids = indexSelect(input.reshape(-1), 0, positions);
    let rows = embedding(ids, weight, { maxNorm: opts?.maxNorm, normType: opts?.normType, scaleGradByFreq: opts?.scaleGradByFreq, sparse: opts?.sparse });
    if (psw !== null) {
      checkTensor(op, 'perSampleWeights', psw);
      if (psw.numel !== input.numel) argError(op, `a tensor of input's shape ${formatShape(input.shape)}`, 'perSampleWeights', formatShape(psw.shape));
      rows = rows.mul(indexSelect(psw.reshape(-1), 0, positions).unsqueeze(1));
    }
    const bagOf = fromValues(kept.map((i) => bags[i]), [kept.length], 'int64', device);
    if (mode === 'max') {
      // Each bag's rows laid out densely, -inf where a bag is shorter than the longest, then amax over them.
      const longest = Math.max(...sizes);
      const slot = new Array<number>(count * longest).fill(kept.length);
      const filled = new Array<number>(count).fill(0);
      kept.forEach((i, k) => { const b = bags[i]; slot[b * longest + filled[b]++] = k; });
      const padded = cat([rows, full([1, dim], -Infinity, { dtype: rows.dtype, device })], 0);
      const dense = indexSelect(padded, 0, fromValues(slot, [slot.length], 'int64', device)).view(count, longest, dim);
      const empty = fromValues(sizes.map((n) => n === 0), [count, 1], 'bool', device);
      return where(empty, 0, dense.amax(1));
    }
    const sums = zeros([count, dim], { dtype: rows.dtype, device }).scatterAdd(0, bagOf.view(-1, 1).expand(kept.length, dim), rows);
    if (mode === 'sum') return sums;
    const counts = fromValues(sizes.map((n) => Math.max(n, 1)), [count, 1], rows.dtype, device);
    return sums.div(counts);
  });
}

/** Scales, in place, the rows of weight at idx whose p-norm exceeds maxNorm to maxNorm / (norm + 1e-7) of themselves. */
function renormRows(weight: Tensor, idx: Tensor, maxNorm: number, p: number): void {
  if (typeof maxNorm !== 'number' || !(maxNorm >= 0)) argError('embedding', 'a non-negative number', 'maxNorm', maxNorm);
  if (typeof p !== 'number' || Number.isNaN(p)) argError('embedding', 'a number', 'normType', p);
  if (idx.numel === 0) return;
  const rows = indexSelect(weight, 0, idx);
  const norms = rows.norm(p, 1, { keepdim: true });
  const over = norms.gt(maxNorm);
  const denom = norms.add(1e-7);
  const factor = denom.reciprocal();
  const scaled = factor.mul(maxNorm);
  const scale = where(over, scaled, 1);
  const renormed = rows.mul(scale);
  const col = idx.view(-1, 1);
  const at = col.expand(idx.numel, weight.shape[1]);
  try {
    weight.scatter_(0, at, renormed);
  } finally {
    for (const t of [rows, norms, over, denom, factor, scaled, scale, renormed, col, at]) t.dispose();
  }
}

function normalizedNumel(op: string, t: Tensor, normalizedShape: readonly number[]): number {
  const n = normalizedShape.length;
  const tail = t.shape.slice(t.ndim - n);
  if (n > t.ndim || tail.some((s, i) => s !== normalizedShape[i])) {
    throw shapeError(`${op}: normalized shape ${formatShape(normalizedShape)} does not match the last dims of input of shape ${formatShape(t.shape)}`);
  }
  return normalizedShape.reduce((a, b) => a * b, 1);
}

/**
 * Runs a row norm: [out] for rmsNorm, [out, mean, rstd] for layerNorm (mean and rstd of shape [rows], float64
 * for float64 and float32 otherwise, or the weights' dtype for a 16-bit input with wider weights).
 */
function rowNormRun(op: 'layerNorm' | 'rmsNorm', t: Tensor, shape: readonly number[], inputs: (Tensor | null | undefined)[], eps: number): Tensor[] {
  checkTensor(op, 'input', t);
  const wide = inputs.find((w) => w && w.dtype !== t.dtype && isFloatingPoint(w.dtype) && isFloatingPoint(t.dtype));
  if (wide) {
    // A 16-bit input with float32 weights (a norm after an autocast matmul on cpu): computed in the weights'
    // dtype and returned in the input's, as PyTorch's mixed-dtype norms do.
    const up = t.to(wide.dtype);
    const r = rowNormRun(op, up, shape, inputs, eps);
    up.dispose();
    const down = r[0].to(t.dtype);
    r[0].dispose();
    return [down, ...r.slice(1)];
  }
  const n = normalizedNumel(op, t, shape);
  if (n === 0) {
    // Rows of no elements (PyTorch's answer): an empty result, and for layerNorm a mean of 0 and an rstd of NaN a row.
    const rows = t.shape.slice(0, t.ndim - shape.length).reduce((a, b) => a * b, 1);
    const stat = t.dtype === 'float64' ? 'float64' : 'float32';
    const outs = [t.mul(0)]; // empty, and in the graph, so the input's gradient is an empty tensor as PyTorch's
    if (op === 'layerNorm') outs.push(zeros([rows], { dtype: stat, device: t.device }), full([rows], NaN, { dtype: stat, device: t.device }));
    return outs;
  }
  const x = t.contiguous();
  const extra = inputs.map((w) => (w ? w.contiguous() : null));
  const rows = n > 0 ? t.numel / n : 0;
  const statDtype = t.dtype === 'float64' ? 'float64' : 'float32';
  const outs = [emptyTensor(t.shape.slice(), t.dtype, t.device)];
  try {
    if (op === 'layerNorm') outs.push(emptyTensor([rows], statDtype, t.device), emptyTensor([rows], statDtype, t.device));
    runOp(op, outs, [x, ...extra], { normalizedNumel: n, eps });
    return outs;
  } catch (e) {
    outs.forEach((o) => o.dispose());
    throw e;
  } finally {
    if (x !== t) x.dispose();
    extra.forEach((e, i) => e && e !== inputs[i] && e.dispose());
  }
}

function rowNorm(op: 'layerNorm' | 'rmsNorm', t: Tensor, shape: readonly number[], inputs: (Tensor | null | undefined)[], eps: number): Tensor {
  const r = rowNormRun(op, t, shape, inputs, eps);
  r.slice(1).forEach((s) => s.dispose());
  return r[0];
}

/** (x - mean) / sqrt(var + eps) * weight + bias over the trailing `normalizedShape` dims. */
export function layerNorm(t: Tensor, normalizedShape: readonly number[], weight?: Tensor | null, bias?: Tensor | null, eps = 1e-5): Tensor {
  return rowNorm('layerNorm', t, normalizedShape, [weight, bias], eps);
}

/**
 * PyTorch's torch.native_layer_norm: [out, mean, rstd], out as layerNorm's, mean and rstd = 1 / sqrt(var + eps)
 * (biased variance) of each row, of shape input.shape[:-k] + k ones for k = normalizedShape.length. They are
 * what the backward reads (saved, not recomputed) and carry no gradient. Their dtype: float64 for float64
 * inputs, float32 for float32 ones; for float16 / bfloat16 inputs float32 on cuda, the input's dtype on cpu
 * (float32 there too when weight or bias is wider than the input), as PyTorch's.
 */
export function nativeLayerNorm(input: Tensor, normalizedShape: readonly number[], weight?: Tensor | null, bias?: Tensor | null, eps = 1e-5): [Tensor, Tensor, Tensor] {
  checkTensor('nativeLayerNorm', 'input', input);
  if (!Array.isArray(normalizedShape)) argError('nativeLayerNorm', 'an array of sizes', 'normalizedShape', normalizedShape);
  if (typeof eps !== 'number') argError('nativeLayerNorm', 'a number', 'eps', eps);
  const [out, mean, rstd] = rowNormRun('layerNorm', input, normalizedShape, [weight, bias], eps);
  const statShape = [...input.shape.slice(0, input.ndim - normalizedShape.length), ...normalizedShape.map(() => 1)];
  const mixed = [weight, bias].some((w) => w && w.dtype !== input.dtype);
  const keepInputDtype = input.device === 'cpu' && (input.dtype === 'float16' || input.dtype === 'bfloat16') && !mixed;
  const shaped = (s: Tensor): Tensor => {
    const v = s.reshape(statShape);
    const r = keepInputDtype ? v.to(input.dtype) : v.clone();
    v.dispose();
    s.dispose();
    return r;
  };
  return [out, shaped(mean), shaped(rstd)];
}

/** Machine epsilon of a floating dtype: rmsNorm's default eps, as PyTorch's. */
const EPS: Record<string, number> = { float32: 1.1920928955078125e-7, float64: 2.220446049250313e-16, float16: 0.0009765625, bfloat16: 0.0078125 };

/** x / sqrt(mean(x^2) + eps) * weight over the trailing dims (eps defaults to the dtype's epsilon). */
export function rmsNorm(t: Tensor, normalizedShape: readonly number[], weight?: Tensor | null, eps?: number | null): Tensor {
  checkTensor('rmsNorm', 'input', t);
  return rowNorm('rmsNorm', t, normalizedShape, [weight], eps ?? EPS[t.dtype] ?? EPS.float32);
}

