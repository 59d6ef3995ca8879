/** Runs one of the C++ test executables that the native build puts in build/Release (or TSGPU_NATIVE_DIR). */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from './helpers';

/**
 * Runs build/Release/`name` (TSGPU_NATIVE_DIR/`name` where that is set) and expects every C++ test in it to pass; prints the
 * executable's output when one fails, so the failing CHECK shows in the jest log.
 */
export function expectCppTestsPass(name: string, timeoutMs = 120000): void {
  const bin = path.join(process.env.TSGPU_NATIVE_DIR ? path.resolve(process.env.TSGPU_NATIVE_DIR) : path.join(repoRoot, 'build', 'Release'), name);
  expect(fs.existsSync(bin)).toBe(true);
  const r = spawnSync(bin, [], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) {
    // eslint-disable-next-line no-console
    console.log(r.stdout, r.stderr);
  }
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/(\d+)\/\1 tests passed/);
}
