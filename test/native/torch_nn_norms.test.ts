/**
 * torch.nn.functional's groupNorm, instanceNorm (running statistics too),
 * localResponseNorm, unfold, fold and embeddingBag against PyTorch (cpu) on
 * the same inputs — values, dtype, shape, PyTorch's errors — and their
 * gradients by gradcheck (they compose from ops with backward formulas).
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

const F = torch.nn.functional;
torch.manualSeed(5150);
const img = torch.randn(2, 6, 5, 4).mul(2).add(0.5);
const seq = torch.randn(3, 4, 7);
const wc = torch.randn(6);
const bc = torch.randn(6);
const emb = torch.randn(10, 3);

const norms: RefCase[] = [
  { name: 'groupNorm with and without affine, 3-D and 4-D', inputs: { img, seq, wc, bc },
    torch: '(F.group_norm(img, 3), F.group_norm(img, 2, wc, bc), F.group_norm(img, 6, wc, None, 1e-3), F.group_norm(seq, 1))',
    run: ({ img, seq, wc, bc }) => [F.groupNorm(img, 3), F.groupNorm(img, 2, wc, bc), F.groupNorm(img, 6, wc, null, 1e-3), F.groupNorm(seq, 1)] },
  { name: 'groupNorm of a float64 input', inputs: { x: torch.randn([2, 4, 3], { dtype: 'float64' }) }, torch: 'F.group_norm(x, 2)', run: ({ x }) => F.groupNorm(x, 2) },
  { name: 'groupNorm of channels not divisible by the groups is refused', inputs: { seq }, torch: 'F.group_norm(seq, 3)', run: ({ seq }) => F.groupNorm(seq, 3),
    error: /Expected number of channels in input to be divisible by num_groups, but got input of shape \[3, 4, 7\] and num_groups=3/ },
  { name: 'groupNorm with a weight of the wrong size is refused', inputs: { img }, torch: 'F.group_norm(img, 3, torch.ones(5))', run: ({ img }) => F.groupNorm(img, 3, torch.ones(5)),
    error: /Expected weight to be a vector of size equal to the number of channels in input/ },
  { name: 'instanceNorm with affine, 3-D and 4-D', inputs: { img, seq, wc, bc },
    torch: '(F.instance_norm(img), F.instance_norm(img, weight=wc, bias=bc), F.instance_norm(seq, eps=0.1))',
    run: ({ img, seq, wc, bc }) => [F.instanceNorm(img), F.instanceNorm(img, null, null, wc, bc), F.instanceNorm(seq, null, null, null, null, true, 0.1, 0.1)] },
  { name: 'instanceNorm updates running statistics in place', inputs: { img, rm: torch.randn(6), rv: torch.rand(6).add(0.5) },
    torch: '(lambda m, v: (F.instance_norm(img, m, v, momentum=0.3), m, v))(rm.clone(), rv.clone())',
    run: ({ img, rm, rv }) => { const m = rm.clone(), v = rv.clone(); return [F.instanceNorm(img, m, v, null, null, true, 0.3), m, v]; } },
  { name: 'instanceNorm with the running statistics (useInputStats false)', inputs: { img, rm: torch.randn(6), rv: torch.rand(6).add(0.5), wc },
    torch: 'F.instance_norm(img, rm, rv, wc, None, False)', run: ({ img, rm, rv, wc }) => F.instanceNorm(img, rm, rv, wc, null, false) },
  { name: 'instanceNorm of one spatial element is refused', inputs: {}, torch: 'F.instance_norm(torch.randn(2, 3, 1))', run: () => F.instanceNorm(torch.randn(2, 3, 1)),
    error: /Expected more than 1 spatial element when training/ },
  { name: 'localResponseNorm: odd and even sizes, 3-D and 4-D, parameters', inputs: { img, seq },
    torch: '(F.local_response_norm(img, 3), F.local_response_norm(img, 2, 0.01, 0.5, 2.0), F.local_response_norm(seq, 5, alpha=0.1), F.local_response_norm(img, 8))',
    run: ({ img, seq }) => [F.localResponseNorm(img, 3), F.localResponseNorm(img, 2, 0.01, 0.5, 2), F.localResponseNorm(seq, 5, 0.1), F.localResponseNorm(img, 8)] },
  { name: 'localResponseNorm of a 2-D input is refused', inputs: {}, torch: 'F.local_response_norm(torch.randn(2, 3), 2)', run: () => F.localResponseNorm(torch.randn(2, 3), 2),
    error: /Expected 3D or higher dimensionality input \(got 2 dimensions\)/ },
];

const patches: RefCase[] = [
  { name: 'unfold: kernel, dilation, padding, stride; unbatched', inputs: { img },
    torch: '(F.unfold(img, 2), F.unfold(img, (3, 2), dilation=(1, 2), padding=1, stride=(2, 1)), F.unfold(img[0], 3, padding=(0, 1)), F.unfold(img, 1))',
    run: ({ img }) => [F.unfold(img, 2), F.unfold(img, [3, 2], [1, 2], 1, [2, 1]), F.unfold(img.select(0, 0), 3, 1, [0, 1]), F.unfold(img, 1)] },
  { name: 'fold sums overlaps; round trip of unfold; unbatched', inputs: { c1: torch.randn(2, 12, 12), c2: torch.randn(24, 6), c3: torch.randn(2, 12, 10) },
    torch: '(F.fold(c1, (4, 5), 2), F.fold(c3, (5, 5), (2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2)), F.fold(c2, (4, 6), 2, stride=2), F.fold(F.unfold(torch.arange(40.0).view(1, 2, 4, 5), 2), (4, 5), 2))',
    run: ({ c1, c2, c3 }) => [F.fold(c1, [4, 5], 2), F.fold(c3, [5, 5], [2, 3], [2, 1], [1, 0], [1, 2]), F.fold(c2, [4, 6], 2, 1, 0, 2),
      F.fold(F.unfold(torch.arange(40, { dtype: 'float32' }).view(1, 2, 4, 5), 2), [4, 5], 2)] },
  { name: 'unfold with a kernel larger than the input is refused', inputs: {}, torch: 'F.unfold(torch.randn(1, 2, 3, 3), 4)', run: () => F.unfold(torch.randn(1, 2, 3, 3), 4),
    error: /calculated shape of the array of sliding blocks as \(0, 0\), but its components must be at least one/ },
  { name: 'unfold of a 2-D input is refused', inputs: {}, torch: 'F.unfold(torch.randn(2, 3), 2)', run: () => F.unfold(torch.randn(2, 3), 2), error: /Expected 3D or 4D/ },
  { name: 'fold of channels not divisible by the kernel is refused', inputs: {}, torch: 'F.fold(torch.randn(1, 7, 4), (3, 3), 2)', run: () => F.fold(torch.randn(1, 7, 4), [3, 3], 2),
    error: /to be divisible by the product of kernel_size, but got input.size\(1\)=7/ },
  { name: 'fold of the wrong number of blocks is refused', inputs: {}, torch: 'F.fold(torch.randn(1, 8, 5), (3, 3), 2)', run: () => F.fold(torch.randn(1, 8, 5), [3, 3], 2),
    error: /calculated number of sliding blocks 2 \* 2 = 4, but got input.size\(2\)=5/ },
];

const bags: RefCase[] = [
  { name: 'embeddingBag of fixed bags: mean (default), sum, max', inputs: { emb, i: torch.tensor([[1, 2, 4], [4, 3, 9]]) },
    torch: "(F.embedding_bag(i, emb), F.embedding_bag(i, emb, mode='sum'), F.embedding_bag(i, emb, mode='max'))",
    run: ({ emb, i }) => [F.embeddingBag(i, emb), F.embeddingBag(i, emb, null, { mode: 'sum' }), F.embeddingBag(i, emb, null, { mode: 'max' })] },
  { name: 'embeddingBag with offsets, an empty bag, includeLastOffset', inputs: { emb, i: torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), o: torch.tensor([0, 2, 2, 5]) },
    torch: "(F.embedding_bag(i, emb, o), F.embedding_bag(i, emb, o, mode='sum'), F.embedding_bag(i, emb, o, mode='max'), F.embedding_bag(i, emb, o, mode='sum', include_last_offset=True))",
    run: ({ emb, i, o }) => [F.embeddingBag(i, emb, o), F.embeddingBag(i, emb, o, { mode: 'sum' }), F.embeddingBag(i, emb, o, { mode: 'max' }),
      F.embeddingBag(i, emb, o, { mode: 'sum', includeLastOffset: true })] },
  { name: 'embeddingBag with perSampleWeights and paddingIdx', inputs: { emb, i: torch.tensor([1, 2, 4, 5, 4, 3]), o: torch.tensor([0, 3]), psw: torch.randn(6) },
    torch: "(F.embedding_bag(i, emb, o, mode='sum', per_sample_weights=psw), F.embedding_bag(i, emb, o, padding_idx=4), F.embedding_bag(i, emb, o, mode='max', padding_idx=4))",
    run: ({ emb, i, o, psw }) => [F.embeddingBag(i, emb, o, { mode: 'sum', perSampleWeights: psw }), F.embeddingBag(i, emb, o, { paddingIdx: 4 }), F.embeddingBag(i, emb, o, { mode: 'max', paddingIdx: 4 })] },
  { name: 'embeddingBag of a 2-D input with offsets is refused', inputs: { emb }, torch: 'F.embedding_bag(torch.tensor([[0, 1]]), emb, torch.tensor([0]))',
    run: ({ emb }) => F.embeddingBag(torch.tensor([[0, 1]]), emb, torch.tensor([0])), error: /if input is 2D, then offsets has to be None/ },
  { name: 'embeddingBag with offsets not starting at 0 is refused', inputs: { emb }, torch: 'F.embedding_bag(torch.tensor([0, 1]), emb, torch.tensor([1]))',
    run: ({ emb }) => F.embeddingBag(torch.tensor([0, 1]), emb, torch.tensor([1])), error: /offsets\[0\] has to be 0/ },
  { name: 'embeddingBag with perSampleWeights and mode max is refused', inputs: { emb }, torch: "F.embedding_bag(torch.tensor([0, 1]), emb, torch.tensor([0]), mode='max', per_sample_weights=torch.ones(2))",
    run: ({ emb }) => F.embeddingBag(torch.tensor([0, 1]), emb, torch.tensor([0]), { mode: 'max', perSampleWeights: torch.ones(2) }), error: /per_sample_weights is only supported for mode='sum'/ },
];

describe('groupNorm, instanceNorm, localResponseNorm', () => compareWithTorch(norms.map((c) => ({ ...c, torch: `(lambda F: ${c.torch})(torch.nn.functional)` }))));
describe('unfold and fold', () => compareWithTorch(patches.map((c) => ({ ...c, torch: `(lambda F: ${c.torch})(torch.nn.functional)` }))));
describe('embeddingBag', () => compareWithTorch(bags.map((c) => ({ ...c, torch: `(lambda F: ${c.torch})(torch.nn.functional)` }))));

describe('gradients (gradcheck, float64)', () => {
  const f64 = (...shape: number[]) => torch.randn(shape, { dtype: 'float64' }).requiresGrad_();
  const cases: [string, () => torch.Tensor[], (...xs: torch.Tensor[]) => torch.Tensor][] = [
    ['groupNorm with weight and bias', () => [f64(2, 4, 3), f64(4), f64(4)], (x, w, b) => F.groupNorm(x, 2, w, b)],
    ['instanceNorm with weight', () => [f64(2, 3, 4), f64(3)], (x, w) => F.instanceNorm(x, null, null, w)],
    ['localResponseNorm', () => [f64(2, 5, 3)], (x) => F.localResponseNorm(x, 3, 0.5)],
    ['unfold with padding and stride', () => [f64(1, 2, 4, 5)], (x) => F.unfold(x, [2, 3], 1, 1, [2, 1])],
    ['fold with overlaps', () => [f64(1, 8, 12)], (x) => F.fold(x, [4, 5], 2)],
    ['embeddingBag mean, sum with weights, max', () => [f64(6, 3), f64(5)], (w, psw) => {
      const i = torch.tensor([1, 2, 4, 2, 5]), o = torch.tensor([0, 2]);
      return F.embeddingBag(i, w, o).sum().add(F.embeddingBag(i, w, o, { mode: 'sum', perSampleWeights: psw }).sum())
        .add(F.embeddingBag(i, w, o, { mode: 'max' }).sum());
    }],
  ];
  for (const [name, make, fn] of cases) {
    test(name, () => {
      torch.manualSeed(13);
      expect(torch.autograd.gradcheck(fn, make())).toBe(true);
    });
  }
});
