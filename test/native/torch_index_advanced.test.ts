/**
 * Differential tests against PyTorch (cpu) of indexing with tensors
 * (advanced indexing): integer-tensor gathers, bool masks, mixed with
 * numbers, slices, null and '...', PyTorch's placement of the indexed dims,
 * negative indices, broadcasting of several index tensors, booleans, and
 * the assignment `x[indices] = v` (indexPut_, with accumulate), with the
 * errors PyTorch raises. These were silently wrong before (x.index(tensor)
 * returned the whole tensor).
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

torch.manualSeed(2207);
const x = torch.randn(4, 5, 6);
const m = torch.randn(5, 7);
const i = torch.tensor([0, 2, 3]);
const j = torch.tensor([-1, 1, 0]);
const i2 = torch.tensor([[0, 1], [3, 2]]);
const i32 = torch.tensor([4, 0, 1], { dtype: 'int32' });
const mask = torch.rand(5, 7).gt(0.5);
const rows = torch.tensor([true, false, true, true, false]);
const ints = torch.randint(-9, 9, [5, 7]);
const v3 = torch.randn(3);

const reads: RefCase[] = [
  { name: 'x[idx] gathers rows', inputs: { x, i }, torch: 'x[i]', run: ({ x, i }) => x.index(i) },
  { name: 'x[idx] of a 2-D index', inputs: { x, i2 }, torch: 'x[i2]', run: ({ x, i2 }) => x.index(i2) },
  { name: 'negative indices count from the end', inputs: { m, j }, torch: 'm[j]', run: ({ m, j }) => m.index(j) },
  { name: 'int32 indices', inputs: { m, i32 }, torch: 'm[i32]', run: ({ m, i32 }) => m.index(i32) },
  { name: 'x[mask] selects (1-D result)', inputs: { m, mask }, torch: 'm[mask]', run: ({ m, mask }) => m.index(mask) },
  { name: 'x[x > 0] of integers', inputs: { ints }, torch: 'ints[ints > 0]', run: ({ ints }) => ints.index(ints.gt(0)) },
  { name: 'a 1-D mask over the first dim', inputs: { m, rows }, torch: 'm[rows]', run: ({ m, rows }) => m.index(rows) },
  { name: 'x[:, idx]', inputs: { x, i }, torch: 'x[:, i]', run: ({ x, i }) => x.index(':', i) },
  { name: 'x[..., idx]', inputs: { x, i }, torch: 'x[..., i]', run: ({ x, i }) => x.index('...', i) },
  { name: 'x[None, idx] as one list', inputs: { x, i }, torch: 'x[None, i]', run: ({ x, i }) => x.index([null, i]) },
  { name: 'x[[mask]] as one list', inputs: { m, mask }, torch: 'm[(mask,)]', run: ({ m, mask }) => m.index([mask]) },
  { name: 'adjacent indexed dims stay in place', inputs: { x, i, j }, torch: 'x[:, i, j]', run: ({ x, i, j }) => x.index(':', i, j) },
  { name: 'separated indexed dims go first', inputs: { x, i, j }, torch: 'x[i, :, j]', run: ({ x, i, j }) => x.index(i, ':', j) },
  { name: 'a number then an index (numbers are basic)', inputs: { x, i }, torch: 'x[0, :, i]', run: ({ x, i }) => x.index(0, ':', i) },
  { name: 'null between index tensors separates them', inputs: { x, i, j }, torch: 'x[i, None, j]', run: ({ x, i, j }) => x.index(i, null, j) },
  { name: 'index tensors broadcast together', inputs: { x, i, i2 }, torch: 'x[i2[:, :1], i[:2]]', run: ({ x, i, i2 }) => x.index(i2.index(':', ':1'), i.index(':2')) },
  { name: 'a slice with a step then an index', inputs: { x, j }, torch: 'x[1:, ::2, j]', run: ({ x, j }) => x.index('1:', '::2', j) },
  { name: 'an index of a transposed tensor', inputs: { m, i }, torch: 'm.t()[:, i]', run: ({ m, i }) => m.t().index(':', i) },
  { name: 'x[True] adds a dim', inputs: { m }, torch: 'm[True]', run: ({ m }) => m.index(true) },
  { name: 'x[False] is empty', inputs: { m }, torch: 'm[False]', run: ({ m }) => m.index(false) },
  { name: 'an empty index', inputs: { m, e: torch.tensor([], { dtype: 'int64' }) }, torch: 'm[e]', run: ({ m, e }) => m.index(e) },
  { name: 'a bool mask of a bool tensor', inputs: { mask }, torch: 'mask[mask]', run: ({ mask }) => mask.index(mask) },
  { name: 'the result is a copy (writing it leaves x alone)', inputs: { m, i }, torch: '(lambda y: (y[i].mul_(0), y)[1])(m.clone())',
    run: ({ m, i }) => { const y = m.clone(); y.index(i).mul_(0); return y; } },
  { name: 'an index out of range is refused', inputs: { m }, torch: 'm[torch.tensor([5])]', run: ({ m }) => m.index(torch.tensor([5])), error: /out of bounds/ },
  { name: 'a mask of the wrong shape is refused', inputs: { m }, torch: 'm[torch.tensor([True, False])]',
    run: ({ m }) => m.index(torch.tensor([true, false])), error: /shape of the mask/ },
  { name: 'float indices are refused', inputs: { m }, torch: 'm[torch.tensor([0.0])]', run: ({ m }) => m.index(torch.tensor([0.5])), error: /must be long/ },
  { name: 'index tensors that do not broadcast are refused', inputs: { x, i }, torch: 'x[i, i[:2]]',
    run: ({ x, i }) => x.index(i, i.index(':2')), error: /shape mismatch/ },
];

const writes: RefCase[] = [
  { name: 'x[mask] = number', inputs: { m, mask }, torch: '(lambda y: (y.__setitem__(mask, 7.0), y)[1])(m.clone())',
    run: ({ m, mask }) => m.clone().indexPut_([mask], 7) },
  { name: 'x[idx] = rows (broadcast)', inputs: { m, i }, torch: '(lambda y: (y.index_put_((i,), torch.arange(7.0)), y)[1])(m.clone())',
    run: ({ m, i }) => m.clone().indexPut_([i], torch.arange(7).float()) },
  { name: 'x[i, j] = values', inputs: { m, i, j, v3 }, torch: '(lambda y: (y.index_put_((i, j), v3), y)[1])(m.clone())',
    run: ({ m, i, j, v3 }) => m.clone().indexPut_([i, j], v3) },
  { name: 'accumulate adds repeated indices up', inputs: { m, v3 }, torch: '(lambda y: (y.index_put_((torch.tensor([1, 1, 4]),), v3[:, None], accumulate=True), y)[1])(m.clone())',
    run: ({ m, v3 }) => m.clone().indexPut_([torch.tensor([1, 1, 4])], v3.unsqueeze(1), { accumulate: true }) },
  { name: 'indexPut out of place', inputs: { m, rows }, torch: 'torch.index_put(m, (rows,), torch.tensor(-1.0))',
    run: ({ m, rows }) => torch.indexPut(m, [rows], torch.tensor(-1, { dtype: 'float32' })) },
  { name: 'writes through a view reach the base', inputs: { m, i }, torch: '(lambda y: (y.t().index_put_((i,), torch.tensor(0.0)), y)[1])(m.clone())',
    run: ({ m, i }) => { const y = m.clone(); y.t().indexPut_([i], 0); return y; } },
  { name: 'integer values into a float tensor are cast', inputs: { ints, mask }, torch: '(lambda y: (y.index_put_((mask,), torch.tensor(3)), y)[1])(ints.clone())',
    run: ({ ints, mask }) => ints.clone().indexPut_([mask], torch.tensor(3)) },
  { name: 'values of the wrong shape are refused', inputs: { m, i }, torch: 'm.clone().index_put_((i,), torch.zeros(2))',
    run: ({ m, i }) => m.clone().indexPut_([i], torch.zeros(2)), error: /shape mismatch/ },
  { name: 'null in the indices is refused', inputs: { m, i }, torch: 'm.clone().index_put_((None, i), torch.tensor(0.0))',
    run: ({ m, i }) => m.clone().indexPut_([null as unknown as torch.Tensor, i], 0), error: /expected a Tensor for indices\[0\]/ },
  { name: 'an expanded tensor is written as PyTorch writes it', inputs: { v3 },
    torch: '(lambda y: (y.expand(2, 3).index_put_((torch.tensor([0, 1]),), torch.tensor(1.0), accumulate=True), y)[1])(v3.clone())',
    run: ({ v3 }) => { const y = v3.clone(); y.expand(2, 3).indexPut_([torch.tensor([0, 1])], 1, { accumulate: true }); return y; } },
];

const more: RefCase[] = [
  { name: 'maskedSelect with a broadcast mask', inputs: { m, rows }, torch: '(torch.masked_select(m, m > 0), m.masked_select(rows[:, None]))',
    run: ({ m, rows }) => [torch.maskedSelect(m, m.gt(0)), m.maskedSelect(rows.unsqueeze(1))] },
  { name: 'take of flat positions (negative from the end)', inputs: { m, i2 }, torch: '(torch.take(m, i2), m.take(torch.tensor([-1, 0, 34])))',
    run: ({ m, i2 }) => [torch.take(m, i2), m.take(torch.tensor([-1, 0, 34]))] },
  { name: 'argwhere', inputs: { mask }, torch: 'torch.argwhere(mask)', run: ({ mask }) => torch.argwhere(mask) },
  { name: 'indexAdd with repeated indices and alpha', inputs: { m, s: torch.randn(5, 3) }, torch: 'm.index_add(1, torch.tensor([0, 6, 0]), s, alpha=2)',
    run: ({ m, s }) => m.indexAdd(1, torch.tensor([0, 6, 0]), s, { alpha: 2 }) },
  { name: 'indexCopy and indexFill', inputs: { m, s: torch.randn(2, 7) }, torch: '(m.index_copy(0, torch.tensor([4, 1]), s), m.index_fill(1, torch.tensor([2, 5]), -3.0))',
    run: ({ m, s }) => [m.indexCopy(0, torch.tensor([4, 1]), s), m.indexFill(1, torch.tensor([2, 5]), -3)] },
  { name: 'indexAdd_ in place', inputs: { m, s: torch.randn(2, 7) }, torch: '(lambda c: (c.index_add_(0, torch.tensor([1, 3]), s), c)[1])(m.clone())',
    run: ({ m, s }) => m.clone().indexAdd_(0, torch.tensor([1, 3]), s) },
  { name: 'indexCopy of a source of the wrong shape is refused', inputs: { m }, torch: 'm.index_copy(0, torch.tensor([1]), torch.zeros(2, 7))',
    run: ({ m }) => m.indexCopy(0, torch.tensor([1]), torch.zeros(2, 7)), error: /does not match/ },
  { name: 'meshgrid ij and xy', inputs: { a: torch.arange(3), b: torch.arange(4).mul(10), c: torch.arange(2) },
    torch: '(*torch.meshgrid(a, b, indexing="ij"), *torch.meshgrid(a, b, c, indexing="xy"))',
    run: ({ a, b, c }) => [...torch.meshgrid([a, b]), ...torch.meshgrid([a, b, c], { indexing: 'xy' })] },
  { name: 'trilIndices and triuIndices', inputs: {}, torch: '(torch.tril_indices(3, 4), torch.tril_indices(4, 3, -1), torch.triu_indices(3, 4, 1), torch.triu_indices(4, 4, -2))',
    run: () => [torch.trilIndices(3, 4), torch.trilIndices(4, 3, -1), torch.triuIndices(3, 4, 1), torch.triuIndices(4, 4, -2)] },
];

describe('reading with tensor indices', () => compareWithTorch(reads));
describe('maskedSelect, take, argwhere, indexAdd/Copy/Fill, meshgrid, tril/triuIndices', () => compareWithTorch(more));
describe('indexPut_', () => compareWithTorch(writes));

describe('index argument forms', () => {
  test('a list of numbers is refused as ambiguous (PyTorch reads x[[0, 2]] as an index list)', () => {
    expect(() => m.index([0, 2] as never)).toThrow(/ambiguous.*torch\.tensor\(\[0, 2\]\)/);
  });
  test('a list after other items is refused', () => {
    expect(() => m.index(0, [1] as never)).toThrow(/argument 2/);
  });
});
