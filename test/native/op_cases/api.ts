/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) that walk
 * the runtime's op list family by family — views, creation, elementwise,
 * reductions, shape and indexing, linear algebra — with PyTorch's keyword
 * arguments and the corners of their semantics: max/min with a dim (values
 * and indices) or another tensor, var/std correction, norm's p, topk
 * largest/sorted, sort stable/descending, split by sizes, uneven chunk,
 * repeat vs tile, nonzero asTuple, clamp with tensor bounds, where with
 * numbers, pow with a number base, type promotion of numbers, and printing
 * (summarized for big tensors).
 *
 * Shared by the PyTorch differential test (torch_api.test.ts) and the CUDA
 * test (cuda_kernels.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(8642);
const x = torch.randn([4, 5, 6]);
const m = torch.randn([5, 7]);
const n = torch.randn([5, 7]);
const v = torch.randn([9]);
const i32 = torch.randint(-9, 9, [5, 7]).int();
const i64 = torch.randint(-9, 9, [5, 7]);
/** Rows of 5,000 small integers of both signs, many equal (the radix sort's rows). */
const longInts = torch.randint(-50, 50, [3, 5000]);
/** Rows of 1,000 floats, two NaN in row 1 (topk counts NaN largest). */
const longFloats = torch.randn([3, 1000]);
longFloats.index(1).narrow(0, 500, 2).fill_(NaN);
/** One row of 150,000 (the cpu sort cuts a row from 65,536 into pieces sorted in parallel, then merged): integers with many equal, floats with ties and NaN. */
const oneLongInts = torch.randint(-300, 300, [150000]);
const oneLongFloats = torch.randn([150000]).mul(4).round();
oneLongFloats.narrow(0, 70000, 3).fill_(NaN);
const mask = torch.rand([5, 7]).gt(0.5);
const lo = torch.randn([5, 7]).sub(0.5);
const hi = lo.add(1);
const ties = torch.randint(0, 3, [4, 9]).float();
const pos = torch.rand([5, 7]).add(0.5);

const views: RefCase[] = [
  { name: 'view with -1', inputs: { x }, torch: 'x.view(-1, 6)', run: ({ x }) => x.view(-1, 6) },
  { name: 'reshape of a transpose copies', inputs: { x }, torch: 'x.transpose(0, 2).reshape(6, 20)', run: ({ x }) => x.transpose(0, 2).reshape(6, 20) },
  { name: 'view of a transpose refused', inputs: { x }, torch: 'x.transpose(0, 2).view(6, 20)', run: ({ x }) => x.transpose(0, 2).view(6, 20), error: true },
  { name: 'mT', inputs: { x }, torch: 'x.mT', run: ({ x }) => x.mT },
  { name: 't of a vector', inputs: { v }, torch: 'v.t()', run: ({ v }) => v.t() },
  { name: 'permute negative dims', inputs: { x }, torch: 'x.permute(-1, 0, 1)', run: ({ x }) => x.permute(-1, 0, 1) },
  { name: 'squeeze one dim, unsqueeze -1', inputs: { x }, torch: 'x[:, :1].squeeze(1).unsqueeze(-1)', run: ({ x }) => x.slice(1, 0, 1).squeeze(1).unsqueeze(-1) },
  { name: 'squeeze a dim that is not 1 keeps it', inputs: { x }, torch: 'x.squeeze(0)', run: ({ x }) => x.squeeze(0) },
  { name: 'expand with -1 and a new dim', inputs: { v }, torch: 'v[None].expand(3, -1)', run: ({ v }) => v.unsqueeze(0).expand(3, -1) },
  { name: 'broadcastTo', inputs: { v }, torch: 'torch.broadcast_to(v, (2, 3, 9))', run: ({ v }) => torch.broadcastTo(v, [2, 3, 9]) },
  { name: 'flatten startDim', inputs: { x }, torch: 'x.flatten(1)', run: ({ x }) => x.flatten(1) },
  { name: 'unflatten with -1', inputs: { x }, torch: 'x.unflatten(2, (2, -1))', run: ({ x }) => x.unflatten(2, [2, -1]) },
  { name: 'narrow negative start', inputs: { x }, torch: 'x.narrow(2, -4, 3)', run: ({ x }) => x.narrow(2, -4, 3) },
  { name: 'select negative index', inputs: { x }, torch: 'x.select(1, -1)', run: ({ x }) => x.select(1, -1) },
  { name: 'slice with step', inputs: { x }, torch: 'x[:, 1::2]', run: ({ x }) => x.slice(1, 1, null, 2) },
  { name: 'index helper', inputs: { x }, torch: 'x[1, :, 1:5:2]', run: ({ x }) => x.index(1, ':', '1:5:2') },
  { name: 'index helper with None and Ellipsis', inputs: { x }, torch: 'x[..., None, -1]', run: ({ x }) => x.index('...', null, -1) },
  { name: 'stride and storageOffset of a slice', inputs: { x }, torch: 'torch.tensor(list(x[1:, ::2].stride()) + [x[1:, ::2].storage_offset()])',
    run: ({ x }) => { const s = x.slice(0, 1).slice(1, null, null, 2); return torch.tensor([...s.stride(), s.storageOffset()], { dtype: 'int64', device: x.device }); } },
  { name: 'isContiguous', inputs: { x }, torch: 'torch.tensor([x.is_contiguous(), x.mT.is_contiguous(), x.mT.contiguous().is_contiguous()])',
    run: ({ x }) => torch.tensor([x.isContiguous(), x.mT.isContiguous(), x.mT.contiguous().isContiguous()], { device: x.device }) },
  { name: 'in-place write through a view reaches the base', inputs: { m }, torch: '(lambda b: (b[:, 2].mul_(10), b)[1])(m.clone())',
    run: ({ m }) => { const b = m.clone(); b.select(1, 2).mul_(10); return b; } },
];

const creation: RefCase[] = [
  { name: 'arange end', inputs: {}, torch: 'torch.arange(5)', run: () => torch.arange(5) },
  { name: 'arange floats', inputs: {}, torch: 'torch.arange(0, 1, 0.125)', run: () => torch.arange(0, 1, 0.125) },
  { name: 'arange negative step', inputs: {}, torch: 'torch.arange(10, 0, -3)', run: () => torch.arange(10, 0, -3) },
  { name: 'arange dtype', inputs: {}, torch: 'torch.arange(1, 4, dtype=torch.float64)', run: () => torch.arange(1, 4, { dtype: 'float64' }) },
  { name: 'linspace', inputs: {}, torch: 'torch.linspace(-1, 2, 7)', run: () => torch.linspace(-1, 2, 7) },
  { name: 'linspace one step', inputs: {}, torch: 'torch.linspace(3, 9, 1)', run: () => torch.linspace(3, 9, 1) },
  { name: 'eye rectangular', inputs: {}, torch: 'torch.eye(3, 5)', run: () => torch.eye(3, 5) },
  { name: 'full of an integer is int64', inputs: {}, torch: 'torch.full((2, 3), 7)', run: () => torch.full([2, 3], 7) },
  { name: 'full of a float', inputs: {}, torch: 'torch.full((2,), 2.5)', run: () => torch.full([2], 2.5) },
  { name: 'full of a bool', inputs: {}, torch: 'torch.full((2,), True)', run: () => torch.full([2], true) },
  { name: 'zeros int32, ones bool', inputs: {}, torch: '(torch.zeros(2, dtype=torch.int32), torch.ones(3, dtype=torch.bool))',
    run: () => [torch.zeros([2], { dtype: 'int32' }), torch.ones([3], { dtype: 'bool' })] },
  { name: 'tensor of nested numbers', inputs: {}, torch: 'torch.tensor([[1, 2], [3, 4]])', run: () => torch.tensor([[1, 2], [3, 4]]) },
  { name: 'tensor of floats', inputs: {}, torch: 'torch.tensor([[1.5, 2], [3, 4]])', run: () => torch.tensor([[1.5, 2], [3, 4]]) },
  { name: 'tensor of bools', inputs: {}, torch: 'torch.tensor([True, False])', run: () => torch.tensor([true, false]) },
  { name: 'zerosLike keeps dtype, fullLike', inputs: { i32 }, torch: '(torch.zeros_like(i32), torch.full_like(i32, 3))', run: ({ i32 }) => [torch.zerosLike(i32), torch.fullLike(i32, 3)] },
  { name: 'randint bounds and dtype', inputs: {}, torch: 'torch.tensor([True, True])',
    run: () => { const r = torch.randint(3, 8, [1000]); return torch.tensor([Number(r.min().item()) >= 3 && Number(r.max().item()) < 8, r.dtype === 'int64']); } },
  { name: 'randperm is a permutation', inputs: {}, torch: 'torch.arange(50)', run: () => torch.randperm(50).sort().values },
  { name: 'empty and the *Like family keep shape, dtype and device', inputs: { i32, m }, torch: '(torch.empty(2, 3).shape == (2, 3), torch.empty_like(i32).dtype == torch.int32, torch.ones_like(m), torch.rand_like(m).shape == m.shape, torch.randn_like(m).dtype == m.dtype, torch.randint_like(i32, 5).dtype == torch.int32)',
    run: ({ i32, m }) => {
      const d = { device: m.device };
      return [torch.tensor(torch.empty([2, 3], d).shape.join() === '2,3', d), torch.tensor(torch.emptyLike(i32).dtype === 'int32', d), torch.onesLike(m),
        torch.tensor(torch.randLike(m).shape.join() === m.shape.join(), d), torch.tensor(torch.randnLike(m).dtype === m.dtype, d), torch.tensor(torch.randintLike(i32, 5).dtype === 'int32', d)];
    } },
  { name: 'rand, randn, normal_ and uniform_ have their distributions', inputs: {}, torch: 'torch.tensor([0.5, 1 / 12, 0.0, 1.0, 3.0, 4.0, 2.0, 5.0], dtype=torch.float64)',
    run: () => {
      const r = torch.rand([200000], { dtype: 'float64' }), n = torch.randn([200000], { dtype: 'float64' });
      const g = torch.empty([200000], { dtype: 'float64' }).normal_(3, 2), u = torch.empty([200000], { dtype: 'float64' }).uniform_(2, 5);
      return torch.tensor([r.mean().item(), r.var().item(), n.mean().item(), n.var().item(), g.mean().item(), g.var().item(), u.amin().item(), u.amax().item()], { dtype: 'float64' });
    }, rtol: 0, atol: 0.02 },
  { name: 'tolist of a 2-D tensor', inputs: { i64 }, torch: "json.dumps(i64.tolist(), separators=(',', ':'))", run: ({ i64 }) => JSON.stringify(i64.tolist()) },
];

const small = torch.randint(-4, 5, [2, 3]).int();
const flags = torch.rand([6]).gt(0.5);
/** dtype rules at the edges: bool and integer inputs, where PyTorch computes, promotes or refuses. */
const dtypeEdges: RefCase[] = [
  { name: 'clamp of int by a float number is float', inputs: { small }, torch: 'torch.clamp(small, 0.5)', run: ({ small }) => small.clamp(0.5) },
  { name: 'clamp of int by float numbers', inputs: { small }, torch: 'torch.clamp(small, -1.5, 2.5)', run: ({ small }) => small.clamp(-1.5, 2.5) },
  { name: 'addcdiv of ints refused', inputs: { small }, torch: 'torch.addcdiv(small, small, small)', run: ({ small }) => small.addcdiv(small, small), error: /addcdiv/ },
  { name: 'logsumexp of int is float', inputs: { small }, torch: 'torch.logsumexp(small, 1)', run: ({ small }) => small.logsumexp(1) },
  { name: 'sort bool', inputs: { flags }, torch: 'tuple(flags.sort(stable=True))', run: ({ flags }) => { const r = flags.sort(-1, false, true); return [r.values, r.indices]; } },
  { name: 'add bool is logical or', inputs: { flags, mask }, torch: '(flags + mask[0, :6], flags + True, torch.add(flags, flags, alpha=0))',
    run: ({ flags, mask }) => [flags.add(mask.select(0, 0).slice(0, 0, 6)), flags.add(true as never), flags.add(flags, { alpha: 0 })] },
  { name: 'sub of bools refused', inputs: { flags }, torch: 'flags - flags', run: ({ flags }) => flags.sub(flags), error: /sub/ },
  { name: 'neg of bool refused', inputs: { flags }, torch: '-flags', run: ({ flags }) => flags.neg(), error: /neg/ },
  { name: 'outer of ints', inputs: { small }, torch: 'torch.outer(small[0], small[1])', run: ({ small }) => torch.outer(small.select(0, 0), small.select(0, 1)) },
  { name: 'int to a negative power refused', inputs: { small }, torch: 'small ** -1', run: ({ small }) => small.pow(-1), error: /pow/ },
  { name: 'int to a float power is float', inputs: { small }, torch: 'small.abs() ** 0.5', run: ({ small }) => small.abs().pow(0.5) },
  { name: 'mean of nothing is NaN, prod 1, sum 0', inputs: {}, torch: '(torch.zeros(0).mean(), torch.zeros(0, dtype=torch.int32).prod(), torch.zeros(0, 3).sum(0))',
    run: () => [torch.zeros([0]).mean(), torch.zeros([0], { dtype: 'int32' }).prod(), torch.zeros([0, 3]).sum(0)] },
  { name: 'var of int refused', inputs: { small }, torch: 'small.var()', run: ({ small }) => small.var(), error: /var/ },
  { name: 'norm of int refused', inputs: { small }, torch: 'small.norm()', run: ({ small }) => small.norm(), error: /norm/ },
  { name: 'tril of bool', inputs: { flags }, torch: 'flags.view(2, 3).tril()', run: ({ flags }) => flags.view(2, 3).tril() },
  { name: 'amax and max of bool', inputs: { flags }, torch: '(flags.amax(), flags.max())', run: ({ flags }) => [flags.amax(), flags.max()] },
  { name: 'sign of bool', inputs: { flags }, torch: 'flags.sign()', run: ({ flags }) => flags.sign() },
  { name: 'relu of bool refused', inputs: { flags }, torch: 'torch.relu(flags)', run: ({ flags }) => flags.relu(), error: /relu/ },
  { name: 'remainder of int by a float number', inputs: { small }, torch: 'torch.remainder(small, 1.5)', run: ({ small }) => small.remainder(1.5) },
  { name: 'maximum of bools, minimum of int and float', inputs: { flags, small }, torch: '(torch.maximum(flags, ~flags), torch.minimum(small, torch.ones(3)))',
    run: ({ flags, small }) => [torch.maximum(flags, flags.logicalNot()), torch.minimum(small, torch.ones([3], { device: small.device }))] },
  { name: 'bool times int, bool == int', inputs: { flags, small }, torch: '(flags.view(2, 3) * small, flags.view(2, 3) == small)',
    run: ({ flags, small }) => [flags.view(2, 3).mul(small), flags.view(2, 3).eq(small)] },
];

const elementwise: RefCase[] = [
  { name: 'add alpha with a number', inputs: { m }, torch: 'torch.add(m, 2, alpha=3)', run: ({ m }) => torch.add(m, 2, { alpha: 3 }) },
  { name: 'sub alpha int', inputs: { i64 }, torch: 'torch.sub(i64, i64, alpha=2)', run: ({ i64 }) => torch.sub(i64, i64, { alpha: 2 }) },
  { name: 'int32 + float number is float32', inputs: { i32 }, torch: 'i32 + 1.5', run: ({ i32 }) => i32.add(1.5) },
  { name: 'int32 + int64 tensor is int64', inputs: { i32, i64 }, torch: 'i32 + i64', run: ({ i32, i64 }) => i32.add(i64) },
  { name: 'int32 tensor + float32 tensor', inputs: { i32, m }, torch: 'i32 + m', run: ({ i32, m }) => i32.add(m) },
  { name: 'bool * number', inputs: { mask }, torch: 'mask * 3', run: ({ mask }) => mask.mul(3) },
  { name: 'pow with a number base', inputs: { m }, torch: 'torch.pow(2, m)', run: ({ m }) => torch.pow(2, m) },
  { name: 'pow int by int', inputs: { i64 }, torch: 'torch.pow(i64, 3)', run: ({ i64 }) => i64.pow(3) },
  { name: 'pow number base of an int tensor', inputs: { i64 }, torch: 'torch.pow(2, i64.abs())', run: ({ i64 }) => torch.pow(2, i64.abs()) },
  { name: 'pow with a tensor exponent', inputs: { pos, m }, torch: 'pos ** m', run: ({ pos, m }) => pos.pow(m) },
  { name: 'remainder with a number self', inputs: { pos }, torch: 'torch.remainder(5, pos)', run: ({ pos }) => torch.remainder(5, pos) },
  { name: 'remainder negative float', inputs: { m }, torch: 'torch.remainder(m, -0.7)', run: ({ m }) => m.remainder(-0.7) },
  { name: 'div trunc and floor of floats', inputs: { m, n }, torch: "(torch.div(m * 5, n, rounding_mode='trunc'), torch.div(m * 5, n, rounding_mode='floor'))",
    run: ({ m, n }) => [m.mul(5).div(n, { roundingMode: 'trunc' }), m.mul(5).div(n, { roundingMode: 'floor' })] },
  { name: 'clamp with tensor bounds', inputs: { m, lo, hi }, torch: 'torch.clamp(m, lo, hi)', run: ({ m, lo, hi }) => m.clamp(lo, hi) },
  { name: 'clamp with a tensor min only', inputs: { m, lo }, torch: 'torch.clamp(m, min=lo)', run: ({ m, lo }) => m.clamp(lo) },
  { name: 'clamp with a tensor min and a number max', inputs: { m, lo }, torch: 'torch.clamp(m, lo, torch.tensor(0.3))', run: ({ m, lo }) => m.clamp(lo, 0.3) },
  { name: 'clamp with a number min and a tensor max', inputs: { m, hi }, torch: 'torch.clamp(m, torch.tensor(-0.3), hi)', run: ({ m, hi }) => m.clamp(-0.3, hi) },
  { name: 'clamp with a number max only', inputs: { m }, torch: 'torch.clamp(m, max=0.2)', run: ({ m }) => m.clamp(null, 0.2) },
  { name: 'clamp min above max gives max', inputs: { m }, torch: 'torch.clamp(m, 1, -1)', run: ({ m }) => m.clamp(1, -1) },
  { name: 'clamp int by numbers', inputs: { i64 }, torch: 'torch.clamp(i64, -2, 3)', run: ({ i64 }) => i64.clamp(-2, 3) },
  { name: 'clamp of NaN stays NaN', inputs: {}, torch: "torch.clamp(torch.tensor([float('nan'), 2.0]), 0, 1)", run: () => torch.tensor([NaN, 2]).clamp(0, 1) },
  { name: 'where with two numbers', inputs: { mask }, torch: 'torch.where(mask, 1.5, -0.5)', run: ({ mask }) => torch.where(mask, 1.5, -0.5) },
  // A JavaScript number with an integer value (1.0 is 1) is an integer scalar.
  { name: 'where with two integer numbers is int64', inputs: { mask }, torch: 'torch.where(mask, 1, 0)', run: ({ mask }) => torch.where(mask, 1.0, 0) },
  { name: 'where with a number and an int tensor', inputs: { mask, i64 }, torch: 'torch.where(mask, i64, -1)', run: ({ mask, i64 }) => torch.where(mask, i64, -1) },
  { name: 'where with a float number and an int tensor', inputs: { mask, i64 }, torch: 'torch.where(mask, i64, 0.5)', run: ({ mask, i64 }) => torch.where(mask, i64, 0.5) },
  { name: 'where with the condition alone is nonzero asTuple', inputs: { mask }, torch: 'torch.where(mask)', run: ({ mask }) => torch.where(mask) },
  { name: 'where as a method', inputs: { mask, m }, torch: 'm.where(mask, -m)', run: ({ mask, m }) => m.where(mask, m.neg()) },
  { name: 'where promotes tensors', inputs: { mask, i32, m }, torch: 'torch.where(mask, i32, m)', run: ({ mask, i32, m }) => torch.where(mask, i32, m) },
  { name: 'maximum, minimum promote', inputs: { i32, m }, torch: '(torch.maximum(i32, m), torch.minimum(m, i32))', run: ({ i32, m }) => [torch.maximum(i32, m), torch.minimum(m, i32)] },
  { name: 'comparisons with numbers', inputs: { m }, torch: '(m > 0.1, m <= -0.2, m == m, m != 0)', run: ({ m }) => [m.gt(0.1), m.le(-0.2), m.eq(m), m.ne(0)] },
  { name: 'logical ops of floats', inputs: { m, mask }, torch: '(torch.logical_and(m, mask), torch.logical_or(mask, m > 1), torch.logical_xor(m, mask))',
    run: ({ m, mask }) => [m.logicalAnd(mask), mask.logicalOr(m.gt(1)), m.logicalXor(mask)] },
  { name: 'lerp with a tensor weight', inputs: { m, n, pos }, torch: 'torch.lerp(m, n, pos)', run: ({ m, n, pos }) => m.lerp(n, pos) },
  { name: 'addcmul and addcdiv value', inputs: { m, n, pos }, torch: '(torch.addcmul(m, n, pos, value=0.5), torch.addcdiv(m, n, pos, value=-2))',
    run: ({ m, n, pos }) => [m.addcmul(n, pos, { value: 0.5 }), m.addcdiv(n, pos, { value: -2 })] },
  { name: 'sign and abs of int', inputs: { i32 }, torch: '(i32.sign(), i32.abs())', run: ({ i32 }) => [i32.sign(), i32.abs()] },
  { name: 'relu of int', inputs: { i32 }, torch: 'torch.relu(i32)', run: ({ i32 }) => i32.relu() },
  { name: 'sigmoid of int promotes', inputs: { i32 }, torch: 'torch.sigmoid(i32)', run: ({ i32 }) => i32.sigmoid() },
  { name: 'round decimals', inputs: { m }, torch: 'torch.round(m * 100, decimals=1)', run: ({ m }) => torch.round(m.mul(100), { decimals: 1 }) },
  { name: 'round negative decimals', inputs: { m }, torch: 'torch.round(m * 1000, decimals=-2)', run: ({ m }) => m.mul(1000).round({ decimals: -2 }) },
  { name: 'in-place add_ with alpha on a transpose', inputs: { m, n }, torch: 'm.clone().t().add_(n.t(), alpha=2)', run: ({ m, n }) => m.clone().t().add_(n.t(), { alpha: 2 }) },
  { name: 'in-place on an int refuses a float result', inputs: { i64 }, torch: 'i64.clone().add_(1.5)', run: ({ i64 }) => i64.clone().add_(1.5), error: true },
  { name: 'casts', inputs: { m }, torch: '(m.double(), m.half(), m.bfloat16(), m.long(), m.int(), m.bool(), m.to(torch.uint8))',
    run: ({ m }) => [m.double(), m.half(), m.bfloat16(), m.long(), m.int(), m.bool(), m.to('uint8')] },
];

const reductions: RefCase[] = [
  { name: 'max with dim gives values and indices', inputs: { m }, torch: 'tuple(torch.max(m, 1))', run: ({ m }) => { const r = torch.max(m, 1); return [r.values, r.indices]; } },
  { name: 'min with dim keepdim', inputs: { m }, torch: 'tuple(torch.min(m, 0, keepdim=True))', run: ({ m }) => { const r = torch.min(m, 0, true); return [r.values, r.indices]; } },
  { name: 'max of two tensors is maximum', inputs: { m, n }, torch: 'torch.max(m, n)', run: ({ m, n }) => torch.max(m, n) },
  { name: 'min of two tensors broadcast', inputs: { m, v }, torch: 'torch.min(m, m[0])', run: ({ m }) => m.min(m.select(0, 0)) },
  { name: 'max of int with NaN-free ties', inputs: { ties }, torch: 'tuple(ties.max(-1))', run: ({ ties }) => { const r = ties.max(-1); return [r.values, r.indices]; } },
  { name: 'max with NaN', inputs: {}, torch: "tuple(torch.tensor([[1.0, float('nan'), 3.0]]).max(1))",
    run: () => { const r = torch.tensor([[1, NaN, 3]]).max(1); return [r.values, r.indices]; } },
  { name: 'var correction 2', inputs: { x }, torch: 'x.var(1, correction=2)', run: ({ x }) => x.var(1, { correction: 2 }) },
  { name: 'std correction 0 keepdim', inputs: { x }, torch: 'x.std((0, 2), correction=0, keepdim=True)', run: ({ x }) => x.std([0, 2], { correction: 0, keepdim: true }) },
  { name: 'var with a correction above the count', inputs: { m }, torch: 'm.var(0, correction=6)', run: ({ m }) => m.var(0, { correction: 6 }) },
  { name: 'var of one element with correction 1 is NaN', inputs: { v }, torch: 'v[:1].var()', run: ({ v }) => v.slice(0, 0, 1).var() },
  { name: 'norm p 0 counts nonzeros', inputs: { i64 }, torch: 'i64.double().norm(0, 1)', run: ({ i64 }) => i64.double().norm(0, 1) },
  { name: 'norm p -inf', inputs: { m }, torch: "m.norm(float('-inf'), 1)", run: ({ m }) => m.norm(-Infinity, 1) },
  { name: 'norm p 0.5', inputs: { m }, torch: 'm.norm(0.5, 0)', run: ({ m }) => m.norm(0.5, 0), rtol: 1e-5 },
  { name: 'norm fro over dims keepdim', inputs: { x }, torch: "x.norm('fro', (1, 2), keepdim=True)", run: ({ x }) => x.norm('fro', [1, 2], { keepdim: true }) },
  { name: 'topk smallest unsorted', inputs: { m }, torch: 'torch.topk(m, 3, dim=0, largest=False, sorted=False).values.sort(0).values',
    run: ({ m }) => torch.topk(m, 3, 0, false, false).values.sort(0).values },
  { name: 'topk sorted', inputs: { m }, torch: 'tuple(torch.topk(m, 4, largest=True, sorted=True))', run: ({ m }) => { const r = m.topk(4, -1, true, true); return [r.values, r.indices]; } },
  { name: 'sort stable descending with ties', inputs: { ties }, torch: 'tuple(ties.sort(dim=1, descending=True, stable=True))',
    run: ({ ties }) => { const r = ties.sort(1, true, true); return [r.values, r.indices]; } },
  { name: 'sort of long integer rows (radix on cpu): stable both ways, across the sign, a range over 2^32, int16 and uint8, a transpose',
    inputs: { li: longInts },
    torch: '(*li.sort(dim=1, stable=True), *li.sort(dim=1, descending=True, stable=True), *(li * 2**33).sort(dim=1, stable=True), *li.short().sort(dim=1, stable=True), *(li + 60).to(torch.uint8).sort(dim=1, descending=True, stable=True), *li.t().sort(dim=0, stable=True), torch.unique(li), torch.unique(li, return_inverse=True, return_counts=True)[2])',
    run: ({ li }) => {
      const pair = (r: torch.ValuesIndices) => [r.values, r.indices];
      return [...pair(li.sort(1, false, true)), ...pair(li.sort(1, true, true)), ...pair(li.mul(2 ** 33).sort(1, false, true)), ...pair(li.short().sort(1, false, true)),
        ...pair(li.add(60).to('uint8').sort(1, true, true)), ...pair(li.t().sort(0, false, true)), torch.unique(li) as torch.Tensor,
        (torch.unique(li, { returnInverse: true, returnCounts: true }) as torch.Tensor[])[2]];
    } },
  { name: 'sort of one long row (pieces in parallel, merged) with 2 and 3 threads: integers and floats with ties and NaN, stable both ways; unique',
    inputs: { li: oneLongInts, lf: oneLongFloats },
    torch: '(*li.sort(stable=True), *li.sort(descending=True, stable=True), *lf.sort(stable=True), *lf.sort(descending=True, stable=True), *li.sort(stable=True), *lf.sort(descending=True, stable=True), torch.unique(li), torch.unique(lf))',
    run: ({ li, lf }) => {
      const pair = (r: torch.ValuesIndices) => [r.values, r.indices];
      const two = [...pair(li.sort(0, false, true)), ...pair(li.sort(0, true, true)), ...pair(lf.sort(0, false, true)), ...pair(lf.sort(0, true, true))];
      const before = torch.getNumThreads();
      torch.setNumThreads(3);
      try {
        return [...two, ...pair(li.sort(0, false, true)), ...pair(lf.sort(0, true, true)), torch.unique(li) as torch.Tensor, torch.unique(lf) as torch.Tensor];
      } finally {
        torch.setNumThreads(before);
      }
    } },
  { name: 'topk of a few from long rows (one pass on cpu): largest and smallest, with NaN, and of ties (values)', inputs: { lf: longFloats },
    torch: '(*torch.topk(lf, 8, dim=1), *torch.topk(lf, 5, dim=1, largest=False), torch.topk(lf.round(), 20, dim=1).values, torch.topk(lf.t(), 3, dim=0).values)',
    run: ({ lf }) => {
      const a = torch.topk(lf, 8, 1), b = torch.topk(lf, 5, 1, false);
      return [a.values, a.indices, b.values, b.indices, torch.topk(lf.round(), 20, 1).values, torch.topk(lf.t(), 3, 0).values];
    } },
  { name: 'sort stable ascending of int', inputs: { i64 }, torch: 'tuple(i64.sort(dim=0, stable=True))', run: ({ i64 }) => { const r = i64.sort(0, false, true); return [r.values, r.indices]; } },
  { name: 'argmax keepdim of a transpose', inputs: { x }, torch: 'x.transpose(0, 2).argmax(1, keepdim=True)', run: ({ x }) => x.transpose(0, 2).argmax(1, { keepdim: true }) },
  { name: 'sum with dtype of bool', inputs: { mask }, torch: 'mask.sum(1, dtype=torch.int32)', run: ({ mask }) => mask.sum(1, { dtype: 'int32' }) },
  { name: 'mean with dtype of int', inputs: { i64 }, torch: 'i64.mean(dtype=torch.float64)', run: ({ i64 }) => i64.mean(undefined, { dtype: 'float64' }) },
  { name: 'prod keepdim', inputs: { pos }, torch: 'pos.prod(1, keepdim=True)', run: ({ pos }) => pos.prod(1, { keepdim: true }) },
  { name: 'logsumexp of -inf rows', inputs: {}, torch: "torch.tensor([[float('-inf'), float('-inf')], [0.0, 1.0]]).logsumexp(1)",
    run: () => torch.tensor([[-Infinity, -Infinity], [0, 1]]).logsumexp(1) },
  { name: 'cumsum of bool with dtype int32', inputs: { mask }, torch: 'mask.cumsum(0, dtype=torch.int32)', run: ({ mask }) => mask.cumsum(0, { dtype: 'int32' }) },
  { name: 'prod with dtype', inputs: { i32 }, torch: 'i32.prod(0, dtype=torch.int32)', run: ({ i32 }) => i32.prod(0, { dtype: 'int32' }) },
  { name: 'cumsum dtype and negative dim', inputs: { i32 }, torch: 'i32.cumsum(-1, dtype=torch.float32)', run: ({ i32 }) => i32.cumsum(-1, { dtype: 'float32' }) },
  { name: 'all and any over dims keepdim', inputs: { mask }, torch: '(mask.all(1, keepdim=True), mask.any(0, keepdim=True))',
    run: ({ mask }) => [mask.all(1, { keepdim: true }), mask.any(0, { keepdim: true })] },
  { name: 'softmax dtype', inputs: { m }, torch: 'm.softmax(0, dtype=torch.float64)', run: ({ m }) => m.softmax(0, { dtype: 'float64' }) },
  { name: 'amax over all dims of int', inputs: { i32 }, torch: 'i32.amax((0, 1))', run: ({ i32 }) => i32.amax([0, 1]) },
];

const shapes: RefCase[] = [
  { name: 'split by a size, last smaller', inputs: { v }, torch: 'v.split(4)', run: ({ v }) => v.split(4) },
  { name: 'split by a list of sizes along dim 1', inputs: { m }, torch: 'm.split([2, 4, 1], 1)', run: ({ m }) => m.split([2, 4, 1], 1) },
  { name: 'split sizes not adding up', inputs: { m }, torch: 'm.split([2, 2], 1)', run: ({ m }) => m.split([2, 2], 1), error: /split: sizes \[2, 2\] do not add up/ },
  { name: 'chunk uneven gives fewer pieces', inputs: { m }, torch: 'm.chunk(4, 0)', run: ({ m }) => m.chunk(4, 0) },
  { name: 'chunk of 6 into 4', inputs: { x }, torch: 'x.chunk(4, 2)', run: ({ x }) => x.chunk(4, 2) },
  { name: 'unbind', inputs: { m }, torch: 'm[:3].unbind(0)', run: ({ m }) => m.slice(0, 0, 3).unbind(0) },
  { name: 'repeat adds leading dims', inputs: { v }, torch: 'v.repeat(2, 3)', run: ({ v }) => v.repeat(2, 3) },
  { name: 'tile pads repeats with ones in front', inputs: { m }, torch: 'm.tile((2,))', run: ({ m }) => m.tile(2) },
  { name: 'tile with more repeats than dims', inputs: { v }, torch: 'v.tile((2, 1, 2))', run: ({ v }) => v.tile([2, 1, 2]) },
  { name: 'repeat with fewer repeats than dims refused', inputs: { m }, torch: 'm.repeat(2)', run: ({ m }) => m.repeat(2), error: true },
  { name: 'cat negative dim and promotion', inputs: { m, i32 }, torch: 'torch.cat((m, i32), dim=-1)', run: ({ m, i32 }) => torch.cat([m, i32], -1) },
  { name: 'stack negative dim', inputs: { m, n }, torch: 'torch.stack((m, n), dim=-1)', run: ({ m, n }) => torch.stack([m, n], -1) },
  { name: 'gather negative dim', inputs: { m }, torch: 'm.gather(-1, torch.tensor([[0, 6], [1, 1], [2, 0], [3, 3], [6, 5]]))',
    run: ({ m }) => m.gather(-1, torch.tensor([[0, 6], [1, 1], [2, 0], [3, 3], [6, 5]], { dtype: 'int64', device: m.device })) },
  { name: 'indexSelect negative dim', inputs: { x }, torch: 'x.index_select(-1, torch.tensor([5, 0, 0]))', run: ({ x }) => x.indexSelect(-1, torch.tensor([5, 0, 0], { dtype: 'int64', device: x.device })) },
  { name: 'maskedFill with a 0-dim tensor', inputs: { m, mask }, torch: 'm.masked_fill(mask, torch.tensor(9.0))', run: ({ m, mask }) => m.maskedFill(mask, torch.tensor(9, { device: m.device })) },
  { name: 'tril and triu negative diagonal', inputs: { x }, torch: '(x.tril(-2), x.triu(-1))', run: ({ x }) => [x.tril(-2), x.triu(-1)] },
  { name: 'nonzero asTuple', inputs: { mask }, torch: 'mask.nonzero(as_tuple=True)', run: ({ mask }) => mask.nonzero({ asTuple: true }) },
  { name: 'nonzero of a 1-D int tensor', inputs: { i64 }, torch: 'torch.nonzero(i64[0])', run: ({ i64 }) => torch.nonzero(i64.select(0, 0)) },
];

const a3 = torch.randn([2, 5, 3]);
const b3 = torch.randn([3, 4]);
const w = torch.randn([6, 3]);
const bias = torch.randn([6]);
const linalg: RefCase[] = [
  { name: 'matmul vector by vector', inputs: { v }, torch: 'v @ v', run: ({ v }) => v.matmul(v), rtol: 1e-5 },
  { name: 'matmul vector by matrix', inputs: { m }, torch: 'm[0, :5] @ m', run: ({ m }) => m.select(0, 0).slice(0, 0, 5).matmul(m), rtol: 1e-5 },
  { name: 'matmul batched by a matrix', inputs: { a3, b3 }, torch: 'a3 @ b3', run: ({ a3, b3 }) => a3.matmul(b3), rtol: 1e-5, atol: 1e-5 },
  { name: 'mm of a transpose', inputs: { m, n }, torch: 'm.mm(n.t())', run: ({ m, n }) => m.mm(n.t()), rtol: 1e-5, atol: 1e-5 },
  { name: 'bmm', inputs: { a3 }, torch: 'a3.bmm(a3.mT)', run: ({ a3 }) => a3.bmm(a3.mT), rtol: 1e-5, atol: 1e-5 },
  { name: 'addmm beta alpha', inputs: { m, n }, torch: 'torch.addmm(m[:, :5], m, n.t(), beta=0.5, alpha=2)',
    run: ({ m, n }) => torch.addmm(m.slice(1, 0, 5), m, n.t(), { beta: 0.5, alpha: 2 }), rtol: 1e-5, atol: 1e-5 },
  { name: 'linear with bias', inputs: { a3, w, bias }, torch: 'torch.nn.functional.linear(a3, w, bias)', run: ({ a3, w, bias }) => torch.linear(a3, w, bias), rtol: 1e-5, atol: 1e-5 },
  { name: 'linear without bias', inputs: { a3, w }, torch: 'torch.nn.functional.linear(a3, w)', run: ({ a3, w }) => torch.linear(a3, w), rtol: 1e-5, atol: 1e-5 },
  { name: 'outer', inputs: { v }, torch: 'torch.outer(v, v[:4])', run: ({ v }) => torch.outer(v, v.slice(0, 0, 4)) },
];

const big = torch.randn([30, 40]);
const long1 = torch.arange(2000);
const w12 = torch.randn([12]);
const printing: RefCase[] = [
  { name: 'print a float matrix', inputs: { m }, torch: 'str(m)', run: ({ m }) => m.toString() },
  { name: 'print summarized 2-D', inputs: { big }, torch: 'str(big)', run: ({ big }) => big.toString() },
  { name: 'print summarized 1-D int', inputs: { long1 }, torch: 'str(long1)', run: ({ long1 }) => long1.toString() },
  { name: 'print summarized 3-D', inputs: { x }, torch: 'str(x.repeat(10, 10, 10))', run: ({ x }) => x.repeat(10, 10, 10).toString() },
  { name: 'print scientific', inputs: { v }, torch: 'str(v * 1e6)', run: ({ v }) => v.mul(1e6).toString() },
  { name: 'print bool and int32', inputs: { mask, i32 }, torch: 'str(mask) + str(i32)', run: ({ mask, i32 }) => mask.toString() + i32.toString() },
  { name: 'print float64 with NaN, inf and -0', inputs: {}, torch: "str(torch.tensor([float('nan'), float('inf'), -0.0, 1.25], dtype=torch.float64))",
    run: () => torch.tensor([NaN, Infinity, -0, 1.25], { dtype: 'float64' }).toString() },
  { name: 'print integers that are floats', inputs: {}, torch: 'str(torch.tensor([1.0, -2.0, 300.0]))', run: () => torch.tensor([1.5, -2, 300]).sub(torch.tensor([0.5, 0, 0])).toString() },
  { name: 'print -0 in scientific notation', inputs: {}, torch: "str(torch.tensor([-0.0, 1e-7, 3e5]))", run: () => torch.tensor([-0, 1e-7, 3e5]).toString() },
  { name: 'print big int64 and an empty tensor', inputs: {}, torch: 'str(torch.tensor([2 ** 40, -7])) + str(torch.zeros(0, 3))',
    run: () => torch.tensor([2 ** 40, -7]).toString() + torch.zeros([0, 3]).toString() },
  { name: 'print float16 summarized rows', inputs: { big }, torch: 'str(big.half()[:, :12])', run: ({ big }) => big.half().slice(1, 0, 12).toString() },
  { name: 'print 0-dim int, bool and float64', inputs: {}, torch: 'str(torch.tensor(-3)) + str(torch.tensor(True)) + str(torch.tensor(2.5, dtype=torch.float64))',
    run: () => torch.tensor(-3).toString() + torch.tensor(true).toString() + torch.tensor(2.5, { dtype: 'float64' }).toString() },
  { name: 'print with print options', inputs: { big },
    torch: '"|".join([torch.set_printoptions(precision=2, threshold=50, edgeitems=2, linewidth=60), str(big * 3), torch.set_printoptions(sci_mode=True), str(big[:2, :3]), torch.set_printoptions(profile="default")][1::2])',
    run: ({ big }) => {
      const saved = torch.getPrintOptions();
      try {
        torch.setPrintOptions({ precision: 2, threshold: 50, edgeitems: 2, linewidth: 60 });
        const a = big.mul(3).toString();
        torch.setPrintOptions({ sciMode: true });
        return [a, big.slice(0, 0, 2).slice(1, 0, 3).toString()].join('|');
      } finally {
        torch.setPrintOptions(saved);
      }
    } },
  { name: 'print with sciMode forced on and off: widths in the printed notation, so lines wrap by them', inputs: { w12 },
    torch: '"|".join(s for s in [torch.set_printoptions(sci_mode=True), str(w12), str(torch.zeros(3)), str((w12 * 100).round()), ' +
      'torch.set_printoptions(sci_mode=False), str(w12 * 1e6), str(torch.tensor([1e-7, 3e5, -2.0])), torch.set_printoptions(profile="default")] if s)',
    run: ({ w12 }) => {
      const saved = torch.getPrintOptions();
      try {
        torch.setPrintOptions({ sciMode: true });
        const forcedOn = [w12.toString(), torch.zeros([3]).toString(), w12.mul(100).round().toString()];
        torch.setPrintOptions({ sciMode: false });
        return [...forcedOn, w12.mul(1e6).toString(), torch.tensor([1e-7, 3e5, -2]).toString()].join('|');
      } finally {
        torch.setPrintOptions(saved);
      }
    } },
  { name: 'print options: every call sets sciMode (automatic when not given), and profiles', inputs: { v, big },
    torch: '"|".join(s for s in [torch.set_printoptions(sci_mode=False), str(v * 1e9), torch.set_printoptions(precision=2), str(v * 1e9), ' +
      'torch.set_printoptions(profile="short"), str(big * 3), torch.set_printoptions(profile="full", linewidth=100), str(torch.arange(1100.) / 7), ' +
      'torch.set_printoptions(profile="default")] if s)',
    run: ({ v, big }) => {
      const saved = torch.getPrintOptions();
      try {
        torch.setPrintOptions({ sciMode: false });
        const fixed = v.mul(1e9).toString();
        torch.setPrintOptions({ precision: 2 }); // sciMode back to automatic, as in PyTorch
        const auto = v.mul(1e9).toString();
        torch.setPrintOptions({ profile: 'short' });
        const short = big.mul(3).toString();
        torch.setPrintOptions({ profile: 'full', linewidth: 100 });
        const full = torch.arange(1100).div(7).toString();
        return [fixed, auto, short, full].join('|');
      } finally {
        torch.setPrintOptions(saved);
      }
    } },
  { name: 'print bfloat16 0-dim', inputs: { v }, torch: 'str(v[0].bfloat16())', run: ({ v }) => v.select(0, 0).bfloat16().toString() },
];

const probe = torch.randn([2, 3, 4]);
const vec4 = torch.randn([4]);
const idx32 = torch.tensor([2, 0, 2], { dtype: 'int32' });
/** Corners of the families above that PyTorch users meet. */
const corners: RefCase[] = [
  { name: 'arange of 0.1 steps has 10 elements', inputs: {}, torch: 'torch.arange(0, 1, 0.1)', run: () => torch.arange(0, 1, 0.1) },
  { name: 'arange of halves', inputs: {}, torch: 'torch.arange(1, 2.5, 0.5)', run: () => torch.arange(1, 2.5, 0.5) },
  { name: 'linspace int64', inputs: {}, torch: 'torch.linspace(0, 10, 4, dtype=torch.int64)', run: () => torch.linspace(0, 10, 4, { dtype: 'int64' }) },
  { name: 'eye float64', inputs: {}, torch: 'torch.eye(3, dtype=torch.float64)', run: () => torch.eye(3, { dtype: 'float64' }) },
  { name: 'tensor of no elements', inputs: {}, torch: 'torch.tensor([])', run: () => torch.tensor([]) },
  { name: 'tensor of a number is 0-dim', inputs: {}, torch: '(torch.tensor(3.5), torch.tensor(7), torch.tensor(True))', run: () => [torch.tensor(3.5), torch.tensor(7), torch.tensor(true)] },
  { name: 'tensor of big integers', inputs: {}, torch: 'torch.tensor([2 ** 40, -3])', run: () => torch.tensor([2 ** 40, -3]) },
  { name: 'mul_ of int by a float refused', inputs: { i64 }, torch: 'i64.clone().mul_(2.5)', run: ({ i64 }) => i64.clone().mul_(2.5), error: true },
  { name: 'in-place add_ that would broadcast self refused', inputs: { vec4, probe }, torch: 'vec4.clone().add_(probe)', run: ({ vec4, probe }) => vec4.clone().add_(probe), error: true },
  { name: 'float add_ of an int tensor', inputs: { m, i32 }, torch: 'm.clone().add_(i32)', run: ({ m, i32 }) => m.clone().add_(i32) },
  { name: 'argmax without dim with keepdim', inputs: { probe }, torch: 'probe.argmax(keepdim=True)', run: ({ probe }) => probe.argmax(null, { keepdim: true }) },
  { name: 'sum over an empty dim list is over all', inputs: { probe }, torch: 'probe.sum(())', run: ({ probe }) => probe.sum([]) },
  { name: 'indexSelect with an int32 index', inputs: { probe, idx32 }, torch: 'probe.index_select(1, idx32)', run: ({ probe, idx32 }) => probe.indexSelect(1, idx32) },
  { name: 'gather with an int32 index (as PyTorch 2; 1.13 wants int64)', inputs: { probe, idx32 }, torch: 'probe.gather(1, idx32.view(1, 3, 1).long())', run: ({ probe, idx32 }) => probe.gather(1, idx32.view(1, 3, 1)) },
  { name: 'repeat 0 times', inputs: { probe }, torch: 'probe.repeat(1, 0, 2)', run: ({ probe }) => probe.repeat(1, 0, 2) },
  { name: 'stack of 0-dim tensors', inputs: { vec4 }, torch: 'torch.stack([vec4[0], vec4[2], vec4[3]])', run: ({ vec4 }) => torch.stack([vec4.select(0, 0), vec4.select(0, 2), vec4.select(0, 3)]) },
  { name: 'split by more than the size, chunk into more pieces than elements', inputs: { vec4 }, torch: '(*vec4.split(10), *vec4.chunk(9))', run: ({ vec4 }) => [...vec4.split(10), ...vec4.chunk(9)] },
  { name: 'cat of one tensor is a copy', inputs: { vec4 }, torch: 'torch.cat([vec4])', run: ({ vec4 }) => torch.cat([vec4]) },
  { name: 'cat dim out of range', inputs: { probe }, torch: 'torch.cat([probe, probe], 3)', run: ({ probe }) => torch.cat([probe, probe], 3), error: true },
  { name: 'matmul vector by a batch', inputs: { vec4, probe }, torch: 'probe[:, 0] @ vec4.view(4, 1).expand(4, 2)', run: ({ vec4, probe }) => probe.select(1, 0).matmul(vec4.view(4, 1).expand(4, 2)), rtol: 1e-5, atol: 1e-5 },
  { name: 'matmul batch by a vector', inputs: { vec4, probe }, torch: 'probe @ vec4', run: ({ vec4, probe }) => probe.matmul(vec4), rtol: 1e-5, atol: 1e-5 },
  { name: 'matmul 1-D by 3-D', inputs: { probe }, torch: 'probe[0, :, 0] @ probe', run: ({ probe }) => probe.select(0, 0).select(1, 0).matmul(probe), rtol: 1e-5, atol: 1e-5 },
  { name: 'matmul broadcast batch dims', inputs: { probe }, torch: 'probe.view(2, 1, 3, 4) @ probe.mT', run: ({ probe }) => probe.view(2, 1, 3, 4).matmul(probe.mT), rtol: 1e-5, atol: 1e-5 },
  { name: 'linear of a vector', inputs: { vec4, probe }, torch: 'torch.nn.functional.linear(vec4, probe[0], probe[1, :, 0])',
    run: ({ vec4, probe }) => torch.linear(vec4, probe.select(0, 0), probe.select(0, 1).select(1, 0)), rtol: 1e-5, atol: 1e-5 },
  { name: 'mm of mismatched dtypes refused', inputs: { m }, torch: 'm.mm(m.t().double())', run: ({ m }) => m.mm(m.t().double()), error: true },
  { name: 'attention with a fully masked row is NaN there', inputs: { probe }, torch: '(probe @ probe.mT * 0.5).masked_fill(torch.tensor([[False, False, False], [True, True, False], [True, True, True]]).logical_not(), float("-inf")).softmax(-1) @ probe',
    run: ({ probe }) => torch.scaledDotProductAttention(probe, probe, probe, { attnMask: torch.tensor([[false, false, false], [true, true, false], [true, true, true]], { device: probe.device }) }), rtol: 1e-5, atol: 1e-5 },
];

/** The case groups, by name. */
export const apiCases: Record<string, RefCase[]> = {
  'views': views,
  'creation': creation,
  'elementwise': elementwise,
  'dtype edges': dtypeEdges,
  'reductions': reductions,
  'shape and indexing': shapes,
  'linear algebra': linalg,
  'printing': printing,
  'corners': corners,
};
