/** Bad uses of autograd: each a clear error (PyTorch's words where it has them), nothing corrupted. */
import * as torch from '../../../native/index';
import { errorOf } from '../helpers';

describe('autograd errors', () => {
  test('backward on a non-scalar without a gradient', () => {
    const x = torch.randn([3], { requiresGrad: true });
    expect(errorOf(() => x.mul(2).backward()).message).toMatch(/grad can be implicitly created only for scalar outputs.*\[3\]/);
  });

  test('a gradient of the wrong shape', () => {
    const x = torch.randn([3], { requiresGrad: true });
    expect(errorOf(() => x.mul(2).backward(torch.ones([4]))).message).toMatch(/Mismatch in shape: grad_output\[0\] has a shape of \[4\] and output\[0\] has a shape of \[3\]/);
    expect(x.grad).toBeNull();
  });

  test('a second backward without retainGraph', () => {
    const x = torch.randn([3], { requiresGrad: true });
    const y = x.exp().sum();
    y.backward();
    expect(errorOf(() => y.backward()).message).toMatch(/Trying to backward through the graph a second time.*retainGraph/);
  });

  test('requiresGrad on an integer tensor', () => {
    expect(errorOf(() => torch.tensor([1, 2]).requiresGrad_()).message).toMatch(/only Tensors of floating point dtype can require gradients/);
    expect(errorOf(() => torch.zeros([2], { dtype: 'int64', requiresGrad: true })).message).toMatch(/floating point/);
  });

  test('backward of a tensor that does not require grad', () => {
    expect(errorOf(() => torch.ones([]).backward()).message).toMatch(/does not require grad and does not have a grad_fn/);
  });

  test('an in-place write to a leaf that requires grad, and one under noGrad', () => {
    const w = torch.ones([3], { requiresGrad: true });
    expect(errorOf(() => w.add_(1)).message).toMatch(/a leaf Variable that requires grad is being used in an in-place operation/);
    torch.noGrad(() => w.add_(1));
    expect(w.tolist()).toEqual([2, 2, 2]);
  });

  test('a tensor saved for backward modified in place since', () => {
    const x = torch.randn([3], { requiresGrad: true });
    const y = x.exp();
    const z = y.mul(2).sum();
    const s = y.sigmoid();
    y.mul_(2); // exp saved its output
    expect(errorOf(() => s.sum().add(z).backward()).message).toMatch(/modified by an inplace operation.*is at version \d+; expected version \d+ instead/);
  });

  test('changing requiresGrad of a non-leaf', () => {
    const y = torch.randn([2], { requiresGrad: true }).mul(2);
    expect(errorOf(() => { y.requiresGrad = false; }).message).toMatch(/only change requiresGrad flags of leaf variables/);
  });

  test('grad of an input the output does not depend on, and allowUnused', () => {
    const a = torch.randn([2], { requiresGrad: true });
    const b = torch.randn([2], { requiresGrad: true });
    const y = a.mul(3).sum();
    expect(errorOf(() => torch.autograd.grad(y, [a, b], { retainGraph: true })).message).toMatch(/appears to not have been used in the graph.*allowUnused/);
    const [ga, gb] = torch.autograd.grad(y, [a, b], { allowUnused: true });
    expect(ga!.tolist()).toEqual([3, 3]);
    expect(gb).toBeNull();
    expect(a.grad).toBeNull();
  });
});

describe('autograd API', () => {
  test('gradFn names, isLeaf, detach, retainGrad, hooks', () => {
    const x = torch.tensor([1, 2, 3], { dtype: 'float32', requiresGrad: true });
    const y = x.mul(2);
    const z = y.pow(2).sum();
    expect(x.isLeaf).toBe(true);
    expect(y.isLeaf).toBe(false);
    expect(y.gradFn!.name()).toBe('MulBackward0');
    expect(z.gradFn!.name()).toBe('SumBackward1');
    expect(y.detach().requiresGrad).toBe(false);
    y.retainGrad();
    const seen: number[][] = [];
    x.registerHook((g) => { seen.push(g.tolist() as number[]); return g.mul(10); });
    z.backward();
    expect(y.grad!.tolist()).toEqual([4, 8, 12]);
    expect(seen).toEqual([[8, 16, 24]]);
    expect(x.grad!.tolist()).toEqual([80, 160, 240]);
  });

  test('double backward: the gradient of a gradient (createGraph)', () => {
    const x = torch.tensor([1, 2, 3], { dtype: 'float64', requiresGrad: true });
    const y = x.pow(3).sum();
    const [g] = torch.autograd.grad(y, x, { createGraph: true });
    expect(g!.tolist()).toEqual([3, 12, 27]);
    const [gg] = torch.autograd.grad(g!.sum(), x);
    expect(gg!.tolist()).toEqual([6, 12, 18]);
  });

  test('a custom autograd.Function', () => {
    class Cube extends torch.autograd.Function {
      static forward(ctx: torch.autograd.FunctionCtx, x: torch.Tensor) {
        ctx.saveForBackward(x);
        return x.pow(3);
      }
      static backward(ctx: torch.autograd.FunctionCtx, g: torch.Tensor) {
        const [x] = ctx.savedTensors;
        return g.mul(x.pow(2)).mul(3);
      }
    }
    const x = torch.tensor([1, 2], { dtype: 'float32', requiresGrad: true });
    const y = Cube.apply(x) as torch.Tensor;
    expect(y.gradFn!.name()).toBe('CubeBackward');
    y.sum().backward();
    expect(x.grad!.tolist()).toEqual([3, 12]);
  });

  test('setGradEnabled and enableGrad inside noGrad', () => {
    const x = torch.ones([2], { requiresGrad: true });
    const a = torch.noGrad(() => torch.enableGrad(() => x.mul(2)));
    expect(a.requiresGrad).toBe(true);
    torch.setGradEnabled(false);
    try {
      expect(x.mul(2).requiresGrad).toBe(false);
      expect(torch.isGradEnabled()).toBe(false);
    } finally {
      torch.setGradEnabled(true);
    }
    expect(x.mul(2).requiresGrad).toBe(true);
  });

  test('to another dtype and a view keep the graph; a view under noGrad does not', () => {
    const x = torch.ones([2, 2], { requiresGrad: true });
    expect(x.to('float64').requiresGrad).toBe(true);
    expect(x.t().gradFn!.name()).toMatch(/Backward0$/);
    expect(torch.noGrad(() => x.t()).requiresGrad).toBe(false);
  });
});
