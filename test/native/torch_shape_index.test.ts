/**
 * Differential tests against PyTorch (cpu) of rot90, diagEmbed, tensorSplit,
 * takeAlongDim, searchsorted, bucketize and maskedScatter
 * (native/ops/shape_index.ts): values, dtypes, shapes and errors.
 */
import { compareWithTorch } from './torch_reference';
import { shapeIndexCases } from './op_cases/shape_index';

describe('shape and indexing ops against PyTorch', () => {
  compareWithTorch(shapeIndexCases['shape and indexing ops']);
});
