/**
 * Differential tests against PyTorch (cpu) of the order statistics composed
 * over sort (native/ops/order_stats.ts): median, nanmedian, kthvalue, mode,
 * quantile, nanquantile — values, indices, dtypes, shapes and errors.
 */
import { compareWithTorch } from './torch_reference';
import { orderStatCases } from './op_cases/order_stats';

describe('order statistics against PyTorch', () => {
  compareWithTorch(orderStatCases['order statistics']);
});
