/**
 * Runs small PyTorch programs for the nn and optim tests: the tensors a test
 * made with the runtime (weights, inputs, gradients) are sent to PyTorch byte
 * for byte, the program computes with them and puts its results in `out`,
 * and the results come back as tensors of the runtime.
 *
 *   const [r] = runPrograms([{ code: 'out["y"] = inputs["x"] * 2', inputs: { x } }]);
 *   r.y  // a Tensor
 *
 * Every program of one call runs in one PyTorch process (its start-up is most
 * of the time), so a test file collects its programs and runs them once.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as torch from '../../../native/index';
import { PYTHON, worstExcess } from '../torch_reference';

const SCRIPT = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'native', 'nn', 'torch_program.py');

/** One program: Python code over `inputs` that fills `out`. */
export interface Program {
  code: string;
  inputs?: Record<string, torch.Tensor>;
}

/** What a program put in `out`: tensors, numbers, strings, lists and objects of them. */
export type Value = torch.Tensor | number | string | boolean | null | Value[] | { [k: string]: Value };

function encode(t: torch.Tensor): { dtype: string; shape: number[]; data: string } {
  const raw = t.data();
  return { dtype: t.dtype, shape: t.shape.slice(), data: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
}

function decode(v: unknown): Value {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('tensor' in o && Object.keys(o).length === 1) {
      const e = o.tensor as { dtype: torch.DType; shape: number[]; data: string };
      return torch.fromBuffer(new Uint8Array(Buffer.from(e.data, 'base64')), { dtype: e.dtype, shape: e.shape });
    }
    if ('float' in o && Object.keys(o).length === 1) return Number(String(o.float).replace('inf', 'Infinity'));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v as Value;
}

/** Runs the programs in one PyTorch process; a program that raised gives { error }. */
export function runPrograms(programs: readonly Program[]): Record<string, Value>[] {
  const input = JSON.stringify(programs.map((p) => ({
    code: p.code,
    inputs: Object.fromEntries(Object.entries(p.inputs ?? {}).map(([k, t]) => [k, encode(t)])),
  })));
  const r = spawnSync(PYTHON, [SCRIPT], { input, encoding: 'utf8', maxBuffer: 1 << 30, timeout: 300000 });
  if (r.status !== 0) {
    throw new Error(`${PYTHON} ${SCRIPT} failed (status ${r.status}): ${r.stderr || r.error?.message}\n` +
      'These tests need PyTorch: set TSGPU_PYTHON to a python with torch (npm test uses build/pyref).');
  }
  return (JSON.parse(r.stdout) as ({ out: unknown } | { error: string })[]).map((x) =>
    'error' in x ? { error: x.error } : (decode(x.out) as Record<string, Value>));
}

/** Runs the programs once, when the first test asks: `const ref = lazyPrograms(list); ... ref()[i]`. */
export function lazyPrograms(programs: readonly Program[]): () => Record<string, Value>[] {
  let results: Record<string, Value>[] | null = null;
  return () => (results ??= runPrograms(programs));
}

/** The elements of a tensor as numbers. */
export function numbers(t: torch.Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, (x) => Number(x));
}

/** Throws unless `got` has `want`'s shape and every element is within atol + rtol·|want|. */
export function expectClose(got: torch.Tensor, want: Value, what: string, rtol = 1e-5, atol = 1e-6): void {
  if (!(want instanceof torch.Tensor)) throw new Error(`${what}: PyTorch gave no tensor (${JSON.stringify(want)})`);
  expect({ what, shape: got.shape }).toEqual({ what, shape: want.shape });
  const a = numbers(got);
  const b = numbers(want);
  const { excess, at } = worstExcess(a, b, rtol, atol);
  if (excess > 0) throw new Error(`${what}: differs from PyTorch at element ${at}: ${a[at]} vs ${b[at]} (rtol ${rtol}, atol ${atol})`);
}

/** Throws unless two lists of numbers agree within atol + rtol·|want|. */
export function expectNumbersClose(got: readonly number[], want: readonly number[], what: string, rtol = 1e-12, atol = 1e-15): void {
  expect({ what, length: got.length }).toEqual({ what, length: want.length });
  const { excess, at } = worstExcess(got, want, rtol, atol);
  if (excess > 0) throw new Error(`${what}: differs from PyTorch at ${at}: ${got[at]} vs ${want[at]} (rtol ${rtol}, atol ${atol})`);
}

/** A Python literal of a tensor's name inside `inputs`. */
export const py = (name: string): string => `inputs[${JSON.stringify(name)}]`;
