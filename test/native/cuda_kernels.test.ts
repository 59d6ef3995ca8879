/**
 * CUDA kernels against the CPU reference: every case of the PyTorch
 * differential tests of the kernels (op_cases/*) that succeeds on cpu runs again with its
 * inputs copied to cuda:0, and the results must agree within a tolerance a
 * little wider than PyTorch's (transcendentals and reduction orders differ
 * by a few ulps). Skipped, with the reason printed, where CUDA is unavailable.
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';
import { apiCases } from './op_cases/api';
import { indexCases } from './op_cases/index';
import { mathCases } from './op_cases/math';
import { nnCases } from './op_cases/nn';
import { reduceCases } from './op_cases/reduce';
import { unaryOpCases } from './op_cases/unary_ops';
import { binaryOpCases } from './op_cases/binary_ops';
import { vectorLoopCases } from './op_cases/vector_loops';
import { compareOnCuda } from './cuda_compare';

for (const [group, cases] of Object.entries({ ...mathCases, ...reduceCases, ...indexCases, ...nnCases, ...apiCases, ...vectorLoopCases, ...unaryOpCases, ...binaryOpCases })) {
  describe(`cuda vs cpu: ${group}`, () => {
    for (const c of cases) {
      if (c.error) continue;  // refusals are checked on cpu (and are device independent)
      if (Object.keys(c.inputs).length === 0) continue;  // nothing to move: the case makes cpu tensors itself
      if (group === 'printing') continue;  // the text names the device
      cudaTest(c.name, () => compareOnCuda(c));
    }
  });
}
