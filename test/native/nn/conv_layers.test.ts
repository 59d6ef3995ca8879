/**
 * The convolution layers of torch.nn: Conv2d and ConvTranspose2d (PyTorch's
 * default initialization, forward against PyTorch's module with the same
 * weights), BatchNorm2d (running statistics, numBatchesTracked, momentum
 * null, eval mode, affine and trackRunningStats off, stateDict keys, all
 * against PyTorch's module over the same batches), the pools and Flatten,
 * and a small CNN that learns a synthetic image task on CPU.
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';

const { nn, optim } = torch;
type Tensor = torch.Tensor;

describe('Conv2d and ConvTranspose2d initialization', () => {
  test('Conv2d weight and bias uniform within 1/sqrt(fanIn) (kaiming uniform, a = sqrt(5)), with the layout [O, C/groups, KH, KW]', () => {
    torch.manualSeed(0);
    const conv = new nn.Conv2d(16, 32, [3, 5], { groups: 2 });
    expect(conv.weight.shape).toEqual([32, 8, 3, 5]);
    const fanIn = 8 * 3 * 5;
    const bound = 1 / Math.sqrt(fanIn);
    const w = conv.weight.detach();
    expect(Number(w.abs().max().item())).toBeLessThanOrEqual(bound);
    expect(Number(w.abs().max().item())).toBeGreaterThan(bound * 0.98);
    // U(-b, b) has standard deviation b / sqrt(3).
    expect(Number(w.std().item())).toBeCloseTo(bound / Math.sqrt(3), 2);
    expect(Number(conv.bias!.detach().abs().max().item())).toBeLessThanOrEqual(bound);
    expect([...conv.namedParameters()].map(([n]) => n)).toEqual(['weight', 'bias']);
    expect(new nn.Conv2d(3, 4, 1, { bias: false }).bias).toBeNull();
  });

  test('ConvTranspose2d weight [Cin, Cout/groups, KH, KW], fanIn from that layout as PyTorch computes it', () => {
    torch.manualSeed(0);
    const ct = new nn.ConvTranspose2d(6, 4, 3, { groups: 2, stride: 2 });
    expect(ct.weight.shape).toEqual([6, 2, 3, 3]);
    const bound = 1 / Math.sqrt(2 * 9);
    expect(Number(ct.weight.detach().abs().max().item())).toBeLessThanOrEqual(bound);
    expect(Number(ct.bias!.detach().abs().max().item())).toBeLessThanOrEqual(bound);
  });

  test('bad arguments are refused naming them', () => {
    expect(() => new nn.Conv2d(3, 4, 3, { groups: 2 })).toThrow(/in_channels must be divisible by groups/);
    expect(() => new nn.Conv2d(4, 3, 3, { groups: 2 })).toThrow(/out_channels must be divisible by groups/);
    expect(() => new nn.Conv2d(4, 4, 3, { padding: 'same', stride: 2 })).toThrow(/padding='same' is not supported for strided convolutions/);
    expect(() => new nn.Conv2d(4, 4, 0)).toThrow(/non-positive kernelSize/);
    expect(() => new nn.BatchNorm2d(4).forward(torch.randn([2, 4]))).toThrow(/expected 4D input \(got 2D input of size \[2, 4\]\)/);
  });
});

torch.manualSeed(5);
const conv = new nn.Conv2d(3, 4, 3, { stride: 2, padding: 1 });
const convT = new nn.ConvTranspose2d(4, 2, 3, { stride: 2, padding: 1 });
const x = torch.randn([2, 3, 8, 8]);
const h = torch.randn([2, 4, 4, 4]);
const batches = [0, 1, 2].map((i) => torch.randn([4, 3, 5, 5]).mul(i + 1).add(i));

/** Runs BatchNorm2d over the batches in training, then once in eval; returns outputs, buffers and stateDict keys as text. */
function bnRun(opts: torch.nn.BatchNormLayerOptions): Tensor[] {
  const bn = new nn.BatchNorm2d(3, opts);
  const outs = batches.map((b) => bn.forward(b));
  bn.eval();
  outs.push(bn.forward(batches[0]));
  const bufs = bn.trackRunningStats ? [bn.runningMean!, bn.runningVar!, bn.numBatchesTracked!] : [];
  return [...outs.map((o) => o.detach()), ...bufs];
}
const pyBn = (args: string) =>
  `(lambda bn: (lambda outs: [o.detach() for o in outs] + ([bn.running_mean, bn.running_var, bn.num_batches_tracked] if bn.track_running_stats else []))([bn(b0), bn(b1), bn(b2)] + [bn.eval()(b0)]))(torch.nn.BatchNorm2d(3${args}))`;
const bnInputs = { b0: batches[0], b1: batches[1], b2: batches[2] };
const tol = { rtol: 1e-4, atol: 1e-5 };

const cases: RefCase[] = [
  {
    name: 'Conv2d forward equals PyTorch\'s module with the same weights',
    inputs: { x, w: conv.weight.detach(), b: conv.bias!.detach() },
    torch: "(lambda m: (m.load_state_dict({'weight': w, 'bias': b}), m(x).detach())[1])(torch.nn.Conv2d(3, 4, 3, stride=2, padding=1))",
    run: ({ x: xi }) => conv.forward(xi).detach(),
    ...tol,
  },
  {
    name: 'ConvTranspose2d forward with outputSize (picks outputPadding) equals PyTorch\'s',
    inputs: { h, w: convT.weight.detach(), b: convT.bias!.detach() },
    torch: "(lambda m: (m.load_state_dict({'weight': w, 'bias': b}), m(h, output_size=[8, 8]).detach())[1])(torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1))",
    run: ({ h: hi }) => convT.forward(hi, [8, 8]).detach(),
    ...tol,
  },
  { name: 'BatchNorm2d: three training batches, then eval (running statistics, numBatchesTracked)', inputs: bnInputs, torch: pyBn(''), run: () => bnRun({}), ...tol },
  { name: 'BatchNorm2d momentum null: cumulative averages', inputs: bnInputs, torch: pyBn(', momentum=None'), run: () => bnRun({ momentum: null }), ...tol },
  { name: 'BatchNorm2d momentum 0.5, eps 1e-3, affine false', inputs: bnInputs, torch: pyBn(', momentum=0.5, eps=1e-3, affine=False'), run: () => bnRun({ momentum: 0.5, eps: 1e-3, affine: false }), ...tol },
  { name: 'BatchNorm2d trackRunningStats false: batch statistics in eval too', inputs: bnInputs, torch: pyBn(', track_running_stats=False'), run: () => bnRun({ trackRunningStats: false }), ...tol },
  {
    name: 'BatchNorm2d stateDict keys are PyTorch\'s',
    inputs: {},
    torch: "' '.join(torch.nn.BatchNorm2d(3).state_dict().keys())",
    run: () => Object.keys(new nn.BatchNorm2d(3).stateDict()).join(' '),
  },
  {
    name: 'MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Flatten in a Sequential',
    inputs: { x },
    torch: 'torch.nn.Sequential(torch.nn.MaxPool2d(3, 2, 1), torch.nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False), torch.nn.AdaptiveAvgPool2d((2, 1)), torch.nn.Flatten())(x)',
    run: ({ x: xi }) => new nn.Sequential(new nn.MaxPool2d(3, { stride: 2, padding: 1 }), new nn.AvgPool2d(2, { ceilMode: true, countIncludePad: false }),
      new nn.AdaptiveAvgPool2d([2, 1]), new nn.Flatten()).forward(xi) as Tensor,
    ...tol,
  },
  {
    name: 'MaxPool2d with returnIndices gives values and indices',
    inputs: { x },
    torch: 'torch.nn.MaxPool2d(2, return_indices=True)(x)',
    run: ({ x: xi }) => new nn.MaxPool2d(2, { returnIndices: true }).forward(xi) as Tensor[],
  },
  {
    name: 'module reprs as PyTorch prints them',
    inputs: {},
    torch: "repr(torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), torch.nn.BatchNorm2d(8), torch.nn.MaxPool2d(3, 2, 1), torch.nn.AdaptiveAvgPool2d((1, 1)), torch.nn.Flatten()))",
    run: () => String(new nn.Sequential(new nn.Conv2d(3, 8, 3, { stride: 2, padding: 1, bias: false }), new nn.BatchNorm2d(8),
      new nn.MaxPool2d(3, { stride: 2, padding: 1 }), new nn.AdaptiveAvgPool2d([1, 1]), new nn.Flatten())),
  },
];
compareWithTorch(cases);

describe('a small CNN learns', () => {
  test('horizontal against vertical bars in noisy 10x10 images (loss below 0.1 in 60 SGD steps)', () => {
    torch.manualSeed(2);
    const n = 64;
    const labels = torch.randint(0, 2, [n]);
    const lab = labels.toArray() as ArrayLike<bigint | number>;
    const img = torch.randn([n, 1, 10, 10]).mul(0.3);
    for (let i = 0; i < n; i++) {
      const at = 2 + (i % 6);
      const bar = Number(lab[i]) === 1 ? img.select(0, i).select(0, 0).select(0, at) : img.select(0, i).select(0, 0).select(1, at);
      bar.add_(1.5);
    }
    const model = new nn.Sequential(
      new nn.Conv2d(1, 8, 3, { padding: 1 }), new nn.BatchNorm2d(8), new nn.ReLU(), new nn.MaxPool2d(2),
      new nn.Conv2d(8, 16, 3, { padding: 1 }), new nn.BatchNorm2d(16), new nn.ReLU(),
      new nn.AdaptiveAvgPool2d(1), new nn.Flatten(), new nn.Linear(16, 2),
    );
    const opt = new optim.SGD(model.parameters(), { lr: 0.1, momentum: 0.9 });
    const lossFn = new nn.CrossEntropyLoss();
    let first = 0;
    let last = 0;
    for (let step = 0; step < 60; step++) {
      opt.zeroGrad();
      const out = model.forward(img) as Tensor;
      const loss = lossFn.forward(out, labels);
      loss.backward();
      opt.step();
      last = Number(loss.item());
      if (step === 0) first = last;
      out.dispose();
      loss.dispose();
    }
    expect(first).toBeGreaterThan(0.5);
    expect(last).toBeLessThan(0.1);
    model.eval();
    const pred = torch.noGrad(() => model.forward(img) as Tensor).argmax(1);
    expect(Number(pred.eq(labels).float().mean().item())).toBeGreaterThan(0.95);
  }, 180000);
});
