/**
 * What the engine keeps under createGraph, against PyTorch on the same
 * float64 inputs: a formula that hands on its incoming gradient unchanged
 * (add, clone), output gradients that require grad themselves, the gradient of
 * a non-leaf taken by torch.autograd.grad, a retained gradient, a tensor hook
 * that changes the gradient, and a custom Function whose backward is written
 * with tensor ops — each differentiated a second time.
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';

type T = torch.Tensor;
type Ctx = torch.autograd.FunctionCtx;
const grad = torch.autograd.grad;

torch.manualSeed(13);
const r = (...s: number[]) => torch.randn(s, { dtype: 'float64' });
const leaves = (...xs: T[]) => xs.map((x) => x.clone().requiresGrad_());
const py = (...lines: string[]) => lines.join('\n');

/** sin(x) · c with c saved: its backward is written with ops, so it is differentiated again under createGraph. */
class SinTimes extends torch.autograd.Function {
  static forward(ctx: Ctx, x: T, c: T) {
    ctx.saveForBackward(x, c);
    return x.sin().mul(c);
  }
  static backward(ctx: Ctx, g: T) {
    const [x, c] = ctx.savedTensors;
    return [g.mul(x.cos()).mul(c), g.mul(x.sin())];
  }
}

const cases: RefCase[] = [
  {
    name: 'add and clone hand their gradient on unchanged: the second derivative through them',
    inputs: { a: r(4), b: r(4) },
    torch: py(
      'a.requires_grad_(); b.requires_grad_()',
      'y = (a + b).clone() * a',
      'ga, gb = torch.autograd.grad(y.sum(), [a, b], create_graph=True)',
      'out = (ga, gb) + torch.autograd.grad((ga * gb).sum(), [a, b])',
    ),
    run: ({ a, b }) => {
      const [aa, bb] = leaves(a, b);
      const y = aa.add(bb).clone().mul(aa);
      const [ga, gb] = grad(y.sum(), [aa, bb], { createGraph: true }) as T[];
      return [ga, gb, ...(grad(ga.mul(gb).sum(), [aa, bb]) as T[])];
    },
  },
  {
    name: 'an output gradient that requires grad: backward(gradient, { createGraph }) is differentiable in it',
    inputs: { x: r(3), u: r(3) },
    torch: py(
      'x.requires_grad_(); u.requires_grad_()',
      'y = x.exp()',
      'y.backward(u, create_graph=True)',
      'out = (x.grad,) + torch.autograd.grad((x.grad * x.grad).sum(), [x, u])',
    ),
    run: ({ x, u }) => {
      const [xx, uu] = leaves(x, u);
      xx.exp().backward(uu, { createGraph: true });
      const gx = xx.grad!;
      return [gx, ...(grad(gx.mul(gx).sum(), [xx, uu]) as T[])];
    },
  },
  {
    name: 'the gradient of a non-leaf by torch.autograd.grad, then its own gradient',
    inputs: { x: r(2, 3) },
    torch: py(
      'x.requires_grad_()',
      'h = x.tanh()',
      'gh, = torch.autograd.grad((h ** 3).sum(), [h], create_graph=True)',
      'out = (gh,) + torch.autograd.grad(gh.sum(), [x])',
    ),
    run: ({ x }) => {
      const [xx] = leaves(x);
      const h = xx.tanh();
      const [gh] = grad(h.pow(3).sum(), [h], { createGraph: true }) as T[];
      return [gh, ...(grad(gh.sum(), [xx]) as T[])];
    },
  },
  {
    name: 'retainGrad under createGraph keeps the retained gradient\'s graph',
    inputs: { x: r(4) },
    torch: py(
      'x.requires_grad_()',
      'y = x.sin()',
      'y.retain_grad()',
      '(y * y).sum().backward(create_graph=True)',
      'out = (y.grad,) + torch.autograd.grad(y.grad.sum(), [x])',
    ),
    run: ({ x }) => {
      const [xx] = leaves(x);
      const y = xx.sin();
      y.retainGrad();
      y.mul(y).sum().backward(null, { createGraph: true });
      return [y.grad!, ...(grad(y.grad!.sum(), [xx]) as T[])];
    },
  },
  {
    name: 'a hook that scales a non-leaf\'s gradient by a tensor: its change is differentiated too',
    inputs: { x: r(4), s: r(4) },
    torch: py(
      'x.requires_grad_(); s.requires_grad_()',
      'h = x * 2',
      'h.register_hook(lambda g: g * s)',
      'gx, = torch.autograd.grad(h.pow(2).sum(), [x], create_graph=True)',
      'out = (gx,) + torch.autograd.grad(gx.sum(), [x, s])',
    ),
    run: ({ x, s }) => {
      const [xx, ss] = leaves(x, s);
      const h = xx.mul(2);
      h.registerHook((g) => g.mul(ss));
      const [gx] = grad(h.pow(2).sum(), [xx], { createGraph: true }) as T[];
      return [gx, ...(grad(gx.sum(), [xx, ss]) as T[])];
    },
  },
  {
    name: 'a custom Function differentiated twice (its backward in grad mode)',
    inputs: { x: r(5), c: r(5) },
    torch: py(
      'x.requires_grad_(); c.requires_grad_()',
      'y = x.sin() * c',
      'gx, gc = torch.autograd.grad(y.pow(2).sum(), [x, c], create_graph=True)',
      'out = (gx, gc) + torch.autograd.grad((gx * gc).sum(), [x, c])',
    ),
    run: ({ x, c }) => {
      const [xx, cc] = leaves(x, c);
      const y = SinTimes.apply(xx, cc) as T;
      const [gx, gc] = grad(y.pow(2).sum(), [xx, cc], { createGraph: true }) as T[];
      return [gx, gc, ...(grad(gx.mul(gc).sum(), [xx, cc]) as T[])];
    },
  },
];
compareWithTorch(cases);
