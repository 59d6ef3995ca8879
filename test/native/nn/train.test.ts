/**
 * Training end to end, with autograd: a small MLP learns a synthetic
 * classification task on CPU (its loss falls below a set value), and the
 * same tiny model and data trained for 10 steps with SGD, Adam and AdamW in
 * tsgpu and in PyTorch 2 give the same loss at every step and the same
 * weights at the end.
 */
import * as torch from '../../../native/index';
import { expectClose, expectNumbersClose, lazyPrograms } from './torch_program';

const { nn, optim } = torch;
type Tensor = torch.Tensor;

class MLP extends nn.Module {
  fc1: torch.nn.Linear;
  act = new nn.Tanh();
  fc2: torch.nn.Linear;
  constructor(inputs: number, hidden: number, classes: number) {
    super();
    this.fc1 = new nn.Linear(inputs, hidden);
    this.fc2 = new nn.Linear(hidden, classes);
  }
  forward(x: Tensor): Tensor {
    const h = this.fc1.forward(x);
    const a = this.act.forward(h);
    const y = this.fc2.forward(a);
    h.dispose();
    a.dispose();
    return y;
  }
}

describe('an MLP learns', () => {
  test('two interleaved classes by the sign of x0·x1 (loss below 0.15 in 300 Adam steps)', () => {
    torch.manualSeed(1);
    const x = torch.randn([256, 2]);
    const prod = x.select(1, 0).mul(x.select(1, 1));
    const y = prod.gt(0).long();
    const model = new MLP(2, 32, 2);
    const lossFn = new nn.CrossEntropyLoss();
    const opt = new optim.Adam(model.parameters(), { lr: 0.02 });
    let first = 0;
    let last = 0;
    for (let step = 0; step < 300; step++) {
      opt.zeroGrad();
      const out = model.forward(x);
      const loss = lossFn.forward(out, y);
      loss.backward();
      opt.step();
      last = Number(loss.item());
      if (step === 0) first = last;
      out.dispose();
      loss.dispose();
    }
    expect(first).toBeGreaterThan(0.5);
    expect(last).toBeLessThan(0.15);
    // Accuracy on the training points.
    const pred = torch.noGrad(() => model.forward(x)).argmax(1);
    const right = pred.eq(y).float().mean().item();
    expect(right).toBeGreaterThan(0.95);
  });
});

// ------------------------------------------------------------ the same 10 steps in PyTorch

torch.manualSeed(42);
const X = torch.randn([16, 4]);
const Y = torch.randint(0, 3, [16]);
const start = new MLP(4, 8, 3);
const startState = Object.fromEntries(Object.entries(start.stateDict()).map(([k, v]) => [k, v.clone()]));

const optimizers: [string, (ps: Iterable<torch.nn.Parameter>) => torch.optim.Optimizer<{ lr: number }>, string][] = [
  ['SGD with momentum, nesterov and weight decay', (ps) => new optim.SGD(ps, { lr: 0.1, momentum: 0.9, nesterov: true, weightDecay: 1e-3 }),
    'torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)'],
  ['Adam with amsgrad', (ps) => new optim.Adam(ps, { lr: 0.05, amsgrad: true }), 'torch.optim.Adam(m.parameters(), lr=0.05, amsgrad=True)'],
  ['AdamW', (ps) => new optim.AdamW(ps, { lr: 0.05, weightDecay: 0.1 }), 'torch.optim.AdamW(m.parameters(), lr=0.05, weight_decay=0.1)'],
];

const ref = lazyPrograms(optimizers.map(([, , py]) => ({
  inputs: { X, Y, ...Object.fromEntries(Object.entries(startState).map(([k, v]) => [`sd.${k}`, v])) },
  code: `
m = torch.nn.Sequential()
m.fc1 = torch.nn.Linear(4, 8)
m.act = torch.nn.Tanh()
m.fc2 = torch.nn.Linear(8, 3)
m.load_state_dict({k[3:]: v for k, v in inputs.items() if k.startswith("sd.")})
opt = ${py}
losses = []
for _ in range(10):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(m(inputs["X"]), inputs["Y"])
    loss.backward()
    opt.step()
    losses.append(loss.item())
out["losses"] = losses
out["state"] = m.state_dict()
`,
})));

describe('10 training steps against PyTorch: the same losses and weights', () => {
  optimizers.forEach(([name, make], i) => {
    test(name, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      const model = new MLP(4, 8, 3);
      model.loadStateDict(startState);
      const opt = make(model.parameters());
      const losses: number[] = [];
      for (let s = 0; s < 10; s++) {
        opt.zeroGrad();
        const out = model.forward(X);
        const loss = torch.crossEntropy(out, Y);
        loss.backward();
        opt.step();
        losses.push(Number(loss.item()));
        out.dispose();
        loss.dispose();
      }
      expectNumbersClose(losses, want.losses as number[], `${name} losses`, 1e-5, 1e-6);
      const sd = model.stateDict();
      const wantState = want.state as Record<string, Tensor>;
      expect(Object.keys(sd)).toEqual(Object.keys(wantState));
      for (const [k, v] of Object.entries(sd)) expectClose(v, wantState[k], `${name} ${k}`, 1e-4, 1e-5);
    });
  });
});
