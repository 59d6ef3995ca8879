/**
 * Runs the C++ tests of the CUDA gemm (build/Release/tsgpu_cuda_gemm_tests):
 * cuBLAS and the built-in kernel against a float64 reference on a GPU; where
 * there is none, only the loader's report of where it looked for cuBLAS runs
 * and the GPU cases print why they were skipped.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../../native/index';
import { repoRoot } from './helpers';

const bin = path.join(repoRoot, 'build', 'Release', 'tsgpu_cuda_gemm_tests');
const built = fs.existsSync(bin);
if (!built) {
  // eslint-disable-next-line no-console
  console.log('CUDA gemm tests skipped: the addon was built without nvcc');
} else if (!torch.cuda.isAvailable()) {
  // eslint-disable-next-line no-console
  console.log(`CUDA gemm GPU cases skipped: ${torch.cuda.unavailableReason()}`);
}

(built ? test : test.skip)('C++ tsgpu_cuda_gemm_tests pass', () => {
  const r = spawnSync(bin, [], { encoding: 'utf8', timeout: 300000 });
  if (r.status !== 0) {
    // eslint-disable-next-line no-console
    console.log(r.stdout, r.stderr);
  }
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/(\d+)\/\1 tests passed/);
  if (torch.cuda.isAvailable()) expect(r.stdout).not.toMatch(/SKIP/);
});
