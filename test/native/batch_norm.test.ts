/**
 * batchNorm's kernels (batchNormForward / batchNormBackward) on CPU: against
 * PyTorch (test/native/torch_reference.ts) in training and evaluation, with
 * and without weight and bias, the running statistics' update, 2-D to 5-D
 * inputs, float64, float16/bfloat16 inputs with float32 parameters and
 * statistics (the mixed dtypes of an autocast network), CPU autocast leaving
 * batchNorm in its input's dtype as PyTorch's; gradcheck in float64; and what
 * autograd keeps of a training-mode call: the input and two [C] statistics,
 * nothing else of the input's size.
 */
import * as torch from '../../native/index';
import { batchNormRun } from '../../native/ops/batch_norm';
import { compareWithTorch, RefCase } from './torch_reference';
import { ownStorages } from './own_memory';

type T = torch.Tensor;
const F = torch.nn.functional;
const PF = 'torch.nn.functional';

/**
 * batchNorm's output, the running statistics it updated, and the gradients of sum(out * ramp) with respect to
 * x (and w, b when given), on both sides. Python: `bn(x, rm, rv, w, b)` with copies of the running statistics.
 */
function bnCase(
  name: string, inputs: Record<string, T>, pyArgs: string, run: (x: T, rm: T | null, rv: T | null, w: T | null, b: T | null) => T,
  tol: { rtol?: number; atol?: number } = { rtol: 1e-4, atol: 1e-4 },
): RefCase {
  const wrt = ['x', ...(inputs.w ? ['w'] : []), ...(inputs.b ? ['b'] : [])];
  const py = (k: string) => (k in inputs ? (wrt.includes(k) ? `${k}_` : `${k}.clone()`) : 'None');
  const torchExpr = [
    ...wrt.map((k) => `${k}_ = ${k}.clone().requires_grad_()`),
    `rm_ = ${py('rm')}`,
    `rv_ = ${py('rv')}`,
    `y = ${PF}.batch_norm(${py('x')}, rm_, rv_, ${py('w')}, ${py('b')}, ${pyArgs})`,
    `g = torch.autograd.grad((y * torch.linspace(-1, 1, y.numel(), dtype=y.dtype).reshape(y.shape)).sum(), [${wrt.map((k) => `${k}_`).join(', ')}])`,
    `out = [y.detach()] + [t for t in (rm_, rv_) if t is not None] + list(g)`,
  ].join('\n');
  return {
    name,
    inputs,
    torch: torchExpr,
    run: (xs) => {
      const own: Record<string, T> = {};
      for (const k of wrt) own[k] = xs[k].clone().requiresGrad_();
      const rm = xs.rm ? xs.rm.clone() : null, rv = xs.rv ? xs.rv.clone() : null;
      const y = run(own.x, rm, rv, own.w ?? null, own.b ?? null);
      const ramp = torch.linspace(-1, 1, y.numel, { dtype: y.dtype }).reshape(y.shape);
      const grads = torch.autograd.grad(y.mul(ramp).sum(), wrt.map((k) => own[k])) as T[];
      return [y.detach(), ...[rm, rv].filter((t): t is T => t !== null), ...grads];
    },
    ...tol,
  };
}

torch.manualSeed(21);
const r = (...s: number[]) => torch.randn(s);
const pos = (n: number) => torch.rand([n]).add(0.5);

const cases: RefCase[] = [
  bnCase('training 4-D, weight and bias, running statistics (momentum 0.1)', { x: r(4, 3, 5, 6), w: r(3), b: r(3), rm: r(3), rv: pos(3) },
    'True, 0.1, 1e-5', (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { training: true })),
  bnCase('training 4-D, no affine, no running statistics', { x: r(3, 4, 3, 5) }, 'True, 0.1, 1e-5',
    (x) => F.batchNorm(x, null, null, null, null, { training: true })),
  bnCase('training 2-D [N, C], momentum 0.4, eps 1e-3, weight only', { x: r(7, 5), w: r(5), rm: r(5), rv: pos(5) }, 'True, 0.4, 1e-3',
    (x, rm, rv, w) => F.batchNorm(x, rm, rv, w, null, { training: true, momentum: 0.4, eps: 1e-3 })),
  bnCase('training 3-D [N, C, L], bias only', { x: r(2, 3, 9), b: r(3), rm: r(3), rv: pos(3) }, 'True, 0.1, 1e-5',
    (x, rm, rv, _w, b) => F.batchNorm(x, rm, rv, null, b, { training: true })),
  bnCase('training 5-D [N, C, D, H, W]', { x: r(2, 3, 2, 3, 4), w: r(3), b: r(3), rm: r(3), rv: pos(3) }, 'True, 0.1, 1e-5',
    (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { training: true })),
  bnCase('training with a mean far from zero (variance of values near 1000)', { x: r(4, 2, 6, 6).mul(0.5).add(1000), w: r(2), b: r(2), rm: r(2), rv: pos(2) },
    'True, 0.1, 1e-5', (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { training: true }), { rtol: 1e-3, atol: 1e-3 }),
  bnCase('eval 4-D, weight and bias', { x: r(4, 3, 5, 2), w: r(3), b: r(3), rm: r(3), rv: pos(3) }, 'False, 0.1, 1e-3',
    (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { eps: 1e-3 })),
  bnCase('eval 2-D, no affine', { x: r(6, 4), rm: r(4), rv: pos(4) }, 'False, 0.1, 1e-5', (x, rm, rv) => F.batchNorm(x, rm, rv)),
  bnCase('training in float64', { x: torch.randn([3, 4, 3, 3], { dtype: 'float64' }), w: torch.randn([4], { dtype: 'float64' }), b: torch.randn([4], { dtype: 'float64' }),
    rm: torch.randn([4], { dtype: 'float64' }), rv: torch.rand([4], { dtype: 'float64' }).add(0.5) }, 'True, 0.1, 1e-5',
  (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { training: true }), { rtol: 1e-10, atol: 1e-10 }),
  bnCase('training bfloat16 input, float32 weight, bias and running statistics', { x: r(4, 3, 4, 4).to('bfloat16'), w: r(3), b: r(3), rm: r(3), rv: pos(3) },
    'True, 0.1, 1e-5', (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { training: true }), { rtol: 2e-2, atol: 2e-2 }),
  bnCase('eval float16 input, float32 weight, bias and running statistics', { x: r(4, 3, 4, 4).to('float16'), w: r(3), b: r(3), rm: r(3), rv: pos(3) },
    'False, 0.1, 1e-5', (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b), { rtol: 2e-3, atol: 2e-3 }),
  bnCase('training bfloat16 throughout', { x: r(4, 3, 4, 4).to('bfloat16'), w: r(3).to('bfloat16'), b: r(3).to('bfloat16'), rm: r(3).to('bfloat16'), rv: pos(3).to('bfloat16') },
    'True, 0.1, 1e-5', (x, rm, rv, w, b) => F.batchNorm(x, rm, rv, w, b, { training: true }), { rtol: 3e-2, atol: 3e-2 }),
  {
    name: 'a non-contiguous input (a transposed view) and non-contiguous running statistics',
    inputs: { x: r(5, 3, 4, 2), rm: r(3, 2), rv: torch.rand([3, 2]).add(0.5) },
    torch: `(lambda m, v: (${PF}.batch_norm(x.transpose(2, 3), m[:, 0], v[:, 0], None, None, True, 0.2), m, v))(rm.clone(), rv.clone())`,
    run: ({ x, rm, rv }) => {
      const m = rm.clone(), v = rv.clone();
      return [F.batchNorm(x.transpose(2, 3), m.select(1, 0), v.select(1, 0), null, null, { training: true, momentum: 0.2 }), m, v];
    },
    rtol: 1e-4,
    atol: 1e-4,
  },
  {
    name: 'CPU autocast (bfloat16) leaves batchNorm in the dtype of a bfloat16 conv2d output, float32 running statistics updated',
    inputs: { x: r(2, 3, 6, 6), cw: r(4, 3, 3, 3), w: r(4), b: r(4), rm: r(4), rv: pos(4) },
    torch: [
      'm, v = rm.clone(), rv.clone()',
      "with torch.autocast('cpu', dtype=torch.bfloat16):",
      `    c = ${PF}.conv2d(x, cw)`,
      `    y = ${PF}.batch_norm(c, m, v, w, b, True)`,
      'out = [y, m, v]',
    ].join('\n'),
    run: ({ x, cw, w, b, rm, rv }) => {
      const m = rm.clone(), v = rv.clone();
      const y = torch.autocast('cpu', { dtype: 'bfloat16' }, () => F.batchNorm(F.conv2d(x, cw), m, v, w, b, { training: true }));
      expect(y.dtype).toBe('bfloat16');
      return [y, m, v];
    },
    rtol: 3e-2,
    atol: 3e-2,
  },
];
compareWithTorch(cases);

describe('batchNorm kernels', () => {
  test('gradcheck in float64: training and eval, with and without weight and bias', () => {
    torch.manualSeed(3);
    const d = { dtype: 'float64' as const };
    const x = torch.randn([3, 2, 3, 2], d).requiresGrad_();
    const w = torch.randn([2], d).requiresGrad_();
    const b = torch.randn([2], d).requiresGrad_();
    const rm = torch.tensor([0.1, -0.4], d), rv = torch.tensor([0.8, 1.3], d);
    expect(torch.autograd.gradcheck((a, c, e) => F.batchNorm(a, null, null, c, e, { training: true }), [x, w, b])).toBe(true);
    expect(torch.autograd.gradcheck((a) => F.batchNorm(a, null, null, null, null, { training: true, eps: 1e-2 }), [x])).toBe(true);
    expect(torch.autograd.gradcheck((a, c, e) => F.batchNorm(a, rm, rv, c, e), [x, w, b])).toBe(true);
    expect(torch.autograd.gradgradcheck((a, c) => F.batchNorm(a, null, null, c, null, { training: true }), [x, w])).toBe(true);
  });

  test('the statistics: the batch mean and 1 / sqrt(biased var + eps) in training, the running ones in eval; float32 for 16-bit inputs', () => {
    torch.manualSeed(4);
    const x = torch.randn([4, 3, 5]);
    const [, mean, invstd] = batchNormRun(x, null, null, null, null, true, 0.1, 1e-5);
    const dims = [0, 2];
    expect(mean.allclose(x.mean(dims), { rtol: 1e-5, atol: 1e-6 })).toBe(true);
    expect(invstd.allclose(x.var(dims, { correction: 0 }).add(1e-5).rsqrt(), { rtol: 1e-5, atol: 1e-6 })).toBe(true);
    const rm = torch.tensor([0.5, -1, 2]), rv = torch.tensor([1, 4, 0.25]);
    const [, em, ei] = batchNormRun(x, null, null, rm, rv, false, 0.1, 0);
    expect(em.toArray()).toEqual(rm.toArray());
    expect(ei.allclose(torch.tensor([1, 0.5, 2]))).toBe(true);
    const [yh, mh] = batchNormRun(x.to('float16'), null, null, rm, rv, true, 0.1, 1e-5);
    expect([yh.dtype, mh.dtype]).toEqual(['float16', 'float32']);
  });

  test('argument checks of the kernel: parameters of another floating dtype are cast, the running statistics written back', () => {
    const x = torch.randn([4, 2, 3]);
    const rm = torch.zeros([2], { dtype: 'float64' }), rv = torch.ones([2], { dtype: 'float64' });
    const y = F.batchNorm(x, rm, rv, torch.ones([2], { dtype: 'float64' }), null, { training: true });
    expect(y.dtype).toBe('float32');
    expect(rm.allclose(x.mean([0, 2]).to('float64').mul(0.1), { rtol: 1e-5, atol: 1e-6 })).toBe(true);
  });

  test('training mode saves for backward only the input and the two [C] statistics (no temporaries of the input\'s size)', () => {
    const c = 8;
    const x = torch.randn([4, c, 16, 16]).requiresGrad_();
    const w = torch.ones([c]).requiresGrad_(), b = torch.zeros([c]).requiresGrad_();
    const rm = torch.zeros([c]), rv = torch.ones([c]);
    const own = ownStorages();
    const y = F.batchNorm(x, rm, rv, w, b, { training: true });
    // What stays live: the output and the two statistics the node keeps (the input and weight were there before).
    const rows = own.list();
    expect(rows.map((t) => t.nbytes).sort((p, q) => q - p)).toEqual([x.numel * 4, c * 4, c * 4]);
    expect(y.gradFn?.name()).toBe('NativeBatchNormBackward0');
    y.backward(torch.onesLike(y));
    expect(x.grad?.shape).toEqual(x.shape);
    expect(w.grad?.shape).toEqual([c]);
    expect(b.grad?.shape).toEqual([c]);
  });
});
