/**
 * The differential-test harness: runs the same cases on the runtime and on
 * PyTorch (Debian's python3-torch, on cpu) over the same random inputs, and
 * compares results within each dtype's tolerance.
 *
 *   const cases: RefCase[] = [
 *     { name: 'add broadcast', inputs: { a: torch.randn([2, 3]), b: torch.randn([3]) },
 *       torch: 'a + b', run: ({ a, b }) => a.add(b) },
 *   ];
 *   compareWithTorch(cases);   // one jest test per case
 *
 * Inputs are made with the runtime (so random numbers, never only zeros or
 * ones) and sent to PyTorch byte for byte. A case with `error: true` expects
 * both sides to refuse.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../../native/index';

/**
 * The reference's environment: the test's own, less the sanitizer runtimes that a run on the sanitizer build
 * preloads into Node (scripts/sanitize.js): PyTorch is not what is checked there, and they only slow it down.
 */
export function referenceEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (!env.LD_PRELOAD) return env;
  const kept = env.LD_PRELOAD.split(':').filter((lib) => lib && !/lib(asan|ubsan)\.so/.test(lib));
  const out = { ...env };
  if (kept.length) out.LD_PRELOAD = kept.join(':');
  else delete out.LD_PRELOAD;
  return out;
}

/** TSGPU_PYTHON (npm test sets it to build/pyref, PyTorch 2 from pip), else Debian's python3 with python3-torch. */
export const PYTHON = process.env.TSGPU_PYTHON ?? (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

const SCRIPT = path.resolve(__dirname, '..', '..', '..', 'test', 'native', 'torch_reference.py');

/** One case: inputs, the PyTorch expression, and the same computation on the runtime. */
export interface RefCase {
  /** Test name. */
  name: string;
  /** Inputs by name (the expression's variables). */
  inputs: Record<string, torch.Tensor>;
  /**
   * A Python expression over the inputs with `torch` in scope; a tuple gives several outputs. Several lines
   * are run as statements, and the result is what they leave in `out`.
   */
  torch: string;
  /** The runtime's computation; an array gives several outputs; a string is compared with PyTorch's text. */
  run: (inputs: Record<string, torch.Tensor>) => torch.Tensor | torch.Tensor[] | string;
  /** Both sides must throw (the runtime's message must match this, when given). */
  error?: boolean | RegExp;
  /** Relative and absolute tolerance (default: by dtype, see TOLERANCE). */
  rtol?: number;
  atol?: number;
}

/** Default [rtol, atol] per dtype; integer and bool results must be equal. */
export const TOLERANCE: Readonly<Record<string, [number, number]>> = {
  float32: [1.3e-6, 1e-5],
  float64: [1e-7, 1e-7],
  float16: [1e-3, 1e-5],
  bfloat16: [1.6e-2, 1e-5],
};

interface Encoded {
  dtype: string;
  shape: number[];
  data: string;
  text?: string;
}

function encode(t: torch.Tensor): Encoded {
  const raw = t.data();
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return { dtype: t.dtype, shape: t.shape.slice(), data: bytes.toString('base64') };
}

function decodeValues(e: Encoded): number[] {
  const buf = Buffer.from(e.data, 'base64');
  const t = torch.fromBuffer(new Uint8Array(buf), { dtype: e.dtype as torch.DType, shape: e.shape });
  try {
    const a = t.toArray();
    return Array.from(a as ArrayLike<number | bigint>, (x) => Number(x));
  } finally {
    t.dispose();
  }
}

/** Runs every case's expression in one PyTorch process. */
export function runTorch(cases: readonly RefCase[]): ({ outputs: Encoded[] } | { error: string })[] {
  const input = JSON.stringify(
    cases.map((c) => ({ expr: c.torch, inputs: Object.fromEntries(Object.entries(c.inputs).map(([k, v]) => [k, encode(v)])) })),
  );
  const r = spawnSync(PYTHON, [SCRIPT], { input, encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120000, env: referenceEnv() });
  if (r.status !== 0) {
    throw new Error(
      `${PYTHON} ${SCRIPT} failed (status ${r.status}): ${r.stderr || r.error?.message}\n` +
        'The differential tests need PyTorch: npm test makes build/pyref with it (scripts/pyref.js); else Debian\'s python3-torch (apt-get install python3-torch), or TSGPU_PYTHON set to a python with torch.',
    );
  }
  return JSON.parse(r.stdout);
}

/** Largest |a - b| - (atol + rtol |b|) over the elements, and where (negative: within tolerance). */
export function worstExcess(a: readonly number[], b: readonly number[], rtol: number, atol: number): { excess: number; at: number } {
  let excess = -Infinity;
  let at = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    if (x === y) continue;
    const e = Math.abs(x - y) - (atol + rtol * Math.abs(y));
    if (!(e <= excess)) {
      excess = Number.isNaN(e) ? Infinity : e;
      at = i;
    }
  }
  return { excess, at };
}

/**
 * Defines one jest test per case, comparing shapes, dtypes and values with
 * PyTorch's. PyTorch runs once, when the first test starts.
 */
export function compareWithTorch(cases: readonly RefCase[]): void {
  let results: ReturnType<typeof runTorch> | null = null;
  const ref = (): ReturnType<typeof runTorch> => (results ??= runTorch(cases));
  cases.forEach((c, i) => {
    test(c.name, () => {
      const r = ref()[i];
      if (c.error) {
        expect('error' in r ? r.error : 'PyTorch did not refuse').toMatch(/Error/);
        expect(() => c.run(c.inputs)).toThrow(c.error instanceof RegExp ? c.error : /./);
        return;
      }
      if ('error' in r) throw new Error(`PyTorch refused ${c.torch}: ${r.error}`);
      const got = c.run(c.inputs);
      if (typeof got === 'string') {
        expect(got).toBe(r.outputs[0].text);
        return;
      }
      const outs = Array.isArray(got) ? got : [got];
      expect(outs.length).toBe(r.outputs.length);
      outs.forEach((o, k) => {
        const want = r.outputs[k];
        expect({ shape: o.shape, dtype: o.dtype }).toEqual({ shape: want.shape, dtype: want.dtype });
        const [rt, at] = TOLERANCE[o.dtype] ?? [0, 0];
        const a = Array.from(o.toArray() as ArrayLike<number | bigint>, (x) => Number(x));
        const b = decodeValues(want);
        const { excess, at: where } = worstExcess(a, b, c.rtol ?? rt, c.atol ?? at);
        if (excess > 0) {
          throw new Error(
            `${c.name}: output ${k} differs from PyTorch at element ${where}: ${a[where]} vs ${b[where]} ` +
              `(rtol ${c.rtol ?? rt}, atol ${c.atol ?? at}, dtype ${o.dtype})`,
          );
        }
      });
    });
  });
}
