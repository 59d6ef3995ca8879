/**
 * The gradcheck cases: one or more per differentiable row of the derivatives
 * table (native/autograd/derivatives.ts), each a function of float64 inputs,
 * with the rows it exercises. The coverage test checks that every row that
 * has a formula appears here.
 */
import * as torch from '../../../native/index';
import { flashAttention } from '../../../native/ops/flash_attention';
import { CONV_GRAD_CASES } from './gradcheck_conv_cases';
type T = torch.Tensor;

/** A case: rows it covers, input shapes (or makers), the function. */
export interface GradCase {
  name: string;
  rows: string[];
  inputs: (number[] | (() => T))[];
  fn: (...xs: T[]) => T | T[];
  /** gradcheck's tolerances where the function passes through a lower precision. */
  opts?: torch.autograd.GradcheckOptions;
}

const pos = (shape: number[]) => () => torch.rand(shape, { dtype: 'float64' }).add(0.5);
/** Values away from the kinks of relu/abs/floor (|x| ≥ 0.1) so that finite differences do not straddle them. */
const off = (shape: number[]) => () => {
  const r = torch.rand(shape, { dtype: 'float64' }).mul(0.9).add(0.1);
  const s = torch.rand(shape, { dtype: 'float64' }).gt(0.5).mul(2).sub(1);
  return r.mul(s);
};
const idx = (values: number[][]) => () => torch.tensor(values, { dtype: 'int64' });
/** Class weights that need no gradient (crossEntropy has no derivative for them). */
const CLASS_WEIGHTS = torch.tensor([0.5, 1.5, 0.8, 1.2, 2.0, 0.7, 1.1], { dtype: 'float64' });

export const GRAD_CASES: GradCase[] = [
  { name: 'add with alpha and broadcast', rows: ['add'], inputs: [[2, 3], [3]], fn: (a, b) => a.add(b, { alpha: 2 }) },
  { name: 'sub', rows: ['add'], inputs: [[2, 3], [2, 1]], fn: (a, b) => a.sub(b) },
  { name: 'sub op', rows: ['sub'], inputs: [[2, 3], [2, 3]], fn: (a, b) => torch.sub(a, b, { alpha: 3 }) },
  { name: 'mul', rows: ['mul'], inputs: [[2, 3], [1, 3]], fn: (a, b) => a.mul(b) },
  { name: 'mul by a number', rows: ['mul'], inputs: [[4]], fn: (a) => a.mul(2.5) },
  { name: 'div', rows: ['div'], inputs: [[2, 3], pos([2, 3])], fn: (a, b) => a.div(b) },
  { name: 'pow by a number', rows: ['pow'], inputs: [pos([3])], fn: (a) => a.pow(3) },
  { name: 'pow by a tensor', rows: ['pow'], inputs: [pos([3]), [3]], fn: (a, b) => a.pow(b) },
  { name: 'remainder', rows: ['remainder'], inputs: [pos([4]), () => torch.tensor([0.7, 0.9, 1.3, 2.1], { dtype: 'float64' })], fn: (a, b) => a.mul(3).remainder(b) },
  { name: 'maximum and minimum', rows: ['maximum', 'minimum'], inputs: [[5], [5]], fn: (a, b) => a.maximum(b).add(a.minimum(b).mul(3)) },
  { name: 'exp expm1 log log1p log2', rows: ['exp', 'expm1', 'log', 'log1p', 'log2'], inputs: [pos([4])], fn: (a) => a.exp().add(a.expm1()).add(a.log()).add(a.log1p()).add(a.log2()) },
  { name: 'sqrt rsqrt reciprocal', rows: ['sqrt', 'rsqrt', 'reciprocal'], inputs: [pos([4])], fn: (a) => a.sqrt().add(a.rsqrt()).add(a.reciprocal()) },
  { name: 'sin cos tanh sigmoid silu', rows: ['sin', 'cos', 'tanh', 'sigmoid', 'silu'], inputs: [[5]], fn: (a) => a.sin().add(a.cos()).add(a.tanh()).add(a.sigmoid()).add(a.silu()) },
  { name: 'gelu exact', rows: ['gelu'], inputs: [[6]], fn: (a) => a.gelu() },
  { name: 'gelu tanh', rows: ['gelu'], inputs: [[6]], fn: (a) => a.gelu({ approximate: 'tanh' }) },
  { name: 'softplus', rows: ['softplus'], inputs: [[6]], fn: (a) => a.mul(8).softplus({ beta: 2, threshold: 5 }) },
  { name: 'leakyRelu with a positive and a negative slope', rows: ['leakyRelu'], inputs: [off([6])],
    fn: (a) => torch.nn.functional.leakyRelu(a, 0.2).add(torch.nn.functional.leakyRelu(a, -0.5)) },
  { name: 'neg abs relu', rows: ['neg', 'abs', 'relu'], inputs: [off([6])], fn: (a) => a.neg().add(a.abs()).add(a.relu().mul(2)) },
  { name: 'sign floor ceil round trunc (zero)', rows: ['sign', 'floor', 'ceil', 'round', 'trunc'], inputs: [() => torch.tensor([0.3, 1.4, -2.2], { dtype: 'float64' })], fn: (a) => a.sign().add(a.floor()).add(a.ceil()).add(a.round()).add(a.trunc()).add(a) },
  { name: 'tan asin acos atan atanh', rows: ['tan', 'asin', 'acos', 'atan', 'atanh'], inputs: [() => torch.rand([5], { dtype: 'float64' }).mul(1.4).sub(0.7)], fn: (a) => a.tan().add(a.asin()).add(a.acos()).add(a.atan()).add(a.atanh()) },
  { name: 'sinh cosh asinh acosh', rows: ['sinh', 'cosh', 'asinh', 'acosh'], inputs: [[5], () => torch.rand([5], { dtype: 'float64' }).add(1.5)], fn: (a, b) => a.sinh().add(a.cosh()).add(a.asinh()).add(b.acosh()) },
  { name: 'log10 exp2 erf erfc erfinv', rows: ['log10', 'exp2', 'erf', 'erfc', 'erfinv'], inputs: [pos([4]), () => torch.rand([4], { dtype: 'float64' }).mul(1.4).sub(0.7)], fn: (a, b) => a.log10().add(a.exp2()).add(a.erf()).add(a.erfc()).add(b.erfinv()) },
  { name: 'atan2 hypot copysign fmod', rows: ['atan2', 'hypot', 'copysign', 'fmod'], inputs: [off([5]), off([5]), () => torch.tensor([0.7, 0.9, 1.3, 2.1, 0.45], { dtype: 'float64' })], fn: (a, b, m) => torch.atan2(a, b).add(torch.hypot(a, b)).add(torch.copysign(a, b)).add(torch.fmod(a.mul(3), m)) },
  { name: 'where', rows: ['where'], inputs: [[2, 3], [2, 3]], fn: (a, b) => torch.where(a.gt(b), a, b.mul(2)) },
  { name: 'clamp by numbers', rows: ['clamp'], inputs: [off([6])], fn: (a) => a.clamp(-0.5, 0.5) },
  { name: 'clamp by tensors', rows: ['clamp'], inputs: [off([6]), () => torch.full([6], -0.05, { dtype: 'float64' }), () => torch.full([6], 0.05, { dtype: 'float64' })], fn: (a, lo, hi) => a.clamp(lo, hi) },
  { name: 'lerp', rows: ['lerp'], inputs: [[4], [4], [4]], fn: (a, b, w) => a.lerp(b, w) },
  { name: 'addcmul addcdiv', rows: ['addcmul', 'addcdiv'], inputs: [[4], [4], pos([4])], fn: (a, b, c) => a.addcmul(b, c, { value: 0.5 }).add(a.addcdiv(b, c, { value: 2 })) },
  { name: 'sum all and dims', rows: ['sum'], inputs: [[2, 3, 4]], fn: (a) => a.sum([0, 2]).add(a.sum()) },
  { name: 'sum keepdim', rows: ['sum'], inputs: [[2, 3]], fn: (a) => a.sum(1, { keepdim: true }).mul(a) },
  { name: 'prod', rows: ['prod'], inputs: [pos([2, 3])], fn: (a) => a.prod(1) },
  { name: 'mean', rows: ['mean'], inputs: [[2, 3, 4]], fn: (a) => a.mean([1]).add(a.mean()) },
  { name: 'amax amin', rows: ['amax', 'amin'], inputs: [[3, 4]], fn: (a) => a.amax(1).add(a.amin(1)) },
  { name: 'var std', rows: ['var', 'std'], inputs: [[3, 5]], fn: (a) => a.var(1).add(a.std(1)).add(a.var()) },
  { name: 'norm p=2, 1, 3', rows: ['norm'], inputs: [off([3, 4])], fn: (a) => a.norm(2, 1).add(a.norm(1, 1)).add(a.norm(3, 1)) },
  { name: 'logsumexp', rows: ['logsumexp'], inputs: [[3, 4]], fn: (a) => a.logsumexp(1) },
  { name: 'max and min along a dim', rows: ['maxDim', 'minDim'], inputs: [[3, 4]], fn: (a) => a.max(1).values.add(a.min(0, true).values.sum()) },
  { name: 'softmax logSoftmax', rows: ['softmax', 'logSoftmax'], inputs: [[3, 5]], fn: (a) => a.softmax(1).mul(a.logSoftmax(0)) },
  { name: 'cumsum', rows: ['cumsum'], inputs: [[3, 4]], fn: (a) => a.cumsum(1).mul(a) },
  { name: 'cumprod', rows: ['cumprod'], inputs: [[3, 5]], fn: (a) => a.cumprod(1) },
  { name: 'cumprod through zeros (one and two per row)', rows: ['cumprod'],
    inputs: [() => torch.tensor([[0.5, 0, 2, 1.5, -1], [0, 1.2, 0, 0.7, 2], [1.1, 0.9, -0.8, 0, 1.3]], { dtype: 'float64' })],
    fn: (a) => a.cumprod(1) },
  { name: 'cumprod along dim 0 of a 0-dim tensor and of a column', rows: ['cumprod'], inputs: [[4, 2]], fn: (a) => [a.cumprod(0), a.sum().cumprod(0)] },
  { name: 'logcumsumexp', rows: ['logcumsumexp'], inputs: [[3, 6]], fn: (a) => a.logcumsumexp(1) },
  { name: 'logcumsumexp of large values along dim 0', rows: ['logcumsumexp'], inputs: [() => torch.randn([5, 3], { dtype: 'float64' }).mul(30)], fn: (a) => a.logcumsumexp(0) },
  { name: 'cummax and cummin', rows: ['cummax', 'cummin'], inputs: [[3, 6]], fn: (a) => [a.cummax(1).values, a.cummin(0).values] },
  { name: 'kthvalue, median and nanmedian along a dim (their selection ops on cpu)', rows: ['kthvalue', 'medianDim', 'nanmedianDim'], inputs: [[3, 6]],
    fn: (a) => [a.kthvalue(2, 1).values, a.median(0, true).values, a.nanmedian(1).values, a.median()] },
  { name: 'median, kthvalue, mode and quantile (through sort and gather)', rows: ['sort', 'gather'], inputs: [[3, 6]],
    fn: (a) => [a.median(1).values, a.median(), a.nanmedian(0).values, a.kthvalue(2, 1).values, a.quantile(torch.tensor([0.2, 0.7], { dtype: 'float64', device: a.device }), 1)] },
  { name: 'diagEmbed, rot90, takeAlongDim and maskedScatter', rows: ['copy', 'gather', 'where'], inputs: [[2, 3], [2, 3]],
    fn: (a, b) => [a.diagEmbed(1), a.rot90(), a.takeAlongDim(torch.tensor([[2, 0], [1, 1]], { device: a.device }), 1),
      a.maskedScatter(torch.tensor([[true, false, true], [false, true, false]], { device: a.device }), b)] },
  { name: 'gather', rows: ['gather'], inputs: [[3, 4], idx([[0, 1], [3, 3], [2, 0]])], fn: (a, i) => a.gather(1, i) },
  { name: 'scatter', rows: ['scatter'], inputs: [[3, 4], idx([[0, 1], [3, 2], [2, 0]]), [3, 2]], fn: (a, i, s) => a.scatter(1, i, s) },
  { name: 'scatterAdd', rows: ['scatterAdd'], inputs: [[3, 4], idx([[0, 0], [3, 2], [2, 2]]), [3, 2]], fn: (a, i, s) => a.scatterAdd(1, i, s) },
  { name: 'layerNorm with weight and bias', rows: ['layerNorm'], inputs: [[3, 5], [5], [5]], fn: (x, w, b) => torch.layerNorm(x, [5], w, b) },
  { name: 'rmsNorm with weight', rows: ['rmsNorm'], inputs: [[3, 5], [5]], fn: (x, w) => torch.rmsNorm(x, [5], w, 1e-6) },
  { name: 'sort and topk', rows: ['sort'], inputs: [[3, 5]], fn: (a) => a.sort(1).values.mul(torch.arange(5, { dtype: 'float64', device: a.device })).add(a.topk(2).values.sum()) },
  { name: 'logit, and logit with eps (the clamped ends have no gradient)', rows: ['logit'],
    inputs: [() => torch.tensor([0.05, 0.15, 0.3, 0.5, 0.7, 0.85, 0.95], { dtype: 'float64' })], fn: (p) => torch.logit(p).add(torch.logit(p, 0.1)) },
  { name: 'cdist through its Euclidean matmul path (more than 25 rows)', rows: ['gemm', 'clamp', 'sqrt'], inputs: [[27, 3], [4, 3]], fn: (a, b) => torch.cdist(a, b) },
  { name: 'matmul 2-D and batched', rows: ['gemm'], inputs: [[2, 3], [3, 4], [2, 4, 5]], fn: (a, b, c) => a.matmul(b).matmul(c) },
  { name: 'linear with bias', rows: ['gemm', 'copy'], inputs: [[2, 3], [4, 3], [4]], fn: (x, w, b) => torch.linear(x, w, b) },
  { name: 'addmm with beta', rows: ['gemm'], inputs: [[2, 4], [2, 3], [3, 4]], fn: (c, a, b) => torch.addmm(c, a, b, { beta: 0.5, alpha: 2 }) },
  { name: 'scaledDotProductAttention causal', rows: ['attention'], inputs: [[2, 3, 4], [2, 3, 4], [2, 3, 2]], fn: (q, k, v) => torch.scaledDotProductAttention(q, k, v, { isCausal: true }) },
  { name: 'flashAttention, causal, L > S', rows: ['flashAttention'], inputs: [[2, 5, 4], [2, 3, 4], [2, 3, 4]], fn: (q, k, v) => flashAttention(q, k, v, { isCausal: true })[0] },
  { name: 'flashAttention, keys broadcast, scale', rows: ['flashAttention'], inputs: [[2, 3, 4], [1, 4, 4], [1, 4, 4]], fn: (q, k, v) => flashAttention(q, k, v, { scale: 0.7 })[0] },
  { name: 'copy: casts (through float32) and clone', rows: ['copy'], inputs: [[3]], fn: (a) => a.to('float32').to('float64').add(a.clone()), opts: { eps: 1e-3, atol: 1e-3 } },
  { name: 'views: t, narrow, reshape, expand, unsqueeze, select, permute', rows: [], inputs: [[3, 4]], fn: (a) => a.t().narrow(0, 1, 2).reshape([-1]).unsqueeze(0).expand([2, 6]).add(a.select(1, 2).sum()).add(a.permute([1, 0]).reshape([2, 6])) },
  { name: 'cat and stack (in-place writes into views)', rows: ['copy'], inputs: [[2, 3], [1, 3]], fn: (a, b) => torch.cat([a, b.mul(2)], 0).add(torch.stack([a, a.mul(b)], 0).sum(0).sum(0)) },
  { name: 'in-place ops on a non-leaf', rows: ['mul', 'add'], inputs: [[4], [4]], fn: (a, b) => { const y = a.mul(2); y.add_(b); y.mul_(3); return y.exp(); } },
  { name: 'crossEntropy and nllLoss', rows: ['crossEntropyLoss'], inputs: [[4, 5], () => torch.tensor([0, 3, 4, 1], { dtype: 'int64' })], fn: (x, t) => torch.crossEntropy(x, t).add(torch.nllLoss(x.logSoftmax(1), t, { reduction: 'sum' })) },
  // The fused cross entropy (crossEntropyLoss) and the fused softmax backward (the last dim of softmax / logSoftmax).
  { name: 'crossEntropy fused: ignoreIndex, labelSmoothing, mean', rows: ['crossEntropyLoss'], inputs: [[5, 7], idx([[0, 6, 2, 6, 3]])],
    fn: (x, t) => torch.crossEntropy(x, t.reshape([5]), { ignoreIndex: 6, labelSmoothing: 0.2 }) },
  { name: 'crossEntropy fused: weights and smoothing, none', rows: ['crossEntropyLoss'], inputs: [[4, 6], idx([[5, 0, 2, 1]])],
    fn: (x, t) => torch.crossEntropy(x, t.reshape([4]), { weight: CLASS_WEIGHTS.narrow(0, 0, 6).to(x.device), labelSmoothing: 0.3, reduction: 'none' }) },
  { name: 'crossEntropy fused: [N, C, d] weights, ignored, sum', rows: ['crossEntropyLoss'], inputs: [[2, 5, 3], idx([[0, 4, -100], [2, -100, 1]])],
    fn: (x, t) => torch.crossEntropy(x, t, { weight: CLASS_WEIGHTS.narrow(0, 1, 5).to(x.device), reduction: 'sum' }) },
  { name: 'crossEntropy fused: [C] unbatched', rows: ['crossEntropyLoss'], inputs: [[9], () => torch.tensor(4, { dtype: 'int64' })], fn: (x, t) => torch.crossEntropy(x, t, { labelSmoothing: 0.1 }) },
  { name: 'softmax and logSoftmax over the last dim (the fused backward)', rows: ['softmax', 'logSoftmax'], inputs: [[3, 6]],
    fn: (a) => a.softmax(-1).mul(a.logSoftmax(1).mul(a)) },
  { name: 'mseLoss', rows: [], inputs: [[4, 5], [4, 5]], fn: (x, y) => torch.mseLoss(x, y) },
  { name: 'embedding', rows: [], inputs: [[6, 3], () => torch.tensor([[0, 2], [5, 2]], { dtype: 'int64' })], fn: (w, i) => torch.embedding(i, w) },
  { name: 'indexSelect and maskedFill', rows: [], inputs: [[4, 3], () => torch.tensor([3, 0, 3], { dtype: 'int64' })], fn: (a, i) => a.indexSelect(0, i).maskedFill(a.indexSelect(0, i).gt(0.5), 0) },
  { name: 'tril triu repeat', rows: [], inputs: [[3, 3]], fn: (a) => a.tril().add(a.triu(1).mul(2)).repeat([2, 1]) },
  { name: 'split chunk unbind', rows: [], inputs: [[4, 6]], fn: (a) => a.split(2, 1)[1].add(a.chunk(2, 0)[0].sum()).add(a.unbind(1)[3].sum()) },
  ...CONV_GRAD_CASES,
];
