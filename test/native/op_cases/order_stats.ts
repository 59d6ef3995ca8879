/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the order statistics composed
 * over sort (native/ops/order_stats.ts): median, nanmedian, kthvalue, mode,
 * quantile, nanquantile — values, indices, dtypes, shapes and errors.
 *
 * Shared by the PyTorch differential test (torch_order_stats.test.ts) and the CUDA test
 * (cuda_new_ops.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(2201);
const x = torch.randn([4, 7]);
const x3 = torch.randn([3, 4, 5]);
const even = torch.randn([3, 6]);
const f64 = torch.randn([5, 4], { dtype: 'float64' });
const ints = torch.randperm(30).reshape([5, 6]);
const scalar = torch.tensor(1.5);
// NaN in some rows (row 0: one, row 2: all but one, row 3: all).
const nans = torch.randn([4, 5]);
nans.index(0, 2).fill_(NaN);
nans.index(2).narrow(0, 1, 4).fill_(NaN);
nans.index(3).fill_(NaN);
// Rows of 1,501 (row 1 with two NaN, row 4 with all but three NaN).
const longRows = torch.randn([6, 1501]);
longRows.index(1).narrow(0, 100, 2).fill_(NaN);
longRows.index(4).narrow(0, 3, 1498).fill_(NaN);
// Repeated small integers for mode (rows of at most 16, where PyTorch's index is the last occurrence).
const reps = torch.randint(0, 4, [6, 9]);
const repsF = reps.float().sub(1.5);
const q = torch.tensor([0, 0.1, 0.25, 0.5, 0.9, 1]);
const q64 = torch.tensor([0.3, 0.75], { dtype: 'float64' });
const vi = (r: torch.ValuesIndices): torch.Tensor[] => [r.values, r.indices];

const cases: RefCase[] = [
  { name: 'median of all elements (even count: the lower middle)', inputs: { even }, torch: 'even.median()', run: ({ even }) => even.median() },
  { name: 'median along dim 1', inputs: { x }, torch: 'tuple(x.median(1))', run: ({ x }) => vi(x.median(1)) },
  { name: 'median along dim 0 with keepdim', inputs: { x }, torch: 'tuple(x.median(0, True))', run: ({ x }) => vi(x.median(0, true)) },
  { name: 'median along a middle dim of 3-D', inputs: { x3 }, torch: 'tuple(torch.median(x3, -2))', run: ({ x3 }) => vi(torch.median(x3, -2)) },
  { name: 'median of integers', inputs: { ints }, torch: 'tuple(ints.median(1))', run: ({ ints }) => vi(ints.median(1)) },
  { name: 'median of float64', inputs: { f64 }, torch: 'tuple(f64.median(0))', run: ({ f64 }) => vi(f64.median(0)) },
  { name: 'median of a 0-dim tensor', inputs: { scalar }, torch: 'tuple(scalar.median(0))', run: ({ scalar }) => vi(scalar.median(0)) },
  { name: 'median with NaN: NaN and the first NaN', inputs: { nans }, torch: 'tuple(nans.median(1))', run: ({ nans }) => vi(nans.median(1)) },
  { name: 'median of all elements with NaN', inputs: { nans }, torch: 'nans.median()', run: ({ nans }) => nans.median() },
  { name: 'median of an empty tensor is NaN', inputs: {}, torch: 'torch.tensor([]).median()', run: () => torch.tensor([]).median() },
  { name: 'median along an empty dim is refused', inputs: {}, torch: 'torch.zeros(0, 3).median(0)', run: () => vi(torch.zeros([0, 3]).median(0)), error: /median\(\): Expected reduction dim 0 to have non-zero size/ },
  { name: 'median along a non-empty dim of an empty tensor', inputs: {}, torch: 'tuple(torch.zeros(0, 3).median(1))', run: () => vi(torch.zeros([0, 3]).median(1)) },
  { name: 'median with a dim out of range', inputs: { x }, torch: 'x.median(2)', run: ({ x }) => vi(x.median(2)), error: /out of range/ },
  { name: 'nanmedian skips NaN', inputs: { nans }, torch: 'tuple(nans.nanmedian(1))', run: ({ nans }) => vi(nans.nanmedian(1)) },
  { name: 'nanmedian of all elements', inputs: { nans }, torch: 'nans.nanmedian()', run: ({ nans }) => nans.nanmedian() },
  { name: 'nanmedian without NaN is median', inputs: { x }, torch: 'tuple(torch.nanmedian(x, 0, keepdim=True))', run: ({ x }) => vi(torch.nanmedian(x, 0, true)) },
  { name: 'kthvalue along the last dim', inputs: { x }, torch: 'tuple(x.kthvalue(3))', run: ({ x }) => vi(x.kthvalue(3)) },
  { name: 'kthvalue along dim 0 with keepdim', inputs: { x3 }, torch: 'tuple(torch.kthvalue(x3, 2, 0, True))', run: ({ x3 }) => vi(torch.kthvalue(x3, 2, 0, true)) },
  { name: 'median, nanmedian and kthvalue of long rows with ties and NaN (selection on cpu), bfloat16 and int32', inputs: { long: longRows },
    // With ties (rounded values, bfloat16, NaN) only the values: PyTorch does not say which of equal elements' index it gives.
    torch: '(*long.median(1), *long.nanmedian(1), *long[:4].kthvalue(700, 1), long.round().median(0).values, long.bfloat16().median(1).values, long.nan_to_num(0.0).round().int().kthvalue(3, 1).values)',
    run: ({ long }) => [...vi(long.median(1)), ...vi(long.nanmedian(1)), ...vi(long.narrow(0, 0, 4).kthvalue(700, 1)), long.round().median(0).values, long.bfloat16().median(1).values, long.nanToNum({ nan: 0 }).round().int().kthvalue(3, 1).values] },
  { name: 'kthvalue k = the dim size', inputs: { ints }, torch: 'tuple(ints.kthvalue(6, 1))', run: ({ ints }) => vi(ints.kthvalue(6, 1)) },
  { name: 'kthvalue with NaN (largest)', inputs: { nans }, torch: 'tuple(nans.kthvalue(5, 1))', run: ({ nans }) => vi(nans.kthvalue(5, 1)) },
  { name: 'kthvalue k out of range', inputs: { x }, torch: 'x.kthvalue(8)', run: ({ x }) => vi(x.kthvalue(8)), error: /kthvalue\(\): selected number k out of range for dimension 1/ },
  { name: 'kthvalue k = 0', inputs: { x }, torch: 'x.kthvalue(0)', run: ({ x }) => vi(x.kthvalue(0)), error: /selected number k out of range/ },
  { name: 'mode of integers along the last dim', inputs: { reps }, torch: 'tuple(reps.mode())', run: ({ reps }) => vi(reps.mode()) },
  { name: 'mode of floats along dim 0 with keepdim', inputs: { repsF }, torch: 'tuple(torch.mode(repsF, 0, True))', run: ({ repsF }) => vi(torch.mode(repsF, 0, true)) },
  { name: 'mode of distinct values: the smallest', inputs: { x }, torch: 'tuple(x.mode(1))', run: ({ x }) => vi(x.mode(1)) },
  { name: 'mode along an empty dim is refused', inputs: {}, torch: 'torch.zeros(0, 3).mode(0)', run: () => vi(torch.zeros([0, 3]).mode(0)), error: /mode\(\): Expected reduction dim 0 to have non-zero size/ },
  { name: 'quantile of all elements, scalar q', inputs: { x }, torch: 'x.quantile(0.3)', run: ({ x }) => x.quantile(0.3) },
  { name: 'quantile along dim 1, q a tensor', inputs: { x, q }, torch: 'x.quantile(q, 1)', run: ({ x, q }) => x.quantile(q, 1) },
  { name: 'quantile along dim 0 with keepdim', inputs: { x3, q }, torch: 'torch.quantile(x3, q, 0, True)', run: ({ x3, q }) => torch.quantile(x3, q, 0, true) },
  { name: 'quantile over all with keepdim', inputs: { x3, q }, torch: 'torch.quantile(x3, q, keepdim=True)', run: ({ x3, q }) => torch.quantile(x3, q, { keepdim: true }) },
  { name: 'quantile of float64', inputs: { f64, q64 }, torch: 'f64.quantile(q64, dim=-1)', run: ({ f64, q64 }) => f64.quantile(q64, { dim: -1 }) },
  ...(['lower', 'higher', 'midpoint', 'nearest'] as const).map((interpolation): RefCase => ({
    name: `quantile interpolation ${interpolation}`, inputs: { even, q }, torch: `even.quantile(q, 1, interpolation='${interpolation}')`,
    run: ({ even, q }) => even.quantile(q, 1, false, { interpolation }),
  })),
  { name: 'quantile with NaN rows is NaN', inputs: { nans, q }, torch: 'nans.quantile(q, 1)', run: ({ nans, q }) => nans.quantile(q, 1) },
  { name: 'nanquantile skips NaN', inputs: { nans, q }, torch: 'nans.nanquantile(q, 1)', run: ({ nans, q }) => nans.nanquantile(q, 1) },
  { name: 'nanquantile over all elements', inputs: { nans }, torch: 'torch.nanquantile(nans, 0.4)', run: ({ nans }) => torch.nanquantile(nans, 0.4) },
  { name: 'quantile of a 0-dim tensor along 0 with keepdim', inputs: { scalar, q }, torch: 'scalar.quantile(q, 0, True)', run: ({ scalar, q }) => scalar.quantile(q, 0, true) },
  { name: 'quantile q above 1 is refused', inputs: { x }, torch: 'x.quantile(1.5)', run: ({ x }) => x.quantile(1.5), error: /quantile\(\) q must be in the range \[0, 1\] but got 1.5/ },
  { name: 'quantile q tensor out of range is refused', inputs: { x }, torch: 'x.quantile(torch.tensor([0.5, -0.1]))', run: ({ x }) => x.quantile(torch.tensor([0.5, -0.1])), error: /q values must be in the range \[0, 1\]/ },
  { name: 'quantile of integers is refused', inputs: { ints }, torch: 'ints.quantile(0.5)', run: ({ ints }) => ints.quantile(0.5), error: /input tensor must be either float or double dtype/ },
  { name: 'quantile q of another dtype is refused', inputs: { x, q64 }, torch: 'x.quantile(q64)', run: ({ x, q64 }) => x.quantile(q64), error: /q tensor must be same dtype as the input tensor/ },
  { name: 'quantile of an empty tensor is refused', inputs: {}, torch: 'torch.tensor([]).quantile(0.5)', run: () => torch.tensor([]).quantile(0.5), error: /input tensor must be non-empty/ },
  { name: 'quantile with an unknown interpolation', inputs: { x }, torch: "x.quantile(0.5, interpolation='cubic')", run: ({ x }) => x.quantile(0.5, { interpolation: 'cubic' as 'linear' }), error: /interpolation must be one of linear, lower, higher, midpoint or nearest, but got cubic/ },
];

export const orderStatCases: Record<string, RefCase[]> = { 'order statistics': cases };
