/**
 * batchNorm's CUDA kernels (batchNormForward / batchNormBackward,
 * native/src/ops/cuda/batch_norm.cu) against the CPU kernels on the same
 * inputs: output, running statistics, saved statistics and the gradients of
 * input, weight and bias, in training and evaluation; shapes that take each
 * launch path (one block a channel; several blocks a channel with the
 * partials finished by a second kernel; many channels of few elements; 2-D
 * inputs with no spatial dims), float32, float64, and float16/bfloat16 inputs
 * with float32 parameters (the mixed dtypes of autocast). Skipped, with the
 * reason, where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda_batch_norm
 */
import * as torch from '../../native/index';
import { batchNormRun } from '../../native/ops/batch_norm';
import { cudaTest } from '../skip';
import { setBatchNormKernelOnCuda } from '../../native/ops/cuda_gates';

type T = torch.Tensor;
const F = torch.nn.functional;

function values(t: T): number[] {
  return Array.from(t.float().cpu().toArray() as ArrayLike<number>, (x) => Number(x));
}

/** cuda result against cpu result: shape, dtype, values within tol relative to max(1, |cpu|). */
function expectSame(gpu: T, cpu: T, tol: number, what: string): void {
  expect({ what, shape: gpu.shape, dtype: gpu.dtype, device: gpu.device }).toEqual({ what, shape: cpu.shape, dtype: cpu.dtype, device: 'cuda:0' });
  const a = values(gpu), b = values(cpu);
  for (let i = 0; i < a.length; i++) {
    const e = Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i]));
    if (!(e <= tol)) throw new Error(`${what}: cuda ${a[i]} vs cpu ${b[i]} at element ${i} (relative ${e} > ${tol})`);
  }
}

interface BnSetup {
  shape: number[];
  dtype?: torch.DType;
  paramDtype?: torch.DType;
  affine?: boolean;
  running?: boolean;
  training?: boolean;
  offset?: number;
}

/** One batchNorm call on cpu and on cuda from the same inputs: output, running statistics, gradients. */
function compare(what: string, s: BnSetup, tol: number): void {
  const dtype = s.dtype ?? 'float32';
  const pd = s.paramDtype ?? dtype;
  const c = s.shape[1];
  const x0 = torch.randn(s.shape).mul(2).add(s.offset ?? 0.5).to(dtype);
  const w0 = s.affine === false ? null : torch.randn([c]).to(pd);
  const b0 = s.affine === false ? null : torch.randn([c]).to(pd);
  const rm0 = s.running === false ? null : torch.randn([c]).to(pd);
  const rv0 = s.running === false ? null : torch.rand([c]).add(0.5).to(pd);
  const training = s.training ?? true;
  const run = (dev: 'cpu' | 'cuda') => {
    const x = x0.to(dev).detach().requiresGrad_();
    const w = w0 ? w0.to(dev).detach().requiresGrad_() : null;
    const b = b0 ? b0.to(dev).detach().requiresGrad_() : null;
    // Copies: the cpu run must not update the running statistics the cuda run starts from.
    const rm = rm0 ? rm0.to(dev).clone() : null, rv = rv0 ? rv0.to(dev).clone() : null;
    const y = F.batchNorm(x, rm, rv, w, b, { training, momentum: 0.3, eps: 1e-4 });
    const ramp = torch.linspace(-1, 1, y.numel, { device: dev }).reshape(y.shape).to(y.dtype);
    const leaves = [x, ...(w ? [w] : []), ...(b ? [b] : [])];
    const grads = torch.autograd.grad(y.mul(ramp).sum(), leaves) as T[];
    const stats = torch.noGrad(() => batchNormRun(x0.to(dev), w0 && w0.to(dev), b0 && b0.to(dev), rm0 && rm0.to(dev).clone(), rv0 && rv0.to(dev).clone(), training, 0.3, 1e-4).slice(1));
    return [y.detach(), ...(rm ? [rm, rv as T] : []), ...stats, ...grads];
  };
  const cpu = run('cpu');
  const gpu = run('cuda');
  const names = ['output', ...(rm0 ? ['running mean', 'running var'] : []), 'saved mean', 'saved invstd', 'input gradient', 'weight gradient', 'bias gradient'];
  gpu.forEach((t, i) => expectSame(t, cpu[i], tol, `${what}: ${names[i]}`));
}

describe('batchNorm on CUDA against CPU', () => {
  // The kernels are off on CUDA by default until this file has passed on a GPU (native/ops/cuda_gates.ts).
  beforeAll(() => setBatchNormKernelOnCuda(true));
  afterAll(() => setBatchNormKernelOnCuda(false));

  cudaTest('training, float32: one block a channel, several blocks a channel, many small channels, 2-D, no affine', () => {
    torch.manualSeed(1);
    compare('[4, 3, 5, 6]', { shape: [4, 3, 5, 6] }, 1e-4);
    compare('[32, 4, 32, 32] (split over blocks)', { shape: [32, 4, 32, 32] }, 1e-4);
    compare('[8, 2048, 2, 2] (many channels)', { shape: [8, 2048, 2, 2] }, 1e-4);
    compare('[64, 5] (2-D)', { shape: [64, 5] }, 1e-4);
    compare('[3, 6, 7] (3-D), no affine, no running statistics', { shape: [3, 6, 7], affine: false, running: false }, 1e-4);
    compare('[2, 3, 2, 3, 4] (5-D)', { shape: [2, 3, 2, 3, 4] }, 1e-4);
    compare('[16, 2, 40, 40], mean near 100', { shape: [16, 2, 40, 40], offset: 100 }, 1e-3);
  });

  cudaTest('evaluation, float32 and float64', () => {
    torch.manualSeed(2);
    compare('eval [4, 3, 5, 6]', { shape: [4, 3, 5, 6], training: false }, 1e-5);
    compare('eval [64, 7]', { shape: [64, 7], training: false, affine: false }, 1e-5);
    compare('eval float64 [4, 3, 5, 6]', { shape: [4, 3, 5, 6], training: false, dtype: 'float64' }, 1e-10);
  });

  cudaTest('training, float64', () => {
    torch.manualSeed(3);
    compare('float64 [4, 3, 5, 6]', { shape: [4, 3, 5, 6], dtype: 'float64' }, 1e-10);
    compare('float64 [32, 4, 32, 32]', { shape: [32, 4, 32, 32], dtype: 'float64' }, 1e-9);
  });

  cudaTest('float16 and bfloat16 inputs with float32 parameters and running statistics, and 16-bit throughout', () => {
    torch.manualSeed(4);
    compare('float16 / float32 [8, 4, 8, 8]', { shape: [8, 4, 8, 8], dtype: 'float16', paramDtype: 'float32' }, 5e-3);
    compare('bfloat16 / float32 [8, 4, 8, 8]', { shape: [8, 4, 8, 8], dtype: 'bfloat16', paramDtype: 'float32' }, 3e-2);
    compare('bfloat16 / float32 [32, 4, 32, 32] (split)', { shape: [32, 4, 32, 32], dtype: 'bfloat16', paramDtype: 'float32' }, 3e-2);
    compare('bfloat16 / float32 eval', { shape: [8, 4, 8, 8], dtype: 'bfloat16', paramDtype: 'float32', training: false }, 3e-2);
    compare('float16 throughout', { shape: [8, 4, 8, 8], dtype: 'float16' }, 5e-3);
  });

  cudaTest('BatchNorm2d under CUDA autocast: bfloat16 in and out, float32 running statistics updated as on cpu', () => {
    torch.manualSeed(5);
    const bn = new torch.nn.BatchNorm2d(6).to('cuda');
    const x = torch.randn([4, 6, 8, 8]);
    const y = torch.autocast('cuda', { dtype: 'bfloat16' }, () => bn.forward(x.to('cuda').to('bfloat16')));
    expect(y.dtype).toBe('bfloat16');
    expect(bn.runningMean!.dtype).toBe('float32');
    const rm = torch.zeros([6]), rv = torch.ones([6]);
    F.batchNorm(x.to('bfloat16'), rm, rv, torch.ones([6]), torch.zeros([6]), { training: true });
    expectSame(bn.runningMean!, rm, 1e-5, 'running mean');
    expectSame(bn.runningVar!, rv, 1e-5, 'running var');
  });
});
