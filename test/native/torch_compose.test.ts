/**
 * Differential tests against PyTorch (cpu) of the ops composed from existing
 * ones: shape helpers (hstack, vstack, dstack, swapaxes, moveaxis, T,
 * new*, typeAs, numel), products (dot, vdot, mv, addmv, baddbmm, addbmm,
 * kron, trace), statistics (nansum, nanmean, countNonzero, stdMean,
 * varMean, aminmax, isclose, allclose, equal) — values, dtype, shape and
 * the errors PyTorch raises.
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

torch.manualSeed(3301);
const a = torch.randn(3, 4);
const b = torch.randn(3, 4);
const v = torch.randn(4);
const w = torch.randn(4);
const longV = torch.randn(100000);
const longW = torch.randn(100000);
const x = torch.randn(2, 3, 4);
const ints = torch.randint(-5, 5, [3, 4]);
const nanny = torch.tensor([[1, NaN, 3], [NaN, NaN, 6]], { dtype: 'float32' });
const b1 = torch.randn(2, 3, 5);
const b2 = torch.randn(2, 5, 4);

const shape: RefCase[] = [
  { name: 'hstack of 2-D', inputs: { a, b }, torch: 'torch.hstack([a, b])', run: ({ a, b }) => torch.hstack([a, b]) },
  { name: 'hstack of 1-D', inputs: { v, w }, torch: 'torch.hstack([v, w])', run: ({ v, w }) => torch.hstack([v, w]) },
  { name: 'vstack of 1-D makes rows', inputs: { v, w }, torch: 'torch.vstack([v, w])', run: ({ v, w }) => torch.vstack([v, w]) },
  { name: 'vstack of 2-D and 1-D', inputs: { a, v }, torch: 'torch.vstack([a, v])', run: ({ a, v }) => torch.vstack([a, v]) },
  { name: 'dstack of 1-D and 2-D', inputs: { a, b, v, w }, torch: '(torch.dstack([v, w]), torch.dstack([a, b]))', run: ({ a, b, v, w }) => [torch.dstack([v, w]), torch.dstack([a, b])] },
  { name: 'hstack of mismatched shapes is refused', inputs: { a, x }, torch: 'torch.hstack([a, x])', run: ({ a, x }) => torch.hstack([a, x]), error: true },
  { name: 'swapaxes and swapdims', inputs: { x }, torch: '(x.swapaxes(0, 2), torch.swapdims(x, 1, -1))', run: ({ x }) => [x.swapaxes(0, 2), torch.swapdims(x, 1, -1)] },
  { name: 'moveaxis of one and of several dims', inputs: { x }, torch: '(torch.moveaxis(x, 0, -1), torch.moveaxis(x, [0, 1], [2, 0]))',
    run: ({ x }) => [torch.moveaxis(x, 0, -1), torch.moveaxis(x, [0, 1], [2, 0])] },
  { name: 'T reverses the dims', inputs: { x, a }, torch: '(x.permute(2, 1, 0), a.T)', run: ({ x, a }) => [x.T, a.T] },
  { name: 'newZeros(2, 3) keeps the dtype', inputs: { ints }, torch: 'ints.new_zeros(2, 3)', run: ({ ints }) => ints.newZeros(2, 3) },
  { name: 'newOnes([2], { dtype })', inputs: { ints }, torch: 'ints.new_ones([2], dtype=torch.float64)', run: ({ ints }) => ints.newOnes([2], { dtype: 'float64' }) },
  { name: 'newFull', inputs: { a }, torch: 'a.new_full([2, 2], 7.5)', run: ({ a }) => a.newFull([2, 2], 7.5) },
  { name: 'newEmpty shape and dtype', inputs: { a }, torch: 'torch.tensor(a.new_empty(3, 1).shape)', run: ({ a }) => torch.tensor(a.newEmpty(3, 1).shape) },
  { name: 'typeAs', inputs: { a, ints }, torch: 'a.type_as(ints)', run: ({ a, ints }) => a.typeAs(ints) },
  { name: 'numel', inputs: { x }, torch: 'torch.tensor(torch.numel(x))', run: ({ x }) => torch.tensor(torch.numel(x)) },
];

const products: RefCase[] = [
  { name: 'dot', inputs: { v, w }, torch: 'torch.dot(v, w)', run: ({ v, w }) => torch.dot(v, w) },
  { name: 'dot and vector-vector matmul of 100,000 elements, and a batch of them', inputs: { lv: longV, lw: longW },
    torch: '(torch.dot(lv, lw), lv @ lw, torch.bmm(lv.reshape(4, 1, 25000), lw.reshape(4, 25000, 1)), torch.dot(lv[::2], lw[::2]))',
    run: ({ lv, lw }) => [torch.dot(lv, lw), lv.matmul(lw), torch.bmm(lv.reshape([4, 1, 25000]), lw.reshape([4, 25000, 1])), torch.dot(lv.slice(0, 0, undefined, 2), lw.slice(0, 0, undefined, 2))],
    // Both sides round float32 partial sums (in different orders) of 100,000 products whose magnitudes add
    // to about 80,000: a few float ulps of that is the comparison's scale.
    atol: 80000 * 6e-8 * 4 },
  { name: 'dot of int64', inputs: { ints }, torch: 'ints[0].dot(ints[1])', run: ({ ints }) => ints.select(0, 0).dot(ints.select(0, 1)) },
  { name: 'vdot', inputs: { v, w }, torch: 'torch.vdot(v, w)', run: ({ v, w }) => torch.vdot(v, w) },
  { name: 'dot of 2-D is refused', inputs: { a }, torch: 'torch.dot(a, a)', run: ({ a }) => torch.dot(a, a), error: /1D/ },
  { name: 'dot of different sizes is refused', inputs: { v }, torch: 'torch.dot(v, v[:2])', run: ({ v }) => torch.dot(v, v.narrow(0, 0, 2)), error: /inconsistent tensor size/ },
  { name: 'mv', inputs: { a, v }, torch: 'a.mv(v)', run: ({ a, v }) => a.mv(v) },
  { name: 'mv size mismatch is refused', inputs: { a }, torch: 'a.mv(torch.zeros(3))', run: ({ a }) => a.mv(torch.zeros(3)), error: /size mismatch/ },
  { name: 'addmv with beta and alpha', inputs: { a, v, c: torch.randn(3) }, torch: 'torch.addmv(c, a, v, beta=0.5, alpha=2)',
    run: ({ a, v, c }) => torch.addmv(c, a, v, { beta: 0.5, alpha: 2 }) },
  { name: 'addmv with beta 0 ignores NaN in the input', inputs: { a, v }, torch: 'torch.addmv(torch.full([3], float("nan")), a, v, beta=0)',
    run: ({ a, v }) => torch.addmv(torch.full([3], NaN), a, v, { beta: 0 }) },
  { name: 'baddbmm', inputs: { b1, b2, c: torch.randn(3, 4) }, torch: 'torch.baddbmm(c, b1, b2, alpha=0.5)', run: ({ b1, b2, c }) => torch.baddbmm(c, b1, b2, { alpha: 0.5 }) },
  { name: 'addbmm', inputs: { b1, b2, c: torch.randn(3, 4) }, torch: 'torch.addbmm(c, b1, b2)', run: ({ b1, b2, c }) => torch.addbmm(c, b1, b2), rtol: 1e-5, atol: 1e-5 },
  { name: 'kron of matrices', inputs: { a, m: torch.randn(2, 3) }, torch: 'torch.kron(a, m)', run: ({ a, m }) => torch.kron(a, m) },
  { name: 'kron of a vector and a 3-D tensor', inputs: { v, x }, torch: 'torch.kron(v, x)', run: ({ v, x }) => torch.kron(v, x) },
  { name: 'trace of floats and of int64', inputs: { a, ints }, torch: '(a.trace(), ints.trace())', run: ({ a, ints }) => [a.trace(), ints.trace()] },
  { name: 'trace of 3-D is refused', inputs: { x }, torch: 'x.trace()', run: ({ x }) => x.trace(), error: true },
];

const stats: RefCase[] = [
  { name: 'nansum', inputs: { nanny }, torch: '(nanny.nansum(), nanny.nansum(1), torch.nansum(nanny, 0, True))',
    run: ({ nanny }) => [nanny.nansum(), nanny.nansum(1), torch.nansum(nanny, 0, true)] },
  { name: 'nanmean', inputs: { nanny }, torch: '(nanny.nanmean(), nanny.nanmean(1), nanny.nanmean(0))', run: ({ nanny }) => [nanny.nanmean(), nanny.nanmean(1), nanny.nanmean(0)] },
  { name: 'nanmean of integers is refused', inputs: { ints }, torch: 'ints.nanmean()', run: ({ ints }) => ints.nanmean(), error: /float input/ },
  { name: 'countNonzero', inputs: { ints }, torch: '(torch.count_nonzero(ints), ints.count_nonzero(1), ints.count_nonzero([0, 1]))',
    run: ({ ints }) => [torch.countNonzero(ints), ints.countNonzero(1), ints.countNonzero([0, 1])] },
  { name: 'stdMean and varMean', inputs: { a }, torch: '(*torch.std_mean(a, 1), *torch.var_mean(a, 0, keepdim=True), *torch.var_mean(a, 1, correction=0))',
    run: ({ a }) => [...torch.stdMean(a, 1), ...torch.varMean(a, 0, { keepdim: true }), ...torch.varMean(a, 1, { correction: 0 })] },
  { name: 'aminmax over all and along a dim', inputs: { a }, torch: '(*torch.aminmax(a), *torch.aminmax(a, dim=1, keepdim=True))',
    run: ({ a }) => { const r = torch.aminmax(a); const s = a.aminmax({ dim: 1, keepdim: true }); return [r.min, r.max, s.min, s.max]; } },
  { name: 'isclose with tolerances and equalNan', inputs: { p: torch.tensor([1, 1.001, NaN, Infinity, -Infinity, 2], { dtype: 'float32' }), q: torch.tensor([1, 1, NaN, Infinity, Infinity, 2.1], { dtype: 'float32' }) },
    torch: '(torch.isclose(p, q), torch.isclose(p, q, rtol=1e-2, equal_nan=True), torch.isclose(p, q, atol=0.2))',
    run: ({ p, q }) => [torch.isclose(p, q), torch.isclose(p, q, { rtol: 1e-2, equalNan: true }), torch.isclose(p, q, { atol: 0.2 })] },
  { name: 'isclose of integers', inputs: { ints }, torch: 'torch.isclose(ints, ints + 1, atol=1)', run: ({ ints }) => torch.isclose(ints, ints.add(1), { atol: 1 }) },
  { name: 'isclose of different dtypes is refused', inputs: { a, ints }, torch: 'torch.isclose(a, ints)', run: ({ a, ints }) => torch.isclose(a, ints), error: /did not match/ },
  { name: 'allclose and equal', inputs: { a, b }, torch: 'torch.tensor([torch.allclose(a, a + 1e-9), torch.allclose(a, b), torch.equal(a, a.clone()), torch.equal(a, b), torch.equal(a, a[:2])])',
    run: ({ a, b }) => torch.tensor([torch.allclose(a, a.add(1e-9)), torch.allclose(a, b), torch.equal(a, a.clone()), a.equal(b), torch.equal(a, a.narrow(0, 0, 2))]) },
];

const reorder: RefCase[] = [
  { name: 'flip of one and of several dims', inputs: { x }, torch: '(x.flip(0), torch.flip(x, [0, 2]), x.flip(-1))', run: ({ x }) => [x.flip(0), torch.flip(x, [0, 2]), x.flip(-1)] },
  { name: 'fliplr and flipud', inputs: { a }, torch: '(torch.fliplr(a), torch.flipud(a))', run: ({ a }) => [torch.fliplr(a), torch.flipud(a)] },
  { name: 'fliplr of 1-D is refused', inputs: { v }, torch: 'torch.fliplr(v)', run: ({ v }) => torch.fliplr(v), error: /must be >= 2-d/ },
  { name: 'flip with repeated dims is refused', inputs: { x }, torch: 'x.flip([0, 0])', run: ({ x }) => x.flip([0, 0]), error: /duplicates/ },
  { name: 'roll along dims, negative and large shifts', inputs: { x }, torch: '(x.roll(1, 0), torch.roll(x, (-2, 5), (1, 2)), x.roll(7, -1))',
    run: ({ x }) => [x.roll(1, 0), torch.roll(x, [-2, 5], [1, 2]), x.roll(7, -1)] },
  { name: 'roll of the flattened tensor', inputs: { a }, torch: 'a.roll(5)', run: ({ a }) => a.roll(5) },
  { name: 'roll with misaligned shifts is refused', inputs: { a }, torch: 'a.roll((1, 2), 0)', run: ({ a }) => a.roll([1, 2], 0), error: /must align/ },
  { name: 'diagonal with offsets and dims', inputs: { a, x }, torch: '(a.diagonal(), a.diagonal(1), a.diagonal(-2), x.diagonal(0, 1, 2), x.diagonal(1, -1, 0))',
    run: ({ a, x }) => [a.diagonal(), a.diagonal(1), a.diagonal(-2), x.diagonal(0, 1, 2), x.diagonal(1, -1, 0)] },
  { name: 'diagonal is a view (writes reach the base)', inputs: { a }, torch: '(lambda c: (c.diagonal().fill_(0), c)[1])(a.clone())',
    run: ({ a }) => { const c = a.clone(); c.diagonal().fill_(0); return c; } },
  { name: 'diag of a vector and of a matrix', inputs: { v, a }, torch: '(torch.diag(v), torch.diag(v, -1), a.diag(), a.diag(2))',
    run: ({ v, a }) => [torch.diag(v), torch.diag(v, -1), a.diag(), a.diag(2)] },
];

describe('shape helpers', () => compareWithTorch(shape));
describe('flip, roll, diagonal, diag', () => compareWithTorch(reorder));
describe('products', () => compareWithTorch(products));
describe('statistics and comparisons', () => compareWithTorch(stats));
