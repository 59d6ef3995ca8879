/**
 * Differential tests against PyTorch (cpu) of joining, repeating and
 * indexing ops and of the nn functions, on random inputs made by the runtime.
 */
import { compareWithTorch } from './torch_reference';
import { indexCases } from './op_cases/index';

for (const [group, cases] of Object.entries(indexCases)) describe(group, () => compareWithTorch(cases));
