/**
 * Bad input to the optimizers: each a clear error (PyTorch's wording), and
 * nothing changed.
 */
import * as torch from '../../../native/index';

const { optim } = torch;

describe('optimizer argument errors', () => {
  const w = torch.randn([3, 2], { dtype: 'float32' }).requiresGrad_();

  test('a non-leaf parameter', () => {
    const y = w.mul(2);
    expect(() => new optim.SGD([y], { lr: 0.1 })).toThrow(/can't optimize a non-leaf Tensor \(params index 0, gradFn MulBackward0\)/);
  });

  test('a duplicated parameter, in one group or across groups', () => {
    expect(() => new optim.Adam([w, w])).toThrow(/optimizer contains a parameter group with duplicate parameters/);
    expect(() => new optim.Adam([{ params: [w] }, { params: [w] }])).toThrow(/some parameters appear in more than one parameter group/);
  });

  test('a bad learning rate and hyperparameters', () => {
    expect(() => new optim.SGD([w], { lr: -1 })).toThrow(/Invalid learning rate: -1/);
    expect(() => new optim.Adam([w], { lr: NaN })).toThrow(/Invalid learning rate: NaN/);
    expect(() => new optim.SGD([w], { lr: 0.1, momentum: -0.5 })).toThrow(/Invalid momentum value: -0.5/);
    expect(() => new optim.SGD([w], { lr: 0.1, nesterov: true })).toThrow(/Nesterov momentum requires a momentum and zero dampening/);
    expect(() => new optim.Adam([w], { betas: [0.9, 1.5] })).toThrow(/Invalid beta parameter at index 1: 1.5/);
    expect(() => new optim.AdamW([w], { weightDecay: -1 })).toThrow(/Invalid weight_decay value: -1/);
    expect(() => new optim.Adam([w], { eps: -1 })).toThrow(/Invalid epsilon value: -1/);
  });

  test('a tensor instead of a list, and an empty list', () => {
    expect(() => new optim.SGD(w as unknown as torch.Tensor[], { lr: 0.1 })).toThrow(/should be an iterable of Tensors or dicts, but got a Tensor/);
    expect(() => new optim.SGD([], { lr: 0.1 })).toThrow(/optimizer got an empty parameter list/);
    expect(() => new optim.SGD([3 as unknown as torch.Tensor], { lr: 0.1 })).toThrow(/optimizer can only optimize Tensors/);
  });

  test('a state dict with other groups', () => {
    const v = torch.randn([2]).requiresGrad_();
    const a = new optim.SGD([w, v], { lr: 0.1 });
    const b = new optim.SGD([{ params: [w] }, { params: [v] }], { lr: 0.1 });
    expect(() => b.loadStateDict(a.stateDict())).toThrow(/different number of parameter groups/);
    const c = new optim.SGD([w], { lr: 0.1 });
    expect(() => c.loadStateDict(a.stateDict())).toThrow(/doesn't match the size of optimizer's group/);
  });
});
