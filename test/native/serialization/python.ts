/**
 * Runs safetensors_reference.py (Python's safetensors and PyTorch) for the
 * serialization tests, and compares tensors byte for byte. The Python is
 * TSGPU_PYTHON (npm test sets it to build/pyref), as for the differential
 * tests; a Python without the packages fails the tests with their names.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as torch from '../../../native/index';
import { PYTHON } from '../torch_reference';

const SCRIPT = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'native', 'serialization', 'safetensors_reference.py');

/** A tensor as Python described it: dtype (torch's name without "torch."), shape and raw bytes. */
export interface PyTensor {
  key: string;
  dtype: string;
  shape: number[];
  data: string;
}

let checked = false;

/**
 * Throws, naming the missing packages, unless `python` (default PYTHON)
 * imports torch and safetensors (with `env` added to its environment).
 */
export function requirePythonPackages(python = PYTHON, env?: Record<string, string>): void {
  const usual = python === PYTHON && env === undefined;
  if (usual && checked) return;
  const script = [
    'import importlib',
    'missing = []',
    'for name in ("torch", "safetensors"):',
    '    try:',
    '        importlib.import_module(name)',
    '    except Exception as e:',
    '        missing.append(f"{name} ({type(e).__name__}: {e})")',
    'print("; ".join(missing))',
  ].join('\n');
  const r = spawnSync(python, ['-c', script], { encoding: 'utf8', timeout: 120000, env: { ...process.env, ...env } });
  const missing = r.status === 0 ? r.stdout.trim() : `python itself (${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`;
  if (missing !== '') {
    throw new Error(
      `the serialization tests need the Python packages torch and safetensors in ${python} (TSGPU_PYTHON), which lacks: ${missing}. ` +
        'npm test makes build/pyref with them (scripts/pyref.js); else pip install torch safetensors and set TSGPU_PYTHON to that python.',
    );
  }
  if (usual) checked = true;
}

/** Sends requests to the Python side (one process for all of them) and returns its answers, in order. */
export function python<T extends unknown[]>(...requests: Record<string, unknown>[]): T {
  requirePythonPackages();
  const r = spawnSync(PYTHON, [SCRIPT], { input: JSON.stringify(requests), encoding: 'utf8', maxBuffer: 1 << 28, timeout: 120000 });
  if (r.status !== 0) throw new Error(`${PYTHON} ${SCRIPT} failed (status ${r.status}) for ${JSON.stringify(requests)}: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as T;
}

/** The raw bytes of a tensor's elements, row-major (what a safetensors file holds). */
export function rawBytes(t: torch.Tensor): Buffer {
  const a = t.data();
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Expects a tensor to have Python's dtype, shape and the very same bytes. */
export function expectSameAsPython(t: torch.Tensor, want: PyTensor): void {
  expect({ key: want.key, dtype: t.dtype, shape: t.shape }).toEqual({ key: want.key, dtype: want.dtype, shape: want.shape });
  expect(rawBytes(t).toString('base64')).toBe(want.data);
}

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsgpu-safetensors-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
