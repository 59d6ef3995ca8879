/**
 * Differential tests against PyTorch (cpu) of the elementwise functions
 * with their own kernels (tan … erfinv, atan2, hypot, copysign, fmod, the
 * bitwise ops) and of their compositions (square, clip, isnan …, nanToNum,
 * floorDivide, xlogy, heaviside, logit); the cases are in
 * op_cases/math_functions.ts.
 */
import { compareWithTorch } from './torch_reference';
import { mathFunctionCases } from './op_cases/math_functions';

for (const [group, cases] of Object.entries(mathFunctionCases)) describe(group, () => compareWithTorch(cases));
