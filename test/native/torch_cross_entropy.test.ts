/**
 * The fused cross entropy (class indices) and the fused softmax / logSoftmax
 * backward against PyTorch on cpu, on the same inputs: losses and the
 * logits' gradients at vocabulary-sized rows (1,024 to 50,257 classes), in
 * float32, float64, float16 and bfloat16, with ignoreIndex, labelSmoothing,
 * class weights, every reduction and the [N, C, d] form; a double backward
 * (createGraph: the composed formula); and targets out of range.
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

type T = torch.Tensor;

/** Loss and the gradient of loss.sum() with respect to x, on both sides. */
function ceCase(name: string, inputs: Record<string, T>, pyOpts: string, opts: (xs: Record<string, T>) => torch.CrossEntropyOptions,
                tol?: { rtol?: number; atol?: number }): RefCase {
  return {
    name,
    inputs,
    torch: `(lambda x, t, *w: (lambda xx: (lambda l: (l.detach(), torch.autograd.grad(l.sum(), [xx])[0]))` +
      `(torch.nn.functional.cross_entropy(xx, t${pyOpts})))(x.detach().requires_grad_()))(${Object.keys(inputs).join(', ')})`,
    run: (xs) => {
      const x = xs.x.detach().requiresGrad_();
      const loss = torch.crossEntropy(x, xs.t, opts(xs));
      const [g] = torch.autograd.grad(loss.sum(), [x]);
      return [loss.detach(), g!];
    },
    ...tol,
  };
}

torch.manualSeed(11);
const big = torch.randn([12, 50257]).mul(2);
const bigTarget = torch.where(torch.arange(12).remainder(4).eq(1), -100, torch.randint(0, 50257, [12]));
const mid = torch.randn([40, 1024]).mul(3);
const midTarget = torch.randint(0, 1024, [40]);
const odd = torch.randn([9, 4099]);
const oddTarget = torch.randint(0, 4099, [9]);
const w4099 = torch.rand([4099]).add(0.25);
const seq = torch.randn([3, 1030, 5]);
const seqTarget = torch.where(torch.rand([3, 5]).lt(0.3), 7, torch.randint(0, 1030, [3, 5]));

const cases: RefCase[] = [
  ceCase('[12, 50257] float32 mean, ignored rows', { x: big, t: bigTarget }, '', () => ({})),
  ceCase('[12, 50257] float32 none, labelSmoothing 0.1', { x: big, t: bigTarget }, ", reduction='none', label_smoothing=0.1", () => ({ reduction: 'none', labelSmoothing: 0.1 })),
  ceCase('[40, 1024] float32 sum', { x: mid, t: midTarget }, ", reduction='sum'", () => ({ reduction: 'sum' })),
  ceCase('[40, 1024] float64 labelSmoothing 0.3', { x: mid.double(), t: midTarget }, ', label_smoothing=0.3', () => ({ labelSmoothing: 0.3 }),
    { rtol: 1e-10, atol: 1e-12 }),
  ceCase('[9, 4099] float32 weights, smoothing, ignoreIndex 3', { x: odd, t: oddTarget, w: w4099 }, ', weight=w[0], ignore_index=3, label_smoothing=0.2',
    (xs) => ({ weight: xs.w, ignoreIndex: 3, labelSmoothing: 0.2 })),
  ceCase('[9, 4099] float32 weights none', { x: odd, t: oddTarget, w: w4099 }, ", weight=w[0], reduction='none'", (xs) => ({ weight: xs.w, reduction: 'none' })),
  ceCase('[3, 1030, 5] float32 ignoreIndex 7, labelSmoothing 0.05', { x: seq, t: seqTarget }, ', ignore_index=7, label_smoothing=0.05',
    () => ({ ignoreIndex: 7, labelSmoothing: 0.05 })),
  ceCase('[40, 1024] bfloat16 mean', { x: mid.bfloat16(), t: midTarget }, '', () => ({}), { rtol: 2e-2, atol: 2e-3 }),
  ceCase('[40, 1024] float16 smoothing none', { x: mid.half(), t: midTarget }, ", reduction='none', label_smoothing=0.1",
    () => ({ reduction: 'none', labelSmoothing: 0.1 }), { rtol: 2e-3, atol: 2e-4 }),
  {
    name: 'double backward through crossEntropy (createGraph)',
    inputs: { x: torch.randn([6, 9]), t: torch.randint(0, 9, [6]) },
    torch: '(lambda xx: torch.autograd.grad(torch.autograd.grad(torch.nn.functional.cross_entropy(xx, t, label_smoothing=0.2), [xx], create_graph=True)[0].pow(2).sum(), [xx])[0])(x.requires_grad_())',
    run: ({ x, t }) => {
      const xx = x.detach().requiresGrad_();
      const [g] = torch.autograd.grad(torch.crossEntropy(xx, t, { labelSmoothing: 0.2 }), [xx], { createGraph: true });
      return torch.autograd.grad(g!.pow(2).sum(), [xx])[0]!;
    },
  },
  {
    name: 'softmax and logSoftmax backward over long rows',
    inputs: { x: torch.randn([5, 16384]).mul(3), g: torch.randn([5, 16384]) },
    torch: '(lambda xx: torch.autograd.grad((xx.softmax(-1) * g).sum() + (xx.log_softmax(1) * g).sum(), [xx])[0])(x.requires_grad_())',
    run: ({ x, g }) => {
      const xx = x.detach().requiresGrad_();
      return torch.autograd.grad(xx.softmax(-1).mul(g).sum().add(xx.logSoftmax(1).mul(g).sum()), [xx])[0]!;
    },
    // Sums over 16,384 float32 terms in another order: about 1e-5 apart.
    rtol: 1e-4, atol: 1e-4,
  },
  {
    name: 'logSoftmax backward in bfloat16',
    inputs: { x: torch.randn([4, 2048]).bfloat16(), g: torch.randn([4, 2048]).bfloat16() },
    torch: '(lambda xx: torch.autograd.grad(xx.log_softmax(-1), [xx], grad_outputs=[g])[0])(x.requires_grad_())',
    run: ({ x, g }) => {
      const xx = x.detach().requiresGrad_();
      return torch.autograd.grad(xx.logSoftmax(-1), [xx], { gradOutputs: [g] })[0]!;
    },
    rtol: 2e-2, atol: 2e-2,
  },
  {
    name: 'a target above the classes is refused',
    inputs: { x: mid },
    torch: 'torch.nn.functional.cross_entropy(x, torch.full((40,), 1024))',
    run: ({ x }) => torch.crossEntropy(x, torch.full([40], 1024, { dtype: 'int64' })),
    error: /crossEntropy: target 1024 is out of bounds for 1024 classes/,
  },
  {
    name: 'a negative target that is not ignoreIndex is refused',
    inputs: { x: mid },
    torch: 'torch.nn.functional.cross_entropy(x, torch.full((40,), -1))',
    run: ({ x }) => torch.crossEntropy(x, torch.full([40], -1, { dtype: 'int64' })),
    error: /crossEntropy: target -1 is out of bounds/,
  },
];

describe('fused crossEntropy and softmax backward against PyTorch', () => compareWithTorch(cases));

describe('the fused kernels themselves', () => {
  test('crossEntropyLoss refuses a target out of range with its own message (called past the checks of crossEntropy)', () => {
    const { crossEntropyRows } = require('../../native/ops/fused_losses') as typeof import('../../native/ops/fused_losses');
    const x = torch.randn([3, 5]);
    expect(() => crossEntropyRows(x, torch.tensor([0, 5, 1], { dtype: 'int64' }), null, -100, 0)).toThrow('crossEntropyLoss: Target 5 is out of bounds');
  });

  test('crossEntropy keeps only the per-row logsumexp for backward (no probabilities)', () => {
    const x = torch.randn([64, 1024]).requiresGrad_();
    const t = torch.randint(0, 1024, [64]);
    const before = torch.memory.allocated('cpu');
    const loss = torch.crossEntropy(x, t, { reduction: 'none' });
    const kept = torch.memory.allocated('cpu') - before;
    // The loss itself (64 floats) and the saved logsumexp (64 floats): far below one [64, 1024] tensor.
    expect(kept).toBeLessThan(64 * 1024 * 4 / 8);
    loss.sum().backward();
    expect(x.grad!.shape).toEqual([64, 1024]);
  });
});
