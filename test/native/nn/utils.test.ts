/**
 * nn.utils against PyTorch 2: clipGradNorm_ (2-norm, infinity norm, 1-norm;
 * the total norm returned and the gradients scaled), clipGradValue_,
 * parametersToVector and vectorToParameters.
 */
import * as torch from '../../../native/index';
import { expectClose, lazyPrograms, numbers } from './torch_program';

const { nn } = torch;
const { utils } = nn;

torch.manualSeed(3);
const a = torch.randn([4, 5]);
const b = torch.randn([7]);
const ga = torch.randn([4, 5]).mul(3);
const gb = torch.randn([7]);
const settings: [string, number, number][] = [['2-norm', 1.5, 2], ['infinity norm', 0.5, Infinity], ['1-norm', 2, 1], ['no clipping needed', 1e6, 2]];

const ref = lazyPrograms([{
  inputs: { a, b, ga, gb },
  code: `
res = []
for max_norm, p in ${JSON.stringify(settings.map(([, m, p]) => [m, Number.isFinite(p) ? p : 'inf']))}:
    p = float(p)
    x = inputs["a"].clone().requires_grad_(); y = inputs["b"].clone().requires_grad_()
    x.grad = inputs["ga"].clone(); y.grad = inputs["gb"].clone()
    total = torch.nn.utils.clip_grad_norm_([x, y], max_norm, norm_type=p)
    res.append([total, x.grad, y.grad])
out["norm"] = res
x = inputs["a"].clone().requires_grad_(); y = inputs["b"].clone().requires_grad_()
x.grad = inputs["ga"].clone(); y.grad = inputs["gb"].clone()
torch.nn.utils.clip_grad_value_([x, y], 0.7)
out["value"] = [x.grad, y.grad]
out["vector"] = torch.nn.utils.parameters_to_vector([x, y])
`,
}]);

function params(): torch.Tensor[] {
  const x = a.clone().requiresGrad_();
  const y = b.clone().requiresGrad_();
  x.grad = ga.clone();
  y.grad = gb.clone();
  return [x, y];
}

describe('nn.utils against PyTorch', () => {
  settings.forEach(([name, maxNorm, p], i) => {
    test(`clipGradNorm_ ${name}`, () => {
      const [x, y] = params();
      const total = utils.clipGradNorm_([x, y], maxNorm, { normType: p });
      const want = (ref()[0].norm as torch.Tensor[][])[i];
      expectClose(total, want[0], 'total norm');
      expectClose(x.grad!, want[1], 'grad of a');
      expectClose(y.grad!, want[2], 'grad of b');
    });
  });

  test('clipGradNorm_ with errorIfNonfinite', () => {
    const [x] = params();
    x.grad!.fill_(Infinity);
    expect(() => utils.clipGradNorm_(x, 1, { errorIfNonfinite: true })).toThrow(/The total norm of order 2 for gradients from `parameters` is non-finite/);
  });

  test('clipGradValue_', () => {
    const [x, y] = params();
    utils.clipGradValue_([x, y], 0.7);
    const want = ref()[0].value as torch.Tensor[];
    expectClose(x.grad!, want[0], 'grad of a');
    expectClose(y.grad!, want[1], 'grad of b');
  });

  test('parametersToVector and vectorToParameters', () => {
    const [x, y] = params();
    const v = utils.parametersToVector([x, y]);
    expectClose(v, ref()[0].vector, 'vector');
    const doubled = v.mul(2);
    utils.vectorToParameters(doubled, [x, y]);
    expect(numbers(x)).toEqual(numbers(a).map((e) => Math.fround(e * 2)));
    expect(x.isLeaf).toBe(true);
    expect(() => utils.vectorToParameters(torch.zeros([3]), [x, y])).toThrow(/vec has 3 elements, the parameters 27/);
  });
});
