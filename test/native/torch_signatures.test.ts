/**
 * Differential tests against PyTorch (cpu) of PyTorch's call signatures and
 * of the cases that were silently wrong or refused where PyTorch answers:
 * shapes as separate numbers (`zeros(2, 3)`), reductions' positional
 * parameters (`sum(1, true)`, `var(1, true, true)`), 0-dim tensors
 * reshaped, repeated and flattened, reductions of empty tensors, integer
 * matmul on cpu, the overlap checks of in-place writes, out-of-range values
 * at creation, sign(NaN), item() of bool, printing empty tensors,
 * broadcastShapes, isFloatingPoint and finfo/iinfo, and the errors PyTorch
 * raises for each (with the runtime's message naming the problem).
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

torch.manualSeed(2213);
const m = torch.randn(4, 5);
const x = torch.randn(3, 4, 5);
const ints = torch.randint(-5, 5, [3, 4]);
const s = torch.tensor(5);

const shapes: RefCase[] = [
  { name: 'zeros(2, 3)', inputs: {}, torch: 'torch.zeros(2, 3)', run: () => torch.zeros(2, 3) },
  { name: 'ones(2, 3, { dtype })', inputs: {}, torch: 'torch.ones(2, 3, dtype=torch.int32)', run: () => torch.ones(2, 3, { dtype: 'int32' }) },
  { name: 'zeros([2, 3]) still works', inputs: {}, torch: 'torch.zeros([2, 3])', run: () => torch.zeros([2, 3]) },
  { name: 'empty(2, 3) has the shape', inputs: {}, torch: 'torch.tensor(torch.empty(2, 3).shape)', run: () => torch.tensor(torch.empty(2, 3).shape) },
  { name: 'randn(2, 3) has the shape', inputs: {}, torch: 'torch.tensor(torch.randn(2, 3).shape)', run: () => torch.tensor(torch.randn(2, 3).shape) },
  { name: 'rand(4) is 1-D', inputs: {}, torch: 'torch.tensor(torch.rand(4).shape)', run: () => torch.tensor(torch.rand(4).shape) },
  { name: 'zeros of a negative size is refused', inputs: {}, torch: 'torch.zeros(2, -1)', run: () => torch.zeros(2, -1), error: /zeros: Dimension size must be non-negative/ },
  { name: 'zeros of Infinity is refused naming the op', inputs: {}, torch: 'torch.zeros(2, float("inf"))', run: () => torch.zeros(2, Infinity), error: /zeros: expected an integer/ },
  { name: 'zeros of an overflowing size is refused', inputs: {}, torch: 'torch.zeros(2 ** 40, 2 ** 40)', run: () => torch.zeros(2 ** 40, 2 ** 40), error: /Storage size calculation overflowed/ },
  { name: 'zeros() is refused', inputs: {}, torch: 'torch.zeros()', run: () => (torch.zeros as () => torch.Tensor)(), error: /zeros: expected a shape/ },
  { name: 'view(2, 10) and reshape(5, 4)', inputs: { m }, torch: '(m.view(2, 10), m.t().reshape(5, 4))', run: ({ m }) => [m.view(2, 10), m.t().reshape(5, 4)] },
  { name: 'expand(2, 4, 5), permute(1, 0), repeat(2, 1), tile(2)', inputs: { m },
    torch: '(m.expand(2, 4, 5), m.permute(1, 0), m.repeat(2, 1), m.tile(2))', run: ({ m }) => [m.expand(2, 4, 5), m.permute(1, 0), m.repeat(2, 1), m.tile(2)] },
];

const zeroDim: RefCase[] = [
  { name: '0-dim reshape(1)', inputs: { s }, torch: 's.reshape(1)', run: ({ s }) => s.reshape(1) },
  { name: '0-dim view(-1)', inputs: { s }, torch: 's.view(-1)', run: ({ s }) => s.view(-1) },
  { name: '0-dim view(1, 1)', inputs: { s }, torch: 's.view(1, 1)', run: ({ s }) => s.view(1, 1) },
  { name: '0-dim flatten()', inputs: { s }, torch: 's.flatten()', run: ({ s }) => s.flatten() },
  { name: '0-dim repeat(3)', inputs: { s }, torch: 's.repeat(3)', run: ({ s }) => s.repeat(3) },
  { name: '0-dim tile(2)', inputs: { s }, torch: 's.tile(2)', run: ({ s }) => s.tile(2) },
  { name: '0-dim reshape(2) is refused', inputs: { s }, torch: 's.reshape(2)', run: ({ s }) => s.reshape(2), error: /invalid for input of size 1/ },
];

const positional: RefCase[] = [
  { name: 'sum(1, true)', inputs: { m }, torch: 'm.sum(1, True)', run: ({ m }) => m.sum(1, true) },
  { name: 'sum(1, true, { dtype })', inputs: { m }, torch: 'm.sum(1, True, dtype=torch.float64)', run: ({ m }) => m.sum(1, true, { dtype: 'float64' }) },
  { name: 'sum([0, 2], false) of 3-D', inputs: { x }, torch: 'x.sum([0, 2], False)', run: ({ x }) => x.sum([0, 2], false) },
  { name: 'mean(1, true)', inputs: { m }, torch: 'm.mean(1, True)', run: ({ m }) => m.mean(1, true) },
  { name: 'prod(0, true)', inputs: { m }, torch: 'm.prod(0, True)', run: ({ m }) => m.prod(0, true) },
  { name: 'amax(0, true), amin(1, true)', inputs: { m }, torch: '(m.amax(0, True), m.amin(1, True))', run: ({ m }) => [m.amax(0, true), m.amin(1, true)] },
  { name: 'argmax(1, true), argmin(0, true)', inputs: { m }, torch: '(m.argmax(1, True), m.argmin(0, True))', run: ({ m }) => [m.argmax(1, true), m.argmin(0, true)] },
  { name: 'all(1, true), any(0, true)', inputs: { ints }, torch: '(ints.all(1, True), ints.any(0, True))', run: ({ ints }) => [ints.all(1, true), ints.any(0, true)] },
  { name: 'var(1, true, true), std(1, false)', inputs: { m }, torch: '(m.var(1, True, True), m.std(1, False))', run: ({ m }) => [m.var(1, true, true), m.std(1, false)] },
  { name: 'var(1, { correction: 0, keepdim: true })', inputs: { m }, torch: 'm.var(1, correction=0, keepdim=True)', run: ({ m }) => m.var(1, { correction: 0, keepdim: true }) },
  { name: 'norm(2, 1, true)', inputs: { m }, torch: 'm.norm(2, 1, True)', run: ({ m }) => m.norm(2, 1, true) },
  { name: 'logsumexp(1, true)', inputs: { m }, torch: 'm.logsumexp(1, True)', run: ({ m }) => m.logsumexp(1, true) },
  { name: 'max(1, true) values and indices', inputs: { m }, torch: 'tuple(m.max(1, True))', run: ({ m }) => { const r = m.max(1, true); return [r.values, r.indices]; } },
  { name: 'sum of a string dim is refused', inputs: { m }, torch: 'm.sum("a")', run: ({ m }) => m.sum('a' as never), error: /expected an integer or a list of integers for dim, got 'a'/ },
  { name: 'sum of a fractional dim is refused', inputs: { m }, torch: 'm.sum(1.5)', run: ({ m }) => m.sum(1.5), error: /expected an integer or a list of integers for dim/ },
  { name: 'a keepdim that is neither a boolean nor options is refused', inputs: { m }, torch: 'm.sum(1, "yes")',
    run: ({ m }) => m.sum(1, 'yes' as never), error: /expected a boolean \(keepdim\) or an options object for keepdim/ },
];

const empty: RefCase[] = [
  { name: 'zeros([0, 3]).amax(1) is [0]-shaped', inputs: {}, torch: 'torch.zeros([0, 3]).amax(1)', run: () => torch.zeros([0, 3]).amax(1) },
  { name: 'zeros([0, 3]).argmax(1)', inputs: {}, torch: 'torch.zeros([0, 3]).argmax(1)', run: () => torch.zeros([0, 3]).argmax(1) },
  { name: 'zeros([3, 0]).max(0) values and indices', inputs: {}, torch: 'tuple(torch.zeros([3, 0]).max(0))', run: () => { const r = torch.zeros([3, 0]).max(0); return [r.values, r.indices]; } },
  { name: 'zeros([0, 3]).amax(0) is refused', inputs: {}, torch: 'torch.zeros([0, 3]).amax(0)', run: () => torch.zeros([0, 3]).amax(0), error: /Expected reduction dim 0 to have non-zero size/ },
  { name: 'zeros([0, 3]).argmax() is refused', inputs: {}, torch: 'torch.zeros([0, 3]).argmax()', run: () => torch.zeros([0, 3]).argmax(), error: /Expected reduction dim to be specified/ },
  { name: 'zeros([0, 3]).max() is refused', inputs: {}, torch: 'torch.zeros([0, 3]).max()', run: () => torch.zeros([0, 3]).max(), error: /Expected reduction dim to be specified/ },
];

const a2 = torch.randint(-50, 50, [3, 4]);
const b2 = torch.randint(-50, 50, [4, 5]);
const matmuls: RefCase[] = [
  { name: 'int64 matmul on cpu', inputs: { a2, b2 }, torch: 'a2 @ b2', run: ({ a2, b2 }) => a2.matmul(b2) },
  { name: 'int32 mm', inputs: { a2: a2.int(), b2: b2.int() }, torch: 'a2.mm(b2)', run: ({ a2, b2 }) => a2.mm(b2) },
  { name: 'int64 vector dot through matmul', inputs: { a2 }, torch: 'a2[0] @ a2[1]', run: ({ a2 }) => a2.select(0, 0).matmul(a2.select(0, 1)) },
  { name: 'batched int64 matmul broadcasts', inputs: { a2, b2 }, torch: 'a2.expand(2, 3, 4) @ b2', run: ({ a2, b2 }) => a2.expand(2, 3, 4).matmul(b2) },
  { name: 'uint8 matmul wraps as PyTorch', inputs: { u: torch.randint(0, 255, [3, 3]).to('uint8') }, torch: 'u @ u', run: ({ u }) => u.matmul(u) },
  { name: 'bool matmul is refused', inputs: {}, torch: 'torch.ones(2, 2, dtype=torch.bool) @ torch.ones(2, 2, dtype=torch.bool)',
    run: () => torch.ones(2, 2, { dtype: 'bool' }).matmul(torch.ones(2, 2, { dtype: 'bool' })), error: /not implemented for 'Bool'/ },
];

const overlap: RefCase[] = [
  { name: 'add_ into an expanded tensor is refused', inputs: {}, torch: 'torch.zeros(3).expand(2, 3).add_(1)',
    run: () => torch.zeros(3).expand(2, 3).add_(1), error: /more than one element of the written-to tensor refers to a single memory location/ },
  { name: 'fill_ of an expanded tensor writes it, as PyTorch', inputs: {}, torch: '(lambda z: (z.expand(2, 3).fill_(1), z)[1])(torch.zeros(3))',
    run: () => { const z = torch.zeros(3); z.expand(2, 3).fill_(1); return z; } },
  { name: 'a.add_(a.t()) is refused', inputs: { a: torch.randn(3, 3) }, torch: '(lambda c: c.add_(c.t()))(a.clone())',
    run: ({ a }) => { const c = a.clone(); return c.add_(c.t()); }, error: /some elements of the input tensor and the written-to tensor/ },
  { name: 'copy_ between overlapping narrows is refused', inputs: {}, torch: '(lambda x: x.narrow(0, 1, 4).copy_(x.narrow(0, 0, 4)))(torch.arange(6.0))',
    run: () => { const y = torch.arange(6).float(); return y.narrow(0, 1, 4).copy_(y.narrow(0, 0, 4)); }, error: /some elements of the input tensor/ },
  { name: 'a.add_(a) is fine (the same memory in the same layout)', inputs: { a: torch.randn(3, 3) }, torch: 'a.clone().add_(a.clone())',
    run: ({ a }) => { const c = a.clone(); return c.add_(c); } },
  { name: 'copy_ into an expanded tensor is refused', inputs: {}, torch: 'torch.zeros(3).expand(2, 3).copy_(torch.ones(2, 3))',
    run: () => torch.zeros(3).expand(2, 3).copy_(torch.ones(2, 3)), error: /more than one element/ },
  { name: 'maskedFill_ of an expanded tensor writes it, as PyTorch', inputs: {},
    torch: '(lambda z: (z.expand(2, 3).masked_fill_(torch.tensor([[True, False, False], [False, False, True]]), 1.0), z)[1])(torch.zeros(3))',
    run: () => { const z = torch.zeros(3); z.expand(2, 3).maskedFill_(torch.tensor([[true, false, false], [false, false, true]]), 1); return z; } },
  { name: 'interleaved strided views (undecidable) compute from the values before the write', inputs: {},
    torch: '(lambda y: (y[0::2].add_(y[1::2]), y)[1])(torch.arange(8.0))',
    run: () => { const y = torch.arange(8).float(); y.slice(0, 0, null, 2).add_(y.slice(0, 1, null, 2)); return y; } },
];

const creation: RefCase[] = [
  { name: 'tensor([-1, 256], uint8) is refused', inputs: {}, torch: 'torch.tensor([-1, 256], dtype=torch.uint8)',
    run: () => torch.tensor([-1, 256], { dtype: 'uint8' }), error: /value -1 cannot be converted to type uint8 without overflow/ },
  { name: 'tensor([3e9], int32) is refused', inputs: {}, torch: 'torch.tensor([3e9], dtype=torch.int32)',
    run: () => torch.tensor([3e9], { dtype: 'int32' }), error: /cannot be converted to type int32/ },
  { name: 'tensor([NaN], int32) is refused', inputs: {}, torch: 'torch.tensor([float("nan")], dtype=torch.int32)',
    run: () => torch.tensor([NaN], { dtype: 'int32' }), error: /cannot be converted/ },
  { name: 'tensor([-128, 127], int8) fits', inputs: {}, torch: 'torch.tensor([-128, 127], dtype=torch.int8)', run: () => torch.tensor([-128, 127], { dtype: 'int8' }) },
  { name: 'fractions truncate into integers', inputs: {}, torch: 'torch.tensor([1.5, -2.5], dtype=torch.int32)', run: () => torch.tensor([1.5, -2.5], { dtype: 'int32' }) },
  { name: 'large floats become inf in float16', inputs: {}, torch: 'torch.tensor([1e6], dtype=torch.float16)', run: () => torch.tensor([1e6], { dtype: 'float16' }) },
];

const small: RefCase[] = [
  { name: 'sign(NaN) is 0', inputs: { v: torch.tensor([NaN, -0, 0, 2, -3], { dtype: 'float32' }) }, torch: 'v.sign()', run: ({ v }) => v.sign() },
  { name: 'printing an empty int64 tensor', inputs: {}, torch: 'str(torch.tensor([], dtype=torch.int64))', run: () => torch.tensor([], { dtype: 'int64' }).toString() },
  { name: 'printing an empty bool tensor', inputs: {}, torch: 'str(torch.zeros(0, 2, dtype=torch.bool))', run: () => torch.zeros(0, 2, { dtype: 'bool' }).toString() },
  { name: 'printing an empty float tensor', inputs: {}, torch: 'str(torch.zeros(0))', run: () => torch.zeros(0).toString() },
  { name: 'to("float99") names both a dtype and a device', inputs: { m }, torch: 'm.to("float99")', run: ({ m }) => m.to('float99' as never), error: /expected a dtype .* or a device/ },
  { name: 'embedding reports its own index error', inputs: { w: torch.randn(3, 2) }, torch: 'torch.nn.functional.embedding(torch.tensor([5]), w)',
    run: ({ w }) => torch.nn.functional.embedding(torch.tensor([5]), w), error: /^embedding: index 5 is out of bounds/ },
  { name: 'maskedFill reports a shape mismatch as its own', inputs: { m }, torch: 'm.masked_fill(torch.tensor([True, False]), 0)',
    run: ({ m }) => m.maskedFill(torch.tensor([true, false]), 0), error: /^maskedFill: the mask of shape \[2\]/ },
  { name: 'maskedFill of an integer mask is refused', inputs: { m }, torch: 'm.masked_fill(torch.ones(4, 5, dtype=torch.int64), 0)',
    run: ({ m }) => m.maskedFill(torch.ones(4, 5, { dtype: 'int64' }), 0), error: /only supports boolean masks/ },
  { name: 'broadcastShapes(...shapes)', inputs: {}, torch: 'torch.tensor(torch.broadcast_shapes((2, 1), (3,), (4, 1, 1)))',
    run: () => torch.tensor(torch.broadcastShapes([2, 1], [3], [4, 1, 1])) },
  { name: 'broadcastShapes of shapes that do not broadcast is refused', inputs: {}, torch: 'torch.broadcast_shapes((2,), (3,))',
    run: () => torch.tensor(torch.broadcastShapes([2], [3])), error: /Shape mismatch/ },
  { name: 'isFloatingPoint of a tensor', inputs: { m, ints }, torch: 'torch.tensor([torch.is_floating_point(m), torch.is_floating_point(ints), m.is_floating_point()])',
    run: ({ m, ints }) => torch.tensor([torch.isFloatingPoint(m), torch.isFloatingPoint(ints), m.isFloatingPoint()]) },
];

const infos: RefCase[] = (['float32', 'float64', 'float16', 'bfloat16'] as const).map((d) => ({
  name: `finfo(${d})`,
  inputs: {},
  torch: `(lambda f: torch.tensor([f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution], dtype=torch.float64))(torch.finfo(torch.${d}))`,
  run: () => { const f = torch.finfo(d); return torch.tensor([f.bits, f.eps, f.max, f.min, f.tiny, f.smallestNormal, f.resolution], { dtype: 'float64' }); },
  rtol: 0, atol: 0,
}));
for (const d of ['uint8', 'int8', 'int16', 'int32', 'int64'] as const) {
  infos.push({
    name: `iinfo(${d})`,
    inputs: {},
    torch: `(lambda f: torch.tensor([f.bits, f.min, f.max]))(torch.iinfo(torch.${d}))`,
    run: () => { const f = torch.iinfo(d); return torch.tensor([BigInt(f.bits), BigInt(f.min), BigInt(f.max)]); },
  });
}
infos.push({ name: 'finfo of an integer dtype is refused', inputs: {}, torch: 'torch.finfo(torch.int32)', run: () => JSON.stringify(torch.finfo('int32')), error: /requires a floating point/ });
infos.push({ name: 'iinfo of a float dtype is refused', inputs: {}, torch: 'torch.iinfo(torch.float32)', run: () => JSON.stringify(torch.iinfo('float32')), error: /requires an integer/ });

describe('shapes as separate numbers', () => compareWithTorch(shapes));
describe('0-dim tensors', () => compareWithTorch(zeroDim));
describe("reductions' positional parameters", () => compareWithTorch(positional));
describe('reductions of empty tensors', () => compareWithTorch(empty));
describe('integer matmul', () => compareWithTorch(matmuls));
describe('overlapping in-place writes', () => compareWithTorch(overlap));
describe('values at creation', () => compareWithTorch(creation));
describe('small differences', () => compareWithTorch(small));
describe('finfo and iinfo', () => compareWithTorch(infos));

describe('item()', () => {
  test('a bool tensor gives a boolean, as PyTorch gives True', () => {
    expect(torch.tensor(true).item()).toBe(true);
    expect(torch.tensor([false]).item()).toBe(false);
    expect(torch.tensor(3).item()).toBe(3);
  });
});
