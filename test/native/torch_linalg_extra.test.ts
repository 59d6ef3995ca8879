/**
 * einsum, torch.linalg's norms (norm, vectorNorm, matrixNorm), cross,
 * linalg.cross, linalg.vecdot and cdist against PyTorch (cpu) on the same
 * inputs: values, dtype, shape and the errors PyTorch raises; and their
 * gradients by gradcheck (they compose from ops with backward formulas).
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

torch.manualSeed(2207);
const a = torch.randn(3, 4);
const b = torch.randn(4, 5);
const c = torch.randn(2, 3, 4);
const d = torch.randn(2, 4, 5);
const sq = torch.randn(4, 4);
const u = torch.randn(3);
const v = torch.randn(5);
const big = torch.randn(2, 3, 4, 5);
const x64 = torch.randn([3, 4], { dtype: 'float64' });
// Matrices of a batch over the cpu gemm's always-one-per-thread size (2^21 multiply-adds), at least two per thread.
const bat1 = torch.randn(6, 150, 130);
const bat2 = torch.randn(6, 130, 140);

const einsum: RefCase[] = [
  { name: 'matmul, explicit and implicit output', inputs: { a, b }, torch: "(torch.einsum('ij,jk->ik', a, b), torch.einsum('ij,jk', a, b))",
    run: ({ a, b }) => [torch.einsum('ij,jk->ik', a, b), torch.einsum('ij,jk', [a, b])] },
  { name: 'batched matmul and a batch that is summed', inputs: { c, d }, torch: "(torch.einsum('bij,bjk->bik', c, d), torch.einsum('bij,bjk->ik', c, d))",
    run: ({ c, d }) => [torch.einsum('bij,bjk->bik', c, d), torch.einsum('bij,bjk->ik', c, d)] },
  { name: 'batched matmul of moderate matrices (one per thread on cpu), with a transposed operand', inputs: { bat1, bat2 },
    torch: "(torch.einsum('bij,bjk->bik', bat1, bat2), torch.einsum('bij,bkj->bik', bat1, bat2.mT))",
    run: ({ bat1, bat2 }) => [torch.einsum('bij,bjk->bik', bat1, bat2), torch.einsum('bij,bkj->bik', bat1, bat2.mT)], rtol: 1e-4, atol: 1e-4 },
  { name: 'transpose, trace, diagonal, sum', inputs: { sq, c }, torch: "(torch.einsum('ij->ji', sq), torch.einsum('ii', sq), torch.einsum('ii->i', sq), torch.einsum('bij->', c), torch.einsum('bij->j', c))",
    run: ({ sq, c }) => [torch.einsum('ij->ji', sq), torch.einsum('ii', sq), torch.einsum('ii->i', sq), torch.einsum('bij->', c), torch.einsum('bij->j', c)] },
  { name: 'outer, inner, and a bilinear form', inputs: { u, v, a }, torch: "(torch.einsum('i,j->ij', u, v), torch.einsum('i,i->', u, u), torch.einsum('i,ij,j->', u, a, a[0]))",
    run: ({ u, v, a }) => [torch.einsum('i,j->ij', u, v), torch.einsum('i,i->', u, u), torch.einsum('i,ij,j->', u, a, a.select(0, 0))] },
  { name: 'ellipsis, broadcast batch, implicit output order', inputs: { big, c, a, d1: d.narrow(0, 0, 1) },
    torch: "(torch.einsum('...ij->...ji', big), torch.einsum('...ij,jk->...ik', c, torch.ones(4, 2)), torch.einsum('ba', a), torch.einsum('bij,ajk', c, d1))",
    run: ({ big, c, a, d1 }) => [torch.einsum('...ij->...ji', big), torch.einsum('...ij,jk->...ik', c, torch.ones(4, 2)), torch.einsum('ba', a), torch.einsum('bij,ajk', c, d1)] },
  { name: 'attention scores with spaces and uppercase', inputs: { big }, torch: "torch.einsum('b h i d, b h j d -> b h i j', big, big)",
    run: ({ big }) => torch.einsum('b h i d, b h j d -> b h i j', big, big) },
  { name: 'float64 and a repeated index across three operands', inputs: { x64 }, torch: "torch.einsum('ij,ij,ij->i', x64, x64, x64)",
    run: ({ x64 }) => torch.einsum('ij,ij,ij->i', x64, x64, x64) },
  { name: 'too few operands is refused', inputs: { a }, torch: "torch.einsum('ij,jk', a)", run: ({ a }) => torch.einsum('ij,jk', a), error: /fewer operands/ },
  { name: 'an output letter not in the inputs is refused', inputs: { a }, torch: "torch.einsum('ij->k', a)", run: ({ a }) => torch.einsum('ij->k', a), error: /output subscript k does not appear/ },
  { name: 'a repeated letter of different sizes is refused', inputs: { a }, torch: "torch.einsum('ii', a)", run: ({ a }) => torch.einsum('ii', a), error: /repeated for operand 0 but the sizes don't match, 3 != 4/ },
  { name: 'too few subscripts is refused', inputs: { a }, torch: "torch.einsum('ijk', a)", run: ({ a }) => torch.einsum('ijk', a), error: /number of subscripts in the equation \(3\)/ },
  { name: 'a subscript that is not a letter is refused', inputs: { a }, torch: "torch.einsum('i1', a)", run: ({ a }) => torch.einsum('i1', a), error: /invalid subscript given at index 1/ },
];

const L = torch.linalg;
const w = torch.tensor([[1, -2, 0], [0, 3, 4]], { dtype: 'float32' });
const norms: RefCase[] = [
  { name: 'vectorNorm: ord 2, 1, 3.5, -1, inf, -inf, 0', inputs: { a, w },
    torch: "(torch.linalg.vector_norm(a), torch.linalg.vector_norm(a, 1), torch.linalg.vector_norm(a, 3.5), torch.linalg.vector_norm(a, -1), torch.linalg.vector_norm(a, float('inf')), torch.linalg.vector_norm(a, float('-inf')), torch.linalg.vector_norm(w, 0))",
    run: ({ a, w }) => [L.vectorNorm(a), L.vectorNorm(a, 1), L.vectorNorm(a, 3.5), L.vectorNorm(a, -1), L.vectorNorm(a, Infinity), L.vectorNorm(a, -Infinity), L.vectorNorm(w, 0)] },
  { name: 'vectorNorm over dims with keepdim and a dtype', inputs: { c, w },
    torch: '(torch.linalg.vector_norm(c, 2, 1), torch.linalg.vector_norm(c, 1, (0, 2), True), torch.linalg.vector_norm(c, dtype=torch.float64), torch.linalg.vector_norm(w, 0, 1))',
    run: ({ c, w }) => [L.vectorNorm(c, 2, 1), L.vectorNorm(c, 1, [0, 2], true), L.vectorNorm(c, 2, null, false, { dtype: 'float64' }), L.vectorNorm(w, 0, 1)] },
  { name: 'matrixNorm: fro, 1, -1, inf, -inf, batched, other dims', inputs: { a, c },
    torch: "(torch.linalg.matrix_norm(a), torch.linalg.matrix_norm(a, 1), torch.linalg.matrix_norm(a, -1), torch.linalg.matrix_norm(a, float('inf')), torch.linalg.matrix_norm(a, float('-inf')), torch.linalg.matrix_norm(c, 1), torch.linalg.matrix_norm(c, float('inf'), (0, 2), True))",
    run: ({ a, c }) => [L.matrixNorm(a), L.matrixNorm(a, 1), L.matrixNorm(a, -1), L.matrixNorm(a, Infinity), L.matrixNorm(a, -Infinity), L.matrixNorm(c, 1), L.matrixNorm(c, Infinity, [0, 2], true)] },
  { name: 'linalg.norm picks the vector or the matrix norm', inputs: { a, c, u },
    torch: "(torch.linalg.norm(a), torch.linalg.norm(c), torch.linalg.norm(u, 3), torch.linalg.norm(a, 1), torch.linalg.norm(a, float('inf')), torch.linalg.norm(c, 1, 2), torch.linalg.norm(c, 'fro', (1, 2)), torch.linalg.norm(c, dim=(0, 1), keepdim=True))",
    run: ({ a, c, u }) => [L.norm(a), L.norm(c), L.norm(u, 3), L.norm(a, 1), L.norm(a, Infinity), L.norm(c, 1, 2), L.norm(c, 'fro', [1, 2]), L.norm(c, null, [0, 1], true)] },
  { name: 'vectorNorm of an integer tensor is refused', inputs: {}, torch: 'torch.linalg.vector_norm(torch.tensor([1, 2]))',
    run: () => L.vectorNorm(torch.tensor([1, 2])), error: /Expected a floating point or complex tensor as input. Got int64/ },
  { name: 'vectorNorm inf over an empty dim is refused', inputs: {}, torch: "torch.linalg.vector_norm(torch.zeros(0, 3), float('inf'), 0)",
    run: () => L.vectorNorm(torch.zeros(0, 3), Infinity, 0), error: /cannot compute the inf norm on the dimension 0/ },
  { name: 'matrixNorm of a vector is refused', inputs: { u }, torch: 'torch.linalg.matrix_norm(u)', run: ({ u }) => L.matrixNorm(u), error: /must have at least 2 dimensions/ },
  { name: 'matrixNorm of an unknown order is refused', inputs: { a }, torch: 'torch.linalg.matrix_norm(a, 3)', run: ({ a }) => L.matrixNorm(a, 3), error: /Order 3 not supported/ },
  { name: 'matrixNorm over one dim twice is refused', inputs: { a }, torch: 'torch.linalg.matrix_norm(a, dim=(0, 0))', run: ({ a }) => L.matrixNorm(a, 'fro', [0, 0]), error: /dims must be different/ },
  { name: 'linalg.norm with ord of a 3-D input without dim is refused', inputs: { c }, torch: 'torch.linalg.norm(c, 2)', run: ({ c }) => L.norm(c, 2), error: /must be 1D or 2D. Got 3D/ },
];

const vectors: RefCase[] = [
  { name: 'cross along the first dim of size 3, along a dim, broadcast', inputs: { p: torch.randn(4, 3), q: torch.randn(4, 3), r: torch.randn(3, 5), s: torch.randn(3) },
    torch: '(torch.cross(p, q), torch.cross(p, q, dim=1), torch.cross(r, r.flip(1), dim=0), torch.linalg.cross(p, s.expand(4, 3)), torch.linalg.cross(p, q[:1]))',
    run: ({ p, q, r, s }) => [torch.cross(p, q), torch.cross(p, q, 1), torch.cross(r, r.flip(1), 0), L.cross(p, s.expand(4, 3)), L.cross(p, q.narrow(0, 0, 1))] },
  { name: 'cross of integers and the method', inputs: { p: torch.tensor([[1, 2, 3], [4, 5, 6]]), q: torch.tensor([[7, 8, 9], [1, 0, 2]]) },
    torch: '(torch.cross(p, q, dim=1), p.cross(q, dim=-1))', run: ({ p, q }) => [torch.cross(p, q, 1), p.cross(q, -1)] },
  { name: 'linalg.cross of a dim not of size 3 is refused', inputs: { p: torch.randn(3, 2) }, torch: 'torch.linalg.cross(p, p)', run: ({ p }) => L.cross(p, p), error: /dimension -1 must have length 3. Got 2 and 2/ },
  { name: 'cross without a dim of size 3 is refused', inputs: { p: torch.randn(2, 2) }, torch: 'torch.cross(p, p)', run: ({ p }) => torch.cross(p, p), error: /no dimension of size 3/ },
  { name: 'vecdot', inputs: { a, c }, torch: '(torch.linalg.vecdot(a, a), torch.linalg.vecdot(c, a, dim=1))', run: ({ a, c }) => [L.vecdot(a, a), L.vecdot(c, a, 1)] },
  { name: 'cdist p = 2, 1, 0, inf, 3 (without matmul)', inputs: { p: torch.randn(5, 3), q: torch.randn(4, 3) },
    torch: "(torch.cdist(p, q), torch.cdist(p, q, 1), torch.cdist(p, q.round(), 0), torch.cdist(p, q, float('inf')), torch.cdist(p, q, 3))",
    run: ({ p, q }) => [torch.cdist(p, q), torch.cdist(p, q, 1), torch.cdist(p, q.round(), 0), torch.cdist(p, q, Infinity), torch.cdist(p, q, 3)] },
  { name: 'cdist batched and broadcast', inputs: { p: torch.randn(2, 5, 3), q: torch.randn(1, 4, 3) }, torch: '(torch.cdist(p, q), torch.cdist(p, q, 1.5))',
    run: ({ p, q }) => [torch.cdist(p, q), torch.cdist(p, q, 1.5)] },
  // The matmul form rounds differently from the difference form (PyTorch's too): a looser tolerance.
  { name: 'cdist through matmul (more than 25 rows, and the forced mode)', inputs: { p: torch.randn(30, 6), q: torch.randn(7, 6) },
    torch: "(torch.cdist(p, q), torch.cdist(p[:4], q, compute_mode='use_mm_for_euclid_dist'), torch.cdist(p, q, compute_mode='donot_use_mm_for_euclid_dist'))",
    run: ({ p, q }) => [torch.cdist(p, q), torch.cdist(p.narrow(0, 0, 4), q, 2, 'use_mm_for_euclid_dist'), torch.cdist(p, q, 2, 'donot_use_mm_for_euclid_dist')], rtol: 1e-5, atol: 1e-5 },
  { name: 'cdist of 1-D inputs is refused', inputs: { u }, torch: 'torch.cdist(u, u)', run: ({ u }) => torch.cdist(u, u), error: /at least 2D tensors, X1 got: 1D/ },
  { name: 'cdist of different widths is refused', inputs: { a, b }, torch: 'torch.cdist(a, b)', run: ({ a, b }) => torch.cdist(a, b), error: /same number of columns. X1: 4 X2: 5/ },
  { name: 'cdist with a negative p is refused', inputs: { a }, torch: 'torch.cdist(a, a, -1)', run: ({ a }) => torch.cdist(a, a, -1), error: /non-negative p/ },
  { name: 'cdist of integers is refused', inputs: {}, torch: 'torch.cdist(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long))',
    run: () => torch.cdist(torch.ones([2, 3], { dtype: 'int64' }), torch.ones([2, 3], { dtype: 'int64' })), error: /floating-point dtypes, X1 got: int64/ },
];

describe('einsum', () => compareWithTorch(einsum));
describe('linalg norms', () => compareWithTorch(norms));
describe('cross, vecdot, cdist', () => compareWithTorch(vectors));

describe('gradients (gradcheck, float64)', () => {
  const f64 = (...shape: number[]) => torch.randn(shape, { dtype: 'float64' }).requiresGrad_();
  const cases: [string, () => torch.Tensor[], (...xs: torch.Tensor[]) => torch.Tensor][] = [
    ['einsum matmul', () => [f64(3, 4), f64(4, 2)], (x, y) => torch.einsum('ij,jk->ik', x, y)],
    ['einsum with a diagonal and three operands', () => [f64(3, 3), f64(3, 2), f64(2)], (x, y, z) => torch.einsum('ii,ij,j->i', x, y, z)],
    ['einsum batched, broadcast', () => [f64(2, 3, 4), f64(1, 4, 2)], (x, y) => torch.einsum('bij,bjk->bik', x, y)],
    ['vectorNorm 2, 3 and inf', () => [f64(3, 4)], (x) => L.vectorNorm(x).add(L.vectorNorm(x, 3, 1).sum()).add(L.vectorNorm(x, Infinity))],
    ['matrixNorm fro, 1 and inf', () => [f64(3, 4)], (x) => L.matrixNorm(x).add(L.matrixNorm(x, 1)).add(L.matrixNorm(x, Infinity))],
    ['cross', () => [f64(4, 3), f64(4, 3)], (x, y) => torch.cross(x, y, 1)],
    ['cdist p 2 (differences and matmul) and p 1.5', () => [f64(4, 3), f64(30, 3)],
      (x, y) => torch.cdist(x, y).sum().add(torch.cdist(x, y.narrow(0, 0, 5), 1.5).sum()).add(torch.cdist(x, y, 2, 'use_mm_for_euclid_dist').sum())],
  ];
  for (const [name, make, fn] of cases) {
    test(name, () => {
      torch.manualSeed(11);
      expect(torch.autograd.gradcheck(fn, make())).toBe(true);
    });
  }
});

test('einsum contracts each pair of operands with one matrix product (the GEMM path, no loop)', () => {
  // The graph behind the result: one MmBackward0 (the gemm op) per contraction, and a handful of nodes in all.
  const x = torch.randn(8, 16).requiresGrad_(), y = torch.randn(16, 32).requiresGrad_(), z = torch.randn(32, 4).requiresGrad_();
  const out = torch.einsum('ij,jk,kl->il', x, y, z);
  const names: string[] = [];
  const seen = new Set<unknown>();
  const walk = (n: { name(): string; nextFunctions: [unknown, number][] } | null): void => {
    if (n === null || seen.has(n)) return;
    seen.add(n);
    names.push(n.name());
    for (const [m] of n.nextFunctions) walk(m as typeof n);
  };
  walk(out.gradFn as never);
  expect(names.filter((n) => n === 'MmBackward0').length).toBe(2);
  expect(names.length).toBeLessThan(16);
  const want = x.matmul(y).matmul(z);
  expect(out.sub(want).abs().max().item() as number).toBeLessThan(1e-4);
});
