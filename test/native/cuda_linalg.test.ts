/**
 * CUDA linear algebra against the CPU results: matmul in every dtype (TF32
 * too), batched and broadcast, transposed and strided operands, addmm,
 * linear, outer and attention. Skipped, with the reason printed, where CUDA
 * is unavailable.
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';

/** Largest |a - b| / (atol + rtol·|b|) over the elements; <= 1 passes. */
function worst(gpu: torch.Tensor, cpu: torch.Tensor, rtol: number, atol: number): number {
  const g = Array.from(gpu.cpu().float().toArray() as Float32Array);
  const c = Array.from(cpu.float().toArray() as Float32Array);
  expect(gpu.shape).toEqual(cpu.shape);
  expect(gpu.dtype).toBe(cpu.dtype);
  let w = 0;
  for (let i = 0; i < c.length; i++) w = Math.max(w, Math.abs(g[i] - c[i]) / (atol + rtol * Math.abs(c[i])));
  return w;
}

const TOL: Record<string, [number, number]> = {
  float32: [1e-5, 1e-4],
  float64: [1e-12, 1e-12],
  float16: [2e-3, 2e-3],
  bfloat16: [1.6e-2, 1.6e-2],
  // TF32 rounds inputs to 10-bit mantissas: errors grow with sqrt(k)·|a||b|, not with |result|.
  tf32: [5e-3, 5e-2],
  // Scores and weights are rounded to bfloat16 on both sides, at places that may differ by one ulp.
  attentionBf16: [3e-2, 3e-2],
};

/** Runs f on CPU inputs and on the same inputs moved to cuda:0, and compares. */
function same(inputs: torch.Tensor[], f: (...xs: torch.Tensor[]) => torch.Tensor, tol: [number, number]): void {
  const cpu = f(...inputs);
  const gpu = f(...inputs.map((x) => x.to('cuda')));
  expect(gpu.device).toBe('cuda:0');
  expect(worst(gpu, cpu, tol[0], tol[1])).toBeLessThanOrEqual(1);
}

describe('cuda linalg', () => {
  torch.manualSeed(99);
  const a = torch.randn([130, 70]);
  const b = torch.randn([70, 90]);

  cudaTest('matmul in float32, float64, float16 and bfloat16', () => {
    for (const dt of ['float32', 'float64', 'float16', 'bfloat16'] as const) {
      same([a.to(dt), b.to(dt)], (x, y) => torch.matmul(x, y), TOL[dt]);
    }
  });

  cudaTest('float32 matmul with TF32 allowed stays within TF32 precision', () => {
    torch.backends.cuda.matmul.allowTf32 = true;
    try {
      same([torch.randn([512, 256]), torch.randn([256, 384])], (x, y) => torch.matmul(x, y), TOL.tf32);
    } finally {
      torch.backends.cuda.matmul.allowTf32 = false;
    }
  });

  cudaTest('batched, broadcast, transposed and strided operands', () => {
    same([torch.randn([2, 1, 5, 4]), torch.randn([3, 4, 6])], (x, y) => torch.matmul(x, y), TOL.float32);
    same([torch.randn([8, 33, 17]), torch.randn([8, 17, 9])], (x, y) => torch.bmm(x, y), TOL.float32);
    same([a, b], (x, y) => torch.matmul(y.t(), x.t()), TOL.float32);
    same([torch.randn([20, 24])], (w) => torch.matmul(w.slice(0, 0, null, 2).slice(1, 0, null, 3), w.slice(0, 0, 16, 2).slice(1, 0, null, 2)), TOL.float32);
    same([torch.randn([3]), torch.randn([4, 3, 2])], (v, y) => torch.matmul(v, y), TOL.float32);
  });

  cudaTest('addmm, linear and outer', () => {
    same([torch.randn([90]), a, b], (i, x, y) => torch.addmm(i, x, y, { beta: 0.5, alpha: 2 }), TOL.float32);
    same([torch.randn([3, 5, 70]), torch.randn([40, 70]), torch.randn([40])], (x, w, bias) => torch.linear(x, w, bias), TOL.float32);
    same([torch.randn([17]), torch.randn([29])], (u, v) => torch.outer(u, v), TOL.float32);
  });

  cudaTest('scaledDotProductAttention: plain, causal, bool and float masks, bfloat16', () => {
    const q = torch.randn([2, 4, 33, 16]), k = torch.randn([2, 4, 40, 16]), v = torch.randn([2, 4, 40, 8]);
    same([q, k, v], (x, y, z) => torch.scaledDotProductAttention(x, y, z), TOL.float32);
    same([q, k, v], (x, y, z) => torch.scaledDotProductAttention(x, y, z, { isCausal: true }), TOL.float32);
    const keep = torch.tensor(Array.from({ length: 33 }, (_, i) => Array.from({ length: 40 }, (_, j) => j === 0 || (i + 2 * j) % 3 !== 0)), { dtype: 'bool' });
    same([q, k, v, keep], (x, y, z, m) => torch.scaledDotProductAttention(x, y, z, { attnMask: m }), TOL.float32);
    same([q, k, v, torch.randn([33, 40])], (x, y, z, m) => torch.scaledDotProductAttention(x, y, z, { attnMask: m }), TOL.float32);
    same([q.bfloat16(), k.bfloat16(), v.bfloat16()], (x, y, z) => torch.scaledDotProductAttention(x, y, z), TOL.attentionBf16);
  });

  cudaTest('the CUDA matmul engine is cuBLAS on a machine that has it', () => {
    const info = torch.matmulBackends();
    expect(info.cuda).toMatch(/^cuBLAS|^built-in kernel: /);
  });
});
