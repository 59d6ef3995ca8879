/**
 * SGD, Adam and AdamW against PyTorch 2: the same weights, the same
 * gradients set by hand at each of 10 steps (so nothing here depends on
 * autograd), the same hyperparameters → the same weights, state and state
 * dict; a state dict saved after 5 steps and loaded into a new optimizer
 * continues to the same weights; parameter groups with their own lr.
 */
import * as torch from '../../../native/index';
import { expectClose, lazyPrograms, Program, Value } from '../nn/torch_program';

const { optim } = torch;
const STEPS = 10;

torch.manualSeed(23);
const W0 = torch.randn([5, 4]);
const b0 = torch.randn([5]);
const grads = Array.from({ length: STEPS }, () => [torch.randn([5, 4]), torch.randn([5])]);
const inputs: Record<string, torch.Tensor> = { W: W0, b: b0 };
grads.forEach(([gW, gb], s) => {
  inputs[`gW${s}`] = gW;
  inputs[`gb${s}`] = gb;
});

type Make = (W: torch.Tensor, b: torch.Tensor) => torch.optim.Optimizer<{ lr: number }>;
interface Case { name: string; make: Make; torch: string }

const cases: Case[] = [
  { name: 'SGD', make: (W, b) => new optim.SGD([W, b], { lr: 0.1 }), torch: 'torch.optim.SGD([W, b], lr=0.1)' },
  { name: 'SGD momentum', make: (W, b) => new optim.SGD([W, b], { lr: 0.05, momentum: 0.9 }), torch: 'torch.optim.SGD([W, b], lr=0.05, momentum=0.9)' },
  { name: 'SGD momentum dampening weight decay', make: (W, b) => new optim.SGD([W, b], { lr: 0.05, momentum: 0.8, dampening: 0.3, weightDecay: 0.01 }), torch: 'torch.optim.SGD([W, b], lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)' },
  { name: 'SGD nesterov weight decay', make: (W, b) => new optim.SGD([W, b], { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.1 }), torch: 'torch.optim.SGD([W, b], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)' },
  { name: 'SGD maximize', make: (W, b) => new optim.SGD([W, b], { lr: 0.05, momentum: 0.5, maximize: true }), torch: 'torch.optim.SGD([W, b], lr=0.05, momentum=0.5, maximize=True)' },
  { name: 'SGD parameter groups', make: (W, b) => new optim.SGD([{ params: [W] }, { params: [b], lr: 0.01, momentum: 0.5 }], { lr: 0.1, momentum: 0.9 }), torch: "torch.optim.SGD([{'params': [W]}, {'params': [b], 'lr': 0.01, 'momentum': 0.5}], lr=0.1, momentum=0.9)" },
  { name: 'Adam', make: (W, b) => new optim.Adam([W, b], { lr: 0.01 }), torch: 'torch.optim.Adam([W, b], lr=0.01)' },
  { name: 'Adam amsgrad weight decay betas', make: (W, b) => new optim.Adam([W, b], { lr: 0.02, amsgrad: true, weightDecay: 0.05, betas: [0.8, 0.99], eps: 1e-6 }), torch: 'torch.optim.Adam([W, b], lr=0.02, amsgrad=True, weight_decay=0.05, betas=(0.8, 0.99), eps=1e-6)' },
  { name: 'Adam maximize', make: (W, b) => new optim.Adam([W, b], { lr: 0.01, maximize: true }), torch: 'torch.optim.Adam([W, b], lr=0.01, maximize=True)' },
  { name: 'AdamW defaults', make: (W, b) => new optim.AdamW([W, b]), torch: 'torch.optim.AdamW([W, b])' },
  { name: 'AdamW amsgrad', make: (W, b) => new optim.AdamW([W, b], { lr: 0.05, weightDecay: 0.1, amsgrad: true }), torch: 'torch.optim.AdamW([W, b], lr=0.05, weight_decay=0.1, amsgrad=True)' },
  { name: 'AdamW parameter groups', make: (W, b) => new optim.AdamW([{ params: [W], weightDecay: 0 }, { params: b, lr: 0.1 }], { lr: 0.01 }), torch: "torch.optim.AdamW([{'params': [W], 'weight_decay': 0}, {'params': b, 'lr': 0.1}], lr=0.01)" },
];

const program = (c: Case): Program => ({
  inputs,
  code: `
W = inputs["W"].clone().requires_grad_()
b = inputs["b"].clone().requires_grad_()
opt = ${c.torch}
for s in range(${STEPS}):
    W.grad = inputs[f"gW{s}"].clone()
    b.grad = inputs[f"gb{s}"].clone()
    opt.step()
out["W"] = W
out["b"] = b
sd = opt.state_dict()
out["state"] = {str(k): dict(v) for k, v in sd["state"].items()}
out["groups"] = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in sd["param_groups"]]
`,
});

const ref = lazyPrograms(cases.map(program));

function fresh(): [torch.Tensor, torch.Tensor] {
  return [W0.clone().requiresGrad_(), b0.clone().requiresGrad_()];
}

function setGrads(W: torch.Tensor, b: torch.Tensor, s: number): void {
  W.grad = grads[s][0].clone();
  b.grad = grads[s][1].clone();
}

describe('optimizers against PyTorch: 10 steps from the same weights and gradients', () => {
  cases.forEach((c, i) => {
    test(c.name, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      const [W, b] = fresh();
      const opt = c.make(W, b);
      for (let s = 0; s < STEPS; s++) {
        setGrads(W, b, s);
        opt.step();
      }
      expectClose(W, want.W, `${c.name} W`);
      expectClose(b, want.b, `${c.name} b`);
      const sd = opt.stateDict();
      // The state: the same keys per parameter, the same tensors, the step count.
      const wantState = want.state as Record<string, Record<string, Value>>;
      expect(Object.keys(sd.state).map(String)).toEqual(Object.keys(wantState));
      for (const [k, entry] of Object.entries(wantState)) {
        const got = sd.state[Number(k)];
        expect(Object.keys(got).sort()).toEqual(Object.keys(entry).sort());
        for (const [name, v] of Object.entries(entry)) expectClose(got[name] as torch.Tensor, v, `${c.name} state ${k}.${name}`);
      }
      // The groups: PyTorch's keys and values, params as indices.
      expect(sd.param_groups).toEqual(want.groups);
    });
  });
});

describe('loadStateDict continues where the saved optimizer stopped', () => {
  cases.forEach((c, i) => {
    test(c.name, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      const [W, b] = fresh();
      const first = c.make(W, b);
      for (let s = 0; s < 5; s++) {
        setGrads(W, b, s);
        first.step();
      }
      const saved = first.stateDict();
      const second = c.make(W, b);
      second.loadStateDict(saved);
      first.dispose();
      for (let s = 5; s < STEPS; s++) {
        setGrads(W, b, s);
        second.step();
      }
      expectClose(W, want.W, `${c.name} W after reloading`);
      expectClose(b, want.b, `${c.name} b after reloading`);
    });
  });
});

describe('zeroGrad', () => {
  test('setToNone (the default) gives the gradients up; setToNone false zeroes them', () => {
    const [W, b] = fresh();
    const opt = new optim.SGD([W, b], { lr: 0.1 });
    setGrads(W, b, 0);
    opt.zeroGrad({ setToNone: false });
    expect(Array.from(W.grad!.toArray() as Float32Array).every((x) => x === 0)).toBe(true);
    opt.zeroGrad();
    expect(W.grad).toBeNull();
    expect(b.grad).toBeNull();
  });

  test('a parameter without a gradient is skipped and gets no state', () => {
    const [W, b] = fresh();
    const opt = new optim.Adam([W, b]);
    W.grad = grads[0][0].clone();
    const before = b.clone();
    opt.step();
    expect(Array.from(b.toArray() as Float32Array)).toEqual(Array.from(before.toArray() as Float32Array));
    expect(opt.state.has(b)).toBe(false);
    expect(opt.state.has(W)).toBe(true);
  });
});
