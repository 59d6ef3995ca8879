/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the
 * ops whose cpu kernels run vectorized loops (gelu, softmax/logSoftmax, sum,
 * mean): lengths that are not a multiple of the vector width, strided and
 * sliced inputs, large magnitudes, infinities and NaN, and each float dtype.
 *
 * Shared by the PyTorch differential test (torch_vector_loops.test.ts) and the
 * CUDA test (cuda_kernels.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(2468);
/** 1001 elements: every vector width leaves a tail. */
const odd = torch.randn([7, 143]).mul(4);
/** Magnitudes where exp overflows and erf saturates, and the values around them. */
const edges = torch.tensor([
  -Infinity, -1e30, -200, -100, -88.8, -20, -9.5, -6.4, -6.3, -5.7, -4.5, -3, -1.42, -1.41, -1, -0.5, -1e-3, -1e-30,
  0, 1e-30, 1e-3, 0.5, 1, 1.41, 1.42, 3, 4.5, 5.7, 6.3, 6.4, 9.5, 20, 88.8, 100, 200, 1e30, Infinity,
]);
const withNan = torch.tensor([1, 2, NaN, -3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
const f64 = torch.randn([5, 37]).mul(3).double();
const f16 = torch.randn([5, 37]).mul(3).half();
const bf16 = torch.randn([5, 37]).mul(3).bfloat16();
/** Rows of 1 to 40 elements, and a long row whose sum spans several blocks. */
const rows = Array.from({ length: 40 }, (_, i) => torch.randn([3, i + 1]).mul(5));
const longRow = torch.randn([2, 10007]).mul(8);
/** Large spread in a row: the max dominates, most terms underflow. */
const spread = torch.randn([6, 129]).mul(60);
const negInfRow = torch.tensor([[-Infinity, -Infinity, -Infinity], [0, -Infinity, 1]]);
const hugeSum = torch.randn([1000003]);
const offset = torch.randn([3, 1000]);

const gelu: RefCase[] = [
  { name: 'gelu exact, 1001 elements', inputs: { odd }, torch: 'torch.nn.functional.gelu(odd)', run: ({ odd }) => torch.gelu(odd) },
  { name: 'gelu tanh, 1001 elements', inputs: { odd }, torch: "torch.nn.functional.gelu(odd, approximate='tanh')",
    run: ({ odd }) => torch.gelu(odd, { approximate: 'tanh' }) },
  // ±inf are left out of gelu's comparison: PyTorch's own answer for gelu(inf) moved between versions (1.13: inf, 2.11 on
  // x86: NaN); torch_vector_loops.test.ts holds the values there.
  { name: 'gelu exact at large magnitudes and NaN', inputs: { e: torch.cat([edges.slice(0, 1, 36), withNan]) }, torch: 'torch.nn.functional.gelu(e)',
    run: ({ e }) => torch.gelu(e) },
  { name: 'gelu tanh at large magnitudes and NaN', inputs: { e: torch.cat([edges.slice(0, 1, 36), withNan]) },
    torch: "torch.nn.functional.gelu(e, approximate='tanh')", run: ({ e }) => torch.gelu(e, { approximate: 'tanh' }) },
  { name: 'gelu of a transpose', inputs: { odd }, torch: 'torch.nn.functional.gelu(odd.t())', run: ({ odd }) => torch.gelu(odd.t()) },
  { name: 'gelu of a column slice', inputs: { odd }, torch: 'torch.nn.functional.gelu(odd[:, 3:130])',
    run: ({ odd }) => torch.gelu(odd.slice(1, 3, 130)) },
  { name: 'gelu in place on a row slice', inputs: { odd }, torch: 'torch.nn.functional.gelu(odd[2:5])',
    run: ({ odd }) => odd.clone().slice(0, 2, 5).gelu_() },
  { name: 'gelu float64', inputs: { f64 }, torch: 'torch.nn.functional.gelu(f64)', run: ({ f64 }) => torch.gelu(f64) },
  { name: 'gelu tanh float16', inputs: { f16 }, torch: "torch.nn.functional.gelu(f16.float(), approximate='tanh').half()",
    run: ({ f16 }) => torch.gelu(f16, { approximate: 'tanh' }) },
  { name: 'gelu bfloat16', inputs: { bf16 }, torch: 'torch.nn.functional.gelu(bf16)', run: ({ bf16 }) => torch.gelu(bf16) },
];

const softmax: RefCase[] = [
  ...rows.map((r, i): RefCase => ({ name: `softmax of rows of ${i + 1}`, inputs: { r }, torch: 'r.softmax(1)', run: ({ r }) => r.softmax(1) })),
  { name: 'softmax of a long row', inputs: { longRow }, torch: 'longRow.softmax(1)', run: ({ longRow }) => longRow.softmax(1) },
  { name: 'logSoftmax of a long row', inputs: { longRow }, torch: 'longRow.log_softmax(1)', run: ({ longRow }) => longRow.logSoftmax(1) },
  { name: 'softmax with a large spread', inputs: { spread }, torch: 'spread.softmax(1)', run: ({ spread }) => spread.softmax(1) },
  { name: 'logSoftmax with a large spread', inputs: { spread }, torch: 'spread.log_softmax(1)', run: ({ spread }) => spread.logSoftmax(1) },
  { name: 'softmax with -inf entries and a row of -inf', inputs: { negInfRow }, torch: 'negInfRow.softmax(1)', run: ({ negInfRow }) => negInfRow.softmax(1) },
  { name: 'logSoftmax with -inf entries', inputs: { n: negInfRow.slice(0, 1, 2) }, torch: 'n.log_softmax(1)', run: ({ n }) => n.logSoftmax(1) },
  { name: 'softmax of a row with NaN', inputs: { n: withNan.view([1, 18]) }, torch: 'n.softmax(1)', run: ({ n }) => n.softmax(1) },
  { name: 'softmax of a transpose (strided rows)', inputs: { odd }, torch: 'odd.t().softmax(1)', run: ({ odd }) => odd.t().softmax(1) },
  { name: 'softmax of a column slice', inputs: { odd }, torch: 'odd[:, 5:138].softmax(1)', run: ({ odd }) => odd.slice(1, 5, 138).softmax(1) },
  { name: 'logSoftmax float16 of rows of 37', inputs: { f16 }, torch: 'f16.float().log_softmax(1).half()', run: ({ f16 }) => f16.logSoftmax(1) },
  { name: 'softmax bfloat16 of rows of 37', inputs: { bf16 }, torch: 'bf16.float().softmax(1).bfloat16()', run: ({ bf16 }) => bf16.softmax(1) },
  { name: 'softmax float64 of rows of 37', inputs: { f64 }, torch: 'f64.softmax(1)', run: ({ f64 }) => f64.softmax(1) },
];

const sums: RefCase[] = [
  { name: 'sum of 1000003 elements', inputs: { hugeSum }, torch: 'hugeSum.double().sum().float()', run: ({ hugeSum }) => hugeSum.sum(), rtol: 1e-5 },
  { name: 'mean of 1000003 elements', inputs: { hugeSum }, torch: 'hugeSum.double().mean().float()', run: ({ hugeSum }) => hugeSum.mean(), rtol: 1e-5 },
  { name: 'sum of 1001 elements', inputs: { odd }, torch: 'odd.sum()', run: ({ odd }) => odd.sum() },
  ...rows.slice(0, 20).map((r, i): RefCase => ({ name: `sum of rows of ${i + 1}`, inputs: { r }, torch: 'r.sum(1)', run: ({ r }) => r.sum(1) })),
  { name: 'sum of a row slice starting off the vector boundary', inputs: { offset }, torch: 'offset[:, 3:997].sum(1)',
    run: ({ offset }) => offset.slice(1, 3, 997).sum(1) },
  { name: 'sum of a transpose', inputs: { odd }, torch: 'odd.t().sum()', run: ({ odd }) => odd.t().sum() },
  { name: 'sum of large values', inputs: { l: odd.mul(1e6) }, torch: 'l.sum()', run: ({ l }) => l.sum() },
  { name: 'sum with NaN', inputs: { withNan }, torch: 'withNan.sum()', run: ({ withNan }) => withNan.sum() },
  { name: 'sum with inf', inputs: { e: edges.slice(0, 18, 37) }, torch: 'e.sum()', run: ({ e }) => e.sum() },
];

export const vectorLoopCases: Record<string, RefCase[]> = {
  'gelu (vector loops)': gelu,
  'softmax (vector loops)': softmax,
  'sum and mean (vector loops)': sums,
};
