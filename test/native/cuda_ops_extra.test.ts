/**
 * The composed ops of linalg (einsum, linalg norms, cross, cdist), random
 * sampling (generators, normal, bernoulli, multinomial, exponential_) and
 * nn.functional (groupNorm, instanceNorm, localResponseNorm, unfold, fold,
 * embeddingBag) on CUDA against the CPU results on the same inputs, and
 * their gradients. The random streams are the same on both devices (Philox
 * counters), so a seed gives the same samples. Skipped, with the reason
 * printed, where CUDA is unavailable.
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';

const F = torch.nn.functional;

/** Largest |a - b| / (atol + rtol·|b|) over the elements; <= 1 passes. */
function worst(gpu: torch.Tensor, cpu: torch.Tensor, rtol: number, atol: number): number {
  expect(gpu.device).toBe('cuda:0');
  expect(gpu.shape).toEqual(cpu.shape);
  expect(gpu.dtype).toBe(cpu.dtype);
  const g = Array.from(gpu.cpu().double().toArray() as Float64Array);
  const c = Array.from(cpu.double().toArray() as Float64Array);
  let w = 0;
  for (let i = 0; i < c.length; i++) {
    if (Number.isNaN(g[i]) && Number.isNaN(c[i])) continue;
    if (g[i] === c[i]) continue;
    w = Math.max(w, Math.abs(g[i] - c[i]) / (atol + rtol * Math.abs(c[i])));
  }
  return w;
}

/** f on the CPU inputs and on copies on cuda:0: every output the same within tolerance. */
function same(inputs: torch.Tensor[], f: (...xs: torch.Tensor[]) => torch.Tensor | torch.Tensor[], rtol = 1e-5, atol = 1e-5): void {
  const cpu = [f(...inputs)].flat();
  const gpu = [f(...inputs.map((x) => x.to('cuda')))].flat();
  expect(gpu.length).toBe(cpu.length);
  gpu.forEach((g, i) => expect(worst(g, cpu[i], rtol, atol)).toBeLessThanOrEqual(1));
}

/** The gradients of f's sum with respect to the inputs, on CPU and on cuda, the same. */
function sameGrad(inputs: torch.Tensor[], f: (...xs: torch.Tensor[]) => torch.Tensor, rtol = 1e-5, atol = 1e-5): void {
  const grads = (xs: torch.Tensor[]): torch.Tensor[] => {
    const leaves = xs.map((x) => x.detach().requiresGrad_());
    f(...leaves).sum().backward();
    return leaves.map((l) => l.grad as torch.Tensor);
  };
  const cpu = grads(inputs);
  const gpu = grads(inputs.map((x) => x.to('cuda')));
  gpu.forEach((g, i) => expect(worst(g, cpu[i], rtol, atol)).toBeLessThanOrEqual(1));
}

describe('cuda: linalg compositions', () => {
  torch.manualSeed(31);
  const a = torch.randn(3, 40, 24), b = torch.randn(3, 24, 17);
  cudaTest('einsum: batched matmul, diagonal, outer, three operands, ellipsis', () => {
    same([a, b], (x, y) => [torch.einsum('bij,bjk->bik', x, y), torch.einsum('bij,bjk->ik', x, y), torch.einsum('...ij->...ji', x)]);
    same([torch.randn(9, 9), torch.randn(9), torch.randn(5)], (m, u, v) => [torch.einsum('ii->i', m), torch.einsum('i,j->ij', u, v), torch.einsum('i,ij,j->', u, m, u)]);
    sameGrad([a, b], (x, y) => torch.einsum('bij,bjk->bik', x, y));
  });
  cudaTest('linalg norms, cross, cdist', () => {
    same([a], (x) => [torch.linalg.vectorNorm(x), torch.linalg.vectorNorm(x, 3, 1), torch.linalg.vectorNorm(x, Infinity, [0, 2], true),
      torch.linalg.matrixNorm(x), torch.linalg.matrixNorm(x, 1), torch.linalg.matrixNorm(x, -Infinity), torch.linalg.norm(x.select(0, 0), 1)]);
    same([torch.randn(7, 3), torch.randn(7, 3)], (p, q) => [torch.cross(p, q, 1), torch.linalg.cross(p, q.narrow(0, 0, 1))]);
    same([torch.randn(2, 30, 5), torch.randn(2, 8, 5)], (p, q) => [torch.cdist(p, q), torch.cdist(p, q, 1), torch.cdist(p, q, Infinity), torch.cdist(p, q, 2, 'donot_use_mm_for_euclid_dist')], 1e-4, 1e-4);
    sameGrad([torch.randn(6, 4), torch.randn(5, 4)], (p, q) => torch.cdist(p, q).add(torch.cdist(p, q, 1.5)), 1e-4, 1e-4);
  });
});

describe('cuda: random sampling', () => {
  cudaTest('a seed gives the same samples on cuda as on cpu (global stream and generators)', () => {
    const draw = (device: string): torch.Tensor[] => {
      torch.manualSeed(4);
      const g = new torch.Generator(device).manualSeed(8);
      return [
        torch.randn([1000], { device }), torch.rand([333], { device, generator: g }), torch.randint(0, 9, [100], { device, generator: g }),
        torch.normal(torch.zeros([50], { device }), torch.ones([50], { device })), torch.bernoulli(torch.full([64], 0.3, { device })),
        torch.empty([70], { device }).exponential_(2, { generator: g }), torch.multinomial(torch.rand([4, 9], { device }), 5),
        torch.multinomial(torch.rand([3, 6], { device }), 40, true, { generator: g }),
      ];
    };
    const cpu = draw('cpu');
    const gpu = draw('cuda');
    gpu.forEach((g, i) => expect(worst(g, cpu[i], 1e-6, 1e-6)).toBeLessThanOrEqual(1));
  });
  cudaTest('a cpu generator is refused for a cuda tensor', () => {
    expect(() => torch.randn([2], { device: 'cuda', generator: new torch.Generator() })).toThrow(/Expected a 'cuda' device type for generator but found 'cpu'/);
  });
});

describe('cuda: nn.functional compositions', () => {
  torch.manualSeed(32);
  const img = torch.randn(2, 6, 9, 7);
  cudaTest('groupNorm, instanceNorm, localResponseNorm', () => {
    same([img, torch.randn(6), torch.randn(6)], (x, w, b) => [F.groupNorm(x, 3, w, b), F.instanceNorm(x, null, null, w, b), F.localResponseNorm(x, 3)], 1e-4, 1e-5);
    sameGrad([img, torch.randn(6)], (x, w) => F.groupNorm(x, 2, w).add(F.localResponseNorm(x, 4)), 1e-4, 1e-5);
  });
  cudaTest('unfold and fold', () => {
    same([img], (x) => { const u = F.unfold(x, [3, 2], 1, 1, [2, 1]); return [u, F.fold(u, [9, 7], [3, 2], 1, 1, [2, 1])]; });
    sameGrad([img], (x) => F.fold(F.unfold(x, 3, 2, 1), [9, 7], 3, 2, 1));
  });
  cudaTest('embeddingBag', () => {
    const i = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), o = torch.tensor([0, 2, 2, 5]);
    same([torch.randn(10, 4), i, o], (w, i, o) => [F.embeddingBag(i, w, o), F.embeddingBag(i, w, o, { mode: 'sum' }), F.embeddingBag(i, w, o, { mode: 'max' })]);
    sameGrad([torch.randn(10, 4)], (w) => F.embeddingBag(i.to(w.device), w, o.to(w.device), { mode: 'max' }));
  });
});
