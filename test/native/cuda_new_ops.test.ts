/**
 * The scans, order statistics, unique and the shape and indexing ops of
 * issue 22 on CUDA against the CPU reference: every case of their PyTorch
 * differential tests (op_cases/scans, order_stats, unique, shape_index) that
 * succeeds on cpu runs again with its inputs copied to cuda:0, and the
 * results must agree (tolerance a little wider than PyTorch's: reduction
 * orders differ). Skipped, with the reason printed, where CUDA is unavailable.
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';
import { orderStatCases } from './op_cases/order_stats';
import { scanCases } from './op_cases/scans';
import { shapeIndexCases } from './op_cases/shape_index';
import { uniqueCases } from './op_cases/unique';
import { compareOnCuda } from './cuda_compare';

for (const [group, cases] of Object.entries({ ...scanCases, ...orderStatCases, ...uniqueCases, ...shapeIndexCases })) {
  describe(`cuda vs cpu: ${group}`, () => {
    for (const c of cases) {
      if (c.error) continue;  // refusals are checked on cpu (and are device independent)
      if (Object.keys(c.inputs).length === 0) continue;  // nothing to move: the case makes cpu tensors itself
      cudaTest(c.name, () => compareOnCuda(c));
    }
  });
}

describe('cuda vs cpu: long rows', () => {
  // Rows longer than one block's tile (256) and many rows: both cuda scan paths.
  for (const [name, shape, dim] of [['one block per long row', [3, 5000], 1], ['a thread per row', [3000, 7], 1], ['strided rows', [600, 4], 0]] as const) {
    cudaTest(`scans, ${name}`, () => {
      torch.manualSeed(5);
      const x = torch.rand(shape as unknown as number[]).add(0.5);
      const run = (t: torch.Tensor): torch.Tensor[] => [t.cumprod(dim).log(), t.logcumsumexp(dim), ...Object.values(t.cummax(dim)), ...Object.values(t.cummin(dim))];
      compareOnCuda({ name, inputs: { x }, torch: '', run: ({ x }) => run(x), rtol: 1e-4, atol: 1e-4 });
    });
  }
});
