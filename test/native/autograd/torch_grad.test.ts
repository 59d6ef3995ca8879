/**
 * Gradients against PyTorch's on the same inputs: composite functions of the
 * kind a model is made of, through torch.autograd.grad on both sides
 * (PyTorch 2 for CPU from build/pyref, test/native/torch_reference.ts).
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';

type T = torch.Tensor;

/** A case whose outputs are the gradients of `f` (a scalar) with respect to `wrt` inputs. */
function gradCase(name: string, inputs: Record<string, T>, wrt: string[], pyF: string, f: (x: Record<string, T>) => T, tol?: { rtol?: number; atol?: number }): RefCase {
  const py = `(lambda ${Object.keys(inputs).join(', ')}: torch.autograd.grad(${pyF}, [${wrt.join(', ')}]))(${Object.keys(inputs)
    .map((k) => (wrt.includes(k) ? `${k}.requires_grad_()` : k))
    .join(', ')})`;
  return {
    name,
    inputs,
    torch: py,
    run: (xs) => {
      const own: Record<string, T> = {};
      for (const [k, v] of Object.entries(xs)) own[k] = wrt.includes(k) ? v.clone().requiresGrad_() : v;
      const y = f(own);
      return torch.autograd.grad(y, wrt.map((k) => own[k])) as T[];
    },
    ...tol,
  };
}

torch.manualSeed(3);
const r = (...s: number[]) => torch.randn(s);
const cases: RefCase[] = [
  gradCase('mlp: linear, gelu, linear, crossEntropy', { x: r(8, 5), w1: r(16, 5), b1: r(16), w2: r(3, 16), b2: r(3), t: torch.tensor([0, 1, 2, 0, 1, 2, 2, 1]) }, ['x', 'w1', 'b1', 'w2', 'b2'],
    'torch.nn.functional.cross_entropy(torch.nn.functional.linear(torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1)), w2, b2), t)',
    ({ x, w1, b1, w2, b2, t }) => torch.crossEntropy(torch.linear(torch.linear(x, w1, b1).gelu(), w2, b2), t)),
  gradCase('layerNorm, residual, mean', { x: r(4, 6), w: r(6), b: r(6) }, ['x', 'w', 'b'],
    '(torch.nn.functional.layer_norm(x, [6], w, b) + x).pow(2).mean()',
    ({ x, w, b }) => torch.layerNorm(x, [6], w, b).add(x).pow(2).mean()),
  gradCase('attention block: q k v projections, causal sdpa', { x: r(2, 5, 8), wq: r(8, 8), wk: r(8, 8), wv: r(8, 8) }, ['x', 'wq', 'wk', 'wv'],
    'torch.nn.functional.scaled_dot_product_attention(x @ wq, x @ wk, x @ wv, is_causal=True).sum()',
    ({ x, wq, wk, wv }) => torch.scaledDotProductAttention(x.matmul(wq), x.matmul(wk), x.matmul(wv), { isCausal: true }).sum(), { rtol: 1e-4, atol: 1e-5 }),
  gradCase('views: transpose, reshape, narrow, expand', { x: r(3, 4), y: r(4, 1) }, ['x', 'y'],
    '(x.t().reshape(2, 6)[:, 1:4] * y.expand(4, 3)[:2]).sum()',
    ({ x, y }) => x.t().reshape([2, 6]).narrow(1, 1, 3).mul(y.expand([4, 3]).narrow(0, 0, 2)).sum()),
  gradCase('softmax, logsumexp, var, max', { x: r(3, 7) }, ['x'],
    'x.softmax(1).mul(x).sum() + x.logsumexp(1).sum() + x.var(0).sum() + x.max(1).values.sum()',
    ({ x }) => x.softmax(1).mul(x).sum().add(x.logsumexp(1).sum()).add(x.var(0).sum()).add(x.max(1).values.sum())),
  gradCase('embedding, rmsNorm, silu', { w: r(10, 4), g: r(4), i: torch.tensor([[1, 2, 2], [9, 0, 1]]) }, ['w', 'g'],
    'torch.nn.functional.silu(torch.nn.functional.rms_norm(torch.nn.functional.embedding(i, w), [4], g, 1e-6)).sum()',
    ({ w, g, i }) => torch.rmsNorm(torch.embedding(i, w), [4], g, 1e-6).silu().sum()),
  gradCase('cat, stack, broadcasting in float32 with a float64 input', { a: r(2, 3), b: torch.randn([3], { dtype: 'float64' }) }, ['a', 'b'],
    '(torch.cat([a, a * 2], 0) * b).sum() + torch.stack([a, a.exp()]).sum()',
    ({ a, b }) => torch.cat([a, a.mul(2)], 0).mul(b).sum().add(torch.stack([a, a.exp()]).sum())),
];
compareWithTorch(cases);
