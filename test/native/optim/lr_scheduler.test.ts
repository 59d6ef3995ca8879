/**
 * The lr schedulers against PyTorch 2: the lr of each group (and the
 * momentum or beta1 OneCycleLR cycles) after construction and after each
 * step, for the same settings.
 */
import * as torch from '../../../native/index';
import { expectNumbersClose, lazyPrograms } from '../nn/torch_program';

const { optim } = torch;
const { lrScheduler } = optim;

interface Case {
  name: string;
  steps: number;
  /** Python: makes `opt` and `sched` from params `p`, `q`. */
  torch: string;
  make: (p: torch.Tensor, q: torch.Tensor) => [torch.optim.Optimizer<{ lr: number }>, torch.optim.lrScheduler.LRScheduler];
  /** Which group setting is followed besides lr: 'momentum', 'beta1' or none. */
  momentum?: 'momentum' | 'beta1';
}

const cases: Case[] = [
  {
    name: 'StepLR, two groups', steps: 12,
    torch: "opt = torch.optim.SGD([{'params': [p]}, {'params': [q], 'lr': 0.5}], lr=0.1)\nsched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)",
    make: (p, q) => {
      const opt = new optim.SGD([{ params: [p] }, { params: [q], lr: 0.5 }], { lr: 0.1 });
      return [opt, new lrScheduler.StepLR(opt, 3, 0.5)];
    },
  },
  {
    name: 'CosineAnnealingLR past tMax', steps: 25,
    torch: 'opt = torch.optim.SGD([p, q], lr=0.1)\nsched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)',
    make: (p, q) => {
      const opt = new optim.SGD([p, q], { lr: 0.1 });
      return [opt, new lrScheduler.CosineAnnealingLR(opt, 10, 0.001)];
    },
  },
  {
    name: 'LambdaLR, one function per group', steps: 8,
    torch: "opt = torch.optim.Adam([{'params': [p]}, {'params': [q]}], lr=0.01)\nsched = torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 0.95 ** e, lambda e: 1 / (e + 1)])",
    make: (p, q) => {
      const opt = new optim.Adam([{ params: [p] }, { params: [q] }], { lr: 0.01 });
      return [opt, new lrScheduler.LambdaLR(opt, [(e) => 0.95 ** e, (e) => 1 / (e + 1)])];
    },
  },
  {
    name: 'OneCycleLR cos with SGD momentum', steps: 20, momentum: 'momentum',
    torch: 'opt = torch.optim.SGD([p, q], lr=0.1, momentum=0.9)\nsched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=20)',
    make: (p, q) => {
      const opt = new optim.SGD([p, q], { lr: 0.1, momentum: 0.9 });
      return [opt, new lrScheduler.OneCycleLR(opt, 1.0, { totalSteps: 20 })];
    },
  },
  {
    name: 'OneCycleLR linear three phases with Adam beta1', steps: 30, momentum: 'beta1',
    torch: "opt = torch.optim.Adam([p, q], lr=0.1)\nsched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.3, epochs=3, steps_per_epoch=10, anneal_strategy='linear', three_phase=True, pct_start=0.25, div_factor=10, final_div_factor=100)",
    make: (p, q) => {
      const opt = new optim.Adam([p, q], { lr: 0.1 });
      return [opt, new lrScheduler.OneCycleLR(opt, 0.3, { epochs: 3, stepsPerEpoch: 10, annealStrategy: 'linear', threePhase: true, pctStart: 0.25, divFactor: 10, finalDivFactor: 100 })];
    },
  },
];

const momentumOf = (c: Case, g: Record<string, unknown>): number =>
  c.momentum === 'beta1' ? (g.betas as number[])[0] : (g.momentum as number);

const ref = lazyPrograms(cases.map((c) => ({
  code: `
p = torch.zeros(2, requires_grad=True)
q = torch.zeros(2, requires_grad=True)
${c.torch}
lrs = [sched.get_last_lr()]
mom = [[${c.momentum === 'beta1' ? "g['betas'][0]" : c.momentum === 'momentum' ? "g['momentum']" : '0'} for g in opt.param_groups]]
for _ in range(${c.steps}):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr())
    mom.append([${c.momentum === 'beta1' ? "g['betas'][0]" : c.momentum === 'momentum' ? "g['momentum']" : '0'} for g in opt.param_groups])
out["lrs"] = lrs
out["momentum"] = mom
`,
})));

describe('lr schedulers against PyTorch', () => {
  cases.forEach((c, i) => {
    test(c.name, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      const p = torch.zeros([2]).requiresGrad_();
      const q = torch.zeros([2]).requiresGrad_();
      const [opt, sched] = c.make(p, q);
      const lrs = [sched.getLastLr()];
      const mom = [opt.paramGroups.map((g) => (c.momentum ? momentumOf(c, g as unknown as Record<string, unknown>) : 0))];
      for (let s = 0; s < c.steps; s++) {
        opt.step();
        sched.step();
        lrs.push(sched.getLastLr());
        mom.push(opt.paramGroups.map((g) => (c.momentum ? momentumOf(c, g as unknown as Record<string, unknown>) : 0)));
        // The groups' lr is what the scheduler reports.
        expect(opt.paramGroups.map((g) => g.lr)).toEqual(sched.getLastLr());
      }
      expectNumbersClose(lrs.flat(), (want.lrs as number[][]).flat(), `${c.name} lr`);
      expectNumbersClose(mom.flat(), (want.momentum as number[][]).flat(), `${c.name} momentum`);
    });
  });

  test('OneCycleLR refuses to step past its total', () => {
    const p = torch.zeros([2]).requiresGrad_();
    const opt = new optim.SGD([p], { lr: 0.1, momentum: 0.9 });
    const sched = new lrScheduler.OneCycleLR(opt, 1, { totalSteps: 3 });
    for (let s = 0; s < 3; s++) sched.step();
    expect(() => sched.step()).toThrow(/Tried to step 4 times. The specified number of total steps is 3/);
    const plain = new optim.Adam([torch.zeros([1]).requiresGrad_()]);
    expect(() => new lrScheduler.OneCycleLR(plain, 1, {})).toThrow(/You must define either total_steps OR \(epochs AND steps_per_epoch\)/);
  });
});

describe('scheduler state dicts', () => {
  test('a scheduler made again from stateDict continues the same sequence', () => {
    const p = torch.zeros([2]).requiresGrad_();
    const opt = new optim.SGD([p], { lr: 0.1 });
    const a = new lrScheduler.CosineAnnealingLR(opt, 7, 0.01);
    for (let s = 0; s < 4; s++) a.step();
    const saved = a.stateDict();
    const rest: number[] = [];
    for (let s = 0; s < 5; s++) {
      a.step();
      rest.push(a.getLastLr()[0]);
    }
    const p2 = torch.zeros([2]).requiresGrad_();
    const opt2 = new optim.SGD([p2], { lr: 0.1 });
    const optState = opt.stateDict();
    const b = new lrScheduler.CosineAnnealingLR(opt2, 7, 0.01);
    b.loadStateDict(saved);
    // The optimizer's lr as it was when the scheduler was saved.
    opt2.paramGroups[0].lr = (saved.lastLr as number[])[0];
    const again: number[] = [];
    for (let s = 0; s < 5; s++) {
      b.step();
      again.push(b.getLastLr()[0]);
    }
    expect(again).toEqual(rest);
    expect(optState.param_groups[0].initial_lr).toBe(0.1);
  });
});
