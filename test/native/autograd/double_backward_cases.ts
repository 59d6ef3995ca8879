/**
 * The double-backward cases: every op of the elementwise, reduction and
 * matmul families (the rows of native/autograd/derivatives.ts they exercise,
 * listed in FAMILIES), plus activations and distances composed in TypeScript
 * and the norms, losses, attention and convolution a gradient penalty meets,
 * each written for the runtime and for PyTorch over
 * the same float64 inputs. torch_double_backward.test.ts differentiates each
 * twice on both sides; gradgradcheck.test.ts checks the families' rows are
 * all here.
 */
import * as torch from '../../../native/index';
type T = torch.Tensor;

/** One function of named float64 inputs, on both sides. */
export interface DoubleCase {
  name: string;
  /** Rows of the derivatives table the function's backward runs. */
  rows: string[];
  /** The inputs (made once, with the runtime's generator). */
  inputs: Record<string, T>;
  /** The inputs differentiated (the others are constants, e.g. class indices). */
  wrt: string[];
  /** The runtime's function (one tensor). */
  ts: (x: Record<string, T>) => T;
  /** The same as a Python expression over the inputs' names (`F` is torch.nn.functional). */
  py: string;
}

/** The rows of each family whose backward must itself be differentiable (createGraph). */
export const FAMILIES: Readonly<Record<string, readonly string[]>> = {
  elementwise: [
    'copy', 'add', 'sub', 'mul', 'div', 'pow', 'remainder', 'fmod', 'maximum', 'minimum', 'where', 'clamp', 'lerp', 'addcmul', 'addcdiv',
    'exp', 'expm1', 'log', 'log1p', 'log2', 'log10', 'exp2', 'sqrt', 'rsqrt', 'reciprocal', 'sin', 'cos', 'tan', 'tanh', 'sigmoid', 'silu',
    'gelu', 'softplus', 'leakyRelu', 'neg', 'abs', 'sign', 'relu', 'floor', 'ceil', 'round', 'trunc', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'asinh',
    'acosh', 'atanh', 'erf', 'erfc', 'erfinv', 'atan2', 'hypot', 'copysign',
  ],
  reduction: [
    'sum', 'prod', 'mean', 'amax', 'amin', 'var', 'std', 'norm', 'logsumexp', 'maxDim', 'minDim', 'softmax', 'logSoftmax', 'cumsum',
    'cumprod', 'logcumsumexp', 'cummax', 'cummin', 'sort',
  ],
  matmul: ['gemm'],
};

torch.manualSeed(11);
const f64 = { dtype: 'float64' as const };
const r = (...s: number[]) => torch.randn(s, f64);
const pos = (...s: number[]) => torch.rand(s, f64).add(0.5);
const small = (...s: number[]) => torch.rand(s, f64).mul(1.4).sub(0.7);
/** |x| in [0.1, 1], away from the kinks of abs, relu and sign. */
const off = (...s: number[]) => torch.rand(s, f64).mul(0.9).add(0.1).mul(torch.rand(s, f64).gt(0.5).mul(2).sub(1));

/** A case of one input `a`. */
const one = (name: string, rows: string[], a: T, ts: (a: T) => T, py: string): DoubleCase => ({ name, rows, inputs: { a }, wrt: ['a'], ts: ({ a }) => ts(a), py });
/** A case of inputs `a` and `b`, both differentiated. */
const two = (name: string, rows: string[], a: T, b: T, ts: (a: T, b: T) => T, py: string): DoubleCase => ({
  name, rows, inputs: { a, b }, wrt: ['a', 'b'], ts: ({ a, b }) => ts(a, b), py,
});

export const DOUBLE_CASES: DoubleCase[] = [
  // ---- elementwise, one input
  one('exp expm1', ['exp', 'expm1'], r(5), (a) => a.exp().mul(a.expm1()), 'a.exp() * a.expm1()'),
  one('log log1p log2 log10', ['log', 'log1p', 'log2', 'log10'], pos(5), (a) => a.log().mul(a.log1p()).add(a.log2().mul(a.log10())), 'a.log() * a.log1p() + a.log2() * a.log10()'),
  one('exp2', ['exp2'], r(5), (a) => a.exp2(), 'a.exp2()'),
  one('sqrt rsqrt reciprocal', ['sqrt', 'rsqrt', 'reciprocal'], pos(5), (a) => a.sqrt().add(a.rsqrt()).mul(a.reciprocal()), '(a.sqrt() + a.rsqrt()) * a.reciprocal()'),
  one('sin cos tan', ['sin', 'cos', 'tan'], small(5), (a) => a.sin().mul(a.cos()).add(a.tan()), 'a.sin() * a.cos() + a.tan()'),
  one('tanh sigmoid', ['tanh', 'sigmoid'], r(6), (a) => a.tanh().add(a.sigmoid().mul(a)), 'a.tanh() + a.sigmoid() * a'),
  one('silu', ['silu'], r(6), (a) => a.silu(), 'F.silu(a)'),
  one('gelu exact', ['gelu'], r(6), (a) => a.gelu(), 'F.gelu(a)'),
  one('gelu tanh', ['gelu'], r(6), (a) => a.gelu({ approximate: 'tanh' }), "F.gelu(a, approximate='tanh')"),
  one('softplus with beta and threshold', ['softplus'], r(8), (a) => a.mul(3).softplus({ beta: 2, threshold: 5 }), 'F.softplus(a * 3, beta=2, threshold=5)'),
  one('neg abs relu', ['neg', 'abs', 'relu'], off(6), (a) => a.neg().mul(a.abs()).add(a.relu().mul(a)), '(-a) * a.abs() + a.relu() * a'),
  one('sign floor ceil round trunc', ['sign', 'floor', 'ceil', 'round', 'trunc'], off(6).mul(3),
    (a) => a.sign().add(a.floor()).add(a.ceil()).add(a.round()).add(a.trunc()).mul(a), '(a.sign() + a.floor() + a.ceil() + a.round() + a.trunc()) * a'),
  one('asin acos atan', ['asin', 'acos', 'atan'], small(5), (a) => a.asin().mul(a.acos()).add(a.atan()), 'a.asin() * a.acos() + a.atan()'),
  one('sinh cosh asinh', ['sinh', 'cosh', 'asinh'], r(5), (a) => a.sinh().mul(a.cosh()).add(a.asinh()), 'a.sinh() * a.cosh() + a.asinh()'),
  one('acosh', ['acosh'], pos(5).add(1), (a) => a.acosh(), 'a.acosh()'),
  one('atanh', ['atanh'], small(5), (a) => a.atanh(), 'a.atanh()'),
  one('erf erfc erfinv', ['erf', 'erfc', 'erfinv'], small(5), (a) => a.erf().mul(a.erfc()).add(a.erfinv()), 'a.erf() * a.erfc() + a.erfinv()'),
  one('pow by numbers', ['pow'], pos(5), (a) => a.pow(3).add(a.pow(2.5)).add(a.pow(-1.5)), 'a.pow(3) + a.pow(2.5) + a.pow(-1.5)'),
  one('mul and div by numbers', ['mul', 'div'], r(5), (a) => a.mul(2.5).mul(a).div(3), 'a * 2.5 * a / 3'),
  one('clamp by numbers', ['clamp'], off(8), (a) => a.clamp(-0.5, 0.5).mul(a), 'a.clamp(-0.5, 0.5) * a'),
  one('clone (copy)', ['copy'], r(5), (a) => a.clone().mul(a), 'a.clone() * a'),
  // ---- elementwise, two inputs (with broadcasting)
  two('add and sub with alpha, broadcast', ['add', 'sub'], r(2, 3), r(3), (a, b) => a.add(b, { alpha: 2 }).mul(torch.sub(a, b, { alpha: 3 })), 'a.add(b, alpha=2) * torch.sub(a, b, alpha=3)'),
  two('mul broadcast', ['mul'], r(2, 3), r(1, 3), (a, b) => a.mul(b).mul(a), 'a * b * a'),
  two('div', ['div'], r(2, 3), pos(2, 3), (a, b) => a.div(b), 'a / b'),
  two('pow by a tensor', ['pow'], pos(4), r(4), (a, b) => a.pow(b), 'a.pow(b)'),
  two('remainder and fmod', ['remainder', 'fmod'], pos(4), pos(4).add(0.3), (a, b) => a.mul(3).remainder(b).add(torch.fmod(a.mul(3), b)).mul(b), '(a * 3).remainder(b) * b + torch.fmod(a * 3, b) * b'),
  two('maximum minimum', ['maximum', 'minimum'], r(6), r(6), (a, b) => a.maximum(b).mul(a.minimum(b)), 'a.maximum(b) * a.minimum(b)'),
  two('where', ['where'], r(2, 3), r(2, 3), (a, b) => torch.where(a.gt(b), a.mul(a), b.mul(a)), 'torch.where(a > b, a * a, b * a)'),
  two('atan2 hypot copysign', ['atan2', 'hypot', 'copysign'], off(5), off(5), (a, b) => torch.atan2(a, b).add(torch.hypot(a, b)).add(torch.copysign(a, b).mul(a)),
    'torch.atan2(a, b) + torch.hypot(a, b) + torch.copysign(a, b) * a'),
  two('lerp by a number', ['lerp'], r(4), r(4), (a, b) => a.lerp(b, 0.3).mul(a), 'a.lerp(b, 0.3) * a'),
  { name: 'lerp by a tensor weight', rows: ['lerp'], inputs: { a: r(4), b: r(4), w: r(4) }, wrt: ['a', 'b', 'w'], ts: ({ a, b, w }) => a.lerp(b, w).mul(w), py: 'a.lerp(b, w) * w' },
  { name: 'clamp by tensors', rows: ['clamp'], inputs: { a: off(6), lo: r(6).mul(0.1).sub(0.2), hi: r(6).mul(0.1).add(0.2) }, wrt: ['a', 'lo', 'hi'],
    ts: ({ a, lo, hi }) => a.clamp(lo, hi).mul(a.add(lo).add(hi)), py: 'a.clamp(lo, hi) * (a + lo + hi)' },
  { name: 'addcmul addcdiv', rows: ['addcmul', 'addcdiv'], inputs: { a: r(4), b: r(4), c: pos(4) }, wrt: ['a', 'b', 'c'],
    ts: ({ a, b, c }) => a.addcmul(b, c, { value: 0.5 }).mul(a.addcdiv(b, c, { value: 2 })), py: 'a.addcmul(b, c, value=0.5) * a.addcdiv(b, c, value=2)' },
  // ---- reductions
  one('sum over dims, keepdim, all', ['sum'], r(2, 3, 4), (a) => a.sum([0, 2]).pow(2).sum().add(a.sum(1, { keepdim: true }).mul(a).sum()), '(a.sum([0, 2]) ** 2).sum() + (a.sum(1, keepdim=True) * a).sum()'),
  one('mean over a dim and all', ['mean'], r(2, 3, 4), (a) => a.mean([1]).pow(2).sum().add(a.mean().mul(a).sum()), '(a.mean([1]) ** 2).sum() + (a.mean() * a).sum()'),
  one('prod along a dim and all', ['prod'], pos(2, 3), (a) => a.prod(1).sum().add(a.prod()), 'a.prod(1).sum() + a.prod()'),
  one('amax amin', ['amax', 'amin'], r(3, 4), (a) => a.amax(1).mul(a.amin(1)), 'a.amax(1) * a.amin(1)'),
  one('var std, correction and all', ['var', 'std'], r(3, 5), (a) => a.var(1).add(a.std(1)).add(a.var(0, { correction: 0 }).sum()).add(a.std()),
    'a.var(1) + a.std(1) + a.var(0, correction=0).sum() + a.std()'),
  one('norm p = 2, 1, 3, inf', ['norm'], off(3, 4), (a) => a.norm(2, 1).add(a.norm(1, 1)).add(a.norm(3, 1)).add(a.norm(Infinity, 1)),
    "a.norm(2, 1) + a.norm(1, 1) + a.norm(3, 1) + a.norm(float('inf'), 1)"),
  one('logsumexp', ['logsumexp'], r(3, 4), (a) => a.logsumexp(1), 'a.logsumexp(1)'),
  one('max and min along a dim', ['maxDim', 'minDim'], r(3, 4), (a) => a.max(1).values.mul(a.min(0, true).values.sum()), 'a.max(1).values * a.min(0, True).values.sum()'),
  one('softmax over the last dim and dim 0', ['softmax'], r(3, 5), (a) => a.softmax(-1).mul(a.softmax(0)), 'a.softmax(-1) * a.softmax(0)'),
  one('logSoftmax over the last dim and dim 0', ['logSoftmax'], r(3, 5), (a) => a.logSoftmax(1).mul(a.logSoftmax(0)), 'a.log_softmax(1) * a.log_softmax(0)'),
  one('cumsum', ['cumsum'], r(3, 4), (a) => a.cumsum(1).mul(a), 'a.cumsum(1) * a'),
  one('cumprod', ['cumprod'], r(3, 5), (a) => a.cumprod(1), 'a.cumprod(1)'),
  one('logcumsumexp', ['logcumsumexp'], r(3, 5), (a) => a.logcumsumexp(1), 'a.logcumsumexp(1)'),
  one('cummax cummin', ['cummax', 'cummin'], r(3, 5), (a) => a.cummax(1).values.mul(a.cummin(0).values), 'a.cummax(1).values * a.cummin(0).values'),
  one('sort and topk', ['sort'], r(3, 5), (a) => a.sort(1).values.mul(a).add(a.topk(2).values.pow(2).sum()), 'a.sort(1).values * a + (a.topk(2).values ** 2).sum()'),
  one('median and kthvalue', ['sort', 'gather'], r(3, 5), (a) => a.median(1).values.mul(a.kthvalue(2, 1).values), 'a.median(1).values * a.kthvalue(2, 1).values'),
  one('varMean and stdMean (both outputs)', ['var', 'std', 'mean'], r(3, 5), (a) => {
    const [v, m] = torch.varMean(a, 1);
    const [s, m2] = torch.stdMean(a, 0);
    return v.mul(m).sum().add(s.mul(m2).sum());
  }, '(lambda vm, sm: (vm[0] * vm[1]).sum() + (sm[0] * sm[1]).sum())(torch.var_mean(a, 1), torch.std_mean(a, 0))'),
  one('aminmax (both outputs)', ['amax', 'amin'], r(3, 5), (a) => {
    const { min, max } = torch.aminmax(a, { dim: 1 });
    return min.mul(max).mul(a.sum(1));
  }, '(lambda mm: mm.min * mm.max * a.sum(1))(torch.aminmax(a, dim=1))'),
  // ---- matmul
  two('matmul 2-D', ['gemm'], r(2, 3), r(3, 4), (a, b) => a.matmul(b).pow(2), '(a @ b) ** 2'),
  two('matmul batched with broadcast', ['gemm'], r(2, 1, 3, 4), r(3, 4, 2), (a, b) => a.matmul(b).tanh(), '(a @ b).tanh()'),
  two('matmul of a vector and a matrix, a matrix and a vector', ['gemm'], r(3), r(3, 3), (a, b) => a.matmul(b).mul(b.matmul(a)), '(a @ b) * (b @ a)'),
  two('mm and bmm', ['gemm'], r(2, 3, 4), r(2, 4, 3), (a, b) => torch.bmm(a, b).sum(0).mul(torch.mm(a.sum(0), b.sum(0))), 'torch.bmm(a, b).sum(0) * torch.mm(a.sum(0), b.sum(0))'),
  { name: 'linear with and without bias', rows: ['gemm'], inputs: { x: r(3, 4), w: r(5, 4), b: r(5) }, wrt: ['x', 'w', 'b'],
    ts: ({ x, w, b }) => torch.linear(x, w, b).sigmoid().add(torch.linear(x, w).pow(2)), py: 'F.linear(x, w, b).sigmoid() + F.linear(x, w) ** 2' },
  { name: 'addmm with beta and alpha', rows: ['gemm'], inputs: { c: r(2, 4), a: r(2, 3), b: r(3, 4) }, wrt: ['c', 'a', 'b'],
    ts: ({ c, a, b }) => torch.addmm(c, a, b, { beta: 0.5, alpha: 2 }).pow(2), py: 'torch.addmm(c, a, b, beta=0.5, alpha=2) ** 2' },
  { name: 'mv dot outer', rows: ['gemm'], inputs: { m: r(3, 4), x: r(4), y: r(3) }, wrt: ['m', 'x', 'y'],
    ts: ({ m, x, y }) => torch.mv(m, x).mul(torch.dot(x, x)).add(torch.outer(y, x).matmul(x)), py: 'torch.mv(m, x) * torch.dot(x, x) + torch.outer(y, x) @ x' },
  two('einsum', ['gemm'], r(2, 3, 4), r(2, 4, 5), (a, b) => torch.einsum('bij,bjk->bik', a, b).exp(), "torch.einsum('bij,bjk->bik', a, b).exp()"),
  // ---- functions composed in TypeScript from those ops
  one('leakyRelu, elu, mish, logsigmoid', ['leakyRelu'], off(6), (a) => torch.nn.functional.leakyRelu(a, 0.2).mul(torch.nn.functional.elu(a)).add(torch.nn.functional.mish(a)).add(torch.nn.functional.logsigmoid(a)),
    'F.leaky_relu(a, 0.2) * F.elu(a) + F.mish(a) + F.logsigmoid(a)'),
  one('glu and softmin', [], r(3, 4), (a) => torch.nn.functional.glu(a, -1).sum(1).add(torch.nn.functional.softmin(a, 1).mul(a).sum(1)), 'F.glu(a, -1).sum(1) + (F.softmin(a, 1) * a).sum(1)'),
  two('normalize, cosineSimilarity, pairwiseDistance', [], r(3, 4), r(3, 4),
    (a, b) => torch.nn.functional.normalize(a).mul(b).sum(1).add(torch.nn.functional.cosineSimilarity(a, b)).add(torch.nn.functional.pairwiseDistance(a, b)),
    '(F.normalize(a) * b).sum(1) + F.cosine_similarity(a, b) + F.pairwise_distance(a, b)'),
  two('square, xlogy, nanmean, linalg.vectorNorm', [], r(3, 4), pos(3, 4),
    (a, b) => torch.square(a).mul(torch.xlogy(a, b)).nanmean(1).add(torch.linalg.vectorNorm(a, 3, 1)),
    '(torch.square(a) * torch.xlogy(a, b)).nanmean(1) + torch.linalg.vector_norm(a, 3, dim=1)'),
  { name: 'an LSTM cell (gates by chunk), then unbind and split', rows: ['gemm', 'sigmoid', 'tanh'], inputs: { x: r(2, 3), h: r(2, 4), c: r(2, 4), wi: r(16, 3), wh: r(16, 4), b: r(16) },
    wrt: ['x', 'h', 'c', 'wi', 'wh', 'b'],
    ts: ({ x, h, c, wi, wh, b }) => {
      const [i, f, g, o] = torch.linear(x, wi, b).add(torch.linear(h, wh)).chunk(4, 1);
      const c2 = f.sigmoid().mul(c).add(i.sigmoid().mul(g.tanh()));
      const h2 = o.sigmoid().mul(c2.tanh());
      const [r0, r1] = h2.unbind(0);
      return r0.mul(r1).add(c2.split(2, 1)[1].sum(1).sum());
    },
    py: '(lambda i, f, g, o: (lambda c2: (lambda h2: h2.unbind(0)[0] * h2.unbind(0)[1] + c2.split(2, 1)[1].sum(1).sum())(o.sigmoid() * c2.tanh()))' +
      '(f.sigmoid() * c + i.sigmoid() * g.tanh()))(*(F.linear(x, wi, b) + F.linear(h, wh)).chunk(4, 1))' },
  // ---- what a gradient penalty meets besides
  { name: 'layerNorm with weight and bias', rows: ['layerNorm'], inputs: { x: r(3, 5), w: r(5), b: r(5) }, wrt: ['x', 'w', 'b'],
    ts: ({ x, w, b }) => torch.layerNorm(x, [5], w, b).pow(2), py: 'F.layer_norm(x, [5], w, b) ** 2' },
  { name: 'rmsNorm with weight', rows: ['rmsNorm'], inputs: { x: r(3, 5), w: r(5) }, wrt: ['x', 'w'],
    ts: ({ x, w }) => torch.rmsNorm(x, [5], w, 1e-6).pow(2), py: 'F.rms_norm(x, [5], w, 1e-6) ** 2' },
  { name: 'crossEntropy with label smoothing', rows: ['crossEntropyLoss'], inputs: { x: r(4, 5), t: torch.tensor([0, 3, 4, 1]) }, wrt: ['x'],
    ts: ({ x, t }) => torch.crossEntropy(x, t, { labelSmoothing: 0.1, reduction: 'none' }), py: 'F.cross_entropy(x, t, label_smoothing=0.1, reduction="none")' },
  two('mseLoss', [], r(4, 3), r(4, 3), (a, b) => torch.mseLoss(a.tanh(), b), 'F.mse_loss(a.tanh(), b)'),
  { name: 'scaledDotProductAttention (its weights are a saved second output)', rows: ['attention'], inputs: { q: r(2, 3, 4), k: r(2, 5, 4), v: r(2, 5, 2) }, wrt: ['q', 'k', 'v'],
    ts: ({ q, k, v }) => torch.scaledDotProductAttention(q, k, v), py: 'torch.softmax(q @ k.transpose(-2, -1) / 2.0, -1) @ v' },
  { name: 'scaledDotProductAttention causal, value width = key length', rows: ['attention'], inputs: { q: r(2, 4, 3), k: r(2, 4, 3), v: r(2, 4, 4) }, wrt: ['q', 'k', 'v'],
    ts: ({ q, k, v }) => torch.scaledDotProductAttention(q, k, v, { isCausal: true }),
    py: 'torch.softmax((q @ k.transpose(-2, -1) / 3.0 ** 0.5).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), float("-inf")), -1) @ v' },
  { name: 'conv2d with bias, avgPool2d', rows: ['im2col', 'col2im', 'gemm'], inputs: { x: r(1, 2, 5, 5), w: r(3, 2, 3, 3), b: r(3) }, wrt: ['x', 'w', 'b'],
    ts: ({ x, w, b }) => torch.avgPool2d(torch.conv2d(x, w, b, { padding: 1 }).tanh(), 2), py: 'F.avg_pool2d(F.conv2d(x, w, b, padding=1).tanh(), 2)' },
];
