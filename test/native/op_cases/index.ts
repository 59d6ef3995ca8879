/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of
 * joining, repeating and indexing (cat, stack, repeat, tile, gather,
 * scatter/scatterAdd, scatterReduce and scatter's reduce on every dtype,
 * indexSelect, maskedFill, tril/triu, nonzero) and of the
 * nn functions (embedding, layerNorm, rmsNorm, crossEntropy, nllLoss, mseLoss,
 * dropout's deterministic properties).
 *
 * Shared by the PyTorch differential test (torch_index.test.ts) and the CUDA
 * test (cuda_kernels.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(2468);
const a = torch.randn([2, 3]);
const b = torch.randn([4, 3]);
const c = torch.randn([2, 5]);
const i32 = torch.randint(-5, 5, [2, 3]).int();
const x = torch.randn([4, 6]);
const idx = torch.randint(0, 4, [3, 6]);
const rowIdx = torch.randint(0, 4, [5]);
const src = torch.randn([3, 6]);
const sq = torch.randn([3, 5, 5]);
const mask = torch.randn([4, 6]).gt(0);
const weight = torch.randn([10, 4]);
const tokens = torch.randint(0, 10, [2, 3]);
const h = torch.randn([3, 5, 16]);
const gamma = torch.randn([16]);
const beta = torch.randn([16]);
const logits = torch.randn([6, 7]).mul(3);
const target = torch.randint(0, 7, [6]);
const withIgnored = torch.tensor([1, -100, 3, 0, -100, 6], { dtype: 'int64' });
const pred = torch.randn([5, 4]);
const goal = torch.randn([5, 4]);
/** 300,000 elements (several of nonzero's chunks), about a tenth nonzero, some of them NaN. */
const bigSparse = torch.tidy(() => {
  const r = torch.randn([50, 60, 100]);
  return torch.where(r.abs().gt(1.6), r, 0).maskedFill(r.gt(2.8), NaN);
});

const joining: RefCase[] = [
  { name: 'cat dim 0', inputs: { a, b }, torch: 'torch.cat([a, b])', run: ({ a, b }) => torch.cat([a, b]) },
  { name: 'cat dim 1 of a transpose', inputs: { a, c }, torch: 'torch.cat([a, c.t()[:3].t()], 1)', run: ({ a, c }) => torch.cat([a, c.t().slice(0, 0, 3).t()], 1) },
  { name: 'cat promotes', inputs: { a, i32 }, torch: 'torch.cat([a, i32], -1)', run: ({ a, i32 }) => torch.cat([a, i32], -1) },
  { name: 'cat mismatched shapes', inputs: { a, c }, torch: 'torch.cat([a, c])', run: ({ a, c }) => torch.cat([a, c]), error: /cat: expected tensors of shape \[2, 3\] except in dim 0, got \[2, 5\]/ },
  { name: 'stack', inputs: { a }, torch: 'torch.stack([a, a * 2, a * 3], 1)', run: ({ a }) => torch.stack([a, a.mul(2), a.mul(3)], 1) },
  { name: 'repeat', inputs: { a }, torch: 'a.repeat(2, 1, 3)', run: ({ a }) => a.repeat(2, 1, 3) },
  { name: 'tile', inputs: { a }, torch: 'a.tile((2,))', run: ({ a }) => a.tile(2) },
];

const indexing: RefCase[] = [
  { name: 'gather dim 0', inputs: { x, idx }, torch: 'x.gather(0, idx)', run: ({ x, idx }) => x.gather(0, idx) },
  { name: 'gather dim 1 of a transpose', inputs: { x, idx }, torch: 'x.t().gather(1, idx[:, :4].t().contiguous() % 4)', run: ({ x, idx }) => x.t().gather(1, idx.slice(1, 0, 4).t().contiguous().remainder(4)) },
  { name: 'gather out of range', inputs: { x, idx }, torch: 'x.gather(0, idx + 4)', run: ({ x, idx }) => x.gather(0, idx.add(4)), error: /gather: index \d+ is out of bounds for dimension with size 4/ },
  { name: 'indexSelect rows', inputs: { x, rowIdx }, torch: 'x.index_select(0, rowIdx)', run: ({ x, rowIdx }) => x.indexSelect(0, rowIdx) },
  { name: 'indexSelect columns', inputs: { x, rowIdx }, torch: 'x.index_select(1, rowIdx)', run: ({ x, rowIdx }) => torch.indexSelect(x, 1, rowIdx) },
  { name: 'scatter', inputs: { x, src }, torch: 'x.scatter(1, torch.arange(5, -1, -1).repeat(3, 1), src)', run: ({ x, src }) => x.scatter(1, torch.arange(5, -1, -1, { device: x.device }).repeat(3, 1), src) },
  { name: 'scatter a number', inputs: { x, idx }, torch: 'x.scatter(0, idx, 7.5)', run: ({ x, idx }) => x.scatter(0, idx, 7.5) },
  { name: 'scatterAdd with repeated indices', inputs: { x, idx, src }, torch: 'x.scatter_add(0, idx, src)', run: ({ x, idx, src }) => x.scatterAdd(0, idx, src) },
  { name: 'maskedFill', inputs: { x, mask }, torch: 'x.masked_fill(mask, -1.0)', run: ({ x, mask }) => x.maskedFill(mask, -1) },
  { name: 'maskedFill broadcast row mask', inputs: { x, mask }, torch: 'x.masked_fill(mask[0], float("-inf"))', run: ({ x, mask }) => x.maskedFill(mask.select(0, 0), -Infinity) },
  { name: 'tril', inputs: { sq }, torch: 'sq.tril()', run: ({ sq }) => sq.tril() },
  { name: 'triu diagonal 1', inputs: { sq }, torch: 'sq.triu(1)', run: ({ sq }) => sq.triu(1) },
  { name: 'tril of a wide matrix', inputs: { c }, torch: 'c.tril(-1)', run: ({ c }) => torch.tril(c, -1) },
  { name: 'nonzero', inputs: { mask }, torch: 'mask.nonzero()', run: ({ mask }) => mask.nonzero() },
  { name: 'nonzero over many chunks of a 3-D float tensor with NaN, and of a transpose', inputs: { big: bigSparse },
    torch: '(big.nonzero(), big.transpose(0, 2).nonzero(), big.nonzero(as_tuple=True)[1])',
    run: ({ big }) => [big.nonzero(), big.transpose(0, 2).nonzero(), big.nonzero({ asTuple: true })[1]] },
  { name: 'nonzero of int32, bfloat16, bool and 0-dim tensors', inputs: { i32, mask },
    torch: '(i32.nonzero(), i32.bfloat16().nonzero(), mask.nonzero(as_tuple=True)[0], torch.tensor(3).nonzero(), torch.tensor(0.0).nonzero(), torch.zeros(0, 3).nonzero())',
    run: ({ i32, mask }) => [i32.nonzero(), i32.bfloat16().nonzero(), mask.nonzero({ asTuple: true })[0], torch.tensor(3).nonzero(), torch.tensor(0).float().nonzero(), torch.zeros([0, 3]).nonzero()] },
  { name: 'a boolean mask index and maskedSelect over many chunks', inputs: { big: bigSparse },
    torch: '(big[big > 0.5], torch.masked_select(big, big < -1.0))',
    run: ({ big }) => [big.index(big.gt(0.5)), torch.maskedSelect(big, big.lt(-1))] },
];

/** Values of a dtype for the scatter reductions: small integers (products stay in range), normals for floats. */
function scatterValues(shape: number[], dtype: torch.DType): torch.Tensor {
  return torch.tidy(() => {
    if (dtype === 'bool') return torch.randint(0, 2, shape).bool();
    if (dtype === 'uint8') return torch.randint(0, 4, shape).to(dtype);
    if (dtype.startsWith('int')) return torch.randint(-3, 4, shape).to(dtype);
    return torch.randn(shape).to(dtype);
  });
}

const REDUCTIONS: torch.ScatterReduction[] = ['sum', 'prod', 'mean', 'amax', 'amin'];
const pyBool = (b: boolean): string => (b ? 'True' : 'False');
const idxRow = torch.randint(0, 6, [4, 3]);
const srcWide = torch.randn([4, 5]);
const nanX = torch.where(x.gt(1), NaN, x);
const nanSrc = torch.where(src.lt(-1), NaN, src);
const flags = torch.randint(0, 2, [4, 6]).bool();
const scatterReductions: RefCase[] = [
  { name: "scatter reduce 'add' with repeated indices", inputs: { x, idx, src }, torch: "x.scatter(0, idx, src, reduce='add')", run: ({ x, idx, src }) => x.scatter(0, idx, src, { reduce: 'add' }) },
  { name: "scatter reduce 'multiply' by a number", inputs: { x, idx }, torch: "x.scatter(0, idx, 2.5, reduce='multiply')", run: ({ x, idx }) => x.scatter(0, idx, 2.5, { reduce: 'multiply' }) },
  { name: "scatter_ reduce 'add' of int32", inputs: { i: scatterValues([4, 6], 'int32'), idx, v: scatterValues([3, 6], 'int32') },
    torch: "i.clone().scatter_(0, idx, v, reduce='add')", run: ({ i, idx, v }) => i.clone().scatter_(0, idx, v, { reduce: 'add' }) },
  { name: "scatter reduce 'sum' refused (scatter takes 'add' or 'multiply')", inputs: { x, idx, src }, torch: "x.scatter(0, idx, src, reduce='sum')",
    run: ({ x, idx, src }) => x.scatter(0, idx, src, { reduce: 'sum' as 'add' }), error: /scatter: expected 'add', 'multiply' or null for reduce, got 'sum' \(the reductions 'sum', 'prod', 'mean', 'amax' and 'amin' are scatterReduce's\)/ },
  { name: "scatterReduce 'add' refused (it takes 'sum')", inputs: { x, idx, src }, torch: "x.scatter_reduce(0, idx, src, 'add')",
    run: ({ x, idx, src }) => x.scatterReduce(0, idx, src, 'add' as 'sum'), error: /scatterReduce: expected 'sum', 'prod', 'mean', 'amax' or 'amin' for reduce, got 'add'/ },
  { name: "scatterReduce 'mean' of bool refused", inputs: { flags, idx }, torch: "flags.scatter_reduce(0, idx, flags[:3], 'mean')",
    run: ({ flags, idx }) => flags.scatterReduce(0, idx, flags.slice(0, 0, 3), 'mean'), error: /reduce 'mean' is not supported for bool/ },
  { name: 'scatterReduce index out of range refused', inputs: { x, idx, src }, torch: "x.scatter_reduce(0, idx + 4, src, 'amax')",
    run: ({ x, idx, src }) => x.scatterReduce(0, idx.add(4), src, 'amax'), error: /scatterReduce: index \d+ is out of bounds for dimension with size 4/ },
  { name: 'scatterReduce along dim -1 with an index smaller than self and src', inputs: { x, idxRow, srcWide }, torch: "x.scatter_reduce(-1, idxRow, srcWide, 'amin')",
    run: ({ x, idxRow, srcWide }) => torch.scatterReduce(x, -1, idxRow, srcWide, 'amin') },
  { name: 'scatterReduce_ into a transposed view writes through', inputs: { x, idx, src },
    torch: "(lambda y: (y.t().scatter_reduce_(1, idx, src, 'prod', include_self=False), y)[1])(x.clone().t().contiguous())",
    run: ({ x, idx, src }) => { const y = x.t().contiguous(); y.t().scatterReduce_(1, idx, src, 'prod', { includeSelf: false }); return y; } },
  { name: 'scatterReduce amax and amin propagate NaN from self and src', inputs: { nanX, idx, nanSrc },
    torch: "(nanX.scatter_reduce(0, idx, nanSrc, 'amax'), nanX.scatter_reduce(0, idx, nanSrc, 'amin', include_self=False))",
    run: ({ nanX, idx, nanSrc }) => [nanX.scatterReduce(0, idx, nanSrc, 'amax'), nanX.scatterReduce(0, idx, nanSrc, 'amin', { includeSelf: false })] },
];
for (const reduce of REDUCTIONS) {
  for (const includeSelf of [true, false]) {
    scatterReductions.push({ name: `scatterReduce ${reduce}${includeSelf ? '' : ' without self'}`, inputs: { x, idx, src },
      torch: `x.scatter_reduce(0, idx, src, '${reduce}', include_self=${pyBool(includeSelf)})`,
      run: ({ x, idx, src }) => x.scatterReduce(0, idx, src, reduce, { includeSelf }) });
  }
}
// Every other dtype: hardware atomics (int32/int64 max and min, 16-bit float adds) and compare-and-swap loops on cuda.
for (const dtype of ['float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool'] as torch.DType[]) {
  const s = scatterValues([4, 6], dtype);
  const v = scatterValues([3, 6], dtype);
  for (const reduce of REDUCTIONS) {
    if (dtype === 'bool' && reduce === 'mean') continue;
    // 16-bit float sums and products round at each step; on cuda the order of repeated targets varies.
    const atol = reduce === 'amax' || reduce === 'amin' ? undefined : ({ float16: 1e-2, bfloat16: 8e-2 } as Record<string, number>)[dtype];
    for (const includeSelf of [true, false]) {
      scatterReductions.push({ name: `scatterReduce ${reduce}${includeSelf ? '' : ' without self'} ${dtype}`, inputs: { s, idx, v },
        torch: `s.scatter_reduce(0, idx, v, '${reduce}', include_self=${pyBool(includeSelf)})`,
        run: ({ s, idx, v }) => s.scatterReduce(0, idx, v, reduce, { includeSelf }), atol });
    }
  }
}

const nn: RefCase[] = [
  { name: 'embedding', inputs: { tokens, weight }, torch: 'torch.nn.functional.embedding(tokens, weight)', run: ({ tokens, weight }) => torch.embedding(tokens, weight) },
  { name: 'layerNorm', inputs: { h, gamma, beta }, torch: 'torch.nn.functional.layer_norm(h, (16,), gamma, beta)', run: ({ h, gamma, beta }) => torch.layerNorm(h, [16], gamma, beta), rtol: 1e-5, atol: 1e-5 },
  { name: 'layerNorm over two dims without affine', inputs: { h }, torch: 'torch.nn.functional.layer_norm(h, (5, 16))', run: ({ h }) => torch.nn.functional.layerNorm(h, [5, 16]), rtol: 1e-5, atol: 1e-5 },
  { name: 'layerNorm of a transpose', inputs: { h }, torch: 'torch.nn.functional.layer_norm(h.transpose(0, 1), (16,), eps=1e-3)', run: ({ h }) => torch.layerNorm(h.transpose(0, 1), [16], null, null, 1e-3), rtol: 1e-5, atol: 1e-5 },
  { name: 'layerNorm, rmsNorm and nativeLayerNorm over a normalized shape with 0 elements', inputs: {},
    torch: '(torch.nn.functional.layer_norm(torch.randn(2, 0), (0,)), torch.nn.functional.rms_norm(torch.randn(3, 0, 2), (0, 2)), *torch.native_layer_norm(torch.randn(3, 0, 2), (0, 2), None, None, 1e-5))',
    run: () => [torch.nn.functional.layerNorm(torch.randn([2, 0]), [0]), torch.nn.functional.rmsNorm(torch.randn([3, 0, 2]), [0, 2]), ...torch.nativeLayerNorm(torch.randn([3, 0, 2]), [0, 2])] },
  { name: 'layerNorm shape mismatch', inputs: { h }, torch: 'torch.nn.functional.layer_norm(h, (5,))', run: ({ h }) => torch.layerNorm(h, [5]), error: /layerNorm: normalized shape \[5\] does not match the last dims of input of shape \[3, 5, 16\]/ },
  { name: 'rmsNorm', inputs: { h, gamma }, torch: 'h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma', run: ({ h, gamma }) => torch.rmsNorm(h, [16], gamma, 1e-6), rtol: 1e-5, atol: 1e-5 },
  { name: 'crossEntropy', inputs: { logits, target }, torch: 'torch.nn.functional.cross_entropy(logits, target)', run: ({ logits, target }) => torch.crossEntropy(logits, target) },
  { name: 'crossEntropy ignoreIndex sum', inputs: { logits, withIgnored }, torch: "torch.nn.functional.cross_entropy(logits, withIgnored, reduction='sum')", run: ({ logits, withIgnored }) => torch.crossEntropy(logits, withIgnored, { reduction: 'sum' }) },
  { name: 'crossEntropy label smoothing', inputs: { logits, withIgnored }, torch: 'torch.nn.functional.cross_entropy(logits, withIgnored, label_smoothing=0.1)', run: ({ logits, withIgnored }) => torch.crossEntropy(logits, withIgnored, { labelSmoothing: 0.1 }) },
  { name: 'crossEntropy none', inputs: { logits, target }, torch: "torch.nn.functional.cross_entropy(logits, target, reduction='none')", run: ({ logits, target }) => torch.crossEntropy(logits, target, { reduction: 'none' }) },
  { name: 'nllLoss', inputs: { logits, target }, torch: 'torch.nn.functional.nll_loss(logits.log_softmax(1), target)', run: ({ logits, target }) => torch.nllLoss(logits.logSoftmax(1), target) },
  { name: 'mseLoss', inputs: { pred, goal }, torch: 'torch.nn.functional.mse_loss(pred, goal)', run: ({ pred, goal }) => torch.mseLoss(pred, goal) },
  { name: 'mseLoss sum', inputs: { pred, goal }, torch: "torch.nn.functional.mse_loss(pred, goal, reduction='sum')", run: ({ pred, goal }) => torch.mseLoss(pred, goal, { reduction: 'sum' }) },
  { name: 'dropout in eval is the identity', inputs: { x }, torch: 'torch.nn.functional.dropout(x, 0.3, training=False)', run: ({ x }) => torch.dropout(x, 0.3, false) },
  { name: 'dropout keeps or scales each element', inputs: { x }, torch: 'torch.ones(4, 6, dtype=torch.bool)',
    run: ({ x }) => { const d = torch.dropout(x, 0.25); return d.eq(0).logicalOr(d.sub(x.div(0.75)).abs().le(1e-6)); } },
];

/** The case groups, by name. */
export const indexCases: Record<string, RefCase[]> = {
  'cat, stack, repeat, tile': joining,
  'gather, scatter, indexSelect, maskedFill, tril, triu, nonzero': indexing,
  'scatter reductions': scatterReductions,
  'nn functions': nn,
};
