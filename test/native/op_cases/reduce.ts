/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of reductions over all or given
 * dims with keepdim, arg-reducers, max/min with indices, var/std with a
 * correction, norm, logsumexp, all/any, softmax/logSoftmax and cumsum, on
 * random inputs (contiguous, transposed and sliced) in several dtypes.
 *
 * Shared by the PyTorch differential test (torch_reduce.test.ts) and the CUDA test
 * (cuda_ops.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(98765);
const x = torch.randn([4, 5, 6]);
const m = torch.randn([7, 33]);
const big = torch.randn([300000]);  // one output over many elements: split across threads
const wide = torch.randn([3, 70000]);
const f64 = torch.randn([5, 6]).double();
const f16 = torch.randn([6, 40]).half();
const bf16 = torch.randn([6, 40]).bfloat16();
const i32 = torch.randint(-10, 10, [4, 6]).int();
const u8 = torch.randint(0, 3, [4, 6]).byte();
const mask = torch.randn([4, 6]).gt(0.3);
const ties = torch.randint(0, 3, [5, 8]).float();
const logits = torch.randn([8, 50]).mul(10);

const reductions: RefCase[] = [
  { name: 'sum all', inputs: { x }, torch: 'x.sum()', run: ({ x }) => x.sum() },
  { name: 'sum dim 1', inputs: { x }, torch: 'x.sum(1)', run: ({ x }) => x.sum(1) },
  { name: 'sum dims keepdim', inputs: { x }, torch: 'x.sum((0, 2), keepdim=True)', run: ({ x }) => x.sum([0, 2], { keepdim: true }) },
  { name: 'sum negative dim of a transpose', inputs: { x }, torch: 'x.transpose(0, 2).sum(-1)', run: ({ x }) => x.transpose(0, 2).sum(-1) },
  { name: 'sum of many elements', inputs: { big }, torch: 'big.sum()', run: ({ big }) => big.sum() },
  { name: 'sum of wide rows', inputs: { wide }, torch: 'wide.sum(1)', run: ({ wide }) => wide.sum(1) },
  { name: 'sum over dim 0 of wide', inputs: { wide }, torch: 'wide.sum(0)', run: ({ wide }) => wide.sum(0) },
  { name: 'sum int32 gives int64', inputs: { i32 }, torch: 'i32.sum(0)', run: ({ i32 }) => i32.sum(0) },
  { name: 'sum bool', inputs: { mask }, torch: 'mask.sum()', run: ({ mask }) => mask.sum() },
  { name: 'sum float16', inputs: { f16 }, torch: 'f16.sum(1)', run: ({ f16 }) => f16.sum(1), rtol: 2e-3 },
  { name: 'sum bfloat16', inputs: { bf16 }, torch: 'bf16.sum(0)', run: ({ bf16 }) => bf16.sum(0), rtol: 2e-2, atol: 2e-2 },
  { name: 'sum with dtype', inputs: { i32 }, torch: 'i32.sum(1, dtype=torch.float64)', run: ({ i32 }) => i32.sum(1, { dtype: 'float64' }) },
  { name: 'mean', inputs: { x }, torch: 'x.mean((1, 2))', run: ({ x }) => x.mean([1, 2]) },
  { name: 'mean float64 keepdim', inputs: { f64 }, torch: 'f64.mean(0, keepdim=True)', run: ({ f64 }) => f64.mean(0, { keepdim: true }) },
  { name: 'mean of int refused', inputs: { i32 }, torch: 'i32.mean()', run: ({ i32 }) => i32.mean(), error: true },
  { name: 'prod', inputs: { m }, torch: '(m[:, :6] + 2).prod(1)', run: ({ m }) => m.slice(1, 0, 6).add(2).prod(1) },
  { name: 'prod int', inputs: { u8 }, torch: 'u8.prod(1)', run: ({ u8 }) => u8.prod(1) },
  { name: 'amax dims', inputs: { x }, torch: 'x.amax((0, 1))', run: ({ x }) => x.amax([0, 1]) },
  { name: 'amin int', inputs: { i32 }, torch: 'i32.amin(1)', run: ({ i32 }) => i32.amin(1) },
  { name: 'max all', inputs: { m }, torch: 'm.max()', run: ({ m }) => m.max() },
  { name: 'max dim values and indices', inputs: { m }, torch: 'm.max(1)', run: ({ m }) => { const r = m.max(1); return [r.values, r.indices]; } },
  { name: 'min dim keepdim on a transpose', inputs: { m }, torch: 'm.t().min(0, keepdim=True)', run: ({ m }) => { const r = m.t().min(0, true); return [r.values, r.indices]; } },
  { name: 'max dim with ties gives the first', inputs: { ties }, torch: 'ties.max(1)', run: ({ ties }) => { const r = ties.max(1); return [r.values, r.indices]; } },
  { name: 'argmax all', inputs: { x }, torch: 'x.argmax()', run: ({ x }) => x.argmax() },
  { name: 'argmax dim keepdim', inputs: { x }, torch: 'x.argmax(2, keepdim=True)', run: ({ x }) => x.argmax(2, { keepdim: true }) },
  { name: 'argmin dim with ties', inputs: { ties }, torch: 'ties.argmin(0)', run: ({ ties }) => ties.argmin(0) },
  { name: 'argmax float16', inputs: { f16 }, torch: 'f16.argmax(1)', run: ({ f16 }) => f16.argmax(1) },
  { name: 'var', inputs: { x }, torch: 'x.var(2)', run: ({ x }) => x.var(2) },
  { name: 'var correction 0 over dims', inputs: { x }, torch: 'x.var((0, 2), correction=0)', run: ({ x }) => x.var([0, 2], { correction: 0 }) },
  { name: 'var unbiased false of all', inputs: { x }, torch: 'x.var(unbiased=False)', run: ({ x }) => x.var(undefined, { unbiased: false }) },
  { name: 'std keepdim', inputs: { m }, torch: 'm.std(0, keepdim=True)', run: ({ m }) => m.std(0, { keepdim: true }) },
  { name: 'std unbiased false', inputs: { f64 }, torch: 'f64.std(1, unbiased=False)', run: ({ f64 }) => f64.std(1, { unbiased: false }) },
  { name: 'var of many elements', inputs: { big }, torch: 'big.var()', run: ({ big }) => big.var() },
  { name: 'norm 2', inputs: { x }, torch: 'x.norm()', run: ({ x }) => x.norm() },
  { name: 'norm 1 dim', inputs: { m }, torch: 'm.norm(1, 1)', run: ({ m }) => m.norm(1, 1) },
  { name: 'norm inf', inputs: { m }, torch: "m.norm(float('inf'), 0)", run: ({ m }) => m.norm(Infinity, 0) },
  { name: 'norm 3', inputs: { m }, torch: 'm.norm(3, 1)', run: ({ m }) => m.norm(3, 1), rtol: 1e-5 },
  { name: 'logsumexp', inputs: { logits }, torch: 'logits.logsumexp(1)', run: ({ logits }) => logits.logsumexp(1) },
  { name: 'logsumexp keepdim dims', inputs: { x }, torch: 'x.logsumexp((0, 2), keepdim=True)', run: ({ x }) => x.logsumexp([0, 2], { keepdim: true }) },
  { name: 'all dim', inputs: { mask }, torch: 'mask.all(1)', run: ({ mask }) => mask.all(1) },
  { name: 'any int', inputs: { u8 }, torch: 'u8.any(0)', run: ({ u8 }) => u8.any(0) },
  { name: 'all of everything', inputs: { u8 }, torch: 'u8.all()', run: ({ u8 }) => u8.all() },
  { name: 'sum dim out of range', inputs: { x }, torch: 'x.sum(3)', run: ({ x }) => x.sum(3), error: true },
];

const alongDim: RefCase[] = [
  { name: 'softmax last dim', inputs: { logits }, torch: 'logits.softmax(1)', run: ({ logits }) => logits.softmax(1) },
  { name: 'softmax dim 0', inputs: { logits }, torch: 'logits.softmax(0)', run: ({ logits }) => logits.softmax(0) },
  { name: 'softmax of a transpose', inputs: { x }, torch: 'x.transpose(1, 2).softmax(-1)', run: ({ x }) => x.transpose(1, 2).softmax(-1) },
  { name: 'softmax float16', inputs: { f16 }, torch: 'f16.float().softmax(1).half()', run: ({ f16 }) => f16.softmax(1) },
  { name: 'softmax bfloat16', inputs: { bf16 }, torch: 'bf16.float().softmax(0).bfloat16()', run: ({ bf16 }) => bf16.softmax(0) },
  { name: 'logSoftmax', inputs: { logits }, torch: 'logits.log_softmax(1)', run: ({ logits }) => logits.logSoftmax(1) },
  { name: 'logSoftmax float64 dim 0', inputs: { f64 }, torch: 'f64.log_softmax(0)', run: ({ f64 }) => torch.logSoftmax(f64, 0) },
  { name: 'softmax with dtype of int', inputs: { i32 }, torch: 'i32.softmax(1, dtype=torch.float32)', run: ({ i32 }) => i32.softmax(1, { dtype: 'float32' }) },
  { name: 'softmax of int refused', inputs: { i32 }, torch: 'i32.softmax(1)', run: ({ i32 }) => i32.softmax(1), error: true },
  { name: 'cumsum', inputs: { m }, torch: 'm.cumsum(1)', run: ({ m }) => m.cumsum(1) },
  { name: 'cumsum dim 0', inputs: { x }, torch: 'x.cumsum(0)', run: ({ x }) => x.cumsum(0) },
  { name: 'cumsum int gives int64', inputs: { i32 }, torch: 'i32.cumsum(1)', run: ({ i32 }) => i32.cumsum(1) },
  { name: 'cumsum bool', inputs: { mask }, torch: 'mask.cumsum(0)', run: ({ mask }) => mask.cumsum(0) },
  { name: 'sort last dim', inputs: { m }, torch: 'm.sort()', run: ({ m }) => { const r = m.sort(); return [r.values, r.indices]; } },
  { name: 'sort descending dim 0 of a transpose', inputs: { m }, torch: 'm.t().sort(0, descending=True)', run: ({ m }) => { const r = m.t().sort(0, true); return [r.values, r.indices]; } },
  { name: 'sort with NaN', inputs: { n: torch.tensor([3, NaN, -1, 2]) }, torch: 'n.sort()', run: ({ n }) => { const r = n.sort(); return [r.values, r.indices]; } },
  { name: 'sort float16', inputs: { f16 }, torch: 'f16.sort(stable=True, dim=1)', run: ({ f16 }) => { const r = f16.sort(1); return [r.values, r.indices]; } },
  { name: 'argsort int descending', inputs: { u: torch.randperm(40).view(5, 8).int() }, torch: 'u.argsort(1, descending=True)', run: ({ u }) => u.argsort(1, true) },
  { name: 'topk', inputs: { logits }, torch: 'logits.topk(5)', run: ({ logits }) => { const r = logits.topk(5); return [r.values, r.indices]; } },
  { name: 'topk smallest along dim 0', inputs: { logits }, torch: 'logits.topk(3, 0, largest=False)', run: ({ logits }) => { const r = torch.topk(logits, 3, 0, false); return [r.values, r.indices]; } },
  { name: 'topk k too large', inputs: { logits }, torch: 'logits.topk(51)', run: ({ logits }) => logits.topk(51).values, error: /topk: expected an integer k in \[0, 50\] for k, got 51/ },
];


/** The case groups, by name. */
export const reduceCases: Record<string, RefCase[]> = {
  'reductions': reductions,
  'softmax, logSoftmax, cumsum': alongDim,
};
