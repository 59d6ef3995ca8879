/**
 * The convolution family on CUDA against the CPU reference on the same
 * inputs: im2col and col2im in every floating dtype, conv2d and
 * convTranspose2d forward and backward (data, weight and bias gradients),
 * the pools (with maxPool2d's indices), interpolate, batchNorm with its
 * running statistics, a ResNet-18 step under bf16 autocast, and a small CNN
 * that learns on CUDA — through cuDNN where it loaded (cudnn_conv.test.ts runs the
 * same cases with cuDNN off as well). Skipped, with the reason, where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda_conv
 */
import * as torch from '../../native/index';
import { im2col, col2im } from '../../native/ops/conv';
import { cudaTest } from '../skip';

type T = torch.Tensor;
const F = torch.nn.functional;

function values(t: T): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, (x) => Number(x));
}

/** cuda result against cpu result: shape, dtype, device, values within rtol relative to max(1, |cpu|). */
function expectSame(gpu: T, cpu: T, rtol: number, what: string): void {
  expect({ what, shape: gpu.shape, dtype: gpu.dtype, device: gpu.device }).toEqual({ what, shape: cpu.shape, dtype: cpu.dtype, device: 'cuda:0' });
  const a = values(gpu), b = values(cpu);
  for (let i = 0; i < a.length; i++) {
    // Equal values (the padding's infinities among them) agree exactly; Infinity - Infinity would be NaN.
    const e = a[i] === b[i] ? 0 : Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i]));
    if (!(e <= rtol)) throw new Error(`${what}: cuda ${a[i]} vs cpu ${b[i]} at element ${i} (relative ${e} > ${rtol})`);
  }
}

/** Runs f on cpu inputs and on their cuda copies; compares the outputs and the gradients of sum(out * weights). */
function sameOnBoth(what: string, inputs: T[], f: (...xs: T[]) => T, rtol = 1e-5, grads = true): void {
  const run = (dev: 'cpu' | 'cuda') => {
    const xs = inputs.map((x) => x.to(dev).detach().requiresGrad_(grads));
    const y = f(...xs);
    if (!grads) return [y.detach()];
    const w = torch.linspace(-1, 1, y.numel, { dtype: y.dtype, device: dev }).reshape(y.shape);
    const g = torch.autograd.grad(y.mul(w).sum(), xs) as T[];
    return [y.detach(), ...g];
  };
  const cpu = run('cpu');
  const gpu = run('cuda');
  gpu.forEach((t, i) => expectSame(t, cpu[i], rtol, `${what} ${i === 0 ? 'output' : `gradient ${i - 1}`}`));
}

describe('convolutions on CUDA against CPU', () => {
  // cuDNN (where it loaded) in exact float32: TF32, its default, is tested in cudnn_conv.test.ts.
  beforeAll(() => {
    torch.backends.cudnn.allowTf32 = false;
  });
  afterAll(() => {
    torch.backends.cudnn.allowTf32 = true;
  });

  cudaTest('im2col and col2im in float32, float64, float16 and bfloat16 (the same window entries and sums)', () => {
    const g = { kernel: [3, 2] as [number, number], stride: [2, 1] as [number, number], padding: [1, 1] as [number, number], dilation: [1, 2] as [number, number], outputSize: [4, 5] as [number, number] };
    for (const dtype of ['float32', 'float64', 'float16', 'bfloat16'] as torch.DType[]) {
      const x = torch.randn([2, 3, 7, 6]).to(dtype);
      expectSame(im2col(x.to('cuda'), g, -Infinity), im2col(x, g, -Infinity), 0, `im2col ${dtype}`);
      const c = torch.randn([2, 18, 20]).to(dtype);
      expectSame(col2im(c.to('cuda'), g, [7, 6]), col2im(c, g, [7, 6]), dtype === 'float32' || dtype === 'float64' ? 1e-6 : 1e-2, `col2im ${dtype}`);
    }
  });

  cudaTest('conv2d forward and backward: padding, stride, dilation, groups, bias, same', () => {
    torch.manualSeed(3);
    sameOnBoth('conv2d 3x3', [torch.randn([2, 3, 9, 8]), torch.randn([5, 3, 3, 3]), torch.randn([5])], (x, w, b) => F.conv2d(x, w, b, { padding: 1 }), 1e-4);
    sameOnBoth('conv2d strided dilated', [torch.randn([2, 4, 11, 10]), torch.randn([6, 2, 3, 2])], (x, w) => F.conv2d(x, w, null, { stride: 2, dilation: [2, 1], groups: 2 }), 1e-4);
    sameOnBoth("conv2d 'same'", [torch.randn([1, 2, 6, 7]), torch.randn([3, 2, 4, 4])], (x, w) => F.conv2d(x, w, null, { padding: 'same' }), 1e-4);
    sameOnBoth('convTranspose2d', [torch.randn([2, 4, 4, 5]), torch.randn([4, 3, 3, 3]), torch.randn([3])], (x, w, b) => F.convTranspose2d(x, w, b, { stride: 2, padding: 1, outputPadding: 1 }), 1e-4);
  });

  cudaTest('pools, interpolate and batchNorm forward and backward', () => {
    torch.manualSeed(4);
    const x = torch.randn([2, 3, 9, 7]);
    sameOnBoth('maxPool2d', [x], (a) => F.maxPool2d(a, 3, { stride: 2, padding: 1, ceilMode: true }));
    const [vc, ic] = F.maxPool2d(x, 2, { returnIndices: true });
    const [vg, ig] = F.maxPool2d(x.to('cuda'), 2, { returnIndices: true });
    expectSame(vg, vc, 0, 'maxPool2d values');
    expectSame(ig, ic, 0, 'maxPool2d indices');
    sameOnBoth('avgPool2d', [x], (a) => F.avgPool2d(a, 3, { stride: 2, padding: 1, countIncludePad: false }));
    sameOnBoth('adaptiveAvgPool2d', [x], (a) => F.adaptiveAvgPool2d(a, [4, 3]), 1e-5);
    sameOnBoth('interpolate bilinear', [x], (a) => F.interpolate(a, { size: [12, 5], mode: 'bilinear', alignCorners: true }), 1e-5);
    sameOnBoth('interpolate nearest', [x], (a) => F.interpolate(a, { scaleFactor: 2 }));
    sameOnBoth('batchNorm training', [x, torch.randn([3]), torch.randn([3])], (a, w, b) => F.batchNorm(a, null, null, w, b, { training: true }), 1e-4);
    const rm = torch.zeros([3]), rv = torch.ones([3]);
    const rmg = rm.to('cuda'), rvg = rv.to('cuda');
    F.batchNorm(x, rm, rv, null, null, { training: true });
    F.batchNorm(x.to('cuda'), rmg, rvg, null, null, { training: true });
    expectSame(rmg, rm, 1e-5, 'running mean');
    expectSame(rvg, rv, 1e-5, 'running var');
  });

  cudaTest('ResNet-18 in bf16 autocast: conv2d runs in bfloat16, batchNorm keeps its bfloat16 input\'s dtype (float32 statistics), the loss is finite and every parameter gets a gradient', () => {
    torch.manualSeed(5);
    const model = torch.vision.models.resnet18({ numClasses: 10 }).to('cuda');
    const x = torch.randn([4, 3, 64, 64], { device: 'cuda' });
    const t = torch.tensor([1, 2, 3, 4], { device: 'cuda' });
    const out = torch.autocast('cuda', { dtype: 'bfloat16' }, () => {
      const c = torch.conv2d(x, model.conv1.weight);
      expect(c.dtype).toBe('bfloat16');
      expect(F.batchNorm(c, null, null, null, null, { training: true }).dtype).toBe('bfloat16');
      expect(F.batchNorm(c, torch.zeros([64], { device: 'cuda' }), torch.ones([64], { device: 'cuda' }), torch.ones([64], { device: 'cuda' }), null, { training: true }).dtype).toBe('bfloat16');
      return model.forward(x);
    });
    const loss = torch.crossEntropy(out.float(), t);
    expect(Number.isFinite(Number(loss.item()))).toBe(true);
    loss.backward();
    expect([...model.namedParameters()].filter(([, p]) => p.grad === null).map(([n]) => n)).toEqual([]);
  });

  cudaTest('a small CNN learns bars on CUDA (loss below 0.1 in 60 SGD steps)', () => {
    torch.manualSeed(2);
    const n = 64;
    const labels = torch.randint(0, 2, [n]);
    const lab = labels.toArray() as ArrayLike<bigint | number>;
    const img = torch.randn([n, 1, 10, 10]).mul(0.3);
    for (let i = 0; i < n; i++) {
      const at = 2 + (i % 6);
      const plane = img.select(0, i).select(0, 0);
      (Number(lab[i]) === 1 ? plane.select(0, at) : plane.select(1, at)).add_(1.5);
    }
    const model = new torch.nn.Sequential(
      new torch.nn.Conv2d(1, 8, 3, { padding: 1 }), new torch.nn.BatchNorm2d(8), new torch.nn.ReLU(), new torch.nn.MaxPool2d(2),
      new torch.nn.Conv2d(8, 16, 3, { padding: 1 }), new torch.nn.BatchNorm2d(16), new torch.nn.ReLU(),
      new torch.nn.AdaptiveAvgPool2d(1), new torch.nn.Flatten(), new torch.nn.Linear(16, 2),
    ).to('cuda');
    const xs = img.to('cuda'), ys = labels.to('cuda');
    const opt = new torch.optim.SGD(model.parameters(), { lr: 0.1, momentum: 0.9 });
    let last = Infinity;
    for (let step = 0; step < 60; step++) {
      opt.zeroGrad();
      const loss = torch.crossEntropy(model.forward(xs) as T, ys);
      loss.backward();
      opt.step();
      last = Number(loss.item());
    }
    expect(last).toBeLessThan(0.1);
  });
});
