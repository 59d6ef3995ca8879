/**
 * nn.init and the modules' default initialization: the statistics (mean,
 * standard deviation, bounds) of large samples match PyTorch's formulas,
 * and PyTorch's own modules of the same shapes give the same statistics
 * (within sampling error); calculateGain equals PyTorch's calculate_gain.
 */
import * as torch from '../../../native/index';
import { lazyPrograms, numbers } from './torch_program';

const { nn } = torch;
const { init } = nn;

interface Stats { mean: number; std: number; min: number; max: number; n: number }

function stats(t: torch.Tensor): Stats {
  const v = numbers(t);
  const n = v.length;
  const mean = v.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  let min = Infinity, max = -Infinity;
  for (const x of v) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { mean, std, min, max, n };
}

/** Mean within 5 standard errors of `mean`, std within 2% of `std` (or 5 standard errors of a small sample's std). */
function expectStats(s: Stats, mean: number, std: number, what: string): void {
  const se = std / Math.sqrt(s.n);
  if (Math.abs(s.mean - mean) > 5 * se) throw new Error(`${what}: mean ${s.mean}, expected ${mean} ± ${5 * se}`);
  const rel = Math.max(0.02, 5 * 0.71 / Math.sqrt(s.n));
  if (Math.abs(s.std - std) > rel * std) throw new Error(`${what}: std ${s.std}, expected ${std} ± ${(100 * rel).toFixed(1)}%`);
}

function expectUniform(t: torch.Tensor, bound: number, what: string): void {
  const s = stats(t);
  expect(s.min).toBeGreaterThanOrEqual(-bound);
  expect(s.max).toBeLessThanOrEqual(bound);
  // A large sample reaches within 1% of both bounds (a smaller one within 5%).
  const near = s.n >= 10000 ? 0.99 : 0.95;
  expect(s.min).toBeLessThan(-near * bound);
  expect(s.max).toBeGreaterThan(near * bound);
  expectStats(s, 0, bound / Math.sqrt(3), what);
}

torch.manualSeed(11);

const PY_STATS = `
def stats(t):
    t = t.detach().double().flatten()
    return {"mean": t.mean().item(), "std": t.std().item(), "min": t.min().item(), "max": t.max().item(), "n": t.numel()}
torch.manual_seed(0)
lin = torch.nn.Linear(512, 256)
emb = torch.nn.Embedding(2000, 64, padding_idx=3)
mha = torch.nn.MultiheadAttention(128, 4)
out["linear.weight"] = stats(lin.weight)
out["linear.bias"] = stats(lin.bias)
out["embedding.weight"] = stats(emb.weight)
out["embedding.padding_row"] = emb.weight[3].abs().max().item()
out["mha.in_proj_weight"] = stats(mha.in_proj_weight)
out["mha.in_proj_bias"] = stats(mha.in_proj_bias)
out["mha.out_proj.weight"] = stats(mha.out_proj.weight)
out["mha.out_proj.bias"] = stats(mha.out_proj.bias)
g = torch.nn.init.calculate_gain
out["gains"] = [g("linear"), g("sigmoid"), g("tanh"), g("relu"), g("leaky_relu"), g("leaky_relu", 0.2), g("selu"), g("conv2d")]
`;
const ref = lazyPrograms([{ code: PY_STATS }]);

describe('default initialization of the modules (PyTorch\'s formulas, and PyTorch\'s modules)', () => {
  test('Linear: weight and bias U(±1/√fanIn)', () => {
    const lin = new nn.Linear(512, 256);
    expectUniform(lin.weight, 1 / Math.sqrt(512), 'Linear.weight');
    expectUniform(lin.bias!, 1 / Math.sqrt(512), 'Linear.bias');
    const want = ref()[0] as unknown as Record<string, Stats>;
    expect(stats(lin.weight).max).toBeCloseTo(want['linear.weight'].max, 3);
    expectStats(stats(lin.weight), want['linear.weight'].mean, want['linear.weight'].std, 'Linear.weight against PyTorch');
  });

  test('Embedding: N(0, 1), the padding row zeros', () => {
    const emb = new nn.Embedding(2000, 64, { paddingIdx: 3 });
    expectStats(stats(emb.weight), 0, 1, 'Embedding.weight');
    const row = emb.weight.select(0, 3);
    expect(numbers(row).every((v) => v === 0)).toBe(true);
    const want = ref()[0] as unknown as Record<string, Stats & number>;
    expect(want['embedding.padding_row']).toBe(0);
    expectStats(stats(emb.weight), want['embedding.weight'].mean, want['embedding.weight'].std, 'Embedding.weight against PyTorch');
  });

  test('LayerNorm and RMSNorm: weight ones, bias zeros', () => {
    const ln = new nn.LayerNorm([4, 5]);
    expect(numbers(ln.weight!).every((v) => v === 1)).toBe(true);
    expect(numbers(ln.bias!).every((v) => v === 0)).toBe(true);
    expect(ln.weight!.shape).toEqual([4, 5]);
    expect(numbers(new nn.RMSNorm(7).weight!).every((v) => v === 1)).toBe(true);
  });

  test('MultiheadAttention: in_proj_weight Xavier uniform, biases zeros, out_proj.weight as Linear', () => {
    const mha = new nn.MultiheadAttention(128, 4);
    expectUniform(mha.in_proj_weight, Math.sqrt(6 / (128 + 3 * 128)), 'in_proj_weight');
    expect(numbers(mha.in_proj_bias!).every((v) => v === 0)).toBe(true);
    expect(numbers(mha.out_proj.bias!).every((v) => v === 0)).toBe(true);
    expectUniform(mha.out_proj.weight, 1 / Math.sqrt(128), 'out_proj.weight');
    const want = ref()[0] as unknown as Record<string, Stats>;
    expectStats(stats(mha.in_proj_weight), want['mha.in_proj_weight'].mean, want['mha.in_proj_weight'].std, 'in_proj_weight against PyTorch');
    expect(want['mha.in_proj_bias'].max).toBe(0);
    expectStats(stats(mha.out_proj.weight), want['mha.out_proj.weight'].mean, want['mha.out_proj.weight'].std, 'out_proj.weight against PyTorch');
  });
});

describe('nn.init functions', () => {
  const big = (): torch.Tensor => torch.empty([300, 400]);

  test('calculateGain equals PyTorch\'s calculate_gain', () => {
    const want = (ref()[0] as unknown as Record<string, number[]>).gains;
    const got = [init.calculateGain('linear'), init.calculateGain('sigmoid'), init.calculateGain('tanh'), init.calculateGain('relu'),
      init.calculateGain('leaky_relu'), init.calculateGain('leaky_relu', 0.2), init.calculateGain('selu'), init.calculateGain('conv2d')];
    got.forEach((g, i) => expect(g).toBeCloseTo(want[i], 12));
  });

  test('kaimingUniform_ and kaimingNormal_ (fanIn, fanOut, relu)', () => {
    expectUniform(init.kaimingUniform_(big()), Math.sqrt(2) * Math.sqrt(3 / 400), 'kaimingUniform_ default');
    expectUniform(init.kaimingUniform_(big(), { mode: 'fanOut', nonlinearity: 'relu' }), Math.sqrt(2) * Math.sqrt(3 / 300), 'kaimingUniform_ fanOut');
    expectStats(stats(init.kaimingNormal_(big(), { nonlinearity: 'relu' })), 0, Math.sqrt(2 / 400), 'kaimingNormal_ relu');
    expectStats(stats(init.kaimingNormal_(big(), { a: 0.3, mode: 'fan_out' })), 0, Math.sqrt(2 / (1 + 0.09)) / Math.sqrt(300), 'kaimingNormal_ leaky fan_out');
  });

  test('xavierUniform_ and xavierNormal_ (with a gain), fans of a 4-D weight', () => {
    expectUniform(init.xavierUniform_(big(), 2), 2 * Math.sqrt(6 / 700), 'xavierUniform_');
    expectStats(stats(init.xavierNormal_(big())), 0, Math.sqrt(2 / 700), 'xavierNormal_');
    expect(init.calculateFanInAndFanOut(torch.empty([8, 3, 5, 5]))).toEqual([75, 200]);
    expect(() => init.xavierUniform_(torch.empty([5]))).toThrow(/Fan in and fan out can not be computed for tensor with fewer than 2 dimensions/);
  });

  test('uniform_, normal_, truncNormal_, constant_, zeros_, ones_', () => {
    expectUniform(init.uniform_(big(), -3, 3), 3, 'uniform_');
    expectStats(stats(init.normal_(big(), 2, 0.5)), 2, 0.5, 'normal_');
    const t = stats(init.truncNormal_(big(), 0, 1, -1, 1.5));
    expect(t.min).toBeGreaterThanOrEqual(-1);
    expect(t.max).toBeLessThanOrEqual(1.5);
    expect(t.max).toBeGreaterThan(1.49);
    expect(numbers(init.constant_(torch.empty([3]), 0.25))).toEqual([0.25, 0.25, 0.25]);
    expect(numbers(init.zeros_(torch.empty([2])))).toEqual([0, 0]);
    expect(numbers(init.ones_(torch.empty([2])))).toEqual([1, 1]);
  });

  test('initialization is not recorded by autograd: a parameter stays a leaf', () => {
    const p = new nn.Parameter(torch.empty([3, 4]));
    init.kaimingUniform_(p);
    expect(p.isLeaf).toBe(true);
    expect(p.requiresGrad).toBe(true);
  });
});
