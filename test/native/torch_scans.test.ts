/**
 * Differential tests against PyTorch (cpu) of the running scans
 * (native/ops/scans.ts, kernels of ops/common/scan_kernels.h): cumprod,
 * logcumsumexp, cummax, cummin — values, indices, dtypes, shapes and errors.
 */
import { compareWithTorch } from './torch_reference';
import { scanCases } from './op_cases/scans';

describe('running scans against PyTorch', () => {
  compareWithTorch(scanCases['running scans']);
});
