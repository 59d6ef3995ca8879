/**
 * In-place ops and autograd against PyTorch on the same float64 inputs: an
 * in-place op whose formula reads the value it overwrote (`y.mul_(w)` needs
 * y's old value for w's gradient), in-place writes into views (the base's
 * CopySlices node), and double backward through both (createGraph); and the
 * saved second outputs of multi-output ops under createGraph.
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';

type T = torch.Tensor;
const grad = torch.autograd.grad;

torch.manualSeed(9);
const r = (...s: number[]) => torch.randn(s, { dtype: 'float64' });
const pos = (...s: number[]) => torch.rand(s, { dtype: 'float64' }).add(0.5);
/** Leaf copies of `xs` that require grad (the harness's inputs stay as they are). */
const leaves = (...xs: T[]) => xs.map((x) => x.clone().requiresGrad_());
const py = (...lines: string[]) => lines.join('\n');

const cases: RefCase[] = [
  {
    name: 'mul_ on a non-leaf: the other factor gets the overwritten value as its gradient',
    inputs: { x: r(4), w: r(4) },
    torch: py('w.requires_grad_()', 'y = x.clone()', 'y.mul_(w)', 'out = torch.autograd.grad((y * y).sum(), [w])'),
    run: ({ x, w }) => {
      const [ww] = leaves(w);
      const y = x.clone();
      y.mul_(ww);
      return grad(y.mul(y).sum(), [ww]) as T[];
    },
  },
  {
    name: 'mul_, div_, sin_, clamp_ and pow_ in a row on a non-leaf, then double backward',
    inputs: { x: r(5), w: r(5), v: pos(5) },
    torch: py(
      'x.requires_grad_(); w.requires_grad_(); v.requires_grad_()',
      'y = x * 1.5',
      'y.mul_(w); y.div_(v); y.sin_(); y.clamp_(-0.8, 0.8); y.pow_(2)',
      'gx, gw, gv = torch.autograd.grad(y.sum(), [x, w, v], create_graph=True)',
      'out = (gx, gw, gv) + torch.autograd.grad((gx * gw).sum() + gv.pow(2).sum(), [x, w, v])',
    ),
    run: ({ x, w, v }) => {
      const [xx, ww, vv] = leaves(x, w, v);
      const y = xx.mul(1.5);
      y.mul_(ww);
      y.div_(vv);
      y.sin_();
      y.clamp_(-0.8, 0.8);
      y.pow_(2);
      const [gx, gw, gv] = grad(y.sum(), [xx, ww, vv], { createGraph: true }) as T[];
      return [gx, gw, gv, ...(grad(gx.mul(gw).sum().add(gv.pow(2).sum()), [xx, ww, vv]) as T[])];
    },
  },
  {
    name: 'mul_ into a view of a clone (CopySlices): w\'s gradient, and the gradient of its sum (createGraph)',
    inputs: { x: r(4, 3), w: r(2, 3) },
    torch: py(
      'w.requires_grad_()',
      'y = x.clone()',
      'y.narrow(0, 0, 2).mul_(w)',
      'g, = torch.autograd.grad(y.sum() ** 2, [w], create_graph=True)',
      'g.sum().backward()',
      'out = (g, w.grad)',
    ),
    run: ({ x, w }) => {
      const [ww] = leaves(w);
      const y = x.clone();
      y.narrow(0, 0, 2).mul_(ww);
      const [g] = grad(y.sum().pow(2), [ww], { createGraph: true }) as T[];
      g.sum().backward();
      return [g.detach(), ww.grad!];
    },
  },
  {
    name: 'mul_ into a view of a non-leaf: double backward into the base\'s input and w',
    inputs: { x: r(4, 3), w: r(2, 3) },
    torch: py(
      'x.requires_grad_(); w.requires_grad_()',
      'y = x * 1.5',
      'y.narrow(0, 1, 2).mul_(w)',
      'gx, gw = torch.autograd.grad((y * y).sum(), [x, w], create_graph=True)',
      'out = (gx, gw) + torch.autograd.grad(gx.pow(2).sum() + (gw * gw.sin()).sum(), [x, w])',
    ),
    run: ({ x, w }) => {
      const [xx, ww] = leaves(x, w);
      const y = xx.mul(1.5);
      y.narrow(0, 1, 2).mul_(ww);
      const [gx, gw] = grad(y.mul(y).sum(), [xx, ww], { createGraph: true }) as T[];
      return [gx, gw, ...(grad(gx.pow(2).sum().add(gw.mul(gw.sin()).sum()), [xx, ww]) as T[])];
    },
  },
  {
    name: 'sin_, mul_ and exp_ into views of a non-leaf (saved inputs and a saved output of written views), twice',
    inputs: { x: r(3, 4) },
    torch: py(
      'x.requires_grad_()',
      'y = x * 2',
      'y.narrow(1, 2, 2).sin_(); y.select(0, 1).mul_(x.select(0, 2)); y.narrow(1, 0, 2).exp_()',
      'g, = torch.autograd.grad(y.pow(3).sum(), [x], create_graph=True)',
      'out = (g,) + torch.autograd.grad(g.pow(2).sum(), [x])',
    ),
    run: ({ x }) => {
      const [xx] = leaves(x);
      const y = xx.mul(2);
      y.narrow(1, 2, 2).sin_();
      y.select(0, 1).mul_(xx.select(0, 2));
      y.narrow(1, 0, 2).exp_();
      const [g] = grad(y.pow(3).sum(), [xx], { createGraph: true }) as T[];
      return [g, ...(grad(g.pow(2).sum(), [xx]) as T[])];
    },
  },
  {
    name: 'cat and stack (writes into views), twice',
    inputs: { a: r(2, 3), b: r(1, 3) },
    torch: py(
      'a.requires_grad_(); b.requires_grad_()',
      'y = torch.cat([a * b, a.exp(), b.tanh()], 0).pow(2).sum() + torch.stack([a, a * b]).prod(0).sum()',
      'ga, gb = torch.autograd.grad(y, [a, b], create_graph=True)',
      'out = (ga, gb) + torch.autograd.grad((ga * gb).sum(), [a, b])',
    ),
    run: ({ a, b }) => {
      const [aa, bb] = leaves(a, b);
      const y = torch.cat([aa.mul(bb), aa.exp(), bb.tanh()], 0).pow(2).sum().add(torch.stack([aa, aa.mul(bb)]).prod(0).sum());
      const [ga, gb] = grad(y, [aa, bb], { createGraph: true }) as T[];
      return [ga, gb, ...(grad(ga.mul(gb).sum(), [aa, bb]) as T[])];
    },
  },
  {
    name: 'copy_ into a slice and index assignment, twice',
    inputs: { x: r(4, 3), s: r(2, 3) },
    torch: py(
      'x.requires_grad_(); s.requires_grad_()',
      'y = x * 2',
      'y[1:3] = s * s',
      'g = torch.autograd.grad(y.pow(3).sum(), [x, s], create_graph=True)',
      'out = g + torch.autograd.grad(g[0].sum() + g[1].pow(2).sum(), [x, s])',
    ),
    run: ({ x, s }) => {
      const [xx, ss] = leaves(x, s);
      const y = xx.mul(2);
      y.narrow(0, 1, 2).copy_(ss.mul(ss));
      const g = grad(y.pow(3).sum(), [xx, ss], { createGraph: true }) as T[];
      return [...g, ...(grad(g[0].sum().add(g[1].pow(2).sum()), [xx, ss]) as T[])];
    },
  },
  // A saved second output (attention's weights, max's indices, cross entropy's logsumexp) under createGraph.
  {
    name: 'scaledDotProductAttention: the gradient of a gradient flows through its saved weights',
    inputs: { q: r(1, 2, 3), k: r(1, 4, 3), v: r(1, 4, 3) },
    torch: py(
      'q.requires_grad_(); k.requires_grad_(); v.requires_grad_()',
      'o = torch.softmax(q @ k.transpose(-2, -1) / 3 ** 0.5, -1) @ v',
      'gq, gk, gv = torch.autograd.grad(o.pow(2).sum(), [q, k, v], create_graph=True)',
      'out = torch.autograd.grad(gq.pow(2).sum() + gk.sum() + (gv * gv).sum(), [q, k, v])',
    ),
    run: ({ q, k, v }) => {
      const [qq, kk, vv] = leaves(q, k, v);
      const o = torch.scaledDotProductAttention(qq, kk, vv);
      const [gq, gk, gv] = grad(o.pow(2).sum(), [qq, kk, vv], { createGraph: true }) as T[];
      return grad(gq.pow(2).sum().add(gk.sum()).add(gv.mul(gv).sum()), [qq, kk, vv]) as T[];
    },
  },
  {
    name: 'max, sort and cummax values, crossEntropy: second outputs saved, double backward',
    inputs: { x: r(3, 5), t: torch.tensor([4, 0, 2]) },
    torch: py(
      'x.requires_grad_()',
      'y = x.max(1).values.pow(2).sum() + (x.sort(1).values * x).sum() + x.cummax(1).values.pow(3).sum() + torch.nn.functional.cross_entropy(x * x, t)',
      'g, = torch.autograd.grad(y, [x], create_graph=True)',
      'out = (g,) + torch.autograd.grad(g.pow(2).sum(), [x])',
    ),
    run: ({ x, t }) => {
      const [xx] = leaves(x);
      const y = xx.max(1).values.pow(2).sum().add(xx.sort(1).values.mul(xx).sum()).add(xx.cummax(1).values.pow(3).sum()).add(torch.crossEntropy(xx.mul(xx), t));
      const [g] = grad(y, [xx], { createGraph: true }) as T[];
      return [g, ...(grad(g.pow(2).sum(), [xx]) as T[])];
    },
  },
];
compareWithTorch(cases);

describe('saved outputs under createGraph', () => {
  test('an integer output saved for backward (max\'s indices) is not made to require grad; the values\' second derivative is right', () => {
    const x = torch.randn([3, 4], { dtype: 'float64' }).requiresGrad_();
    const { values, indices } = x.max(1);
    const [g] = grad(values.pow(2).sum(), [x], { createGraph: true }) as T[];
    expect(g.requiresGrad).toBe(true);
    expect(indices.requiresGrad).toBe(false);
    // d/dx Σ 2·max·onehot(argmax) = 2·onehot(argmax).
    const [h] = grad(g.sum(), [x]) as T[];
    const want = torch.zeros([3, 4], { dtype: 'float64' }).scatter(1, indices.unsqueeze(1), 2);
    expect(h.toArray()).toEqual(want.toArray());
  });
});
