/**
 * autocast on CPU (bfloat16) against PyTorch 2's CPU autocast on the same
 * inputs: dtypes of the results (PyTorch's op lists), values, and gradients
 * of float32 leaves through a bfloat16 region; nesting, disabling, the cast
 * cache of parameters.
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';
import { ownStorages } from '../own_memory';

torch.manualSeed(11);
const x = torch.randn([8, 16]);
const w = torch.randn([4, 16]);
const b = torch.randn([4]);
const t = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3]);

/** PyTorch's expression `expr` inside `with torch.autocast('cpu', dtype=torch.bfloat16)`. */
const inAutocast = (expr: string) =>
  `(lambda ac: (ac.__enter__(), ${expr}, ac.__exit__(None, None, None))[1])(torch.autocast('cpu', dtype=torch.bfloat16))`;
const ac = <T>(fn: () => T): T => torch.autocast('cpu', { dtype: 'bfloat16' }, fn);

const cases: RefCase[] = [
  { name: 'linear runs in bfloat16', inputs: { x, w, b }, torch: inAutocast('torch.nn.functional.linear(x, w, b)'), run: ({ x, w, b }) => ac(() => torch.linear(x, w, b)) },
  { name: 'matmul runs in bfloat16', inputs: { x, w }, torch: inAutocast('x @ w.t()'), run: ({ x, w }) => ac(() => x.matmul(w.t())) },
  {
    name: 'crossEntropy runs in float32 on bfloat16 logits',
    inputs: { x, w, t },
    torch: inAutocast('torch.nn.functional.cross_entropy(torch.nn.functional.linear(x, w), t)'),
    run: ({ x, w, t }) => ac(() => torch.crossEntropy(torch.linear(x, w), t)),
  },
  {
    name: 'softmax keeps the input dtype on cpu (not in the cpu float32 list)',
    inputs: { x, w },
    torch: inAutocast('torch.nn.functional.linear(x, w).softmax(1)'),
    run: ({ x, w }) => ac(() => torch.linear(x, w).softmax(1)),
  },
  {
    name: 'gradients of float32 leaves through a bfloat16 region',
    inputs: { x, w, b, t },
    torch: `(lambda w, b: (lambda ac: (ac.__enter__(), torch.autograd.grad(torch.nn.functional.cross_entropy(torch.nn.functional.linear(x, w, b).relu(), t), [w, b]), ac.__exit__(None, None, None))[1])(torch.autocast('cpu', dtype=torch.bfloat16)))(w.requires_grad_(), b.requires_grad_())`,
    run: ({ x, w, b, t }) => {
      const W = w.clone().requiresGrad_(), B = b.clone().requiresGrad_();
      const loss = ac(() => torch.crossEntropy(torch.linear(x, W, B).relu(), t));
      return torch.autograd.grad(loss, [W, B]) as torch.Tensor[];
    },
    rtol: 2e-2,
    atol: 2e-3,
  },
  {
    name: 'a disabled inner region runs in float32',
    inputs: { x, w },
    torch: inAutocast(`(lambda ac2: (ac2.__enter__(), x @ w.t(), ac2.__exit__(None, None, None))[1])(torch.autocast('cpu', enabled=False))`),
    run: ({ x, w }) => ac(() => torch.autocast('cpu', { enabled: false }, () => x.matmul(w.t()))),
  },
];
compareWithTorch(cases);

describe('autocast regions', () => {
  test('the cast of a parameter is cached for the region and freed when it ends', () => {
    const p = torch.randn([64, 64], { requiresGrad: true });
    const y = torch.randn([8, 64]);
    let inside = 0;
    const own = ownStorages(); // the storages this test makes: other tests' garbage may be collected meanwhile
    ac(() => {
      const a = y.matmul(p);
      const c = y.matmul(p);
      inside = own.bytes();
      a.dispose();
      c.dispose();
    });
    // The bf16 copy of p (64·64·2 bytes) exists once, plus y's cast twice (the grad graph keeps them) — and is gone after.
    expect(inside).toBeGreaterThanOrEqual(64 * 64 * 2);
    expect(torch.isAutocastEnabled('cpu')).toBe(false);
    expect(own.bytes()).toBeLessThan(64 * 64 * 2);
  });

  test('a guard for using, and bad arguments', () => {
    const g = torch.autocast('cpu', { dtype: 'bfloat16' });
    try {
      expect(torch.isAutocastEnabled('cpu')).toBe(true);
      expect(torch.getAutocastDtype('cpu')).toBe('bfloat16');
      expect(x.matmul(w.t()).dtype).toBe('bfloat16');
    } finally {
      g[Symbol.dispose]();
    }
    expect(x.matmul(w.t()).dtype).toBe('float32');
    expect(() => torch.autocast('tpu' as 'cpu', () => 1)).toThrow(/expected 'cuda' or 'cpu' for deviceType/);
    expect(() => torch.autocast('cpu', { dtype: 'float64' as 'bfloat16' }, () => 1)).toThrow(/expected 'float16' or 'bfloat16' for dtype/);
  });
});
