/**
 * Runs the C++ unit tests: the allocator core (build/Release/tsgpu_core_tests),
 * the runtime layer with the cpu kernels (build/Release/tsgpu_runtime_tests), and
 * the CPU thread pool and gemm (build/Release/tsgpu_cpu_tests).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from './helpers';

for (const name of ['tsgpu_core_tests', 'tsgpu_runtime_tests', 'tsgpu_cpu_tests']) {
  test(`C++ ${name} pass`, () => {
    const bin = path.join(repoRoot, 'build', 'Release', name);
    expect(fs.existsSync(bin)).toBe(true);
    const r = spawnSync(bin, [], { encoding: 'utf8', timeout: 60000 });
    if (r.status !== 0) {
      // eslint-disable-next-line no-console
      console.log(r.stdout, r.stderr);
    }
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/(\d+)\/\1 tests passed/);
  });
}
