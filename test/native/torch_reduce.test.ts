/**
 * Differential tests against PyTorch (cpu) of reductions over all or given
 * dims with keepdim, arg-reducers, max/min with indices, var/std with a
 * correction, norm, logsumexp, all/any, softmax/logSoftmax and cumsum, on
 * random inputs (contiguous, transposed and sliced) in several dtypes.
 */
import { compareWithTorch } from './torch_reference';
import { reduceCases } from './op_cases/reduce';

for (const [group, cases] of Object.entries(reduceCases)) describe(group, () => compareWithTorch(cases));
