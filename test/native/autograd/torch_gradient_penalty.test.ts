/**
 * A WGAN-GP critic against PyTorch on the same float64 inputs and weights: a
 * small MLP (linear, leaky ReLU, linear, tanh, linear) whose loss carries the
 * gradient penalty 10 · (‖∇ₓ D(x̂)‖₂ − 1)² at points x̂ between real and fake
 * samples (the gradient taken with createGraph, so that the loss's backward
 * runs through it): the loss, the penalty and every weight's gradient of one
 * step, and the losses and weights after three Adam steps.
 */
import * as torch from '../../../native/index';
import { compareWithTorch, RefCase } from '../torch_reference';

type T = torch.Tensor;

torch.manualSeed(21);
const r = (...s: number[]) => torch.randn(s, { dtype: 'float64' });
const WEIGHTS = { w1: r(16, 4).mul(0.5), b1: r(16).mul(0.1), w2: r(16, 16).mul(0.25), b2: r(16).mul(0.1), w3: r(1, 16).mul(0.25), b3: r(1).mul(0.1) };
const NAMES = Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[];
const STEPS = 3;
const DATA = { real: r(STEPS, 6, 4).add(1), fake: r(STEPS, 6, 4), alpha: torch.rand([STEPS, 6, 1], { dtype: 'float64' }) };

type Weights = Record<keyof typeof WEIGHTS, T>;

function critic(p: Weights, z: T): T {
  const h1 = torch.nn.functional.leakyRelu(torch.linear(z, p.w1, p.b1), 0.2);
  const h2 = torch.linear(h1, p.w2, p.b2).tanh();
  return torch.linear(h2, p.w3, p.b3);
}

/** The critic's loss at step s and its gradient penalty. */
function criticLoss(p: Weights, s: number): { loss: T; gp: T } {
  const real = DATA.real.select(0, s), fake = DATA.fake.select(0, s), a = DATA.alpha.select(0, s);
  const interp = real.mul(a).add(fake.mul(a.neg().add(1))).requiresGrad_();
  const d = critic(p, interp);
  const [gi] = torch.autograd.grad(d, [interp], { gradOutputs: [torch.onesLike(d)], createGraph: true }) as T[];
  const gp = gi.norm(2, 1).sub(1).pow(2).mean();
  const loss = critic(p, fake).mean().sub(critic(p, real).mean()).add(gp.mul(10));
  return { loss, gp };
}

const PY_CRITIC = [
  'F = torch.nn.functional',
  `ps = [${NAMES.join(', ')}]`,
  'for p in ps: p.requires_grad_()',
  'def D(z): return F.linear(F.linear(F.leaky_relu(F.linear(z, w1, b1), 0.2), w2, b2).tanh(), w3, b3)',
  'def critic_loss(s):',
  '    interp = (alpha[s] * real[s] + (1 - alpha[s]) * fake[s]).requires_grad_()',
  '    d = D(interp)',
  '    gi, = torch.autograd.grad(d, interp, torch.ones_like(d), create_graph=True)',
  '    gp = ((gi.norm(2, dim=1) - 1) ** 2).mean()',
  '    return D(fake[s]).mean() - D(real[s]).mean() + 10 * gp, gp',
];

const leaves = (xs: Record<string, T>): Weights => Object.fromEntries(NAMES.map((k) => [k, xs[k].clone().requiresGrad_()])) as Weights;

const cases: RefCase[] = [
  {
    name: 'WGAN-GP critic: loss, penalty and the gradient of every weight',
    inputs: { ...WEIGHTS, ...DATA },
    torch: [...PY_CRITIC, 'loss, gp = critic_loss(0)', 'out = (loss, gp) + torch.autograd.grad(loss, ps)'].join('\n'),
    run: (xs) => {
      const p = leaves(xs);
      const { loss, gp } = criticLoss(p, 0);
      return [loss.detach(), gp.detach(), ...(torch.autograd.grad(loss, NAMES.map((k) => p[k])) as T[])];
    },
  },
  {
    name: `WGAN-GP critic trained ${STEPS} steps with Adam: losses and weights`,
    inputs: { ...WEIGHTS, ...DATA },
    torch: [
      ...PY_CRITIC,
      'opt = torch.optim.Adam(ps, lr=0.01)',
      'losses = []',
      `for s in range(${STEPS}):`,
      '    loss, gp = critic_loss(s)',
      '    opt.zero_grad()',
      '    loss.backward()',
      '    opt.step()',
      '    losses.append(loss.detach())',
      'out = (torch.stack(losses),) + tuple(p.detach() for p in ps)',
    ].join('\n'),
    run: (xs) => {
      const p = leaves(xs);
      const opt = new torch.optim.Adam(NAMES.map((k) => p[k]), { lr: 0.01 });
      const losses: T[] = [];
      for (let s = 0; s < STEPS; s++) {
        const { loss } = criticLoss(p, s);
        opt.zeroGrad();
        loss.backward();
        opt.step();
        losses.push(loss.detach());
      }
      return [torch.stack(losses), ...NAMES.map((k) => p[k].detach())];
    },
  },
];
compareWithTorch(cases);
