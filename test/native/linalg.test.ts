/**
 * Linear algebra against PyTorch (cpu): matmul in all its shapes (1-D, 2-D,
 * batched, broadcast batch dims, transposed and strided operands), mm, bmm,
 * addmm, linear, outer and scaled dot-product attention (masks, causal),
 * float32/float64/float16/bfloat16; the thread count; argument errors.
 */
import * as torch from '../../native/index';
import { runChild } from './helpers';
import { ownStorages } from './own_memory';
import { compareWithTorch, RefCase } from './torch_reference';

torch.manualSeed(4321);
const r = (shape: number[]) => torch.randn(shape);
const a = r([33, 17]);
const b = r([17, 29]);
const big1 = r([150, 300]);
const big2 = r([300, 140]);
const v17 = r([17]);
const v29 = r([29]);
const bA = r([2, 1, 5, 4]);
const bB = r([3, 4, 6]);
const x3 = r([4, 7, 9]);
const y3 = r([4, 9, 5]);
const wide = r([20, 24]);
const w = r([6, 9]);
const bias6 = r([6]);
const inp = r([33, 29]);
const row29 = r([29]);
const q = r([2, 3, 7, 8]);
const k = r([2, 3, 9, 8]);
const val = r([2, 3, 9, 5]);
const kq = r([3, 7, 8]);
// Keeps column 0 of every row, so that no row is masked out entirely.
const boolMask = torch.tensor(
  Array.from({ length: 7 }, (_, i) => Array.from({ length: 9 }, (_, j) => j === 0 || (i * 7 + j * 3) % 4 !== 0)),
  { dtype: 'bool' },
);
const floatMask = r([1, 7, 9]);
const a64 = a.double(), b64 = b.double();
const a16 = a.half(), b16 = b.half();
const abf = a.bfloat16(), bbf = b.bfloat16();

// Sums of hundreds of products: compare with a tolerance that scales with them.
const MM = { rtol: 1e-5, atol: 1e-4 };

const cases: RefCase[] = [
  { name: 'matmul 2-D', inputs: { a, b }, torch: 'a @ b', run: ({ a, b }) => torch.matmul(a, b), ...MM },
  { name: 'matmul large (k = 300, several panels)', inputs: { big1, big2 }, torch: 'big1 @ big2', run: ({ big1, big2 }) => big1.matmul(big2), ...MM },
  { name: 'matmul 1-D · 1-D (dot)', inputs: { v17 }, torch: 'v17 @ v17', run: ({ v17 }) => torch.matmul(v17, v17), ...MM },
  { name: 'matmul 1-D · 2-D', inputs: { v17, b }, torch: 'v17 @ b', run: ({ v17, b }) => torch.matmul(v17, b), ...MM },
  { name: 'matmul 2-D · 1-D', inputs: { a, v17 }, torch: 'a @ v17', run: ({ a, v17 }) => torch.matmul(a, v17), ...MM },
  { name: 'matmul 3-D · 1-D', inputs: { x3 }, torch: 'x3 @ x3[0, 0]', run: ({ x3 }) => torch.matmul(x3, x3.select(0, 0).select(0, 0)), ...MM },
  { name: 'matmul batched', inputs: { x3, y3 }, torch: 'x3 @ y3', run: ({ x3, y3 }) => torch.matmul(x3, y3), ...MM },
  { name: 'matmul broadcast batch dims', inputs: { bA, bB }, torch: 'bA @ bB', run: ({ bA, bB }) => torch.matmul(bA, bB), ...MM },
  { name: 'matmul 2-D · batched', inputs: { w, y3 }, torch: 'w @ y3', run: ({ w, y3 }) => torch.matmul(w, y3), ...MM },
  { name: 'matmul of transposed views', inputs: { a, b }, torch: 'b.t() @ a.t()', run: ({ a, b }) => torch.matmul(b.t(), a.t()), ...MM },
  { name: 'matmul of mT of a batch', inputs: { x3 }, torch: 'x3.mT @ x3', run: ({ x3 }) => torch.matmul(x3.mT, x3), ...MM },
  {
    name: 'matmul of strided slices (no unit stride)',
    inputs: { wide },
    torch: 'wide[::2, ::3] @ wide[:16:2, ::2]',
    run: ({ wide }) => torch.matmul(wide.slice(0, 0, null, 2).slice(1, 0, null, 3), wide.slice(0, 0, 16, 2).slice(1, 0, null, 2)),
    ...MM,
  },
  { name: 'matmul of an expanded operand', inputs: { v29, b }, torch: 'b @ v29.expand(29, 29)', run: ({ v29, b }) => torch.matmul(b, v29.expand(29, 29)), ...MM },
  { name: 'matmul float64', inputs: { a64, b64 }, torch: 'a64 @ b64', run: ({ a64, b64 }) => torch.matmul(a64, b64), rtol: 1e-12, atol: 1e-12 },
  // PyTorch 1.13 on cpu has no float16 matmul: its reference is the float32 product rounded once.
  { name: 'matmul float16 (float32 accumulation)', inputs: { a16, b16 }, torch: '(a16.float() @ b16.float()).half()', run: ({ a16, b16 }) => torch.matmul(a16, b16), rtol: 2e-3, atol: 1e-3 },
  { name: 'matmul bfloat16 (float32 accumulation)', inputs: { abf, bbf }, torch: '(abf.float() @ bbf.float()).bfloat16()', run: ({ abf, bbf }) => torch.matmul(abf, bbf), rtol: 1.6e-2, atol: 1e-2 },
  { name: 'matmul with an empty m', inputs: { b }, torch: 'b[:0] @ b.t()', run: ({ b }) => torch.matmul(b.slice(0, 0, 0), b.t()) },
  { name: 'matmul with k = 0 gives zeros', inputs: { a, b }, torch: 'a[:, :0] @ b[:0]', run: ({ a, b }) => torch.matmul(a.slice(1, 0, 0), b.slice(0, 0, 0)) },
  { name: 'matmul of a 0-dim tensor is refused', inputs: { a, b }, torch: 'a[0, 0] @ b', run: ({ a, b }) => torch.matmul(a.select(0, 0).select(0, 0), b), error: /matmul: both arguments need at least 1 dimension, got 0D and 2D tensors/ },
  { name: 'mm', inputs: { a, b }, torch: 'torch.mm(a, b)', run: ({ a, b }) => torch.mm(a, b), ...MM },
  { name: 'mm of 3-D is refused', inputs: { x3, y3 }, torch: 'torch.mm(x3, y3)', run: ({ x3, y3 }) => torch.mm(x3, y3), error: /mm: expected a 2-D tensor for self, got \[4, 7, 9\]/ },
  { name: 'bmm', inputs: { x3, y3 }, torch: 'torch.bmm(x3, y3)', run: ({ x3, y3 }) => x3.bmm(y3), ...MM },
  { name: 'bmm with different batch sizes is refused', inputs: { x3, bB }, torch: 'torch.bmm(x3, bB)', run: ({ x3, bB }) => torch.bmm(x3, bB), error: /bmm: expected one batch size/ },
  { name: 'matmul shape mismatch is refused', inputs: { a }, torch: 'a @ a', run: ({ a }) => torch.matmul(a, a), error: /matmul: shapes \[33, 17\] and \[33, 17\] cannot be multiplied \(17 != 33\)/ },
  { name: 'matmul of two dtypes is refused', inputs: { a, b64 }, torch: 'a @ b64', run: ({ a, b64 }) => torch.matmul(a, b64), error: /matmul: expected all operands of one dtype, got float32 and float64/ },
  { name: 'addmm', inputs: { inp, a, b }, torch: 'torch.addmm(inp, a, b)', run: ({ inp, a, b }) => torch.addmm(inp, a, b), ...MM },
  { name: 'addmm beta, alpha, broadcast input', inputs: { row29, a, b }, torch: 'torch.addmm(row29, a, b, beta=0.5, alpha=-2)', run: ({ row29, a, b }) => row29.addmm(a, b, { beta: 0.5, alpha: -2 }), ...MM },
  { name: 'addmm beta 0 ignores input', inputs: { inp, a, b }, torch: 'torch.addmm(inp * float("nan"), a, b, beta=0)', run: ({ inp, a, b }) => torch.addmm(inp.mul(NaN), a, b, { beta: 0 }), ...MM },
  { name: 'addmm with an input that does not broadcast is refused', inputs: { inp, a, b }, torch: 'torch.addmm(inp.expand(2, 33, 29), a, b)', run: ({ inp, a, b }) => torch.addmm(inp.expand(2, 33, 29), a, b), error: /addmm: input of shape \[2, 33, 29\] cannot be broadcast to \[33, 29\]/ },
  { name: 'linear with bias, 3-D input', inputs: { x3, w, bias6 }, torch: 'torch.nn.functional.linear(x3, w, bias6)', run: ({ x3, w, bias6 }) => torch.linear(x3, w, bias6), ...MM },
  { name: 'linear without bias, 1-D input', inputs: { w }, torch: 'torch.nn.functional.linear(w[0, :9], w)', run: ({ w }) => torch.linear(w.select(0, 0), w), ...MM },
  { name: 'outer', inputs: { v17, v29 }, torch: 'torch.outer(v17, v29)', run: ({ v17, v29 }) => torch.outer(v17, v29), ...MM },
  {
    name: 'scaledDotProductAttention',
    inputs: { q, k, val },
    torch: 'torch.softmax(q @ k.transpose(-2, -1) / 8 ** 0.5, -1) @ val',
    run: ({ q, k, val }) => torch.scaledDotProductAttention(q, k, val),
    ...MM,
  },
  {
    name: 'scaledDotProductAttention causal with scale',
    inputs: { q, k, val },
    torch: 'torch.softmax((q @ k.transpose(-2, -1) * 0.3).masked_fill(~torch.ones(7, 9, dtype=torch.bool).tril(), float("-inf")), -1) @ val',
    run: ({ q, k, val }) => torch.scaledDotProductAttention(q, k, val, { isCausal: true, scale: 0.3 }),
    ...MM,
  },
  {
    name: 'scaledDotProductAttention float mask, broadcast key and value batch',
    inputs: { q, kq, floatMask },
    torch: 'torch.softmax(q @ kq.transpose(-2, -1)[:, :, :7] / 8 ** 0.5 + floatMask[..., :7], -1) @ kq[:, :7, :]',
    run: ({ q, kq, floatMask }) =>
      torch.scaledDotProductAttention(q, kq.slice(1, 0, 7), kq.slice(1, 0, 7), { attnMask: floatMask.slice(2, 0, 7) }),
    ...MM,
  },
  {
    name: 'scaledDotProductAttention bool mask',
    inputs: { q, k, val, boolMask },
    torch: 'torch.softmax((q @ k.transpose(-2, -1) / 8 ** 0.5).masked_fill(boolMask.logical_not(), float("-inf")), -1) @ val',
    run: ({ q, k, val, boolMask }) => torch.scaledDotProductAttention(q, k, val, { attnMask: boolMask }),
    ...MM,
  },
];

compareWithTorch(cases);

describe('linalg beyond PyTorch comparisons', () => {
  test('setNumThreads/getNumThreads round trip and results agree across thread counts to float32 rounding', () => {
    const saved = torch.getNumThreads();
    try {
      torch.setNumThreads(1);
      expect(torch.getNumThreads()).toBe(1);
      const one = Array.from(torch.matmul(big1, big2).toArray() as Float32Array);
      torch.setNumThreads(3);
      expect(torch.getNumThreads()).toBe(3);
      const three = Array.from(torch.matmul(big1, big2).toArray() as Float32Array);
      // Not bit for bit: with more threads BLAS may split the sums over k in another order and take other kernels
      // (OpenBLAS 0.3.21 does on AMD EPYC: up to 1.1e-5 of max(1, |value|) over these k = 300 sums), as PyTorch's
      // CPU matmul also may. A wrong result would be off by the size of the values.
      const worst = one.reduce((w, v, i) => Math.max(w, Math.abs(three[i] - v) / Math.max(1, Math.abs(v))), 0);
      expect(three.length).toBe(one.length);
      expect(worst).toBeLessThan(1e-4);
      expect(() => torch.setNumThreads(0)).toThrow('setNumThreads: expected a positive integer for n, got 0');
      expect(() => torch.setNumThreads(1.5)).toThrow('setNumThreads: expected a positive integer for n, got 1.5');
    } finally {
      torch.setNumThreads(saved);
    }
  });

  test('an interrupt stops a loop of matmuls with "matmul: interrupted" and leaves nothing allocated', () => {
    const { status, result, stderr } = runChild(`
      const { Worker } = require('worker_threads');
      const shared = new SharedArrayBuffer(8);
      const flag = new Int32Array(shared);
      torch.setInterruptFlag(flag);
      const a = torch.randn([256, 256]);
      const before = torch.memory.allocated('cpu');
      new Worker('const { workerData } = require("worker_threads"); setTimeout(() => Atomics.store(new Int32Array(workerData), 0, 1), 100);', { eval: true, workerData: shared });
      let code = null, message = null;
      try { for (;;) torch.matmul(a, a).dispose(); } catch (e) { code = e.code; message = e.message; }
      Atomics.store(flag, 0, 0);
      const leaked = torch.memory.allocated('cpu') - before;
      const ok = torch.matmul(a, a).shape[0] === 256;
      console.log(JSON.stringify({ code, message, leaked, ok }));
      process.exit(0);
    `);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result).toEqual({ code: 'TSGPU_INTERRUPTED', message: 'matmul: interrupted', leaked: 0, ok: true });
  });

  test('linear and addmm leave no view of the bias behind: disposing what was made frees every storage, in grad mode too', () => {
    const own = ownStorages();
    for (const requiresGrad of [false, true]) {
      const w = torch.randn([8, 4], { requiresGrad });
      const b = torch.randn([8], { requiresGrad });
      const x = torch.randn([3, 4]);
      const y = torch.linear(x, w, b);
      const wt = w.t();
      const z = torch.addmm(b, x, wt);
      expect(torch.tidy(() => z.sub(y).abs().max().item())).toBeLessThan(1e-5);
      for (const t of [y, z, wt, x, w, b]) t.dispose();
    }
    expect(own.list().filter((t) => !t.holder)).toEqual([]);
    expect(own.count()).toBe(0);
  });

  test('integer matmul runs on cpu (int64, as PyTorch); bool is refused with the op and dtype named', () => {
    const i = torch.tensor([[1, 2], [3, 4]]);
    const r = torch.matmul(i, i);
    expect({ dtype: r.dtype, list: r.tolist() }).toEqual({ dtype: 'int64', list: [[7, 10], [15, 22]] });
    const b = torch.ones(2, 2, { dtype: 'bool' });
    expect(() => torch.matmul(b, b)).toThrow(`matmul: "addmm" not implemented for 'Bool'`);
  });

  test('attention refuses a dropout probability outside [0, 1] and a mask together with isCausal', () => {
    expect(() => torch.scaledDotProductAttention(q, k, val, { dropoutP: -0.1 })).toThrow('scaledDotProductAttention: expected a probability in [0, 1] for dropoutP, got -0.1');
    expect(() => torch.scaledDotProductAttention(q, k, val, { isCausal: true, attnMask: floatMask })).toThrow(/either attnMask or isCausal/);
  });

  test('float32 matmul precision switches TF32 as PyTorch does', () => {
    expect(torch.getFloat32MatmulPrecision()).toBe('highest');
    torch.setFloat32MatmulPrecision('high');
    expect(torch.backends.cuda.matmul.allowTf32).toBe(true);
    torch.setFloat32MatmulPrecision('highest');
    expect(torch.backends.cuda.matmul.allowTf32).toBe(false);
    expect(() => torch.setFloat32MatmulPrecision('low' as 'high')).toThrow("setFloat32MatmulPrecision: expected 'highest', 'high' or 'medium' for precision, got 'low'");
  });

  test('matmulBackends says what the CPU matmul runs on', () => {
    const info = torch.matmulBackends();
    expect(info.cpu).toMatch(/blocked kernel \((avx512|avx2|generic)\)/);
    expect(info.cuda.length).toBeGreaterThan(0);
    expect(torch.backends.cuda.matmul.allowTf32).toBe(false);
  });
});
