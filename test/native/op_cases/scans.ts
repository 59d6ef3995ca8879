/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the running scans
 * (native/ops/scans.ts, kernels of ops/common/scan_kernels.h): cumprod,
 * logcumsumexp, cummax, cummin — values, indices, dtypes, shapes and errors.
 *
 * Shared by the PyTorch differential test (torch_scans.test.ts) and the CUDA test
 * (cuda_new_ops.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(2202);
const x = torch.randn([3, 6]);
const x3 = torch.randn([2, 5, 4]);
const long = torch.rand([2, 700]).add(0.6);
const f64 = torch.randn([4, 5], { dtype: 'float64' });
const f16 = torch.randn([3, 5]).half();
const ints = torch.randint(-3, 4, [3, 5]);
const i32 = torch.randint(-3, 4, [3, 5]).int();
const u8 = torch.randint(0, 3, [4, 4]).byte();
const bools = torch.rand([3, 5]).gt(0.4);
const withZeros = torch.tensor([[2, 0, 3, 0.5, 4], [1, 2, 3, 4, 0.5]]);
const ties = torch.randint(0, 3, [4, 8]).float();
const nans = torch.tensor([[1, 3, NaN, 2, 5, NaN, 0], [-Infinity, -Infinity, 0, Infinity, 1, -1, 2]]);
const scalar = torch.tensor(2.5);
const empty = torch.zeros([0, 3]);
const vi = (r: torch.ValuesIndices): torch.Tensor[] => [r.values, r.indices];

const cases: RefCase[] = [
  { name: 'cumprod along dim 1', inputs: { x }, torch: 'x.cumprod(1)', run: ({ x }) => x.cumprod(1) },
  { name: 'cumprod along dim 0 of 3-D', inputs: { x3 }, torch: 'torch.cumprod(x3, 0)', run: ({ x3 }) => torch.cumprod(x3, 0) },
  { name: 'cumprod along a strided middle dim', inputs: { x3 }, torch: 'x3.transpose(0, 2).cumprod(1)', run: ({ x3 }) => x3.transpose(0, 2).cumprod(1) },
  { name: 'cumprod of long rows', inputs: { long }, torch: 'long.cumprod(-1)', run: ({ long }) => long.cumprod(-1), rtol: 1e-4 },
  { name: 'cumprod of float64', inputs: { f64 }, torch: 'f64.cumprod(1)', run: ({ f64 }) => f64.cumprod(1) },
  { name: 'cumprod of float16', inputs: { f16 }, torch: 'f16.cumprod(1)', run: ({ f16 }) => f16.cumprod(1), rtol: 2e-3, atol: 1e-3 },
  { name: 'cumprod of int64', inputs: { ints }, torch: 'ints.cumprod(1)', run: ({ ints }) => ints.cumprod(1) },
  { name: 'cumprod of int32 gives int64', inputs: { i32 }, torch: 'i32.cumprod(0)', run: ({ i32 }) => i32.cumprod(0) },
  { name: 'cumprod of bool gives int64', inputs: { bools }, torch: 'bools.cumprod(1)', run: ({ bools }) => bools.cumprod(1) },
  { name: 'cumprod with a dtype', inputs: { i32 }, torch: 'i32.cumprod(1, dtype=torch.float64)', run: ({ i32 }) => i32.cumprod(1, { dtype: 'float64' }) },
  { name: 'cumprod with zeros', inputs: { withZeros }, torch: 'withZeros.cumprod(1)', run: ({ withZeros }) => withZeros.cumprod(1) },
  { name: 'cumprod of a 0-dim tensor', inputs: { scalar }, torch: 'scalar.cumprod(0)', run: ({ scalar }) => scalar.cumprod(0) },
  { name: 'cumprod of an empty tensor', inputs: { empty }, torch: 'empty.cumprod(0)', run: ({ empty }) => empty.cumprod(0) },
  { name: 'cumprod with a dim out of range', inputs: { x }, torch: 'x.cumprod(2)', run: ({ x }) => x.cumprod(2), error: /out of range/ },
  { name: 'logcumsumexp along dim 1', inputs: { x }, torch: 'x.logcumsumexp(1)', run: ({ x }) => x.logcumsumexp(1) },
  { name: 'logcumsumexp of large values stays finite', inputs: { x }, torch: '(x * 200).logcumsumexp(1)', run: ({ x }) => x.mul(200).logcumsumexp(1), rtol: 1e-5 },
  { name: 'logcumsumexp along dim 0 of 3-D', inputs: { x3 }, torch: 'torch.logcumsumexp(x3, 0)', run: ({ x3 }) => torch.logcumsumexp(x3, 0) },
  { name: 'logcumsumexp of long rows', inputs: { long }, torch: 'long.logcumsumexp(1)', run: ({ long }) => long.logcumsumexp(1), rtol: 1e-5 },
  { name: 'logcumsumexp of float64', inputs: { f64 }, torch: 'f64.logcumsumexp(0)', run: ({ f64 }) => f64.logcumsumexp(0) },
  { name: 'logcumsumexp with infinities and NaN', inputs: { nans }, torch: 'nans.logcumsumexp(1)', run: ({ nans }) => nans.logcumsumexp(1) },
  { name: 'logcumsumexp of integers is refused', inputs: { ints }, torch: 'ints.logcumsumexp(1)', run: ({ ints }) => ints.logcumsumexp(1), error: /logcumsumexp/ },
  { name: 'cummax along dim 1', inputs: { x }, torch: 'tuple(x.cummax(1))', run: ({ x }) => vi(x.cummax(1)) },
  { name: 'cummax along dim 0 of 3-D', inputs: { x3 }, torch: 'tuple(torch.cummax(x3, 0))', run: ({ x3 }) => vi(torch.cummax(x3, 0)) },
  { name: 'cummax with ties: the last index', inputs: { ties }, torch: 'tuple(ties.cummax(1))', run: ({ ties }) => vi(ties.cummax(1)) },
  { name: 'cummax with NaN and infinities', inputs: { nans }, torch: 'tuple(nans.cummax(1))', run: ({ nans }) => vi(nans.cummax(1)) },
  { name: 'cummax of long rows', inputs: { long }, torch: 'tuple(long.cummax(1))', run: ({ long }) => vi(long.cummax(1)) },
  { name: 'cummax of int64', inputs: { ints }, torch: 'tuple(ints.cummax(1))', run: ({ ints }) => vi(ints.cummax(1)) },
  { name: 'cummax of uint8', inputs: { u8 }, torch: 'tuple(u8.cummax(0))', run: ({ u8 }) => vi(u8.cummax(0)) },
  { name: 'cummax of bool', inputs: { bools }, torch: 'tuple(bools.cummax(1))', run: ({ bools }) => vi(bools.cummax(1)) },
  { name: 'cummax of float16', inputs: { f16 }, torch: 'tuple(f16.cummax(1))', run: ({ f16 }) => vi(f16.cummax(1)) },
  { name: 'cummax of a 0-dim tensor', inputs: { scalar }, torch: 'tuple(scalar.cummax(0))', run: ({ scalar }) => vi(scalar.cummax(0)) },
  { name: 'cummax of an empty tensor', inputs: { empty }, torch: 'tuple(empty.cummax(0))', run: ({ empty }) => vi(empty.cummax(0)) },
  { name: 'cummin along dim 1', inputs: { x }, torch: 'tuple(x.cummin(1))', run: ({ x }) => vi(x.cummin(1)) },
  { name: 'cummin with ties: the last index', inputs: { ties }, torch: 'tuple(torch.cummin(ties, 1))', run: ({ ties }) => vi(torch.cummin(ties, 1)) },
  { name: 'cummin with NaN and infinities', inputs: { nans }, torch: 'tuple(nans.cummin(1))', run: ({ nans }) => vi(nans.cummin(1)) },
  { name: 'cummin of int32 along dim 0', inputs: { i32 }, torch: 'tuple(i32.cummin(0))', run: ({ i32 }) => vi(i32.cummin(0)) },
  { name: 'cummin with a dim out of range', inputs: { x }, torch: 'x.cummin(-3)', run: ({ x }) => vi(x.cummin(-3)), error: /out of range/ },
];

export const scanCases: Record<string, RefCase[]> = { 'running scans': cases };
