/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the elementwise math ops:
 * unary functions, arithmetic with alpha/roundingMode, pow, remainder,
 * comparisons, logical ops, where, clamp, lerp, addcmul/addcdiv; across
 * dtypes, broadcasting, strided (transposed) inputs, numbers and in-place
 * writes through views; on random inputs made by the runtime.
 *
 * Shared by the PyTorch differential test (torch_math.test.ts) and the CUDA test
 * (cuda_ops.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(4321);
const x = torch.randn([3, 4]);
const y = torch.randn([3, 4]);
const row = torch.randn([4]);
const col = torch.randn([3, 1]);
const pos = torch.rand([3, 4]).add(0.1);
const f64 = torch.randn([3, 4]).double();
const f16 = torch.randn([3, 4]).half();
const bf16 = torch.randn([3, 4]).bfloat16();
const i32 = torch.randint(-20, 20, [3, 4]).int();
const j32 = torch.randint(1, 7, [3, 4]).int();
const i64 = torch.randint(-9, 9, [4]);
const u8 = torch.randint(0, 9, [3, 4]).byte();
const big = torch.randn([64, 300]).mul(3);
const mask = torch.randn([3, 4]).gt(0);

const unary: RefCase[] = [];
for (const op of ['exp', 'expm1', 'tanh', 'sigmoid', 'sin', 'cos', 'neg', 'abs', 'sign', 'relu', 'floor', 'ceil', 'round', 'trunc'] as const) {
  unary.push({ name: `${op} float32`, inputs: { big }, torch: `torch.${op}(big)`, run: ({ big }) => big[op]() });
  unary.push({ name: `${op} bfloat16`, inputs: { bf16 }, torch: `torch.${op}(bf16)`, run: ({ bf16 }) => bf16[op]() });
}
for (const op of ['log', 'log1p', 'log2', 'sqrt', 'rsqrt', 'reciprocal'] as const) {
  unary.push({ name: `${op} of positive float64`, inputs: { p: pos.double() }, torch: `torch.${op}(p)`, run: ({ p }) => p[op]() });
  // PyTorch 1.13 has no half log/sqrt on cpu: its reference computes in float32 and rounds to half.
  unary.push({ name: `${op} float16`, inputs: { p: pos.half() }, torch: `torch.${op}(p.float()).half()`, run: ({ p }) => p[op]() });
}
unary.push(
  { name: 'silu', inputs: { big }, torch: 'torch.nn.functional.silu(big)', run: ({ big }) => big.silu() },
  { name: 'gelu exact', inputs: { big }, torch: 'torch.nn.functional.gelu(big)', run: ({ big }) => torch.gelu(big) },
  { name: 'gelu tanh', inputs: { big }, torch: "torch.nn.functional.gelu(big, approximate='tanh')", run: ({ big }) => torch.gelu(big, { approximate: 'tanh' }) },
  { name: 'gelu float16', inputs: { f16 }, torch: 'torch.nn.functional.gelu(f16.float()).half()', run: ({ f16 }) => f16.gelu() },
  { name: 'softplus beta threshold', inputs: { big }, torch: 'torch.nn.functional.softplus(big, beta=2, threshold=3)', run: ({ big }) => torch.softplus(big, { beta: 2, threshold: 3 }) },
  { name: 'exp of int32 is float32', inputs: { i32 }, torch: 'torch.exp(i32 / 10)', run: ({ i32 }) => i32.div(10).exp() },
  { name: 'sqrt of int promotes', inputs: { j32 }, torch: 'torch.sqrt(j32)', run: ({ j32 }) => j32.sqrt() },
  { name: 'abs int32', inputs: { i32 }, torch: 'torch.abs(i32)', run: ({ i32 }) => i32.abs() },
  { name: 'neg of a transpose', inputs: { x }, torch: 'x.t().neg()', run: ({ x }) => x.t().neg() },
  { name: 'logicalNot', inputs: { i32 }, torch: 'torch.logical_not(i32)', run: ({ i32 }) => i32.logicalNot() },
  { name: 'round half to even', inputs: { h: torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5]) }, torch: 'torch.round(h)', run: ({ h }) => h.round() },
  { name: 'exp_ in place on a column slice', inputs: { x }, torch: 'x.clone().select(1, 2).exp_().clone()',
    run: ({ x }) => x.clone().select(1, 2).exp_() },
  { name: 'exp_ on int refused', inputs: { i32 }, torch: 'i32.clone().exp_()', run: ({ i32 }) => i32.clone().exp_(), error: true },
  { name: 'gelu bad approximate', inputs: { x }, torch: "torch.nn.functional.gelu(x, approximate='fast')",
    run: ({ x }) => torch.gelu(x, { approximate: 'fast' as 'tanh' }), error: /gelu: expected 'none' or 'tanh' for approximate, got 'fast'/ },
);

const binary: RefCase[] = [
  { name: 'mul broadcast row and col', inputs: { row, col }, torch: 'row * col', run: ({ row, col }) => row.mul(col) },
  { name: 'mul number', inputs: { x }, torch: 'x * 2.5', run: ({ x }) => x.mul(2.5) },
  { name: 'mul int by float number promotes', inputs: { i32 }, torch: 'i32 * 1.5', run: ({ i32 }) => i32.mul(1.5) },
  { name: 'mul bool', inputs: { mask }, torch: 'mask * mask.logical_not()', run: ({ mask }) => mask.mul(mask.logicalNot()) },
  { name: 'mul float16 by float32 promotes', inputs: { f16, x }, torch: 'f16 * x', run: ({ f16, x }) => f16.mul(x) },
  { name: 'mul_ in place through a transpose', inputs: { x, y }, torch: 'x.clone().t().mul_(y.t()).t().clone()', run: ({ x, y }) => x.clone().t().mul_(y.t()).t() },
  { name: 'div true', inputs: { x, y }, torch: 'x / y', run: ({ x, y }) => x.div(y) },
  { name: 'div int true gives float', inputs: { i32, j32 }, torch: 'i32 / j32', run: ({ i32, j32 }) => i32.div(j32) },
  { name: 'div floor int', inputs: { i32, j32 }, torch: "torch.div(i32, -j32, rounding_mode='floor')", run: ({ i32, j32 }) => torch.div(i32, j32.neg(), { roundingMode: 'floor' }) },
  { name: 'div trunc int', inputs: { i32, j32 }, torch: "torch.div(i32, j32, rounding_mode='trunc')", run: ({ i32, j32 }) => i32.div(j32, { roundingMode: 'trunc' }) },
  { name: 'div floor float', inputs: { big, y }, torch: "torch.div(big[:3, :4], y, rounding_mode='floor')", run: ({ big, y }) => torch.div(big.slice(0, 0, 3).slice(1, 0, 4), y, { roundingMode: 'floor' }) },
  { name: 'div by number on the left', inputs: { pos }, torch: '1 / pos', run: ({ pos }) => torch.div(1, pos) },
  { name: 'pow tensor', inputs: { pos, y }, torch: 'pos ** y', run: ({ pos, y }) => pos.pow(y) },
  { name: 'pow number', inputs: { x }, torch: 'x ** 2', run: ({ x }) => x.pow(2) },
  { name: 'pow int', inputs: { i32, u8 }, torch: 'i32 ** (u8 % 4)', run: ({ i32, u8 }) => i32.pow(u8.remainder(4)) },
  { name: 'number to a tensor power', inputs: { y }, torch: '2 ** y', run: ({ y }) => torch.pow(2, y) },
  { name: 'remainder float', inputs: { big, y }, torch: 'torch.remainder(big[:3, :4], y)', run: ({ big, y }) => big.slice(0, 0, 3).slice(1, 0, 4).remainder(y) },
  { name: 'remainder int negative divisor', inputs: { i32, j32 }, torch: 'torch.remainder(i32, -j32)', run: ({ i32, j32 }) => i32.remainder(j32.neg()) },
  { name: 'maximum with NaN', inputs: { x, n: torch.tensor([NaN, 1, -1, NaN]) }, torch: 'torch.maximum(x, n)', run: ({ x, n }) => torch.maximum(x, n) },
  { name: 'minimum int64 broadcast', inputs: { i32, i64 }, torch: 'torch.minimum(i32, i64)', run: ({ i32, i64 }) => torch.minimum(i32, i64) },
  { name: 'sub with alpha', inputs: { x, row }, torch: 'torch.sub(x, row, alpha=3)', run: ({ x, row }) => torch.sub(x, row, { alpha: 3 }) },
  { name: 'add bfloat16 with alpha', inputs: { bf16 }, torch: 'torch.add(bf16, bf16, alpha=0.5)', run: ({ bf16 }) => torch.add(bf16, bf16, { alpha: 0.5 }) },
  { name: 'add float64 number', inputs: { f64 }, torch: 'f64 + 0.1', run: ({ f64 }) => f64.add(0.1) },
  { name: 'mul shapes that do not broadcast', inputs: { x, row }, torch: 'x * row[:3]', run: ({ x, row }) => x.mul(row.slice(0, 0, 3)), error: /mul: shapes \[3, 4\] and \[3\] cannot be broadcast/ },
];

const compare: RefCase[] = [];
for (const op of ['eq', 'ne', 'lt', 'le', 'gt', 'ge'] as const) {
  compare.push({ name: `${op} broadcast`, inputs: { x, row }, torch: `torch.${op}(x, row)`, run: ({ x, row }) => x[op](row) });
  compare.push({ name: `${op} int with number`, inputs: { i32 }, torch: `torch.${op}(i32, 3)`, run: ({ i32 }) => i32[op](3) });
}
for (const [op, py] of [['logicalAnd', 'logical_and'], ['logicalOr', 'logical_or'], ['logicalXor', 'logical_xor']] as const) {
  compare.push({ name: op, inputs: { i32, u8 }, torch: `torch.${py}(i32, u8)`, run: ({ i32, u8 }) => i32[op](u8) });
}

const ternary: RefCase[] = [
  { name: 'where tensors broadcast', inputs: { mask, x, row }, torch: 'torch.where(mask, x, row)', run: ({ mask, x, row }) => torch.where(mask, x, row) },
  { name: 'where number other', inputs: { mask, i32 }, torch: 'torch.where(mask, i32, -1)', run: ({ mask, i32 }) => torch.where(mask, i32, -1) },
  { name: 'where two numbers', inputs: { mask }, torch: 'torch.where(mask, 1.5, -2.5)', run: ({ mask }) => torch.where(mask, 1.5, -2.5) },
  { name: 'where float16 and float32 promote', inputs: { mask, f16, x }, torch: 'torch.where(mask, f16, x)', run: ({ mask, f16, x }) => torch.where(mask, f16, x) },
  { name: 'clamp numbers', inputs: { big }, torch: 'torch.clamp(big, -1, 2)', run: ({ big }) => big.clamp(-1, 2) },
  { name: 'clamp min only', inputs: { big }, torch: 'torch.clamp(big, min=0.5)', run: ({ big }) => big.clamp(0.5) },
  { name: 'clamp max only int', inputs: { i32 }, torch: 'torch.clamp(i32, max=4)', run: ({ i32 }) => torch.clamp(i32, null, 4) },
  { name: 'clamp tensor bounds', inputs: { x, col, row }, torch: 'torch.clamp(x, col, row.abs() + col)', run: ({ x, col, row }) => x.clamp(col, row.abs().add(col)) },
  { name: 'clamp_ in place', inputs: { x }, torch: 'x.clone().clamp_(-0.5, 0.5)', run: ({ x }) => x.clone().clamp_(-0.5, 0.5) },
  { name: 'lerp number weight', inputs: { x, y }, torch: 'torch.lerp(x, y, 0.3)', run: ({ x, y }) => x.lerp(y, 0.3) },
  { name: 'lerp tensor weight', inputs: { x, y, pos }, torch: 'torch.lerp(x, y, pos)', run: ({ x, y, pos }) => torch.lerp(x, y, pos) },
  { name: 'addcmul', inputs: { x, y, row }, torch: 'torch.addcmul(x, y, row, value=0.5)', run: ({ x, y, row }) => torch.addcmul(x, y, row, { value: 0.5 }) },
  { name: 'addcdiv', inputs: { x, y, pos }, torch: 'torch.addcdiv(x, y, pos, value=-2)', run: ({ x, y, pos }) => x.addcdiv(y, pos, { value: -2 }) },
  { name: 'addcmul int', inputs: { i32, j32 }, torch: 'torch.addcmul(i32, i32, j32, value=2)', run: ({ i32, j32 }) => torch.addcmul(i32, i32, j32, { value: 2 }) },
];


/** The case groups, by name. */
export const mathCases: Record<string, RefCase[]> = {
  'unary': unary,
  'binary': binary,
  'comparison and logical': compare,
  'where, clamp, lerp, addcmul, addcdiv': ternary,
};
