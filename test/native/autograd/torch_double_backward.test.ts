/**
 * Double backward against PyTorch's on the same float64 inputs, for every
 * case of double_backward_cases.ts (every op of the elementwise, reduction
 * and matmul families, and the norms, losses, attention and convolution): on
 * both sides, the gradients g of f with respect to its inputs x for a random
 * output gradient u, taken with createGraph, and then the gradients of
 * Σ g · v (random v) with respect to x and to u. The second part is zero
 * unless each backward formula was recorded: with respect to u it is the
 * Jacobian-vector product, with respect to x the Hessian's.
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';
import { DOUBLE_CASES, DoubleCase, FAMILIES } from './double_backward_cases';

type T = torch.Tensor;

/** The gradients of `f` at `xs` for output gradient `u` (createGraph), and the gradients of Σ g · v with respect to xs and u. */
function twice(f: () => T, xs: T[], u: T, vs: T[]): T[] {
  const y = f();
  const gs = torch.autograd.grad(y, xs, { gradOutputs: [u], createGraph: true, allowUnused: true }).map((g, i) => g ?? torch.zerosLike(xs[i]));
  const terms: T[] = [];
  gs.forEach((g, i) => {
    if (g.requiresGrad) terms.push(g.mul(vs[i]).sum());
  });
  const wrt = [...xs, u];
  if (terms.length === 0) return [...gs, ...wrt.map((t) => torch.zerosLike(t))];
  const s = terms.reduce((a, b) => a.add(b));
  const hs = torch.autograd.grad(s, wrt, { allowUnused: true }).map((h, i) => h ?? torch.zerosLike(wrt[i]));
  return [...gs.map((g) => g.detach()), ...hs];
}

/** The same on PyTorch's side, as a program over the case's inputs plus u and v0, v1, … */
function twicePy(c: DoubleCase): string {
  const vs = c.wrt.map((_, i) => `v${i}`);
  return [
    'F = torch.nn.functional',
    `wrt = [${c.wrt.map((k) => `${k}.requires_grad_()`).join(', ')}]`,
    'u.requires_grad_()',
    `y = ${c.py}`,
    'gs = torch.autograd.grad(y, wrt, u, create_graph=True, allow_unused=True, materialize_grads=True)',
    `terms = [(g * v).sum() for g, v in zip(gs, [${vs.join(', ')}]) if g.requires_grad]`,
    'hs = torch.autograd.grad(sum(terms[1:], terms[0]), wrt + [u], allow_unused=True, materialize_grads=True) if terms else [torch.zeros_like(t) for t in wrt + [u]]',
    'out = tuple(gs) + tuple(hs)',
  ].join('\n');
}

function refCase(c: DoubleCase): RefCase {
  const y = torch.noGrad(() => c.ts(c.inputs));
  const u = torch.randn(y.shape.slice(), { dtype: 'float64' });
  const vs = c.wrt.map((k) => torch.randn(c.inputs[k].shape.slice(), { dtype: 'float64' }));
  const inputs: Record<string, T> = { ...c.inputs, u };
  vs.forEach((v, i) => (inputs[`v${i}`] = v));
  return {
    name: c.name,
    inputs,
    torch: twicePy(c),
    run: (all) => {
      const own: Record<string, T> = { ...c.inputs };
      for (const k of c.wrt) own[k] = all[k].clone().requiresGrad_();
      const uu = all.u.clone().requiresGrad_();
      return twice(() => c.ts(own), c.wrt.map((k) => own[k]), uu, vs);
    },
  };
}

describe('the cases cover the families', () => {
  test('every row of the elementwise, reduction and matmul families has a double-backward case', () => {
    const covered = new Set(DOUBLE_CASES.flatMap((c) => c.rows));
    const missing = Object.entries(FAMILIES).flatMap(([family, rows]) => rows.filter((r) => !covered.has(r)).map((r) => `${family}: ${r}`));
    expect(missing).toEqual([]);
  });
});

describe('double backward against PyTorch (float64, cpu)', () => {
  torch.manualSeed(5);
  compareWithTorch(DOUBLE_CASES.map(refCase));
});
