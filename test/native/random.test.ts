/**
 * torch.Generator and the random functions: determinism (the same seed
 * gives the same numbers; a generator's draws leave the global stream and
 * other generators as they were; getState/setState replays), the
 * distributions (mean and variance within statistical bounds, with fixed
 * seeds), shapes, dtypes and errors against PyTorch (whose streams differ
 * from ours, so values are not compared), and the gradient of normal with
 * respect to its mean and std (gradcheck, with a generator reseeded at
 * each call).
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';
import { cudaUnavailable } from '../skip';

/** The values of a tensor as numbers. */
const vals = (t: torch.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

/** Mean and (population) variance of a tensor's values. */
function moments(t: torch.Tensor): { mean: number; variance: number; n: number } {
  const a = Array.from(t.to('float64').toArray() as Float64Array);
  const mean = a.reduce((s, x) => s + x, 0) / a.length;
  const variance = a.reduce((s, x) => s + (x - mean) ** 2, 0) / a.length;
  return { mean, variance, n: a.length };
}

/** |sample mean - mu| is within 5 standard errors (sigma² the distribution's variance). */
function expectMean(t: torch.Tensor, mu: number, sigma2: number): void {
  const { mean, n } = moments(t);
  expect(Math.abs(mean - mu)).toBeLessThan(5 * Math.sqrt(sigma2 / n));
}

/** The sample variance is within 5% of sigma² (for n ≥ 1e5 this is many standard errors). */
function expectVariance(t: torch.Tensor, sigma2: number): void {
  expect(Math.abs(moments(t).variance / sigma2 - 1)).toBeLessThan(0.05);
}

const N = 200000;

describe('torch.Generator', () => {
  test('a new generator starts at PyTorch\'s default seed; manualSeed returns the generator', () => {
    const g = new torch.Generator();
    expect(g.initialSeed()).toBe(67280421310721);
    expect(g.device).toBe('cpu');
    expect(g.manualSeed(42)).toBe(g);
    expect(g.initialSeed()).toBe(42);
  });

  test('the same seed gives the same numbers, another seed others', () => {
    const g = new torch.Generator();
    const a = vals(torch.randn([64], { generator: g.manualSeed(5) }));
    const b = vals(torch.randn([64], { generator: g.manualSeed(5) }));
    const c = vals(torch.randn([64], { generator: g.manualSeed(6) }));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  test('drawing from a generator leaves the global stream and other generators as they were', () => {
    torch.manualSeed(9);
    const plain = [torch.rand(16), torch.randn(16), torch.randint(0, 100, [16])].map((t) => vals(t));
    const h = new torch.Generator().manualSeed(3);
    const hAlone = vals(torch.rand([16], { generator: h }));
    torch.manualSeed(9);
    const g = new torch.Generator().manualSeed(1);
    h.manualSeed(3);
    const mixed: unknown[][] = [];
    mixed.push(vals(torch.rand(16)));
    torch.randn([100], { generator: g });
    torch.empty(50).uniform_(0, 1, { generator: g });
    mixed.push(vals(torch.randn(16)));
    torch.multinomial(torch.ones(10), 3, false, { generator: g });
    torch.randperm(20, { generator: g });
    mixed.push(vals(torch.randint(0, 100, [16])));
    expect(mixed).toEqual(plain);
    expect(vals(torch.rand([16], { generator: h }))).toEqual(hAlone);
  });

  test('the default generator is the global stream: its manualSeed is torch.manualSeed', () => {
    torch.defaultGenerator.manualSeed(77);
    const a = vals(torch.randn(8));
    torch.manualSeed(77);
    expect(vals(torch.randn(8))).toEqual(a);
    expect(torch.defaultGenerator.initialSeed()).toBe(77);
    expect(torch.initialSeed()).toBe(77);
    const b = vals(torch.randn([8], { generator: torch.defaultGenerator }));
    torch.manualSeed(77);
    torch.randn(8);
    expect(vals(torch.randn(8))).toEqual(b);
  });

  test('getState and setState replay the draws that followed', () => {
    for (const g of [new torch.Generator().manualSeed(12), torch.defaultGenerator]) {
      torch.rand([5], { generator: g });
      const state = g.getState();
      expect({ dtype: state.dtype, shape: state.shape }).toEqual({ dtype: 'uint8', shape: [16] });
      const first = vals(torch.rand([10], { generator: g }));
      g.setState(state);
      expect(vals(torch.rand([10], { generator: g }))).toEqual(first);
    }
    const g = new torch.Generator();
    expect(() => g.setState(torch.zeros([16]))).toThrow(/expected a torch.ByteTensor/);
    expect(() => g.setState(torch.zeros([3], { dtype: 'uint8' }))).toThrow(/RNG state is wrong size/);
  });

  test('seed() picks a fresh seed and returns it', () => {
    const g = new torch.Generator();
    const s = g.seed();
    expect(Number.isSafeInteger(s) && s >= 0).toBe(true);
    expect(g.initialSeed()).toBe(s);
    expect(g.seed()).not.toBe(s);
  });

  test('bad seeds and generators are refused', () => {
    expect(() => new torch.Generator().manualSeed(-1)).toThrow(/expected an integer in \[0, 2\^53\) for seed, got -1/);
    expect(() => torch.randn([2], { generator: {} as torch.Generator })).toThrow(/expected a torch.Generator for generator/);
    if (cudaUnavailable()) {
      expect(() => new torch.Generator('cuda')).toThrow(/CUDA is not available/);
    } else {
      expect(() => torch.randn([2], { generator: new torch.Generator('cuda') })).toThrow(/Expected a 'cpu' device type for generator but found 'cuda'/);
      expect(() => torch.randn([2], { device: 'cuda', generator: new torch.Generator() })).toThrow(/Expected a 'cuda' device type for generator but found 'cpu'/);
    }
  });
});

describe('distributions (fixed seeds)', () => {
  const g = new torch.Generator();
  test('rand, randn, randint, uniform_, normal_ with a generator', () => {
    expectMean(torch.rand([N], { generator: g.manualSeed(1) }), 0.5, 1 / 12);
    expectVariance(torch.rand([N], { generator: g }), 1 / 12);
    const z = torch.randn([N], { generator: g, dtype: 'float64' });
    expectMean(z, 0, 1);
    expectVariance(z, 1);
    const k = torch.randint(3, 13, [N], { generator: g });
    expect([k.min().item(), k.max().item()]).toEqual([3, 12]);
    expectMean(k, 7.5, (10 * 10 - 1) / 12);
    const u = torch.empty(N).uniform_(-2, 4, { generator: g });
    expectMean(u, 1, 36 / 12);
    expectVariance(u, 3);
    const n = torch.empty(N).normal_(3, 0.5, { generator: g });
    expectMean(n, 3, 0.25);
    expectVariance(n, 0.25);
  });

  test('normal: tensor means and stds, broadcast', () => {
    torch.manualSeed(2);
    const mean = torch.tensor([-2, 5], { dtype: 'float32' }).view(1, 2).expand(N / 2, 2);
    const std = torch.tensor([0.5, 3], { dtype: 'float32' });
    const s = torch.normal(mean, std);
    expect(s.shape).toEqual([N / 2, 2]);
    expectMean(s.select(1, 0), -2, 0.25);
    expectVariance(s.select(1, 0), 0.25);
    expectMean(s.select(1, 1), 5, 9);
    expectVariance(s.select(1, 1), 9);
    const t = torch.normal(1.5, 2, [N], { generator: g.manualSeed(4) });
    expectMean(t, 1.5, 4);
    expectVariance(t, 4);
    expectMean(torch.normal(torch.zeros(N), 2), 0, 4);
    expectVariance(torch.normal(-1, torch.full([N], 0.25)), 0.0625);
  });

  test('bernoulli and bernoulli_', () => {
    torch.manualSeed(3);
    const p = torch.tensor([0.1, 0.5, 0.9, 0, 1], { dtype: 'float32' }).view(1, 5).expand(N / 5, 5);
    const s = torch.bernoulli(p);
    for (const [i, q] of [0.1, 0.5, 0.9].entries()) expectMean(s.select(1, i), q, q * (1 - q));
    expect([s.select(1, 3).max().item(), s.select(1, 4).min().item()]).toEqual([0, 1]);
    expectMean(torch.empty(N).bernoulli_(0.3, { generator: g.manualSeed(8) }), 0.3, 0.21);
    expectMean(torch.bernoulli(torch.zeros(N), 0.7), 0.7, 0.21);
    const ints = torch.zeros([N], { dtype: 'int64' }).bernoulli_(torch.full([N], 0.25));
    expect(ints.dtype).toBe('int64');
    expectMean(ints, 0.25, 0.1875);
  });

  test('exponential_', () => {
    const e = torch.empty([N], { dtype: 'float64' }).exponential_(2.5, { generator: g.manualSeed(5) });
    expect(e.min().item() as number).toBeGreaterThanOrEqual(0);
    expectMean(e, 0.4, 0.16);
    expectVariance(e, 0.16);
  });

  test('multinomial with replacement: frequencies follow the weights, zero weights are never drawn', () => {
    const w = torch.tensor([[0, 1, 2, 0, 5, 0], [3, 0, 0, 0, 0, 1]], { dtype: 'float32' });
    const s = torch.multinomial(w, N / 2, true, { generator: g.manualSeed(6) });
    expect({ shape: s.shape, dtype: s.dtype }).toEqual({ shape: [2, N / 2], dtype: 'int64' });
    const rows = w.toArray() as Float32Array;
    for (let r = 0; r < 2; r++) {
      const total = Array.from(rows.slice(r * 6, r * 6 + 6)).reduce((a, b) => a + b, 0);
      for (let c = 0; c < 6; c++) {
        const q = rows[r * 6 + c] / total;
        const hits = s.select(0, r).eq(c).float();
        if (q === 0) expect(hits.sum().item()).toBe(0);
        else expectMean(hits, q, q * (1 - q));
      }
    }
  });

  test('multinomial without replacement: distinct samples, the first drawn by the weights', () => {
    torch.manualSeed(7);
    const w = torch.tensor([1, 2, 3, 4], { dtype: 'float32' }).expand(N / 4, 4);
    const s = torch.multinomial(w, 4);
    // Every row is a permutation of 0..3.
    const sorted = s.sort(1).values;
    expect(sorted.eq(torch.arange(4).expand(N / 4, 4)).all().item()).toBe(true);
    for (let c = 0; c < 4; c++) expectMean(s.select(1, 0).eq(c).float(), (c + 1) / 10, ((c + 1) / 10) * (1 - (c + 1) / 10));
    // The second sample of rows whose first was 3: the others by 1 : 2 : 3.
    const after3 = torch.multinomial(torch.tensor([1, 2, 3, 0], { dtype: 'float32' }).expand(N / 4, 4), 2).select(1, 0);
    expectMean(after3.eq(2).float(), 0.5, 0.25);
    const one = torch.multinomial(torch.tensor([0.2, 0.8], { dtype: 'float32' }), 1);
    expect(one.shape).toEqual([1]);
  });

  test('randperm with a generator is a permutation, the same for the same seed', () => {
    const a = torch.randperm(1000, { generator: g.manualSeed(10) });
    const b = torch.randperm(1000, { generator: g.manualSeed(10) });
    expect(vals(a)).toEqual(vals(b));
    expect(a.sort().values.eq(torch.arange(1000)).all().item()).toBe(true);
  });
});

test('normal is differentiable in its mean and std (gradcheck, a generator reseeded at each call)', () => {
  const g = new torch.Generator();
  const m = torch.randn([3, 2], { dtype: 'float64' }).requiresGrad_();
  const s = torch.rand([2], { dtype: 'float64' }).add(0.5).requiresGrad_();
  expect(torch.autograd.gradcheck((a, b) => torch.normal(a, b, { generator: g.manualSeed(3) }), [m, s])).toBe(true);
});

/** A PyTorch expression's shape and dtype only (values differ: PyTorch's streams are not ours). */
const like = (expr: string): string => `(lambda r: torch.zeros(r.shape, dtype=r.dtype))(${expr})`;
const likeOf = (r: torch.Tensor): torch.Tensor => torch.zeros(r.shape, { dtype: r.dtype });
const m64 = torch.zeros([2, 1], { dtype: 'float64' });
const s32 = torch.ones([3]);

const shapes: RefCase[] = [
  { name: 'normal of tensors: broadcast shape, promoted dtype', inputs: { m64, s32 }, torch: like('torch.normal(m64, s32)'), run: ({ m64, s32 }) => likeOf(torch.normal(m64, s32)) },
  { name: 'normal of a tensor and a number', inputs: { s32 }, torch: `(${like('torch.normal(s32, 2.0)')}, ${like('torch.normal(2.0, s32.double())')})`,
    run: ({ s32 }) => [likeOf(torch.normal(s32, 2)), likeOf(torch.normal(2, s32.double()))] },
  { name: 'normal of numbers and a size', inputs: {}, torch: like('torch.normal(0.0, 1.0, (2, 3))'), run: () => likeOf(torch.normal(0, 1, [2, 3])) },
  { name: 'bernoulli keeps the dtype; multinomial is int64', inputs: { p: torch.rand([3, 4], { dtype: 'float64' }) },
    torch: `(${like('torch.bernoulli(p)')}, ${like('torch.bernoulli(p.float(), 0.3)')}, ${like('torch.multinomial(p, 2)')}, ${like('torch.multinomial(p[0], 7, True)')})`,
    run: ({ p }) => [likeOf(torch.bernoulli(p)), likeOf(torch.bernoulli(p.float(), 0.3)), likeOf(torch.multinomial(p, 2)), likeOf(torch.multinomial(p.select(0, 0), 7, true))] },
  { name: 'multinomial without replacement takes zero weights last', inputs: {}, torch: 'torch.multinomial(torch.tensor([1.0, 0.0, 0.0]), 1)',
    run: () => torch.multinomial(torch.tensor([1, 0, 0], { dtype: 'float32' }), 1) },
  { name: 'normal with a negative std is refused', inputs: {}, torch: 'torch.normal(0.0, -1.0, (3,))', run: () => torch.normal(0, -1, [3]), error: /normal expects std >= 0.0, but found std -1/ },
  { name: 'normal with a negative std tensor is refused', inputs: {}, torch: 'torch.normal(torch.zeros(3), -torch.ones(3))',
    run: () => torch.normal(torch.zeros(3), torch.ones(3).neg()), error: /normal expects all elements of std >= 0.0/ },
  { name: 'normal_ with a negative std is refused', inputs: {}, torch: 'torch.empty(3).normal_(0, -1)', run: () => torch.empty(3).normal_(0, -1), error: /expects std >= 0.0/ },
  { name: 'multinomial of negative weights is refused', inputs: {}, torch: 'torch.multinomial(torch.tensor([1.0, -1.0]), 1)',
    run: () => torch.multinomial(torch.tensor([1, -1], { dtype: 'float32' }), 1), error: /probability tensor contains either `inf`, `nan` or element < 0/ },
  { name: 'multinomial of zero weights is refused', inputs: {}, torch: 'torch.multinomial(torch.zeros(3), 1)',
    run: () => torch.multinomial(torch.zeros(3), 1), error: /invalid multinomial distribution \(sum of probabilities <= 0\)/ },
  { name: 'multinomial of more samples than categories without replacement is refused', inputs: {}, torch: 'torch.multinomial(torch.ones(2), 3)',
    run: () => torch.multinomial(torch.ones(2), 3), error: /cannot sample n_sample > prob_dist.size\(-1\) samples without replacement/ },
  { name: 'multinomial of a 3-D input is refused', inputs: {}, torch: 'torch.multinomial(torch.ones(2, 2, 2), 1)', run: () => torch.multinomial(torch.ones(2, 2, 2), 1), error: /prob_dist must be 1 or 2 dim/ },
  { name: 'multinomial of integer weights is refused', inputs: {}, torch: 'torch.multinomial(torch.tensor([1, 2]), 1)', run: () => torch.multinomial(torch.tensor([1, 2]), 1), error: /only supports floating-point dtypes/ },
  { name: 'multinomial of no samples is refused', inputs: {}, torch: 'torch.multinomial(torch.ones(2), 0)', run: () => torch.multinomial(torch.ones(2), 0), error: /cannot sample n_sample <= 0 samples/ },
  { name: 'bernoulli_ with p above 1 is refused', inputs: {}, torch: 'torch.empty(3).bernoulli_(2.0)', run: () => torch.empty(3).bernoulli_(2), error: /bernoulli_ expects p to be in \[0, 1\], but got p=2/ },
  { name: 'bernoulli of probabilities above 1 is refused', inputs: {}, torch: 'torch.bernoulli(torch.tensor([1.5]))', run: () => torch.bernoulli(torch.tensor([1.5])), error: /in \[0, 1\]/ },
  { name: 'exponential_ with a negative rate is refused', inputs: {}, torch: 'torch.empty(3).exponential_(-1.0)', run: () => torch.empty(3).exponential_(-1), error: /exponential_ expects lambda >= 0.0, but found lambda=-1/ },
];

describe('shapes, dtypes and errors against PyTorch', () => compareWithTorch(shapes));
