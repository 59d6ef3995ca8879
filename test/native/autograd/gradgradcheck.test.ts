/**
 * Double backward against central differences of the gradient
 * (torch.autograd.gradgradcheck, float64, cpu): every gradcheck case, that is
 * every backward formula, is differentiated once more; and gradgradcheck
 * itself, which must catch a backward whose own derivative is wrong or was
 * never recorded.
 */
import * as torch from '../../../native/index';
import { GRAD_CASES } from './gradcheck_cases';

type T = torch.Tensor;
type Ctx = torch.autograd.FunctionCtx;

/** Cases whose backward has no derivative, with the reason the runtime gives. */
const REFUSED: Readonly<Record<string, RegExp>> = {
  'flashAttention, causal, L > S': /derivative of flash attention's backward is not implemented/,
  'flashAttention, keys broadcast, scale': /derivative of flash attention's backward is not implemented/,
};

function inputsOf(c: (typeof GRAD_CASES)[number]): T[] {
  torch.manualSeed(7);
  const xs = c.inputs.map((s) => (Array.isArray(s) ? torch.randn(s, { dtype: 'float64' }) : s()));
  for (const x of xs) if (x.dtype === 'float64') x.requiresGrad_();
  return xs;
}

describe('gradgradcheck of every gradcheck case (float64, cpu)', () => {
  for (const c of GRAD_CASES) {
    const refused = REFUSED[c.name];
    test(refused ? `${c.name}: refused with the reason` : c.name, () => {
      const xs = inputsOf(c);
      if (refused) expect(() => torch.autograd.gradgradcheck(c.fn, xs, null, c.opts)).toThrow(refused);
      else expect(torch.autograd.gradgradcheck(c.fn, xs, null, c.opts)).toBe(true);
      for (const x of xs) x.dispose();
    });
  }
});

/** x³ with a backward of the right value whose own derivative is right (saved input) or not recorded (detached). */
function cube(detachInBackward: boolean) {
  return class Cube extends torch.autograd.Function {
    static forward(ctx: Ctx, x: T) {
      ctx.saveForBackward(x);
      return x.pow(3);
    }
    static backward(ctx: Ctx, g: T) {
      const [x] = ctx.savedTensors;
      const s = detachInBackward ? x.detach() : x;
      return g.mul(s.mul(s)).mul(3);
    }
  };
}

/** exp(x), whose backward reads its saved output. */
class Exp extends torch.autograd.Function {
  static forward(ctx: Ctx, x: T) {
    const y = x.exp();
    ctx.saveForBackward(y);
    return y;
  }
  static backward(ctx: Ctx, g: T) {
    const [y] = ctx.savedTensors;
    return g.mul(y);
  }
}

describe('gradgradcheck', () => {
  const x = () => torch.randn([5], { dtype: 'float64' }).requiresGrad_();

  test('a custom Function whose backward is written with tensor ops is differentiated twice (saved input and saved output)', () => {
    const Good = cube(false);
    expect(torch.autograd.gradcheck((a) => Good.apply(a), [x()])).toBe(true);
    expect(torch.autograd.gradgradcheck((a) => Good.apply(a), [x()])).toBe(true);
    expect(torch.autograd.gradgradcheck((a) => Exp.apply(a).mul(a), [x()])).toBe(true);
  });

  test('catches a backward whose value is right but whose derivative was not recorded', () => {
    const Bad = cube(true);
    expect(torch.autograd.gradcheck((a) => Bad.apply(a), [x()])).toBe(true);
    expect(() => torch.autograd.gradgradcheck((a) => Bad.apply(a), [x()])).toThrow(/Jacobian mismatch for output 0 with respect to input 0/);
    expect(torch.autograd.gradgradcheck((a) => Bad.apply(a), [x()], null, { raiseException: false })).toBe(false);
  });

  test('gradcheck, as PyTorch\'s: an output that requires no grad beside one that does is not checked; when none does, the derivatives must be zero', () => {
    expect(torch.autograd.gradcheck((a) => [a.mul(2), a.detach().mul(3)], [x()])).toBe(true);
    expect(() => torch.autograd.gradcheck((a) => a.detach().mul(3), [x()])).toThrow(/Jacobian mismatch for output 0 with respect to input 0: element \[0, 0\] numerical [\d.]+ analytical 0 /);
    expect(torch.autograd.gradcheck((a) => a.detach().mul(0), [x()])).toBe(true);
  });

  test('takes the output gradients given, and names a wrong count', () => {
    const a = x();
    const go = torch.randn([5], { dtype: 'float64' }).requiresGrad_();
    expect(torch.autograd.gradgradcheck((t) => t.sin().mul(t), [a], [go])).toBe(true);
    expect(() => torch.autograd.gradgradcheck((t) => t.sin(), [a], [go, go])).toThrow(/expected 1 gradOutputs \(one per output that requires grad\), got 2/);
  });
});
