/**
 * Autograd on CUDA against the CPU reference: every gradcheck case's
 * gradients computed on cuda:0 equal the CPU's on the same inputs (float64,
 * so that only the kernels differ); a training step's graph memory on the
 * device. Skipped, with the reason, where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/autograd/cuda
 */
import * as torch from '../../../native/index';
import { GRAD_CASES } from './gradcheck_cases';

const available = torch.cuda.isAvailable();
const cudaTest = available ? test : test.skip;
if (!available) {
  // eslint-disable-next-line no-console
  console.log(`CUDA autograd tests skipped: ${torch.cuda.unavailableReason()}`);
}

function outputsOf(r: torch.Tensor | torch.Tensor[]): torch.Tensor[] {
  return Array.isArray(r) ? r : [r];
}

/** Gradients of sum(outputs · fixed weights) with respect to the float inputs, on `device`. */
function grads(c: (typeof GRAD_CASES)[number], inputs: torch.Tensor[], device: string): number[][] {
  const xs = inputs.map((x) => {
    const y = x.to(device);
    return x.dtype === 'float64' ? y.requiresGrad_() : y;
  });
  const outs = outputsOf(c.fn(...xs));
  let total: torch.Tensor | null = null;
  outs.forEach((o, k) => {
    const w = torch.arange(o.numel, { dtype: o.dtype }).mul(0.01 * (k + 1)).add(1).reshape(o.shape.length ? o.shape : []).to(device);
    const s = o.mul(w).sum();
    total = total === null ? s : total.add(s);
  });
  const diff = xs.filter((x) => x.requiresGrad);
  const gs = torch.autograd.grad(total!, diff, { allowUnused: true });
  return gs.map((g, i) => (g === null ? new Array(diff[i].numel).fill(0) : Array.from(g.cpu().contiguous().toArray() as Float64Array)));
}

describe('autograd on cuda against cpu', () => {
  for (const c of GRAD_CASES) {
    cudaTest(c.name, () => {
      torch.manualSeed(7);
      const inputs = c.inputs.map((s) => (Array.isArray(s) ? torch.randn(s, { dtype: 'float64' }) : s()));
      const cpu = grads(c, inputs, 'cpu');
      const gpu = grads(c, inputs, 'cuda:0');
      expect(gpu.length).toBe(cpu.length);
      cpu.forEach((g, i) => {
        g.forEach((v, j) => {
          const d = Math.abs(v - gpu[i][j]);
          if (!(d <= 1e-9 + 1e-7 * Math.abs(v))) throw new Error(`${c.name}: input ${i} element ${j}: cpu ${v} cuda ${gpu[i][j]}`);
        });
      });
    });
  }

  cudaTest('a linear layer step on cuda: the graph keeps the activation, backward frees it', () => {
    const w = torch.randn([512, 256], { device: 'cuda', requiresGrad: true });
    const x = torch.randn([128, 256], { device: 'cuda' });
    const base = torch.cuda.memoryAllocated(0);
    const y = torch.tidy(() => torch.linear(x, w).tanh().sum());
    expect(torch.cuda.memoryAllocated(0) - base).toBe(128 * 512 * 4 + 512);
    y.backward();
    y.dispose();
    expect(torch.cuda.memoryAllocated(0) - base).toBe(w.grad!.untypedStorage().nbytes);
    w.grad = null;
    expect(torch.cuda.memoryAllocated(0)).toBe(base);
  });
});
