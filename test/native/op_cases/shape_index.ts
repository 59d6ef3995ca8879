/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of rot90, diagEmbed, tensorSplit,
 * takeAlongDim, searchsorted, bucketize and maskedScatter
 * (native/ops/shape_index.ts): values, dtypes, shapes and errors.
 *
 * Shared by the PyTorch differential test (torch_shape_index.test.ts) and the CUDA test
 * (cuda_new_ops.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(2204);
const m = torch.randn([3, 4]);
const x3 = torch.randn([2, 3, 4]);
const v = torch.randn([4]);
const b = torch.randn([2, 3]);
const seq = torch.tensor([1, 3, 5, 7, 9]);
const seqF = torch.tensor([-1, 0, 0.5, 0.5, 2]);
const vals = torch.tensor([[3, 6, 9], [0, 10, 5]]);
const valsF = torch.tensor([-2, 0.5, 0.25, 3, NaN, 0]);
const seq2 = torch.randn([2, 5]).sort(1).values;
const vals2 = torch.randn([2, 4]);
const unsorted = torch.tensor([5, 1, 9, 3, 7]);
const sorter = torch.tensor([1, 3, 0, 4, 2]);
const idx = torch.randint(0, 4, [3, 2]);
const idxB = torch.randint(0, 3, [1, 4]);
const mask = torch.rand([3, 4]).gt(0.5);
const rowMask = torch.tensor([true, false, true, true]);
const src = torch.randn([12]);
const ints = torch.randint(0, 9, [3, 4]);
const srcInt = torch.randint(0, 9, [3, 5]);

const cases: RefCase[] = [
  { name: 'rot90 once', inputs: { m }, torch: 'torch.rot90(m)', run: ({ m }) => torch.rot90(m) },
  { name: 'rot90 twice', inputs: { m }, torch: 'm.rot90(2)', run: ({ m }) => m.rot90(2) },
  { name: 'rot90 three times in dims [2, 0]', inputs: { x3 }, torch: 'x3.rot90(3, [2, 0])', run: ({ x3 }) => x3.rot90(3, [2, 0]) },
  { name: 'rot90 negative k', inputs: { x3 }, torch: 'torch.rot90(x3, -1, [1, 2])', run: ({ x3 }) => torch.rot90(x3, -1, [1, 2]) },
  { name: 'rot90 k = 4 is a copy', inputs: { m }, torch: 'm.rot90(4)', run: ({ m }) => m.rot90(4) },
  { name: 'rot90 of a 1-D tensor is refused', inputs: { v }, torch: 'v.rot90()', run: ({ v }) => v.rot90(), error: /expected total dims >= 2, but got total dims = 1/ },
  { name: 'rot90 with one dim is refused', inputs: { m }, torch: 'm.rot90(1, [0])', run: ({ m }) => m.rot90(1, [0]), error: /expected total rotation dims == 2, but got dims = 1/ },
  { name: 'rot90 with equal dims is refused', inputs: { m }, torch: 'm.rot90(1, [1, -1])', run: ({ m }) => m.rot90(1, [1, -1]), error: /expected rotation dims to be different, but got dim0 = 1 and dim1 = 1/ },
  { name: 'diagEmbed of a vector', inputs: { v }, torch: 'torch.diag_embed(v)', run: ({ v }) => torch.diagEmbed(v) },
  { name: 'diagEmbed of a batch with offset 1', inputs: { b }, torch: 'b.diag_embed(1)', run: ({ b }) => b.diagEmbed(1) },
  { name: 'diagEmbed with offset -2 into dims 0, 2', inputs: { b }, torch: 'torch.diag_embed(b, -2, 0, 2)', run: ({ b }) => torch.diagEmbed(b, -2, 0, 2) },
  { name: 'diagEmbed into dims 2, 0', inputs: { x3 }, torch: 'torch.diag_embed(x3, 0, 2, 0)', run: ({ x3 }) => torch.diagEmbed(x3, 0, 2, 0) },
  { name: 'diagEmbed of integers', inputs: { ints }, torch: 'ints.diag_embed()', run: ({ ints }) => ints.diagEmbed() },
  { name: 'diagEmbed with equal dims is refused', inputs: { v }, torch: 'torch.diag_embed(v, 0, 0, 0)', run: ({ v }) => torch.diagEmbed(v, 0, 0, 0), error: /diagonal dimensions cannot be identical 0, 0/ },
  { name: 'diagEmbed with a dim out of range', inputs: { v }, torch: 'torch.diag_embed(v, 0, 0, 3)', run: ({ v }) => torch.diagEmbed(v, 0, 0, 3), error: /Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)/ },
  { name: 'tensorSplit into 3 sections of 7', inputs: {}, torch: 'torch.tensor_split(torch.arange(7), 3)', run: () => torch.tensorSplit(torch.arange(7), 3) },
  { name: 'tensorSplit into more sections than elements', inputs: { v }, torch: 'v.tensor_split(6)', run: ({ v }) => v.tensorSplit(6) },
  { name: 'tensorSplit at indices along dim 1', inputs: { m }, torch: 'm.tensor_split([1, 3], 1)', run: ({ m }) => m.tensorSplit([1, 3], 1) },
  { name: 'tensorSplit at unordered, negative and large indices', inputs: { x3 }, torch: 'torch.tensor_split(x3, [3, 1, -1, 9], -1)', run: ({ x3 }) => torch.tensorSplit(x3, [3, 1, -1, 9], -1) },
  { name: 'tensorSplit with a 0-dim tensor of sections', inputs: { m }, torch: 'm.tensor_split(torch.tensor(2))', run: ({ m }) => m.tensorSplit(torch.tensor(2)) },
  { name: 'tensorSplit with a tensor of indices', inputs: { m }, torch: 'm.tensor_split(torch.tensor([1, 2]), 1)', run: ({ m }) => m.tensorSplit(torch.tensor([1, 2]), 1) },
  { name: 'tensorSplit into 0 sections is refused', inputs: { v }, torch: 'v.tensor_split(0)', run: ({ v }) => v.tensorSplit(0), error: /number of sections must be larger than 0, got 0/ },
  { name: 'tensorSplit of a 0-dim tensor is refused', inputs: {}, torch: 'torch.tensor(1).tensor_split(2)', run: () => torch.tensor(1).tensorSplit(2), error: /expected at least a 1-dimensional tensor/ },
  { name: 'takeAlongDim along dim 1', inputs: { m, idx }, torch: 'torch.take_along_dim(m, idx, 1)', run: ({ m, idx }) => torch.takeAlongDim(m, idx, 1) },
  { name: 'takeAlongDim of argsort sorts', inputs: { m }, torch: 'm.take_along_dim(m.argsort(0), 0)', run: ({ m }) => m.takeAlongDim(m.argsort(0), 0) },
  { name: 'takeAlongDim broadcasts the other dims', inputs: { m, idxB }, torch: 'm.take_along_dim(idxB, 0)', run: ({ m, idxB }) => m.takeAlongDim(idxB, 0) },
  { name: 'takeAlongDim without dim (flattened)', inputs: { m, idx }, torch: 'torch.take_along_dim(m, idx)', run: ({ m, idx }) => torch.takeAlongDim(m, idx) },
  { name: 'takeAlongDim with int32 indices is refused', inputs: { m }, torch: 'm.take_along_dim(torch.tensor([[0]], dtype=torch.int32), 1)', run: ({ m }) => m.takeAlongDim(torch.tensor([[0]], { dtype: 'int32' }), 1), error: /dtype of indices should be/ },
  { name: 'takeAlongDim with fewer index dims is refused', inputs: { m }, torch: 'm.take_along_dim(torch.tensor([0]), 1)', run: ({ m }) => m.takeAlongDim(torch.tensor([0]), 1), error: /input and indices should have the same number of dimensions/ },
  { name: 'searchsorted left', inputs: { seq, vals }, torch: 'torch.searchsorted(seq, vals)', run: ({ seq, vals }) => torch.searchsorted(seq, vals) },
  { name: 'searchsorted right', inputs: { seq, vals }, torch: 'torch.searchsorted(seq, vals, right=True)', run: ({ seq, vals }) => torch.searchsorted(seq, vals, { right: true }) },
  { name: "searchsorted side='right' with int32 output", inputs: { seq, vals }, torch: "torch.searchsorted(seq, vals, side='right', out_int32=True)", run: ({ seq, vals }) => torch.searchsorted(seq, vals, { side: 'right', outInt32: true }) },
  { name: 'searchsorted with repeated boundaries and NaN', inputs: { seqF, valsF }, torch: 'torch.searchsorted(seqF, valsF)', run: ({ seqF, valsF }) => torch.searchsorted(seqF, valsF) },
  { name: 'searchsorted right with repeated boundaries and NaN', inputs: { seqF, valsF }, torch: 'torch.searchsorted(seqF, valsF, right=True)', run: ({ seqF, valsF }) => torch.searchsorted(seqF, valsF, { right: true }) },
  { name: 'searchsorted with a boundary row per value row', inputs: { seq2, vals2 }, torch: 'torch.searchsorted(seq2, vals2)', run: ({ seq2, vals2 }) => torch.searchsorted(seq2, vals2) },
  { name: 'searchsorted with a sorter', inputs: { unsorted, sorter, vals }, torch: 'torch.searchsorted(unsorted, vals, sorter=sorter)', run: ({ unsorted, sorter, vals }) => torch.searchsorted(unsorted, vals, { sorter }) },
  { name: 'searchsorted of a number', inputs: { seq }, torch: 'torch.searchsorted(seq, 6)', run: ({ seq }) => torch.searchsorted(seq, 6) },
  { name: 'searchsorted of mismatched leading dims is refused', inputs: { seq2 }, torch: 'torch.searchsorted(seq2, torch.ones(3, 3))', run: ({ seq2 }) => torch.searchsorted(seq2, torch.ones([3, 3])), error: /boundaries tensor should be 1 dimension or the first N-1 dimensions/ },
  { name: 'searchsorted with an unknown side is refused', inputs: { seq, vals }, torch: "torch.searchsorted(seq, vals, side='up')", run: ({ seq, vals }) => torch.searchsorted(seq, vals, { side: 'up' as 'left' }), error: /side can only be 'left' or 'right'/ },
  { name: 'searchsorted with opposite side and right is refused', inputs: { seq, vals }, torch: "torch.searchsorted(seq, vals, side='left', right=True)", run: ({ seq, vals }) => torch.searchsorted(seq, vals, { side: 'left', right: true }), error: /side and right can't be set to opposites/ },
  { name: 'bucketize', inputs: { seq, vals }, torch: 'torch.bucketize(vals, seq)', run: ({ seq, vals }) => torch.bucketize(vals, seq) },
  { name: 'bucketize right with int32 output', inputs: { seq, vals }, torch: 'torch.bucketize(vals, seq, out_int32=True, right=True)', run: ({ seq, vals }) => torch.bucketize(vals, seq, { outInt32: true, right: true }) },
  { name: 'bucketize of floats', inputs: { seqF, valsF }, torch: 'torch.bucketize(valsF, seqF)', run: ({ seqF, valsF }) => torch.bucketize(valsF, seqF) },
  { name: 'bucketize with 2-D boundaries is refused', inputs: { seq2, vals2 }, torch: 'torch.bucketize(vals2, seq2)', run: ({ seq2, vals2 }) => torch.bucketize(vals2, seq2), error: /boundaries tensor must be 1 dimension, but got dim\(2\)/ },
  { name: 'maskedScatter', inputs: { m, mask, src }, torch: 'm.masked_scatter(mask, src)', run: ({ m, mask, src }) => m.maskedScatter(mask, src) },
  { name: 'maskedScatter with a broadcast mask', inputs: { m, rowMask, src }, torch: 'm.masked_scatter(rowMask, src)', run: ({ m, rowMask, src }) => torch.maskedScatter(m, rowMask, src) },
  { name: 'maskedScatter of integers from a 2-D source', inputs: { ints, mask, srcInt }, torch: 'ints.masked_scatter(mask, srcInt)', run: ({ ints, mask, srcInt }) => ints.maskedScatter(mask, srcInt) },
  { name: 'maskedScatter_ in place', inputs: { m, mask, src }, torch: 'm.clone().masked_scatter_(mask, src)', run: ({ m, mask, src }) => m.clone().maskedScatter_(mask, src) },
  { name: 'maskedScatter with too small a source is refused', inputs: { m }, torch: 'm.masked_scatter(torch.ones(3, 4, dtype=torch.bool), torch.ones(5))', run: ({ m }) => m.maskedScatter(torch.ones([3, 4], { dtype: 'bool' }), torch.ones([5])), error: /Number of elements of source < number of ones in mask/ },
  { name: 'maskedScatter with another source dtype is refused', inputs: { m, mask, srcInt }, torch: 'm.masked_scatter(mask, srcInt)', run: ({ m, mask, srcInt }) => m.maskedScatter(mask, srcInt), error: /expected self and source to have same dtypes/ },
  { name: 'maskedScatter with an integer mask is refused', inputs: { m, ints, src }, torch: 'm.masked_scatter(ints, src)', run: ({ m, ints, src }) => m.maskedScatter(ints, src), error: /only supports boolean masks/ },
];

export const shapeIndexCases: Record<string, RefCase[]> = { 'shape and indexing ops': cases };
