/**
 * Differential tests against PyTorch (cpu) of the elementwise math ops:
 * unary functions, arithmetic with alpha/roundingMode, pow, remainder,
 * comparisons, logical ops, where, clamp, lerp, addcmul/addcdiv; across
 * dtypes, broadcasting, strided (transposed) inputs, numbers and in-place
 * writes through views; on random inputs made by the runtime.
 */
import { compareWithTorch } from './torch_reference';
import { mathCases } from './op_cases/math';

for (const [group, cases] of Object.entries(mathCases)) describe(group, () => compareWithTorch(cases));
