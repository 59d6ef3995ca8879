/**
 * Differential tests against PyTorch (cpu) of the ops whose cpu kernels run
 * vectorized loops: gelu (erf and tanh), softmax/logSoftmax, sum and mean,
 * at vector tails, strided and sliced inputs, large magnitudes, inf and NaN,
 * and each float dtype (op_cases/vector_loops.ts).
 */
import { compareWithTorch } from './torch_reference';
import { vectorLoopCases } from './op_cases/vector_loops';

for (const [group, cases] of Object.entries(vectorLoopCases)) describe(group, () => compareWithTorch(cases));
