/** Helpers for the native runtime's tests. */
import { spawnSync } from 'child_process';
import * as path from 'path';

/** The compiled runtime entry point (dist/native/index.js). */
export const runtimePath = path.resolve(__dirname, '..', '..', 'native', 'index.js');

/** The repository root (dist/test/native → ../../..). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/**
 * Runs `body` in a fresh node process where `torch` is the runtime, and
 * returns what it printed on its last line, parsed as JSON.
 */
export function runChild(
  body: string,
  opts: { env?: Record<string, string>; nodeArgs?: string[]; timeoutMs?: number } = {},
): { status: number | null; result: any; stdout: string; stderr: string } {
  const script = `const torch = require(${JSON.stringify(runtimePath)});\n${body}`;
  const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), '-e', script], {
    env: { ...process.env, ...(opts.env ?? {}) },
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 120000,
  });
  const lines = (r.stdout ?? '').trim().split('\n');
  let result: any = null;
  try {
    result = JSON.parse(lines[lines.length - 1]);
  } catch {
    result = null;
  }
  return { status: r.status, result, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** The error fn throws (with its code); fails the test when fn returns. */
export function errorOf(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected an error');
}

/**
 * Collects the garbage of this process (tensors that other test files of the
 * same jest worker dropped without dispose) and lets the runtime's finalizers
 * free their storages, so that a measurement of allocated memory that follows
 * sees only what the test itself does.
 */
export async function collectGarbage(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  require('v8').setFlagsFromString('--expose-gc');
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const gc = require('vm').runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0)); // finalization callbacks run as tasks
  }
}
