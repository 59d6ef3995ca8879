/** Runs the C++ unit tests of the CPU thread pool and the gemm kernels (build/Release/tsgpu_cpu_tests). */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from './helpers';

test('C++ thread pool and gemm tests pass', () => {
  const bin = path.join(repoRoot, 'build', 'Release', 'tsgpu_cpu_tests');
  expect(fs.existsSync(bin)).toBe(true);
  const r = spawnSync(bin, [], { encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) {
    // eslint-disable-next-line no-console
    console.log(r.stdout, r.stderr);
  }
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/(\d+)\/\1 tests passed/);
});
