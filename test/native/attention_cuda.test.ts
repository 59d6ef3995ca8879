/**
 * Flash attention on CUDA against the CPU on the same inputs: the forward
 * (out and log-sum-exp) and the gradients of q, k and v, in float16,
 * bfloat16 and float32, causal and not, sequence lengths that are not
 * multiples of the kernels' tiles, L ≠ S, head dims 32, 64, 96 and 128;
 * scaledDotProductAttention picking the flash kernel on CUDA (and the old
 * one with a mask, dropout or the switch off); the peak memory of a training
 * step linear in the sequence. Skipped, with the reason, without a CUDA device.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/attention_cuda
 */
import * as torch from '../../native/index';
import { flashAttention } from '../../native/ops/flash_attention';
import { cudaTest } from '../skip';

// The flash path is off by default until these tests have passed on a GPU; they test it.
beforeAll(() => torch.backends.cuda.enableFlashSdp(true));
afterAll(() => torch.backends.cuda.enableFlashSdp(false));

type T = torch.Tensor;

/** Largest |a - b| / (atol + rtol·|b|); <= 1 passes. */
function worst(gpu: T, cpu: T, rtol: number, atol: number): number {
  expect(gpu.shape).toEqual(cpu.shape);
  const g = Array.from(gpu.cpu().float().contiguous().toArray() as Float32Array);
  const c = Array.from(cpu.float().contiguous().toArray() as Float32Array);
  let w = 0;
  for (let i = 0; i < c.length; i++) w = Math.max(w, Math.abs(g[i] - c[i]) / (atol + rtol * Math.abs(c[i])));
  return w;
}

/** [rtol, atol] of out and of the gradients: inputs of the dtype, P rounded to it before P·V on the GPU. */
const TOL: Record<string, [number, number]> = {
  float32: [1e-4, 1e-4],
  float16: [5e-3, 5e-3],
  bfloat16: [4e-2, 4e-2],
};

interface Shape {
  B: number;
  H: number;
  L: number;
  S: number;
  E: number;
}

const SHAPES: Shape[] = [
  { B: 2, H: 3, L: 128, S: 128, E: 64 },
  { B: 1, H: 2, L: 77, S: 77, E: 64 },
  { B: 2, H: 1, L: 100, S: 37, E: 32 },
  { B: 1, H: 2, L: 45, S: 130, E: 128 },
  { B: 1, H: 2, L: 129, S: 65, E: 96 },
  { B: 1, H: 1, L: 1, S: 200, E: 64 },
];

/** q, k, v in float32 on the CPU (the CPU path computes in float32 from values rounded to dtype). */
function inputs(s: Shape, dtype: torch.DType): T[] {
  return [
    torch.randn([s.B, s.H, s.L, s.E]),
    torch.randn([s.B, s.H, s.S, s.E]),
    torch.randn([s.B, s.H, s.S, s.E]),
  ].map((x) => x.to(dtype));
}

/** out and the gradients of sum(out · w) for q, k, v on `device`. */
function run(xs: T[], w: T, device: string, isCausal: boolean): T[] {
  const [q, k, v] = xs.map((x) => x.to(device).requiresGrad_());
  const out = torch.scaledDotProductAttention(q, k, v, { isCausal });
  out.mul(w.to(device)).sum().backward();
  return [out.detach(), q.grad!, k.grad!, v.grad!];
}

describe('flash attention on cuda', () => {
  torch.manualSeed(23);

  for (const dtype of ['float16', 'bfloat16', 'float32'] as const) {
    for (const isCausal of [false, true]) {
      cudaTest(`${dtype}${isCausal ? ', causal' : ''}: out and gradients equal the CPU's`, () => {
        for (const s of SHAPES) {
          const xs = inputs(s, dtype);
          const w = torch.randn([s.B, s.H, s.L, s.E]).to(dtype);
          // The CPU reference in float32 from the same rounded values.
          const ref = run(xs.map((x) => x.float()), w.float(), 'cpu', isCausal);
          const got = run(xs, w, 'cuda', isCausal);
          const [rtol, atol] = TOL[dtype];
          got.forEach((g, i) => {
            expect(g.dtype).toBe(dtype);
            const scale = i === 0 ? 1 : Math.max(1, ref[i].abs().max().item() as number);
            expect(worst(g, ref[i], rtol, atol * scale)).toBeLessThanOrEqual(1);
          });
        }
      });
    }
  }

  cudaTest('the flash op: out and logsumexp equal the CPU flash op, strided q (heads from [B, L, H, E])', () => {
    for (const dtype of ['float16', 'bfloat16', 'float32'] as const) {
      const qkv = torch.randn([2, 70, 3, 3, 64]).to(dtype); // [B, L, 3, H, E] as a fused projection lays it out
      const [q, k, v] = [0, 1, 2].map((i) => qkv.select(2, i).transpose(1, 2)); // [B, H, L, E], row stride 9·64
      for (const isCausal of [false, true]) {
        const [oc, lc] = flashAttention(q.float(), k.float(), v.float(), { isCausal });
        const [og, lg] = flashAttention(q.to('cuda'), k.to('cuda'), v.to('cuda'), { isCausal });
        expect(lg.dtype).toBe('float32');
        expect(lg.shape).toEqual([2, 3, 70]);
        expect(worst(og, oc, TOL[dtype][0], TOL[dtype][1])).toBeLessThanOrEqual(1);
        expect(worst(lg, lc, 1e-3, 1e-2)).toBeLessThanOrEqual(1);
      }
    }
  });

  cudaTest('scaledDotProductAttention picks flash on CUDA, the weights path with a mask or dropout or flash off', () => {
    const [q, k, v] = inputs({ B: 1, H: 2, L: 40, S: 40, E: 64 }, 'bfloat16').map((x) => x.to('cuda').requiresGrad_());
    expect(torch.scaledDotProductAttention(q, k, v, { isCausal: true }).gradFn!.name()).toBe('ScaledDotProductFlashAttentionBackward0');
    const mask = torch.ones([40, 40], { dtype: 'bool' }).tril().to('cuda');
    expect(torch.scaledDotProductAttention(q, k, v, { attnMask: mask }).gradFn!.name()).toBe('ScaledDotProductAttentionBackward0');
    torch.backends.cuda.enableFlashSdp(false);
    try {
      expect(torch.backends.cuda.flashSdpEnabled()).toBe(false);
      expect(torch.scaledDotProductAttention(q, k, v, { isCausal: true }).gradFn!.name()).toBe('ScaledDotProductAttentionBackward0');
    } finally {
      torch.backends.cuda.enableFlashSdp(true);
    }
    // Masked and causal agree between the two paths.
    const a = torch.scaledDotProductAttention(q, k, v, { attnMask: mask });
    const b = torch.scaledDotProductAttention(q, k, v, { isCausal: true });
    expect(worst(b, a, TOL.bfloat16[0], TOL.bfloat16[1])).toBeLessThanOrEqual(1);
  });

  cudaTest('a causal bf16 training step at L = 4096 peaks below one L × L matrix beyond its tensors', () => {
    const B = 1, H = 4, L = 4096, E = 64;
    const make = () => torch.randn([B, H, L, E], { device: 'cuda', dtype: 'bfloat16' }).requiresGrad_();
    const [q, k, v] = [make(), make(), make()];
    const w = torch.randn([B, H, L, E], { device: 'cuda', dtype: 'bfloat16' });
    torch.cuda.synchronize();
    const before = torch.cuda.memoryAllocated();
    torch.cuda.resetPeakMemoryStats();
    const out = torch.scaledDotProductAttention(q, k, v, { isCausal: true });
    out.mul(w).sum().backward();
    torch.cuda.synchronize();
    const extra = torch.cuda.maxMemoryAllocated() - before;
    const oneMatrix = B * H * L * L * 2; // the weights of one step in bfloat16: 128 MiB here
    const tensor = B * H * L * E * 2; // one of q, k, v, out, dq, ...: 2 MiB
    // out, its gradient and product, dq, dk, dv, logsumexp, the float32 workspace (~2.2 tensors): about 12 tensors.
    expect(extra).toBeLessThan(16 * tensor);
    expect(extra).toBeLessThan(oneMatrix / 4);
  });
});
