/**
 * torch.nn.functional.embedding's backward against PyTorch's on the same
 * weights and indices: paddingIdx (also negative) passes no gradient to its
 * row, scaleGradByFreq divides each position's gradient by its index's
 * count, both together, and torch.embedding gives the same.
 */
import * as torch from '../../../native/index';
import { expectClose, lazyPrograms } from './torch_program';

const F = torch.nn.functional;
torch.manualSeed(11);
const W = torch.randn([6, 3], { dtype: 'float64' });
const IDX = torch.tensor([[0, 2, 2, 5], [5, 5, 1, 0]], { dtype: 'int64' });
const G = torch.randn([2, 4, 3], { dtype: 'float64' });

const CASES: { name: string; opts: { paddingIdx?: number; scaleGradByFreq?: boolean }; py: string }[] = [
  { name: 'no options', opts: {}, py: '' },
  { name: 'paddingIdx 2', opts: { paddingIdx: 2 }, py: 'padding_idx=2' },
  { name: 'paddingIdx -1 (the last row)', opts: { paddingIdx: -1 }, py: 'padding_idx=-1' },
  { name: 'scaleGradByFreq', opts: { scaleGradByFreq: true }, py: 'scale_grad_by_freq=True' },
  { name: 'both', opts: { paddingIdx: 0, scaleGradByFreq: true }, py: 'padding_idx=0, scale_grad_by_freq=True' },
];

const ref = lazyPrograms(CASES.map((c) => ({
  inputs: { W, IDX, G },
  code: `
w = inputs["W"].clone().requires_grad_()
y = torch.nn.functional.embedding(inputs["IDX"], w${c.py ? ', ' + c.py : ''})
y.backward(inputs["G"])
out["y"] = y
out["grad"] = w.grad
`,
})));

describe('nn.functional.embedding backward against PyTorch', () => {
  CASES.forEach((c, i) => {
    test(c.name, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      for (const fn of [F.embedding, torch.embedding]) {
        const w = W.clone().requiresGrad_();
        const y = fn(IDX, w, c.opts);
        y.backward(G);
        expectClose(y, want.y, `${c.name}: output`, 1e-12, 1e-12);
        expectClose(w.grad!, want.grad, `${c.name}: gradient of weight`, 1e-12, 1e-12);
      }
    });
  });

  test('the output\'s own hooks see the gradient before the embedding rules apply', () => {
    const w = W.clone().requiresGrad_();
    const y = F.embedding(IDX, w, { paddingIdx: 2, scaleGradByFreq: true });
    let seen: number[] = [];
    y.registerHook((g) => { seen = Array.from(g.toArray() as Float64Array); return undefined; });
    y.backward(G);
    expect(seen).toEqual(Array.from(G.toArray() as Float64Array));
  });
});
