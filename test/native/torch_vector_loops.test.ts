/**
 * Differential tests against PyTorch (cpu) of the ops whose cpu kernels run
 * vectorized loops: gelu (erf and tanh), softmax/logSoftmax, sum and mean,
 * at vector tails, strided and sliced inputs, large magnitudes, inf and NaN,
 * and each float dtype (op_cases/vector_loops.ts); and randn's vector loop
 * against the element-wise path and the normal distribution's moments.
 */
import * as torch from '../../native/index';
import { compareWithTorch } from './torch_reference';
import { vectorLoopCases } from './op_cases/vector_loops';

for (const [group, cases] of Object.entries(vectorLoopCases)) describe(group, () => compareWithTorch(cases));

describe('gelu at ±inf', () => {
  // The limits: gelu(x) → x as x → inf; at -inf, -inf · Φ(-inf) = -inf · 0 is NaN (PyTorch 1.13's answer for both).
  for (const approximate of ['none', 'tanh'] as const) {
    test(`approximate '${approximate}': gelu(inf) is inf, gelu(-inf) is NaN, for each float dtype`, () => {
      for (const dtype of ['float32', 'float64', 'float16', 'bfloat16'] as const) {
        const x = torch.tensor([Infinity, -Infinity], { dtype });
        const [pos, neg] = Array.from(torch.gelu(x, { approximate }).float().toArray() as Float32Array);
        expect(pos).toBe(Infinity);
        expect(neg).toBeNaN();
        x.dispose();
      }
    });
  }
});

describe('randn (vector loop)', () => {
  test('a contiguous float32 randn gives the values the element-wise path gives a strided view', () => {
    // 4099 elements (a tail for every vector width), after a draw of 3 that moves the counter off a block boundary.
    for (const n of [1, 5, 64, 4099]) {
      torch.manualSeed(77);
      torch.randn([3]).dispose();
      const dense = torch.randn([n]);
      torch.manualSeed(77);
      torch.randn([3]).dispose();
      const base = torch.zeros([n, 2]);
      const column = base.select(1, 0);  // stride 2: the element-wise path
      expect(column.isContiguous()).toBe(n === 1);
      column.normal_(0, 1);
      const a = dense.toArray() as Float32Array;
      const b = column.contiguous().toArray() as Float32Array;
      for (let i = 0; i < n; i++) expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(1e-6 * (1 + Math.abs(b[i])));
      dense.dispose();
      base.dispose();
    }
  });

  test('2^20 + 3 standard normals have mean 0 and standard deviation 1, mean and std applied', () => {
    torch.manualSeed(5);
    const z = torch.randn([(1 << 20) + 3]);
    expect(Math.abs(Number(z.mean().item()))).toBeLessThan(5e-3);
    expect(Math.abs(Number(z.std().item()) - 1)).toBeLessThan(5e-3);
    const w = torch.empty([(1 << 20) + 3]).normal_(2, 3);
    expect(Math.abs(Number(w.mean().item()) - 2)).toBeLessThan(1.5e-2);
    expect(Math.abs(Number(w.std().item()) - 3)).toBeLessThan(1.5e-2);
    z.dispose();
    w.dispose();
  });
});
