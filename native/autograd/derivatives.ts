/**
 * The backward formula of every op of the op list (native/src/ops/op_list.h),
 * one row per op, keyed by the op's name — this project's derivatives.yaml.
 * A row names the node as PyTorch does (`MulBackward0`), says which inputs
 * and outputs the formula needs saved, and gives the gradient of each input
 * slot from the gradients of the outputs. `nondifferentiable` rows make
 * outputs that never require grad (comparisons, argmax, random fills).
 *
 * The formulas call the public ops, so with createGraph they are recorded in
 * turn (double backward). Broadcasting and dtype are the recorder's business
 * (record.ts): a formula may return a gradient of the broadcast shape, and it
 * is summed back to the input's shape and cast to the input's dtype.
 *
 * Coverage is checked by test/native/autograd/derivatives.test.ts: every op
 * of the op list has a row.
 */
import { DType } from '../dtype';
import { NOT_DIFFERENTIABLE, PLAIN_BINARY_OPS } from '../generated/op_list';
import { Tensor } from '../tensor';
import { where } from '../ops/math';
import { zeros } from '../ops/creation';
import { cumExtremeBackward, cumprodBackward, logcumsumexpBackward } from './scan_backward';
import { flashAttentionBackward } from '../ops/flash_attention';
import { cudnnConvolution, cudnnConvolutionBackwardInput, cudnnConvolutionBackwardWeight, paramsOf as cudnnParams } from '../ops/cudnn';
import { col2im, im2col, WindowGeometry } from '../ops/conv';
import { crossEntropyBackward, softmaxBackwardLastDim } from '../ops/fused_losses';
import { batchNormBackward } from '../ops/batch_norm';
import { fusedKernelsOn } from '../ops/cuda_gates';
import { codedError } from '../errors';
import { isGradEnabled } from './grad_mode';
import { requiresGrad } from './meta';

/** What a formula sees. */
export interface BackwardContext {
  /** Gradient of output `i` (outputs that received none get zeros of their shape). */
  grad(i?: number): Tensor;
  /** Whether output `i` received a gradient. */
  hasGrad(i: number): boolean;
  /** Input `i`: the saved tensor, or the number that was passed. */
  input(i: number): Tensor | number;
  /** Input `i`, which must be a saved tensor. */
  tensor(i: number): Tensor;
  /** Saved output `i`. */
  output(i: number): Tensor;
  /** Whether input slot `i` needs a gradient. */
  needs(i: number): boolean;
  /** Shape of input `i` (numbers: []). */
  shape(i: number): readonly number[];
  /** Shape of output `i`. */
  outShape(i: number): readonly number[];
  /** Dtype of input `i`. */
  dtype(i: number): DType;
  /** The op's attributes. */
  readonly attrs: Record<string, unknown>;
}

/** A row of the table. */
export interface DerivativeRow {
  /** PyTorch's node name, e.g. "MulBackward0". */
  readonly name: string;
  /** Input slots whose tensors the formula reads (input(i) / tensor(i)). */
  readonly savesInputs?: readonly number[];
  /** Outputs the formula reads (output(i)). */
  readonly savesOutputs?: readonly number[];
  /**
   * Extra saved inputs that depend on the attributes (e.g. pow saves self only
   * when the exponent is a tensor). Added to savesInputs.
   */
  readonly savesInputsIf?: (attrs: Record<string, unknown>, inputs: readonly unknown[]) => readonly number[];
  /** With an op that writes into a tensor it also reads (gemm with beta ≠ 0), the slot its old value takes. */
  readonly outIsInput?: (attrs: Record<string, unknown>) => boolean;
  /** The gradients of the input slots (null: none); a number slot's entry is ignored. */
  readonly backward?: (c: BackwardContext) => (Tensor | null)[];
  /** Outputs never require grad. */
  readonly nondifferentiable?: true;
  /** The outputs that may require grad when some do not (layerNorm's mean and rstd never do); all floating ones when absent. */
  readonly differentiableOutputs?: readonly number[];
  /** Why the op has no formula yet (refused with this reason when a gradient is needed). */
  readonly notImplemented?: string;
}

// ------------------------------------------------------------------ helpers

/** The window geometry of an im2col / col2im call, from its attributes. */
function windowGeometry(attrs: Record<string, unknown>): WindowGeometry {
  const two = (k: string) => (attrs[k] as number[]).slice(0, 2) as [number, number];
  return { kernel: two('kernel'), stride: two('stride'), padding: two('padding'), dilation: two('dilation'), outputSize: two('outputSize') };
}

/** The input shape with reduced dims kept as 1 (dims [] = all). */
function keptShape(shape: readonly number[], dims: readonly number[]): number[] {
  const all = dims.length === 0;
  const set = new Set(dims.map((d) => (d < 0 ? d + shape.length : d)));
  return shape.map((s, i) => (all || set.has(i) ? 1 : s));
}

/** A reduction's output (or its gradient) made broadcastable to the input again. */
function unreduce(t: Tensor, inShape: readonly number[], dims: readonly number[]): Tensor {
  const kept = keptShape(inShape, dims);
  return t.ndim === 0 ? t.expand(kept) : t.reshape(kept);
}

/** Number of elements reduced. */
function reducedCount(inShape: readonly number[], dims: readonly number[]): number {
  if (dims.length === 0) return inShape.reduce((a, b) => a * b, 1);
  return dims.reduce((a, d) => a * inShape[d < 0 ? d + inShape.length : d], 1);
}

function dimsOf(c: BackwardContext): number[] {
  return (c.attrs.dims as number[] | undefined) ?? [];
}

/** grad expanded over the reduced dims of input 0. */
function spread(c: BackwardContext): Tensor {
  return unreduce(c.grad(), c.shape(0), dimsOf(c)).expand(c.shape(0) as number[]);
}

/** A zero gradient of input 0's shape (ops whose derivative is zero almost everywhere). */
function zeroGrad(c: BackwardContext): (Tensor | null)[] {
  return [c.grad().mul(0)];
}

function asOperand(x: Tensor | number): Tensor | number {
  return x;
}

/** Whether the last two dims of `t` are a transposed dense matrix (column-major). */
function isTransposed(t: Tensor): boolean {
  const n = t.ndim;
  if (n < 2) return false;
  const s = t.stride();
  return s[n - 2] === 1 && s[n - 1] === t.shape[n - 2] && t.shape[n - 2] > 1 && t.shape[n - 1] > 1;
}

/** x · yᵀ over the last two dims. */
function mT(t: Tensor): Tensor {
  return t.transpose(-2, -1);
}

const LN2 = Math.LN2;
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/**
 * The gradient of a row norm (layerNorm, rmsNorm). layerNorm's forward saved each row's mean and rstd
 * (outputs 1 and 2), which the formula reads; rmsNorm's statistics, and layerNorm's under createGraph (so
 * that the formula stays differentiable in the input), are recomputed from the saved input.
 */
function rowNormBackward(c: BackwardContext, centered: boolean): (Tensor | null)[] {
  const x = c.tensor(0);
  const n = c.attrs.normalizedNumel as number;
  const eps = c.attrs.eps as number;
  const rows = x.numel / Math.max(n, 1);
  const x2 = x.reshape([rows, n]);
  const g2 = c.grad().reshape([rows, n]);
  const w = c.shape(1).length > 0 && c.input(1) instanceof Tensor ? (c.input(1) as Tensor).reshape([n]) : null;
  const saved = centered && !isGradEnabled();
  const mean = saved ? c.output(1).reshape([rows, 1]) : centered ? x2.mean(-1, { keepdim: true }) : null;
  const xc = mean ? x2.sub(mean) : x2;
  const rstd = saved ? c.output(2).reshape([rows, 1]) : xc.mul(xc).mean(-1, { keepdim: true }).add(eps).rsqrt();
  const xhat = xc.mul(rstd);
  const dxhat = w ? g2.mul(w) : g2;
  let dx: Tensor | null = null;
  if (c.needs(0)) {
    let inner = dxhat.sub(xhat.mul(dxhat.mul(xhat).mean(-1, { keepdim: true })));
    if (centered) inner = inner.sub(dxhat.mean(-1, { keepdim: true }));
    dx = inner.mul(rstd).reshape(c.shape(0) as number[]);
  }
  const dw = c.needs(1) ? g2.mul(xhat).sum(0).reshape(c.shape(1) as number[]) : null;
  const db = centered && c.needs(2) ? g2.sum(0).reshape(c.shape(2) as number[]) : null;
  return centered ? [dx, dw, db] : [dx, dw];
}

/**
 * The gradient of batchNormForward (inputs self, weight, bias, runningMean, runningVar): the fused
 * batchNormBackward kernel on the saved input, weight and statistics (outputs 1 and 2). Under createGraph the
 * same formula from differentiable ops, the batch statistics recomputed from the saved input so that it
 * stays differentiable in it (in evaluation the saved running statistics are constants):
 * training dx = w·invstd·(dy - mean(dy) - xhat·mean(dy·xhat)), eval dx = dy·w·invstd;
 * dw = Σ dy·xhat, db = Σ dy over every dim but 1.
 */
function batchNormGrad(c: BackwardContext): (Tensor | null)[] {
  const x = c.tensor(0);
  const w = c.input(1) instanceof Tensor ? (c.input(1) as Tensor) : null;
  const training = c.attrs.training as boolean;
  if (!c.needs(0) && !c.needs(1) && !c.needs(2)) return [null, null, null, null, null];
  if (!isGradEnabled()) {
    const [dx, dw, db] = batchNormBackward(c.grad(0), x, w, c.output(1), c.output(2), training, c.needs(0));
    const keep = (t: Tensor, i: number) => (c.needs(i) ? t : (t.dispose(), null));
    return [dx, keep(dw, 1), keep(db, 2), null, null];
  }
  const C = x.shape[1];
  const dims = [0, ...Array.from({ length: x.ndim - 2 }, (_, i) => i + 2)];
  const bshape = x.shape.map((s, i) => (i === 1 ? s : 1));
  const g = c.grad(0);
  let mean: Tensor, invstd: Tensor;
  if (training) {
    mean = x.mean(dims, { keepdim: true });
    invstd = x.sub(mean).square().mean(dims, { keepdim: true }).add(c.attrs.eps as number).rsqrt();
  } else {
    mean = c.output(1).reshape(bshape).to(x.dtype);
    invstd = c.output(2).reshape(bshape).to(x.dtype);
  }
  const xhat = x.sub(mean).mul(invstd);
  const dxhat = w ? g.mul(w.reshape(bshape)) : g;
  let dx: Tensor | null = null;
  if (c.needs(0)) {
    const inner = training ? dxhat.sub(dxhat.mean(dims, { keepdim: true })).sub(xhat.mul(dxhat.mul(xhat).mean(dims, { keepdim: true }))) : dxhat;
    dx = inner.mul(invstd);
  }
  const dw = c.needs(1) ? g.mul(xhat).sum(dims).reshape([C]) : null;
  const db = c.needs(2) ? g.sum(dims).reshape([C]) : null;
  return [dx, dw, db, null, null];
}

/**
 * Whether a softmax / logSoftmax gradient may take the fused kernel: the dim
 * is the last, and no graph of the backward is being built (with createGraph
 * the composed formula below is recorded, so that it can be differentiated).
 */
function fusedRowGrad(y: Tensor, dim: number): boolean {
  return y.ndim > 0 && (dim === -1 || dim === y.ndim - 1) && !isGradEnabled() && fusedKernelsOn(y.device);
}

/** Why the fused backward kernels have no formula: they run only where no graph of the backward is built. */
const FUSED_GRAD_ONLY = 'a fused backward kernel is not differentiable (with createGraph the composed formula is recorded instead)';

/**
 * The gradient of the fused cross entropy (crossEntropyLoss: per-row loss,
 * output 0, and logsumexp, output 1) with respect to the logits: the fused
 * kernel, or under createGraph the same formula from differentiable ops,
 * p·((1 - ε)·w[y] + ε/C·Σw)·g - (1 - ε)·w[y]·g·onehot(y) - ε/C·g·w (0 on ignored rows),
 * plus the logsumexp's gradient times p.
 */
function crossEntropyGrad(c: BackwardContext): Tensor {
  const x = c.tensor(0), t = c.tensor(1), lse = c.output(1);
  const w = c.input(2) instanceof Tensor ? (c.input(2) as Tensor) : null;
  const ignoreIndex = (c.attrs.ignoreIndex as number | undefined) ?? -100;
  const eps = (c.attrs.labelSmoothing as number | undefined) ?? 0;
  const extra = (gx: Tensor): Tensor => (c.hasGrad(1) ? gx.add(x.sub(lse.unsqueeze(1)).exp().mul(c.grad(1).unsqueeze(1))) : gx);
  if (!isGradEnabled()) return extra(crossEntropyBackward(c.grad(0), x, t, lse, w, ignoreIndex, eps));
  const C = x.shape[1];
  const kept = t.ne(ignoreIndex);
  const safe = where(kept, t, 0);
  const g = where(kept, c.grad(0), 0);
  const wy = w ? w.indexSelect(0, safe).to(g.dtype) : null;
  const hit = wy ? g.mul(wy).mul(1 - eps) : g.mul(1 - eps);
  const wsum = w ? w.sum().to(g.dtype) : C;
  // Under createGraph p is recomputed from x with a recorded softmax.
  const p = x.softmax(1);
  let gx = p.mul(hit.add(g.mul(wsum).mul(eps / C)).unsqueeze(1));
  const onehot = zeros(x.shape.slice(), { dtype: g.dtype, device: x.device }).scatter(1, safe.unsqueeze(1), 1);
  gx = gx.sub(onehot.mul(hit.unsqueeze(1)));
  if (eps > 0) {
    const flat = g.mul(eps / C).unsqueeze(1);
    gx = gx.sub(w ? flat.mul(w.to(g.dtype).unsqueeze(0)) : flat);
  }
  return extra(gx);
}

/** The gradient of maxDim/minDim/sort values: the gradient scattered back to where the values came from. */
function valuesBackward(c: BackwardContext, dim: number): (Tensor | null)[] {
  const inShape = c.shape(0) as number[];
  const d = dim < 0 ? dim + inShape.length : dim;
  const idx = c.output(1);
  const outShape = c.outShape(0);
  const keep = inShape.slice();
  keep[d] = outShape.length === inShape.length ? outShape[d] : 1;
  const g = c.grad(0).reshape(keep);
  const z = zeros(inShape, { dtype: g.dtype, device: g.device });
  return [z.scatterAdd(d, idx.reshape(keep), g)];
}

/** A scan's formula on its saved input and output, with 0-dim tensors seen as one element. */
function scanGrad(c: BackwardContext, f: (x: Tensor, y: Tensor, g: Tensor, dim: number) => Tensor): Tensor {
  const x = c.tensor(0);
  if (x.ndim > 0) return f(x, c.output(0), c.grad(), c.attrs.dim as number);
  return f(x.reshape([1]), c.output(0).reshape([1]), c.grad().reshape([1]), 0).reshape([]);
}

function cumExtremeGrad(c: BackwardContext): Tensor {
  const shape = c.shape(0);
  if (shape.length === 0) return c.grad(0);
  return cumExtremeBackward(c.output(1), c.grad(0), shape, c.attrs.dim as number);
}

/** maximum/minimum: the gradient goes to the larger (smaller) input, half to each where they are equal. */
function extremumBackward(c: BackwardContext, max: boolean): (Tensor | null)[] {
  const a = c.tensor(0), b = c.input(1);
  const half = c.grad().mul(0.5);
  const aWins = max ? a.gt(b) : a.lt(b);
  const bWins = max ? a.lt(b) : a.gt(b);
  return [c.needs(0) ? where(aWins, c.grad(), where(a.eq(b), half, 0)) : null, c.needs(1) ? where(bWins, c.grad(), where(a.eq(b), half, 0)) : null];
}

/** amax/amin: the gradient shared evenly among the elements equal to the result. */
function reducedExtremumBackward(c: BackwardContext): Tensor {
  const dims = dimsOf(c);
  const hit = c.tensor(0).eq(unreduce(c.output(0), c.shape(0), dims));
  const count = hit.sum(dims, { keepdim: true });
  return where(hit, spread(c).div(count), 0);
}

// ------------------------------------------------------------------ the table

const unary = (name: string, f: (c: BackwardContext) => Tensor, saves: { inputs?: number[]; outputs?: number[] }): DerivativeRow => ({
  name,
  savesInputs: saves.inputs,
  savesOutputs: saves.outputs,
  backward: (c) => [f(c)],
});

const nondiff = (name: string): DerivativeRow => ({ name, nondifferentiable: true });

/**
 * The rows of the generated binary ops whose derivative slot (their row in
 * scripts/gen_binary_ops.js, PLAIN_BINARY_OPS) says not differentiable: the
 * comparisons, logical and bitwise ops, with PyTorch's node names
 * (`EqBackward0`, `BitwiseAndBackward0`). The others' slots name a formula of
 * the table below (test/native/binary_ops.test.ts checks the names agree).
 */
const GENERATED_NONDIFFERENTIABLE: Record<string, DerivativeRow> = Object.fromEntries(
  PLAIN_BINARY_OPS.filter((o) => o.derivative === NOT_DIFFERENTIABLE)
    .map((o) => [o.name, nondiff(`${o.name[0].toUpperCase()}${o.name.slice(1)}Backward0`)]),
);

export const DERIVATIVES: Readonly<Record<string, DerivativeRow>> = {
  copy: { name: 'CopyBackwards', backward: (c) => [c.grad()] },
  fill: { name: 'FillBackward0', backward: () => [] },
  arange: nondiff('ArangeBackward0'),
  uniform: { name: 'UniformBackward0', backward: () => [] },
  normal: { name: 'NormalBackward0', backward: () => [] },
  randint: nondiff('RandintBackward0'),

  add: { name: 'AddBackward0', backward: (c) => [c.grad(), c.needs(1) ? c.grad().mul(c.attrs.alpha as number ?? 1) : null] },
  sub: { name: 'SubBackward0', backward: (c) => [c.grad(), c.needs(1) ? c.grad().mul(-((c.attrs.alpha as number) ?? 1)) : null] },
  exp: unary('ExpBackward0', (c) => c.grad().mul(c.output(0)), { outputs: [0] }),
  expm1: unary('Expm1Backward0', (c) => c.grad().mul(c.output(0).add(1)), { outputs: [0] }),
  log: unary('LogBackward0', (c) => c.grad().div(c.tensor(0)), { inputs: [0] }),
  log1p: unary('Log1PBackward0', (c) => c.grad().div(c.tensor(0).add(1)), { inputs: [0] }),
  log2: unary('Log2Backward0', (c) => c.grad().div(c.tensor(0).mul(LN2)), { inputs: [0] }),
  sqrt: unary('SqrtBackward0', (c) => c.grad().div(c.output(0).mul(2)), { outputs: [0] }),
  rsqrt: unary('RsqrtBackward0', (c) => c.grad().mul(c.output(0).pow(3)).mul(-0.5), { outputs: [0] }),
  reciprocal: unary('ReciprocalBackward0', (c) => c.grad().mul(c.output(0).mul(c.output(0))).neg(), { outputs: [0] }),
  sin: unary('SinBackward0', (c) => c.grad().mul(c.tensor(0).cos()), { inputs: [0] }),
  cos: unary('CosBackward0', (c) => c.grad().mul(c.tensor(0).sin()).neg(), { inputs: [0] }),
  tanh: unary('TanhBackward0', (c) => c.grad().mul(c.output(0).mul(c.output(0)).neg().add(1)), { outputs: [0] }),
  sigmoid: unary('SigmoidBackward0', (c) => c.grad().mul(c.output(0).mul(c.output(0).neg().add(1))), { outputs: [0] }),
  silu: unary('SiluBackward0', (c) => {
    const x = c.tensor(0);
    const s = x.sigmoid();
    return c.grad().mul(s.mul(x.mul(s.neg().add(1)).add(1)));
  }, { inputs: [0] }),
  gelu: unary('GeluBackward0', (c) => {
    const x = c.tensor(0);
    if (c.attrs.approximate === 'tanh') {
      const inner = x.add(x.pow(3).mul(0.044715)).mul(SQRT_2_OVER_PI);
      const t = inner.tanh();
      const dInner = x.mul(x).mul(3 * 0.044715).add(1).mul(SQRT_2_OVER_PI);
      const left = t.add(1).mul(0.5);
      const right = x.mul(0.5).mul(t.mul(t).neg().add(1)).mul(dInner);
      return c.grad().mul(left.add(right));
    }
    // Φ(x) = gelu(x) / x (½ at 0), φ(x) = exp(-x²/2) / √(2π).
    const y = x.gelu();
    const cdf = where(x.eq(0), 0.5, y.div(x));
    const pdf = x.mul(x).mul(-0.5).exp().mul(INV_SQRT_2PI);
    return c.grad().mul(cdf.add(x.mul(pdf)));
  }, { inputs: [0] }),
  softplus: unary('SoftplusBackward0', (c) => {
    const x = c.tensor(0);
    const beta = (c.attrs.beta as number) ?? 1, threshold = (c.attrs.threshold as number) ?? 20;
    const bx = x.mul(beta);
    return where(bx.gt(threshold), c.grad(), c.grad().mul(bx.sigmoid()));
  }, { inputs: [0] }),
  leakyRelu: unary('LeakyReluBackward0', (c) => {
    const slope = (c.attrs.negativeSlope as number) ?? 0.01;
    return where(c.tensor(0).gt(0), c.grad(), c.grad().mul(slope));
  }, { inputs: [0] }),
  logit: unary('LogitBackward0', (c) => {
    // grad / (x (1 - x)); with eps >= 0, zero outside [eps, 1 - eps] (where the clamp held the input).
    const x = c.tensor(0), eps = (c.attrs.eps as number) ?? -1;
    const g = c.grad().div(x.mul(x.neg().add(1)));
    return eps < 0 ? g : where(x.lt(eps).logicalOr(x.gt(1 - eps)), 0, g);
  }, { inputs: [0] }),
  neg: unary('NegBackward0', (c) => c.grad().neg(), {}),
  abs: unary('AbsBackward0', (c) => c.grad().mul(c.tensor(0).sign()), { inputs: [0] }),
  sign: { name: 'SignBackward0', backward: zeroGrad },
  relu: unary('ReluBackward0', (c) => where(c.output(0).gt(0), c.grad(), 0), { outputs: [0] }),
  floor: { name: 'FloorBackward0', backward: zeroGrad },
  ceil: { name: 'CeilBackward0', backward: zeroGrad },
  round: { name: 'RoundBackward0', backward: zeroGrad },
  trunc: { name: 'TruncBackward0', backward: zeroGrad },
  logicalNot: nondiff('LogicalNotBackward0'),
  tan: unary('TanBackward0', (c) => c.grad().mul(c.output(0).mul(c.output(0)).add(1)), { outputs: [0] }),
  asin: unary('AsinBackward0', (c) => c.grad().mul(c.tensor(0).mul(c.tensor(0)).neg().add(1).rsqrt()), { inputs: [0] }),
  acos: unary('AcosBackward0', (c) => c.grad().mul(c.tensor(0).mul(c.tensor(0)).neg().add(1).rsqrt()).neg(), { inputs: [0] }),
  atan: unary('AtanBackward0', (c) => c.grad().div(c.tensor(0).mul(c.tensor(0)).add(1)), { inputs: [0] }),
  sinh: unary('SinhBackward0', (c) => c.grad().mul(c.tensor(0).cosh()), { inputs: [0] }),
  cosh: unary('CoshBackward0', (c) => c.grad().mul(c.tensor(0).sinh()), { inputs: [0] }),
  asinh: unary('AsinhBackward0', (c) => c.grad().mul(c.tensor(0).mul(c.tensor(0)).add(1).rsqrt()), { inputs: [0] }),
  acosh: unary('AcoshBackward0', (c) => c.grad().mul(c.tensor(0).mul(c.tensor(0)).sub(1).rsqrt()), { inputs: [0] }),
  atanh: unary('AtanhBackward0', (c) => c.grad().div(c.tensor(0).mul(c.tensor(0)).neg().add(1)), { inputs: [0] }),
  log10: unary('Log10Backward0', (c) => c.grad().div(c.tensor(0).mul(Math.LN10)), { inputs: [0] }),
  exp2: unary('Exp2Backward0', (c) => c.grad().mul(c.output(0)).mul(LN2), { outputs: [0] }),
  erf: unary('ErfBackward0', (c) => c.grad().mul(c.tensor(0).mul(c.tensor(0)).neg().exp()).mul(2 / Math.sqrt(Math.PI)), { inputs: [0] }),
  erfc: unary('ErfcBackward0', (c) => c.grad().mul(c.tensor(0).mul(c.tensor(0)).neg().exp()).mul(-2 / Math.sqrt(Math.PI)), { inputs: [0] }),
  erfinv: unary('ErfinvBackward0', (c) => c.grad().mul(c.output(0).mul(c.output(0)).exp()).mul(Math.sqrt(Math.PI) / 2), { outputs: [0] }),
  atan2: {
    name: 'Atan2Backward0',
    savesInputs: [0, 1],
    backward: (c) => {
      const a = c.tensor(0), b = c.input(1);
      const den = a.mul(a).add((b as Tensor).mul(b));
      return [c.needs(0) ? c.grad().mul(b).div(den) : null, c.needs(1) ? c.grad().mul(a).div(den).neg() : null];
    },
  },
  hypot: {
    name: 'HypotBackward0',
    savesInputs: [0, 1],
    savesOutputs: [0],
    backward: (c) => {
      const out = c.output(0);
      return [c.needs(0) ? c.grad().mul(c.tensor(0)).div(out) : null, c.needs(1) ? c.grad().mul(c.input(1)).div(out) : null];
    },
  },
  copysign: {
    name: 'CopysignBackward0',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => {
      // d/dself = sign(self) · sign(result) (0 where self is 0); none to other.
      const x = c.tensor(0);
      return [c.needs(0) ? where(x.eq(0), 0, c.grad().mul(x.sign()).mul(c.output(0).sign())) : null, c.needs(1) ? c.grad().mul(0) : null];
    },
  },
  fmod: {
    name: 'FmodBackward0',
    savesInputs: [0, 1],
    backward: (c) => [c.needs(0) ? c.grad() : null, c.needs(1) ? c.grad().mul((c.input(0) as Tensor).div(c.input(1), { roundingMode: 'trunc' })).neg() : null],
  },
  bitwiseNot: nondiff('BitwiseNotBackward0'),

  mul: {
    name: 'MulBackward0',
    // Each factor is the other's gradient: saved only when the other needs one (x.mul_(2) saves nothing).
    savesInputsIf: (_a, xs) => [...(requiresGrad(xs[1]) ? [0] : []), ...(requiresGrad(xs[0]) ? [1] : [])],
    backward: (c) => [c.needs(0) ? c.grad().mul(asOperand(c.input(1))) : null, c.needs(1) ? c.grad().mul(asOperand(c.input(0))) : null],
  },
  div: {
    name: 'DivBackward0',
    savesInputs: [1],
    savesInputsIf: (_a, xs) => (requiresGrad(xs[1]) ? [0] : []),
    backward: (c) => {
      if (c.attrs.roundingMode) return [c.needs(0) ? c.grad().mul(0) : null, c.needs(1) ? c.grad().mul(0) : null];
      const b = c.input(1);
      const ga = c.needs(0) ? c.grad().div(b) : null;
      const gb = c.needs(1) ? c.grad().mul(c.input(0)).div((b as Tensor).mul(b)).neg() : null;
      return [ga, gb];
    },
  },
  pow: {
    name: 'PowBackward0',
    savesInputs: [0, 1],
    savesOutputs: [0],
    backward: (c) => {
      const a = c.input(0), e = c.input(1);
      let ga: Tensor | null = null, ge: Tensor | null = null;
      if (c.needs(0)) {
        const base = a as Tensor;
        if (typeof e === 'number') ga = e === 0 ? c.grad().mul(0) : c.grad().mul(base.pow(e - 1).mul(e));
        else ga = c.grad().mul(e.mul(base.pow(e.sub(1))));
        // 0 ** e has no slope where e > 0 is an integer > 1 ... PyTorch masks exponent 0 only.
        if (typeof e !== 'number') ga = where(e.eq(0), 0, ga);
      }
      if (c.needs(1)) {
        const out = c.output(0);
        const lg = typeof a === 'number' ? Math.log(a) : a.log();
        const term = c.grad().mul(out).mul(lg);
        ge = typeof a === 'number' ? term : where(a.eq(0).logicalAnd((e as Tensor).ge(0)), 0, term);
      }
      return [ga, ge];
    },
  },
  remainder: {
    name: 'RemainderBackward0',
    savesInputs: [0, 1],
    backward: (c) => [c.needs(0) ? c.grad() : null, c.needs(1) ? c.grad().mul((c.input(0) as Tensor).div(c.input(1), { roundingMode: 'floor' })).neg() : null],
  },
  maximum: { name: 'MaximumBackward0', savesInputs: [0, 1], backward: (c) => extremumBackward(c, true) },
  minimum: { name: 'MinimumBackward0', savesInputs: [0, 1], backward: (c) => extremumBackward(c, false) },
  ...GENERATED_NONDIFFERENTIABLE,
  where: {
    name: 'WhereBackward0',
    savesInputs: [0],
    backward: (c) => {
      const cond = c.tensor(0);
      return [null, c.needs(1) ? where(cond, c.grad(), 0) : null, c.needs(2) ? where(cond, 0, c.grad()) : null];
    },
  },
  clamp: {
    name: 'ClampBackward1',
    savesInputs: [0, 1, 2],
    backward: (c) => {
      const x = c.tensor(0);
      const lo = c.input(1) as Tensor | number | null | undefined, hi = c.input(2) as Tensor | number | null | undefined;
      let mask: Tensor | null = null;
      if (lo !== undefined && lo !== null) mask = x.ge(lo);
      if (hi !== undefined && hi !== null) mask = mask ? mask.logicalAnd(x.le(hi)) : x.le(hi);
      const gx = c.needs(0) ? (mask ? where(mask, c.grad(), 0) : c.grad()) : null;
      const glo = c.needs(1) ? where(x.lt(lo as Tensor), c.grad(), 0) : null;
      const ghi = c.needs(2) ? where(x.gt(hi as Tensor), c.grad(), 0) : null;
      return [gx, glo, ghi];
    },
  },
  lerp: {
    name: 'LerpBackward0',
    savesInputs: [0, 1, 2],
    backward: (c) => {
      const w = c.input(2);
      const gs = c.needs(0) ? c.grad().mul(typeof w === 'number' ? 1 - w : w.neg().add(1)) : null;
      const ge = c.needs(1) ? c.grad().mul(w) : null;
      const gw = c.needs(2) ? c.grad().mul(c.tensor(1).sub(c.tensor(0))) : null;
      return [gs, ge, gw];
    },
  },
  addcmul: {
    name: 'AddcmulBackward0',
    savesInputs: [1, 2],
    backward: (c) => {
      const v = (c.attrs.value as number) ?? 1;
      return [c.needs(0) ? c.grad() : null, c.needs(1) ? c.grad().mul(c.tensor(2)).mul(v) : null, c.needs(2) ? c.grad().mul(c.tensor(1)).mul(v) : null];
    },
  },
  addcdiv: {
    name: 'AddcdivBackward0',
    savesInputs: [1, 2],
    backward: (c) => {
      const v = (c.attrs.value as number) ?? 1;
      const t1 = c.tensor(1), t2 = c.tensor(2);
      return [
        c.needs(0) ? c.grad() : null,
        c.needs(1) ? c.grad().div(t2).mul(v) : null,
        c.needs(2) ? c.grad().mul(t1).div(t2.mul(t2)).mul(-v) : null,
      ];
    },
  },

  sum: { name: 'SumBackward1', backward: (c) => [spread(c)] },
  prod: {
    name: 'ProdBackward1',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => {
      const x = c.tensor(0), dims = dimsOf(c);
      const out = unreduce(c.output(0), c.shape(0), dims);
      return [spread(c).mul(out).div(x)];
    },
  },
  mean: { name: 'MeanBackward1', backward: (c) => [spread(c).div(reducedCount(c.shape(0), dimsOf(c)))] },
  amax: { name: 'AmaxBackward0', savesInputs: [0], savesOutputs: [0], backward: (c) => [reducedExtremumBackward(c)] },
  amin: { name: 'AminBackward0', savesInputs: [0], savesOutputs: [0], backward: (c) => [reducedExtremumBackward(c)] },
  all: nondiff('AllBackward0'),
  any: nondiff('AnyBackward0'),
  var: {
    name: 'VarBackward0',
    savesInputs: [0],
    backward: (c) => {
      const x = c.tensor(0), dims = dimsOf(c);
      const n = reducedCount(c.shape(0), dims) - ((c.attrs.correction as number) ?? 1);
      const m = x.mean(dims.length ? dims : undefined, { keepdim: true });
      return [spread(c).mul(x.sub(m)).mul(2 / n)];
    },
  },
  std: {
    name: 'StdBackward0',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => {
      const x = c.tensor(0), dims = dimsOf(c);
      const n = reducedCount(c.shape(0), dims) - ((c.attrs.correction as number) ?? 1);
      const m = x.mean(dims.length ? dims : undefined, { keepdim: true });
      const s = unreduce(c.output(0), c.shape(0), dims);
      return [spread(c).mul(x.sub(m)).div(s.mul(n))];
    },
  },
  norm: {
    name: 'NormBackward1',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => {
      const x = c.tensor(0), dims = dimsOf(c);
      const p = (c.attrs.p as number) ?? 2;
      const out = unreduce(c.output(0), c.shape(0), dims);
      const g = spread(c);
      if (p === 1) return [g.mul(x.sign())];
      if (p === Infinity || p === -Infinity) {
        const hit = x.abs().eq(out);
        return [where(hit, g.mul(x.sign()).div(hit.sum(dims, { keepdim: true })), 0)];
      }
      if (p === 2) return [where(out.eq(0), 0, g.mul(x).div(out))];
      const num = x.mul(x.abs().pow(p - 2));
      return [where(out.eq(0), 0, g.mul(num).div(out.pow(p - 1)))];
    },
  },
  logsumexp: {
    name: 'LogsumexpBackward0',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => [spread(c).mul(c.tensor(0).sub(unreduce(c.output(0), c.shape(0), dimsOf(c))).exp())],
  },
  argmax: nondiff('ArgmaxBackward0'),
  argmin: nondiff('ArgminBackward0'),
  nonzero: nondiff('NonzeroBackward0'),
  maxDim: { name: 'MaxBackward0', savesOutputs: [1], backward: (c) => valuesBackward(c, c.attrs.dim as number) },
  minDim: { name: 'MinBackward0', savesOutputs: [1], backward: (c) => valuesBackward(c, c.attrs.dim as number) },
  softmax: {
    name: 'SoftmaxBackward0',
    savesOutputs: [0],
    backward: (c) => {
      const y = c.output(0), d = c.attrs.dim as number;
      const g = c.grad();
      if (fusedRowGrad(y, d)) return [softmaxBackwardLastDim(g, y, false)];
      return [y.mul(g.sub(g.mul(y).sum(d, { keepdim: true })))];
    },
  },
  logSoftmax: {
    name: 'LogSoftmaxBackward0',
    savesOutputs: [0],
    backward: (c) => {
      const y = c.output(0), d = c.attrs.dim as number;
      const g = c.grad();
      if (fusedRowGrad(y, d)) return [softmaxBackwardLastDim(g, y, true)];
      return [g.sub(y.exp().mul(g.sum(d, { keepdim: true })))];
    },
  },
  cumsum: {
    name: 'CumsumBackward0',
    backward: (c) => {
      const d = c.attrs.dim as number, g = c.grad();
      // The sum of g over positions ≥ i: total − (prefix sum up to i) + g_i.
      return [g.sum(d, { keepdim: true }).sub(g.cumsum(d)).add(g)];
    },
  },
  gather: {
    name: 'GatherBackward0',
    savesInputs: [1],
    backward: (c) => {
      const g = c.grad();
      const z = zeros(c.shape(0) as number[], { dtype: g.dtype, device: g.device });
      return [z.scatterAdd(c.attrs.dim as number, c.tensor(1), g), null];
    },
  },
  scatter: {
    name: 'ScatterBackward0',
    savesInputs: [1],
    backward: (c) => {
      const d = c.attrs.dim as number, idx = c.tensor(1), g = c.grad();
      return [c.needs(0) ? g.scatter(d, idx, 0) : null, null, c.needs(2) ? g.gather(d, idx) : null];
    },
  },
  scatterAdd: {
    name: 'ScatterAddBackward0',
    savesInputs: [1],
    backward: (c) => [c.needs(0) ? c.grad() : null, null, c.needs(2) ? c.grad().gather(c.attrs.dim as number, c.tensor(1)) : null],
  },
  scatterReduce: { name: 'ScatterReduceBackward0', notImplemented: 'scatterReduce has no backward formula yet (use scatterAdd for a sum)' },
  layerNorm: { name: 'NativeLayerNormBackward0', savesInputs: [0, 1], savesOutputs: [1, 2], differentiableOutputs: [0], backward: (c) => rowNormBackward(c, true) },
  rmsNorm: { name: 'RmsNormBackward0', savesInputs: [0, 1], backward: (c) => rowNormBackward(c, false) },
  batchNormForward: {
    name: 'NativeBatchNormBackward0', savesInputs: [0, 1], savesOutputs: [1, 2], differentiableOutputs: [0], backward: batchNormGrad,
  },
  batchNormBackward: { name: 'NativeBatchNormBackwardBackward0', notImplemented: FUSED_GRAD_ONLY },
  sort: { name: 'SortBackward0', savesOutputs: [1], backward: (c) => valuesBackward(c, c.attrs.dim as number) },
  kthvalue: { name: 'KthvalueBackward0', savesOutputs: [1], backward: (c) => valuesBackward(c, c.attrs.dim as number) },
  medianDim: { name: 'MedianBackward1', savesOutputs: [1], backward: (c) => valuesBackward(c, c.attrs.dim as number) },
  nanmedianDim: { name: 'NanmedianBackward1', savesOutputs: [1], backward: (c) => valuesBackward(c, c.attrs.dim as number) },
  cumprod: {
    name: 'CumprodBackward0',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => [scanGrad(c, (x, y, g, d) => cumprodBackward(x, y, g, d))],
  },
  logcumsumexp: {
    name: 'LogcumsumexpBackward0',
    savesInputs: [0],
    savesOutputs: [0],
    backward: (c) => [scanGrad(c, (x, y, g, d) => logcumsumexpBackward(x, y, g, d))],
  },
  cummax: { name: 'CummaxBackward0', savesOutputs: [1], backward: (c) => [cumExtremeGrad(c)] },
  cummin: { name: 'CumminBackward0', savesOutputs: [1], backward: (c) => [cumExtremeGrad(c)] },
  gemm: {
    name: 'MmBackward0',
    savesInputs: [0, 1],
    outIsInput: (attrs) => ((attrs.beta as number) ?? 0) !== 0,
    backward: (c) => {
      const alpha = (c.attrs.alpha as number) ?? 1, beta = (c.attrs.beta as number) ?? 0;
      const g = alpha === 1 ? c.grad() : c.grad().mul(alpha);
      // A transposed operand (linear's weight.t()) gets its gradient computed in the transposed order, so that
      // the gradient is a view of a result laid out as the weight itself (the view's backward then copies nothing).
      const a = c.needs(0) || c.needs(1) ? c.tensor(0) : null;
      const b = c.needs(0) || c.needs(1) ? c.tensor(1) : null;
      const ga = c.needs(0) ? (isTransposed(a!) ? mT(b!.matmul(mT(g))) : g.matmul(mT(b!))) : null;
      const gb = c.needs(1) ? (isTransposed(b!) ? mT(mT(g).matmul(a!)) : mT(a!).matmul(g)) : null;
      const gc = beta !== 0 && c.needs(2) ? (beta === 1 ? c.grad() : c.grad().mul(beta)) : null;
      return [ga, gb, gc];
    },
  },
  crossEntropyLoss: {
    name: 'NllLossBackward0',
    savesInputs: [0, 1, 2],
    savesOutputs: [1],
    backward: (c) => {
      if (c.needs(2)) throw codedError('TSGPU_AUTOGRAD', 'crossEntropy: the derivative for weight is not implemented');
      return [crossEntropyGrad(c), null, null];
    },
  },
  crossEntropyBackward: { name: 'NllLossBackwardBackward0', notImplemented: FUSED_GRAD_ONLY },
  softmaxBackward: { name: 'SoftmaxBackwardDataBackward0', notImplemented: FUSED_GRAD_ONLY },
  logSoftmaxBackward: { name: 'LogSoftmaxBackwardDataBackward0', notImplemented: FUSED_GRAD_ONLY },
  adamStep: nondiff('AdamStepBackward0'),
  sgdStep: nondiff('SgdStepBackward0'),
  attention: {
    name: 'ScaledDotProductAttentionBackward0',
    savesInputs: [0, 1, 2],
    savesOutputs: [1],
    backward: (c) => {
      // out = P v with P = softmax(scale · q kᵀ + mask) (the weights output).
      const q = c.tensor(0), k = c.tensor(1), v = c.tensor(2);
      const P = c.output(1);
      const scale = c.attrs.scale as number;
      const gO = c.grad(0);
      let gP = gO.matmul(mT(v));
      if (c.hasGrad(1)) gP = gP.add(c.grad(1));
      const gS = P.mul(gP.sub(gP.mul(P).sum(-1, { keepdim: true })));
      return [
        c.needs(0) ? gS.matmul(k).mul(scale) : null,
        c.needs(1) ? mT(gS).matmul(q).mul(scale) : null,
        c.needs(2) ? mT(P).matmul(gO) : null,
        null,
      ];
    },
  },
  flashAttention: {
    // Saves q, k, v, out and the log-sum-exp (linear in the sequence), not the weights: the backward op
    // recomputes P from them tile by tile.
    name: 'ScaledDotProductFlashAttentionBackward0',
    savesInputs: [0, 1, 2],
    savesOutputs: [0, 1],
    backward: (c) => {
      if (c.hasGrad(1)) throw new Error('flashAttention: the logsumexp output is not differentiable');
      if (!c.needs(0) && !c.needs(1) && !c.needs(2)) return [null, null, null];
      const [dq, dk, dv] = flashAttentionBackward(c.grad(0), c.tensor(0), c.tensor(1), c.tensor(2), c.output(0), c.output(1), {
        scale: c.attrs.scale as number,
        isCausal: (c.attrs.causal as boolean | undefined) ?? false,
      });
      const keep = (t: Tensor, i: number) => (c.needs(i) ? t : (t.dispose(), null));
      return [keep(dq, 0), keep(dk, 1), keep(dv, 2)];
    },
  },
  flashAttentionBackward: {
    name: 'ScaledDotProductFlashAttentionBackwardBackward0',
    notImplemented: 'the derivative of flash attention\'s backward is not implemented (for double backward turn the flash kernel off: backends.cuda.enableFlashSdp(false))',
  },
  // The sliding windows of convolution and pooling: each op's gradient is the other applied to it (adjoints).
  im2col: {
    name: 'Im2ColBackward0',
    backward: (c) => {
      const s = c.shape(0);
      return [col2im(c.grad(), windowGeometry(c.attrs), [s[2], s[3]])];
    },
  },
  col2im: { name: 'Col2ImBackward0', backward: (c) => [im2col(c.grad(), windowGeometry(c.attrs))] },
  // cuDNN's three passes of one convolution: each pass's gradients are the other two.
  convolution: {
    name: 'ConvolutionBackward0',
    savesInputs: [0, 1],
    backward: (c) => {
      const p = cudnnParams(c.attrs);
      return [
        c.needs(0) ? cudnnConvolutionBackwardInput(c.grad(), c.tensor(1), p, c.shape(0)) : null,
        c.needs(1) ? cudnnConvolutionBackwardWeight(c.grad(), c.tensor(0), p, c.shape(1)) : null,
      ];
    },
  },
  convolutionBackwardInput: {
    // convTranspose2d's forward: out = the input gradient of a convolution whose output gradient is input 0.
    name: 'ConvolutionBackward0',
    savesInputs: [0, 1],
    backward: (c) => {
      const p = cudnnParams(c.attrs);
      const s = c.shape(0);
      return [
        c.needs(0) ? cudnnConvolution(c.grad(), c.tensor(1), p, [s[2], s[3]]) : null,
        c.needs(1) ? cudnnConvolutionBackwardWeight(c.tensor(0), c.grad(), p, c.shape(1)) : null,
      ];
    },
  },
  convolutionBackwardWeight: {
    // gradWeight is bilinear in gradOut (input 0) and the forward's input (input 1).
    name: 'ConvolutionBackwardBackward0',
    savesInputs: [0, 1],
    backward: (c) => {
      const p = cudnnParams(c.attrs);
      const s = c.shape(0);
      return [
        c.needs(0) ? cudnnConvolution(c.tensor(1), c.grad(), p, [s[2], s[3]]) : null,
        c.needs(1) ? cudnnConvolutionBackwardInput(c.tensor(0), c.grad(), p, c.shape(1)) : null,
      ];
    },
  },
};
