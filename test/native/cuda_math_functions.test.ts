/**
 * CUDA against the CPU reference for the elementwise functions with their
 * own kernels and their compositions (op_cases/math_functions.ts, the cases
 * of torch_math_functions.test.ts): each case that succeeds on cpu runs
 * again with its inputs copied to cuda:0; shapes and dtypes must be equal
 * and values agree within four times the dtype's tolerance (the device's
 * transcendentals differ from the host's by a few ulps). Skipped, with the
 * reason printed, where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda_math_functions
 */
import * as torch from '../../native/index';
import { mathFunctionCases } from './op_cases/math_functions';
import { compareOnCuda, values } from './cuda_compare';

const available = torch.cuda.isAvailable();
const cudaTest = available ? test : test.skip;
if (!available) {
  // eslint-disable-next-line no-console
  console.log(`CUDA math function tests skipped: ${torch.cuda.unavailableReason()}`);
}

for (const [group, cases] of Object.entries(mathFunctionCases)) {
  describe(`cuda vs cpu: ${group}`, () => {
    for (const c of cases) {
      if (c.error || Object.keys(c.inputs).length === 0) continue;  // refusals are checked on cpu
      cudaTest(c.name, () => compareOnCuda(c));
    }
  });
}

describe('cuda: integer fmod by zero gives 0 without a check (see ops/math.ts)', () => {
  cudaTest('fmod of int64 by a zero tensor', () => {
    const a = torch.tensor([5, -7, 3]).cuda();
    const z = torch.tensor([0, 2, 0]).cuda();
    expect(values(torch.fmod(a, z))).toEqual([0, -1, 0]);
  });
});
