/**
 * Differential tests against PyTorch (cpu) of unique and uniqueConsecutive
 * (native/ops/unique.ts): values, inverse indices, counts, with and without
 * dim, positional and options forms.
 */
import { compareWithTorch } from './torch_reference';
import { uniqueCases } from './op_cases/unique';

describe('unique against PyTorch', () => {
  compareWithTorch(uniqueCases['unique']);
});
