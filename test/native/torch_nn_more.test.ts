/**
 * Differential tests against PyTorch (cpu) of the torch.nn.functional
 * activations, losses and helpers composed from existing ops: values,
 * dtype and shape with PyTorch's defaults and positional parameters, the
 * inplace forms, and the errors PyTorch raises.
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

const F = torch.nn.functional;
torch.manualSeed(4409);
const x = torch.randn(3, 6).mul(3);
const p = torch.rand(4, 5).mul(0.98).add(0.01);
const y = torch.rand(4, 5).gt(0.5).float();
const t = torch.randn(4, 5);
const logits = torch.randn(4, 5).mul(4);
const img = torch.randn(2, 3, 4, 5);
const labels = torch.randint(0, 5, [6]);

const activations: RefCase[] = [
  { name: 'leakyRelu default and with a slope', inputs: { x }, torch: '(F.leaky_relu(x), F.leaky_relu(x, 0.2))', run: ({ x }) => [F.leakyRelu(x), F.leakyRelu(x, 0.2)] },
  { name: 'leakyRelu inplace writes the input', inputs: { x }, torch: '(lambda c: (F.leaky_relu(c, 0.1, True), c)[1])(x.clone())',
    run: ({ x }) => { const c = x.clone(); F.leakyRelu(c, 0.1, true); return c; } },
  { name: 'leakyRelu keeps NaN and the infinities, in float64, bfloat16 and with a negative slope',
    inputs: { s: torch.tensor([NaN, -Infinity, Infinity, -2, -0, 0, 3, -1e-30]) },
    torch: '(F.leaky_relu(s), F.leaky_relu(s.double(), -0.5), F.leaky_relu(s.bfloat16(), 0.3), F.leaky_relu(s, 0.0))',
    run: ({ s }) => [F.leakyRelu(s), F.leakyRelu(s.double(), -0.5), F.leakyRelu(s.bfloat16(), 0.3), F.leakyRelu(s, 0)] },
  { name: 'leakyRelu of a strided view, and inplace on one', inputs: { x },
    torch: '(F.leaky_relu(x.t(), 0.3), (lambda c: (F.leaky_relu(c[:, 1::2], 0.1, True), c)[1])(x.clone()))',
    run: ({ x }) => { const c = x.clone(); F.leakyRelu(c.slice(1, 1, undefined, 2), 0.1, true); return [F.leakyRelu(x.t(), 0.3), c]; } },
  { name: 'elu, selu, celu', inputs: { x }, torch: '(F.elu(x), F.elu(x, 0.5), F.selu(x), F.celu(x, 2.0))', run: ({ x }) => [F.elu(x), F.elu(x, 0.5), F.selu(x), F.celu(x, 2)] },
  { name: 'mish', inputs: { x }, torch: 'F.mish(x)', run: ({ x }) => F.mish(x) },
  { name: 'hardtanh, relu6, hardsigmoid, hardswish', inputs: { x }, torch: '(F.hardtanh(x), F.hardtanh(x, -2.0, 0.5), F.relu6(x), F.hardsigmoid(x), F.hardswish(x))',
    run: ({ x }) => [F.hardtanh(x), F.hardtanh(x, -2, 0.5), F.relu6(x), F.hardsigmoid(x), F.hardswish(x)] },
  { name: 'glu along the last dim and dim 0', inputs: { x }, torch: '(F.glu(x), F.glu(x[:2], 0))', run: ({ x }) => [F.glu(x), F.glu(x.narrow(0, 0, 2), 0)] },
  { name: 'glu of an odd dim is refused', inputs: { x }, torch: 'F.glu(x, 0)', run: ({ x }) => F.glu(x, 0), error: /Halving dimension must be even/ },
  { name: 'logsigmoid, softsign, tanhshrink', inputs: { x }, torch: '(F.logsigmoid(x), F.softsign(x), F.tanhshrink(x))', run: ({ x }) => [F.logsigmoid(x), F.softsign(x), F.tanhshrink(x)] },
  { name: 'softmin', inputs: { x }, torch: '(F.softmin(x, 1), F.softmin(x, 0))', run: ({ x }) => [F.softmin(x, 1), F.softmin(x, 0)] },
  { name: 'threshold, hardshrink, softshrink', inputs: { x }, torch: '(F.threshold(x, 0.5, -1.0), F.hardshrink(x), F.softshrink(x, 1.0))',
    run: ({ x }) => [F.threshold(x, 0.5, -1), F.hardshrink(x), F.softshrink(x, 1)] },
  { name: 'hardtanh with min above max is refused', inputs: { x }, torch: 'F.hardtanh(x, 1.0, -1.0)', run: ({ x }) => F.hardtanh(x, 1, -1), error: /cannot be greater/ },
];

const losses: RefCase[] = [
  { name: 'l1Loss mean, sum, none', inputs: { p, t }, torch: '(F.l1_loss(p, t), F.l1_loss(p, t, reduction="sum"), F.l1_loss(p, t, reduction="none"))',
    run: ({ p, t }) => [F.l1Loss(p, t), F.l1Loss(p, t, { reduction: 'sum' }), F.l1Loss(p, t, { reduction: 'none' })] },
  { name: 'smoothL1Loss with beta', inputs: { p, t }, torch: '(F.smooth_l1_loss(p, t), F.smooth_l1_loss(p, t, beta=0.3), F.smooth_l1_loss(p, t, beta=0.0))',
    run: ({ p, t }) => [F.smoothL1Loss(p, t), F.smoothL1Loss(p, t, { beta: 0.3 }), F.smoothL1Loss(p, t, { beta: 0 })] },
  { name: 'huberLoss with delta', inputs: { p, t }, torch: '(F.huber_loss(p, t), F.huber_loss(p, t, delta=0.4, reduction="none"))',
    run: ({ p, t }) => [F.huberLoss(p, t), F.huberLoss(p, t, { delta: 0.4, reduction: 'none' })] },
  { name: 'huberLoss of delta 0 is refused', inputs: { p, t }, torch: 'F.huber_loss(p, t, delta=0.0)', run: ({ p, t }) => F.huberLoss(p, t, { delta: 0 }), error: /non-positive/ },
  { name: 'binaryCrossEntropy with weight', inputs: { p, y, wt: torch.rand(5) }, torch: '(F.binary_cross_entropy(p, y), F.binary_cross_entropy(p, y, weight=wt, reduction="sum"))',
    run: ({ p, y, wt }) => [F.binaryCrossEntropy(p, y), F.binaryCrossEntropy(p, y, { weight: wt, reduction: 'sum' })] },
  { name: 'binaryCrossEntropy clamps its logs at -100', inputs: {}, torch: 'F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]), reduction="none")',
    run: () => F.binaryCrossEntropy(torch.tensor([0, 1], { dtype: 'float32' }), torch.tensor([1, 0], { dtype: 'float32' }), { reduction: 'none' }) },
  { name: 'binaryCrossEntropyWithLogits with posWeight', inputs: { logits, y, pw: torch.rand(5).mul(3) },
    torch: '(F.binary_cross_entropy_with_logits(logits, y), F.binary_cross_entropy_with_logits(logits, y, pos_weight=pw, reduction="none"))',
    run: ({ logits, y, pw }) => [F.binaryCrossEntropyWithLogits(logits, y), F.binaryCrossEntropyWithLogits(logits, y, { posWeight: pw, reduction: 'none' })] },
  { name: 'klDiv mean, batchmean, logTarget', inputs: { lp: torch.randn(4, 5).logSoftmax(1), q: torch.randn(4, 5).softmax(1) },
    torch: '(F.kl_div(lp, q), F.kl_div(lp, q, reduction="batchmean"), F.kl_div(lp, q.log(), reduction="sum", log_target=True))',
    run: ({ lp, q }) => [F.klDiv(lp, q), F.klDiv(lp, q, { reduction: 'batchmean' }), F.klDiv(lp, q.log(), { reduction: 'sum', logTarget: true })] },
  { name: 'marginRankingLoss', inputs: { a: torch.randn(6), b: torch.randn(6), s: torch.tensor([1, -1, 1, 1, -1, -1], { dtype: 'float32' }) },
    torch: '(F.margin_ranking_loss(a, b, s), F.margin_ranking_loss(a, b, s, margin=0.5, reduction="none"))',
    run: ({ a, b, s }) => [F.marginRankingLoss(a, b, s), F.marginRankingLoss(a, b, s, { margin: 0.5, reduction: 'none' })] },
  { name: 'cosineEmbeddingLoss', inputs: { a: torch.randn(4, 5), b: torch.randn(4, 5), s: torch.tensor([1, -1, 1, -1], { dtype: 'float32' }) },
    torch: '(F.cosine_embedding_loss(a, b, s), F.cosine_embedding_loss(a, b, s, margin=0.1, reduction="none"))',
    run: ({ a, b, s }) => [F.cosineEmbeddingLoss(a, b, s), F.cosineEmbeddingLoss(a, b, s, { margin: 0.1, reduction: 'none' })] },
];

const helpers: RefCase[] = [
  { name: 'pad constant, with a value and negative amounts', inputs: { img }, torch: '(F.pad(img, (1, 2)), F.pad(img, (1, 1, 2, 0), value=3.5), F.pad(img, (-1, 2, 0, -2)))',
    run: ({ img }) => [F.pad(img, [1, 2]), F.pad(img, [1, 1, 2, 0], 'constant', 3.5), F.pad(img, [-1, 2, 0, -2])] },
  { name: 'pad reflect, replicate, circular', inputs: { img }, torch: '(F.pad(img, (2, 3, 1, 2), mode="reflect"), F.pad(img[0], (3, 1), mode="reflect"), F.pad(img, (1, 2, 3, 1), mode="replicate"), F.pad(img, (2, 1, 1, 3), mode="circular"))',
    run: ({ img }) => [F.pad(img, [2, 3, 1, 2], 'reflect'), F.pad(img.select(0, 0), [3, 1], 'reflect'), F.pad(img, [1, 2, 3, 1], 'replicate'), F.pad(img, [2, 1, 1, 3], 'circular')] },
  { name: 'pad of an odd length is refused', inputs: { img }, torch: 'F.pad(img, (1,))', run: ({ img }) => F.pad(img, [1]), error: /divisible by 2/ },
  { name: 'reflect pad as large as the dim is refused', inputs: { img }, torch: 'F.pad(img[0], (5, 0), mode="reflect")', run: ({ img }) => F.pad(img.select(0, 0), [5, 0], 'reflect'), error: /Padding size should be less/ },
  { name: 'oneHot', inputs: { labels }, torch: '(F.one_hot(labels), F.one_hot(labels, 7))', run: ({ labels }) => [F.oneHot(labels), F.oneHot(labels, 7)] },
  { name: 'oneHot of a negative class is refused', inputs: {}, torch: 'F.one_hot(torch.tensor([-1, 2]))', run: () => F.oneHot(torch.tensor([-1, 2])), error: /non-negative/ },
  { name: 'oneHot of too few classes is refused', inputs: { labels }, torch: 'F.one_hot(torch.tensor([4]), 3)', run: () => F.oneHot(torch.tensor([4]), 3), error: /smaller than num_classes/ },
  { name: 'normalize', inputs: { t }, torch: '(F.normalize(t), F.normalize(t, p=1.0, dim=0))', run: ({ t }) => [F.normalize(t), F.normalize(t, 1, 0)] },
  { name: 'cosineSimilarity', inputs: { t, u: torch.randn(4, 5) }, torch: '(F.cosine_similarity(t, u), F.cosine_similarity(t, u, dim=0))',
    run: ({ t, u }) => [F.cosineSimilarity(t, u), F.cosineSimilarity(t, u, 0)] },
  { name: 'pairwiseDistance', inputs: { t, u: torch.randn(4, 5) }, torch: '(F.pairwise_distance(t, u), F.pairwise_distance(t, u, p=1.0, keepdim=True))',
    run: ({ t, u }) => [F.pairwiseDistance(t, u), F.pairwiseDistance(t, u, 1, 1e-6, true)] },
];

describe('activations', () => compareWithTorch(activations.map((c) => ({ ...c, torch: `(lambda F: ${c.torch})(torch.nn.functional)` }))));
describe('losses', () => compareWithTorch(losses.map((c) => ({ ...c, torch: `(lambda F: ${c.torch})(torch.nn.functional)` }))));
describe('helpers', () => compareWithTorch(helpers.map((c) => ({ ...c, torch: `(lambda F: ${c.torch})(torch.nn.functional)` }))));
