/**
 * torch.nativeLayerNorm (PyTorch's native_layer_norm): the statistics' shapes
 * and dtypes on cpu, that they carry no gradient, and that layerNorm's
 * backward, which reads the saved mean and rstd, gives the gradients of the
 * composed formula (and, under createGraph, a differentiable one). Values
 * against PyTorch are in op_cases/nn.ts (torch_nn.test.ts); cuda against cpu
 * in cuda_kernel_paths.test.ts; here, on cuda, the statistics' dtypes and
 * autocast (float32, as PyTorch's CUDA list has native_layer_norm).
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';

type T = torch.Tensor;

function maxDiff(a: T, b: T): number {
  return torch.tidy(() => a.to('float64').sub(b.to('float64')).abs().max().item() as number);
}

/** layerNorm composed from ops (mean, biased variance), the reference of the fused kernel and its backward. */
function composed(x: T, n: number[], w: T | null, b: T | null, eps: number): T {
  const dims = n.map((_, i) => i - n.length);
  const mean = x.mean(dims, { keepdim: true });
  const xc = x.sub(mean);
  let y = xc.mul(xc.mul(xc).mean(dims, { keepdim: true }).add(eps).rsqrt());
  if (w) y = y.mul(w);
  if (b) y = y.add(b);
  return y;
}

beforeAll(() => torch.manualSeed(7070));

describe('nativeLayerNorm on cpu', () => {
  test('mean and rstd: shape input.shape[:-k] + k ones, the rows\' statistics', () => {
    torch.tidy(() => {
      const x = torch.randn([3, 4, 5, 6]);
      const [out, mean, rstd] = torch.nativeLayerNorm(x, [5, 6], null, null, 1e-5);
      expect([out.shape, mean.shape, rstd.shape]).toEqual([[3, 4, 5, 6], [3, 4, 1, 1], [3, 4, 1, 1]]);
      expect([out.dtype, mean.dtype, rstd.dtype]).toEqual(['float32', 'float32', 'float32']);
      const wantMean = x.mean([-2, -1], { keepdim: true });
      const wantRstd = x.sub(wantMean).pow(2).mean([-2, -1], { keepdim: true }).add(1e-5).rsqrt();
      expect(maxDiff(mean, wantMean)).toBeLessThan(1e-6);
      expect(maxDiff(rstd, wantRstd)).toBeLessThan(1e-5);
      expect(maxDiff(out, torch.layerNorm(x, [5, 6]))).toBe(0);
    });
  });

  test('dtypes: float64 stays float64; a 16-bit input keeps its dtype, with wider weights float32 (as PyTorch on cpu)', () => {
    torch.tidy(() => {
      const x = torch.randn([4, 8]);
      const w = torch.randn([8]);
      expect(torch.nativeLayerNorm(x.double(), [8], w.double()).map((t) => t.dtype)).toEqual(['float64', 'float64', 'float64']);
      for (const dtype of ['float16', 'bfloat16'] as torch.DType[]) {
        expect(torch.nativeLayerNorm(x.to(dtype), [8], w.to(dtype)).map((t) => t.dtype)).toEqual([dtype, dtype, dtype]);
        const [out, mean, rstd] = torch.nativeLayerNorm(x.to(dtype), [8], w, null);
        expect([out.dtype, mean.dtype, rstd.dtype]).toEqual([dtype, 'float32', 'float32']);
        // The statistics of the 16-bit values, computed in float32.
        expect(maxDiff(mean, x.to(dtype).float().mean(-1, { keepdim: true }))).toBeLessThan(1e-6);
      }
    });
  });

  test('mean and rstd do not require grad; out does', () => {
    torch.tidy(() => {
      const x = torch.randn([2, 3, 8]).requiresGrad_();
      const [out, mean, rstd] = torch.nativeLayerNorm(x, [8], null, null, 1e-5);
      expect([out.requiresGrad, mean.requiresGrad, rstd.requiresGrad]).toEqual([true, false, false]);
      expect(out.gradFn?.name()).toBe('NativeLayerNormBackward0');
    });
  });

  test('backward from the saved statistics equals the composed formula\'s, for input, weight and bias', () => {
    for (const dtype of ['float32', 'float64'] as torch.DType[]) {
      torch.tidy(() => {
        const x0 = torch.randn([3, 5, 16], { dtype }).mul(2).add(1);
        const w0 = torch.randn([5, 16], { dtype });
        const b0 = torch.randn([5, 16], { dtype });
        const g = torch.randn([3, 5, 16], { dtype });
        const run = (f: (x: T, w: T, b: T) => T): T[] => {
          const [x, w, b] = [x0, w0, b0].map((t) => t.detach().clone().requiresGrad_());
          f(x, w, b).backward(g);
          return [x.grad!, w.grad!, b.grad!];
        };
        const fused = run((x, w, b) => torch.nativeLayerNorm(x, [5, 16], w, b, 1e-5)[0]);
        const ref = run((x, w, b) => composed(x, [5, 16], w, b, 1e-5));
        const tol = dtype === 'float64' ? 1e-12 : 1e-4;
        fused.forEach((t, i) => expect(maxDiff(t, ref[i])).toBeLessThan(tol));
      });
    }
  });

  test('under createGraph the gradient is differentiable (second derivative of the composed formula)', () => {
    torch.tidy(() => {
      const x0 = torch.randn([4, 6], { dtype: 'float64' });
      const w = torch.randn([6], { dtype: 'float64' });
      const second = (f: (x: T) => T): T => {
        const x = x0.detach().clone().requiresGrad_();
        const [gx] = torch.autograd.grad(f(x).pow(3).sum(), [x], { createGraph: true });
        gx!.pow(2).sum().backward();
        return x.grad!;
      };
      const fused = second((x) => torch.layerNorm(x, [6], w, null, 1e-5));
      const ref = second((x) => composed(x, [6], w, null, 1e-5));
      expect(maxDiff(fused, ref)).toBeLessThan(1e-10);
    });
  });

  test('refuses a normalized shape that does not match the trailing dims', () => {
    const x = torch.randn([2, 3]);
    expect(() => torch.nativeLayerNorm(x, [4])).toThrow(/normalized shape \[4\] does not match the last dims of input of shape \[2, 3\]/);
    x.dispose();
  });
});

describe('nativeLayerNorm on cuda', () => {
  cudaTest('statistics in float32 for 16-bit inputs (float64 for float64), with and without weights', () => {
    torch.tidy(() => {
      const x = torch.randn([4, 8]).cuda();
      const w = torch.randn([8]).cuda();
      expect(torch.nativeLayerNorm(x.double(), [8], w.double()).map((t) => t.dtype)).toEqual(['float64', 'float64', 'float64']);
      for (const dtype of ['float16', 'bfloat16'] as torch.DType[]) {
        expect(torch.nativeLayerNorm(x.to(dtype), [8], w.to(dtype)).map((t) => t.dtype)).toEqual([dtype, 'float32', 'float32']);
        expect(torch.nativeLayerNorm(x.to(dtype), [8]).map((t) => t.device)).toEqual(['cuda:0', 'cuda:0', 'cuda:0']);
      }
    });
  });

  cudaTest('under cuda autocast it runs in float32', () => {
    torch.tidy(() => {
      const x = torch.randn([4, 8]).cuda().half();
      const w = torch.randn([8]).cuda().half();
      const r = torch.autocast('cuda', { dtype: 'float16' }, () => torch.nativeLayerNorm(x, [8], w, null, 1e-5));
      expect(r.map((t) => t.dtype)).toEqual(['float32', 'float32', 'float32']);
      expect(maxDiff(r[0], torch.nativeLayerNorm(x.float(), [8], w.float(), null, 1e-5)[0])).toBe(0);
    });
  });
});
