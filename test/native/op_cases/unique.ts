/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of unique and uniqueConsecutive
 * (native/ops/unique.ts): values, inverse indices, counts, with and without
 * dim, positional and options forms.
 *
 * Shared by the PyTorch differential test (torch_unique.test.ts) and the CUDA test
 * (cuda_new_ops.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(2203);
const ints = torch.randint(0, 6, [4, 5]);
const floats = torch.randint(-3, 3, [20]).float().div(2);
const runs = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2, 5, 5]);
const rows = torch.tensor([[1, 2, 0], [0, 5, 1], [1, 2, 0], [0, 5, 0], [1, 2, 0]]);
const cols = torch.randint(0, 2, [3, 6]);
const bools = torch.rand([9]).gt(0.5);
const nans = torch.tensor([NaN, 1, NaN, 0, 1]);
const empty = torch.tensor([], { dtype: 'int64' });
const slabs = torch.randint(0, 2, [4, 2, 3]);
const asList = (r: torch.UniqueResult): torch.Tensor[] => (Array.isArray(r) ? r : [r]);

const cases: RefCase[] = [
  { name: 'unique of integers', inputs: { ints }, torch: 'ints.unique()', run: ({ ints }) => asList(ints.unique()) },
  { name: 'unique with inverse and counts', inputs: { ints }, torch: 'torch.unique(ints, return_inverse=True, return_counts=True)',
    run: ({ ints }) => asList(torch.unique(ints, { returnInverse: true, returnCounts: true })) },
  { name: 'unique positional: sorted, returnInverse', inputs: { floats }, torch: 'torch.unique(floats, True, True)', run: ({ floats }) => asList(torch.unique(floats, true, true)) },
  { name: 'unique with counts only', inputs: { floats }, torch: 'floats.unique(return_counts=True)', run: ({ floats }) => asList(floats.unique({ returnCounts: true })) },
  { name: 'unique sorted=false (sorted on cpu, as PyTorch)', inputs: { ints }, torch: 'ints.unique(sorted=False)', run: ({ ints }) => asList(ints.unique({ sorted: false })) },
  { name: 'unique of bool', inputs: { bools }, torch: 'torch.unique(bools, return_inverse=True)', run: ({ bools }) => asList(torch.unique(bools, { returnInverse: true })) },
  { name: 'unique keeps every NaN', inputs: { nans }, torch: 'nans.unique(return_counts=True)', run: ({ nans }) => asList(nans.unique({ returnCounts: true })) },
  { name: 'unique of an empty tensor', inputs: { empty }, torch: 'torch.unique(empty, return_inverse=True, return_counts=True)',
    run: ({ empty }) => asList(torch.unique(empty, { returnInverse: true, returnCounts: true })) },
  { name: 'unique rows (dim 0)', inputs: { rows }, torch: 'torch.unique(rows, dim=0, return_inverse=True, return_counts=True)',
    run: ({ rows }) => asList(torch.unique(rows, { dim: 0, returnInverse: true, returnCounts: true })) },
  { name: 'unique columns (dim 1)', inputs: { cols }, torch: 'torch.unique(cols, dim=1, return_inverse=True, return_counts=True)',
    run: ({ cols }) => asList(torch.unique(cols, { dim: 1, returnInverse: true, returnCounts: true })) },
  { name: 'unique slabs of 3-D along dim 0', inputs: { slabs }, torch: 'torch.unique(slabs, dim=0, return_counts=True)',
    run: ({ slabs }) => asList(torch.unique(slabs, { dim: 0, returnCounts: true })) },
  { name: 'unique along a dim out of range', inputs: { rows }, torch: 'torch.unique(rows, dim=2)', run: ({ rows }) => asList(torch.unique(rows, { dim: 2 })), error: /out of range/ },
  { name: 'uniqueConsecutive', inputs: { runs }, torch: 'runs.unique_consecutive()', run: ({ runs }) => asList(runs.uniqueConsecutive()) },
  { name: 'uniqueConsecutive with inverse and counts', inputs: { runs }, torch: 'torch.unique_consecutive(runs, return_inverse=True, return_counts=True)',
    run: ({ runs }) => asList(torch.uniqueConsecutive(runs, { returnInverse: true, returnCounts: true })) },
  { name: 'uniqueConsecutive positional (returnInverse, returnCounts), the documented order', inputs: { runs }, torch: 'torch.unique_consecutive(runs, return_inverse=False, return_counts=True)',
    run: ({ runs }) => asList(torch.uniqueConsecutive(runs, false, true)) },
  { name: 'uniqueConsecutive of a 2-D tensor flattens', inputs: { ints }, torch: 'ints.unique_consecutive(return_inverse=True)',
    run: ({ ints }) => asList(ints.uniqueConsecutive({ returnInverse: true })) },
  { name: 'uniqueConsecutive rows (dim 0)', inputs: { rows }, torch: 'torch.unique_consecutive(rows, return_inverse=True, return_counts=True, dim=0)',
    run: ({ rows }) => asList(torch.uniqueConsecutive(rows, { returnInverse: true, returnCounts: true, dim: 0 })) },
];

export const uniqueCases: Record<string, RefCase[]> = { 'unique': cases };
