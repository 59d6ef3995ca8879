/**
 * CUDA against the CPU kernels on the same inputs: the fused cross entropy
 * (forward and backward, float32 / float16 / bfloat16 / float64 logits,
 * ignoreIndex, labelSmoothing, class weights, rows of odd and vector-sized
 * lengths up to 50,257), softmax / logSoftmax over long rows (the streaming
 * kernel, with aligned and unaligned rows) and their fused backward, and a
 * target out of range, which the device marks with NaN. Skipped, with the
 * reason, where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda_fused_rows
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';
import { setFusedKernelsOnCuda } from '../../native/ops/cuda_gates';

// These tests are of the fused CUDA kernels (on by default; TSGPU_CUDA_FUSED=0 turns them off,
// native/ops/cuda_gates.ts): they turn them on whatever the environment says. The native softmax of long rows
// reads the variable at its first call.
process.env.TSGPU_CUDA_FUSED = '1';
setFusedKernelsOnCuda(true);

type T = torch.Tensor;

/** Largest |a - b| / max(1, |b|) over the elements (NaN where exactly one side is NaN counts as infinite). */
function worstError(a: T, b: T): number {
  const x = a.float().cpu().toArray() as Float32Array;
  const y = b.float().cpu().toArray() as Float32Array;
  expect(a.shape).toEqual(b.shape);
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    if (Number.isNaN(x[i]) && Number.isNaN(y[i])) continue;
    const e = Math.abs(x[i] - y[i]) / Math.max(1, Math.abs(y[i]));
    worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
  }
  return worst;
}

/** Per-dtype tolerance of a cuda result against cpu's (both compute in float32; the store rounds). */
const TOL: Record<string, number> = { float32: 2e-5, float64: 1e-12, float16: 2e-3, bfloat16: 1.6e-2 };

/** The loss and the logits' gradient of one crossEntropy call on `device`. */
function lossAndGrad(x: T, target: T, device: string, opts: torch.CrossEntropyOptions): [T, T] {
  const xd = x.to(device).detach().requiresGrad_();
  const td = target.to(device);
  const o = opts.weight ? { ...opts, weight: opts.weight.to(device) } : opts;
  const loss = torch.crossEntropy(xd, td, o);
  const grad = (loss.ndim === 0 ? torch.autograd.grad(loss, [xd])[0] : torch.autograd.grad(loss.sum(), [xd])[0])!;
  return [loss.detach(), grad];
}

describe('fused crossEntropy on cuda against cpu', () => {
  const shapes: [number, number][] = [[64, 1024], [33, 1027], [16, 4096], [8, 50257], [4, 16384]];
  for (const dtype of ['float32', 'float16', 'bfloat16', 'float64'] as torch.DType[]) {
    for (const [n, c] of shapes) {
      cudaTest(`${dtype} [${n}, ${c}] mean, sum and none, with ignoreIndex`, () => {
        torch.manualSeed(n + c);
        const x = torch.randn([n, c]).mul(3).to(dtype);
        const target = torch.randint(0, c, [n]);
        const t = torch.where(torch.arange(n).remainder(5).eq(0), -100, target);
        for (const reduction of ['mean', 'sum', 'none'] as const) {
          const [lg, gg] = lossAndGrad(x, t, 'cuda', { reduction });
          const [lc, gc] = lossAndGrad(x, t, 'cpu', { reduction });
          expect({ reduction, loss: worstError(lg, lc) <= TOL[dtype] * 4 }).toEqual({ reduction, loss: true });
          expect({ reduction, grad: worstError(gg, gc) <= TOL[dtype] }).toEqual({ reduction, grad: true });
        }
      });
    }
    cudaTest(`${dtype} labelSmoothing with class weights and [N, C, d] logits`, () => {
      torch.manualSeed(7);
      const x = torch.randn([6, 2053, 3]).to(dtype);
      const t = torch.where(torch.rand([6, 3]).lt(0.2), 5, torch.randint(0, 2053, [6, 3]));
      const weight = torch.rand([2053]).add(0.5).to(dtype);
      for (const opts of [{ labelSmoothing: 0.1 }, { labelSmoothing: 0.25, weight, ignoreIndex: 5 }, { weight, reduction: 'sum' as const }]) {
        const [lg, gg] = lossAndGrad(x, t, 'cuda', opts);
        const [lc, gc] = lossAndGrad(x, t, 'cpu', opts);
        expect(worstError(lg, lc)).toBeLessThanOrEqual(TOL[dtype] * 4);
        expect(worstError(gg, gc)).toBeLessThanOrEqual(TOL[dtype]);
      }
    });
  }

  cudaTest('a target out of range gives NaN for its row on the device (cpu refuses it)', () => {
    const x = torch.randn([4, 1024], { device: 'cuda' });
    const t = torch.tensor([1, 1024, 3, -7], { dtype: 'int64', device: 'cuda' });
    const loss = torch.crossEntropy(x, t, { reduction: 'none' }).cpu().toArray() as Float32Array;
    expect([Number.isNaN(loss[0]), Number.isNaN(loss[1]), Number.isNaN(loss[2]), Number.isNaN(loss[3])]).toEqual([false, true, false, true]);
    expect(() => torch.crossEntropy(x.cpu(), t.cpu())).toThrow('crossEntropy: target 1024 is out of bounds for 1024 classes');
  });
});

describe('softmax and logSoftmax over long rows on cuda against cpu', () => {
  const lengths = [1025, 1536, 4096, 16384, 50257, 65536, 262144];
  for (const dtype of ['float32', 'bfloat16', 'float16'] as torch.DType[]) {
    for (const len of lengths) {
      cudaTest(`${dtype} rows of ${len}: forward and fused backward`, () => {
        torch.manualSeed(len);
        const rows = Math.max(2, Math.floor((1 << 20) / len));
        const x = torch.randn([rows, len]).mul(4).to(dtype);
        const g = torch.randn([rows, len]).to(dtype);
        for (const log of [false, true]) {
          const run = (device: string): [T, T] => {
            const xd = x.to(device).detach().requiresGrad_();
            const y = log ? xd.logSoftmax(-1) : xd.softmax(-1);
            const [gx] = torch.autograd.grad(y, [xd], { gradOutputs: [g.to(device)] });
            return [y.detach(), gx!];
          };
          const [yg, gg] = run('cuda');
          const [yc, gc] = run('cpu');
          // On failure the worst error shows in place of `true`.
          const ef = worstError(yg, yc), eb = worstError(gg, gc);
          expect({ log, forward: ef <= TOL[dtype] || ef }).toEqual({ log, forward: true });
          // The backward sums each row of g in float32 on both sides: their rounding grows as √len (4.4e-5 seen
          // at 4096 in float32, against 4e-5 for 1024).
          const tb = TOL[dtype] * 2 * Math.max(1, Math.sqrt(len / 1024));
          expect({ log, backward: eb <= tb || eb }).toEqual({ log, backward: true });
        }
      });
    }
  }

  cudaTest('rows that start off a 16-byte boundary, and a row of -inf', () => {
    const base = torch.randn([3, 4097]);
    const x = base.narrow(1, 1, 4096);  // rows 4097 apart: not aligned to 4 floats
    const yg = x.cuda().softmax(-1);
    expect(worstError(yg, x.softmax(-1))).toBeLessThanOrEqual(TOL.float32);
    const inf = torch.full([2, 5000], -Infinity);
    expect(worstError(inf.cuda().logSoftmax(-1), inf.logSoftmax(-1))).toBe(0);
  });
});
