/**
 * Cases of the elementwise functions with their own kernels (tan … erfinv,
 * atan2, hypot, copysign, fmod, the bitwise ops) and of their
 * compositions (square, clip, isnan/isinf/isfinite, nanToNum,
 * floorDivide, xlogy, heaviside, logit): dtypes (integers promote to the
 * default dtype, float64, float16, bfloat16), special values, numbers as
 * operands, in-place forms, strided inputs and the errors PyTorch raises.
 *
 * Shared by the PyTorch differential test (torch_math_functions.test.ts)
 * and the CUDA test (cuda_math_functions.test.ts), which runs each case on
 * cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(5507);
const x = torch.randn(4, 6).mul(2);
const unit = torch.rand(4, 6).mul(1.98).sub(0.99);
const big = torch.rand(4, 6).mul(5).add(1);
const special = torch.tensor([NaN, Infinity, -Infinity, 0, -0, 1, -1, 0.5], { dtype: 'float32' });
const ints = torch.randint(-20, 20, [4, 6]);
const pos = torch.randint(1, 9, [4, 6]);
const bytes = torch.randint(0, 255, [4, 6]).to('uint8');
const mask = torch.rand(4, 6).gt(0.5);
const other = torch.randn(4, 6);

const UNARY = ['tan', 'atan', 'sinh', 'cosh', 'asinh', 'log10', 'exp2', 'erf', 'erfc'] as const;
const UNIT = ['asin', 'acos', 'atanh', 'erfinv'] as const;
type Fn = (t: torch.Tensor) => torch.Tensor;
const fns = torch as unknown as Record<string, Fn>;
const torchName = (n: string): string => n;

const unary: RefCase[] = [
  ...UNARY.map((n) => ({ name: `${n} of float32`, inputs: { x }, torch: `torch.${torchName(n)}(x)`, run: ({ x }: Record<string, torch.Tensor>) => fns[n](x) })),
  ...UNIT.map((n) => ({ name: `${n} inside (-1, 1)`, inputs: { unit }, torch: `torch.${n}(unit)`, run: ({ unit }: Record<string, torch.Tensor>) => fns[n](unit) })),
  ...[...UNARY, ...UNIT, 'acosh'].map((n) => ({ name: `${n} of special values`, inputs: { special }, torch: `torch.${n}(special)`,
    run: ({ special }: Record<string, torch.Tensor>) => fns[n](special) })),
  { name: 'acosh above 1', inputs: { big }, torch: 'torch.acosh(big)', run: ({ big }) => torch.acosh(big) },
  { name: 'float64 keeps its precision', inputs: { d: x.double(), u: unit.double() }, torch: '(torch.tan(d), torch.erfinv(u), torch.log10(d.abs()), torch.asinh(d))',
    run: ({ d, u }) => [torch.tan(d), torch.erfinv(u), torch.log10(d.abs()), torch.asinh(d)] },
  { name: 'integers compute in the default dtype', inputs: { ints }, torch: '(torch.sinh(ints / 10).float(), torch.exp2(ints), torch.erf(ints), torch.atan(ints))',
    run: ({ ints }) => [torch.sinh(ints.div(10)), torch.exp2(ints), torch.erf(ints), torch.atan(ints)] },
  { name: 'float16 and bfloat16', inputs: { h: unit.half(), b: unit.bfloat16() }, torch: '(torch.asin(h), torch.erfinv(b), torch.exp2(h))',
    run: ({ h, b }) => [torch.asin(h), torch.erfinv(b), torch.exp2(h)] },
  { name: 'methods, aliases and in place through a view', inputs: { x }, torch: '(lambda c: (c[:, 1:3].tan_(), c, x.arctan(), x.cosh())[1:])(x.clone())',
    run: ({ x }) => { const c = x.clone(); c.slice(1, 1, 3).tan_(); return [c, x.arctan(), x.cosh()]; } },
  { name: 'of a transposed tensor', inputs: { x }, torch: 'x.t().erf()', run: ({ x }) => x.t().erf() },
  { name: 'in place on integers is refused', inputs: { ints }, torch: 'ints.clone().tan_()', run: ({ ints }) => ints.clone().tan_(), error: /can't be cast/ },
];

const binary: RefCase[] = [
  { name: 'atan2', inputs: { x, other }, torch: '(torch.atan2(x, other), x.arctan2(other[0]))', run: ({ x, other }) => [torch.atan2(x, other), x.arctan2(other.select(0, 0))] },
  { name: 'atan2 of integers and special values', inputs: { ints, pos, special }, torch: '(torch.atan2(ints, pos), torch.atan2(special, special.flip(0)))',
    run: ({ ints, pos, special }) => [torch.atan2(ints, pos), torch.atan2(special, special.index(torch.arange(7, -1, -1)))] },
  { name: 'hypot', inputs: { x, other }, torch: '(torch.hypot(x, other), torch.hypot(x.double(), other.double()))', run: ({ x, other }) => [torch.hypot(x, other), torch.hypot(x.double(), other.double())] },
  { name: 'hypot of integers is refused', inputs: { ints }, torch: 'torch.hypot(ints, ints)', run: ({ ints }) => torch.hypot(ints, ints), error: /hypot_cpu/ },
  { name: 'copysign with tensors, numbers and signed zeros', inputs: { x, other, special, ints },
    torch: '(torch.copysign(x, other), torch.copysign(x, -1.0), torch.copysign(torch.ones(8), special), torch.copysign(ints, -2))',
    run: ({ x, other, special, ints }) => [torch.copysign(x, other), torch.copysign(x, -1), torch.copysign(torch.onesLike(special), special), torch.copysign(ints, -2)] },
  { name: 'fmod of floats (the sign of self) and of integers', inputs: { x, ints, pos }, torch: '(torch.fmod(x, 1.5), torch.fmod(ints, pos), torch.fmod(ints, -3), ints.fmod(7))',
    run: ({ x, ints, pos }) => [torch.fmod(x, 1.5), torch.fmod(ints, pos), torch.fmod(ints, -3), ints.fmod(7)] },
  { name: 'fmod by integer zero is refused on cpu', inputs: { ints }, torch: 'torch.fmod(ints, 0)', run: ({ ints }) => torch.fmod(ints, 0), error: /ZeroDivisionError/ },
  { name: 'fmod_ in place', inputs: { x }, torch: 'x.clone().fmod_(0.7)', run: ({ x }) => x.clone().fmod_(0.7) },
];

const bitwise: RefCase[] = [
  { name: 'and, or, xor of int64', inputs: { ints, pos }, torch: '(ints & pos, ints | pos, ints ^ pos, ints & 6)',
    run: ({ ints, pos }) => [ints.bitwiseAnd(pos), ints.bitwiseOr(pos), torch.bitwiseXor(ints, pos), ints.bitwiseAnd(6)] },
  { name: 'and, or, xor, not of bool', inputs: { mask }, torch: '(mask & mask.t().t().flip(0), mask | ~mask, mask ^ True, ~mask)',
    run: ({ mask }) => { const f = mask.index(torch.arange(3, -1, -1)); return [mask.bitwiseAnd(f), mask.bitwiseOr(mask.bitwiseNot()), mask.bitwiseXor(true), mask.bitwiseNot()]; } },
  { name: 'not of int64 and uint8', inputs: { ints, bytes }, torch: '(~ints, ~bytes)', run: ({ ints, bytes }) => [ints.bitwiseNot(), bytes.bitwiseNot()] },
  { name: 'uint8 with int64 promotes', inputs: { bytes, ints }, torch: 'bytes & ints', run: ({ bytes, ints }) => bytes.bitwiseAnd(ints) },
  { name: 'shifts, including out of range', inputs: { ints }, torch: '(ints << 3, ints >> 2, torch.bitwise_left_shift(ints, 70), torch.bitwise_right_shift(ints, 70), torch.bitwise_right_shift(ints, -1))',
    run: ({ ints }) => [ints.bitwiseLeftShift(3), ints.bitwiseRightShift(2), torch.bitwiseLeftShift(ints, 70), torch.bitwiseRightShift(ints, 70), torch.bitwiseRightShift(ints, -1)] },
  { name: 'shifts of int32 by tensors', inputs: { i: ints.int(), s: torch.randint(0, 31, [4, 6]).int() }, torch: '(i << s, i >> s)', run: ({ i, s }) => [i.bitwiseLeftShift(s), i.bitwiseRightShift(s)] },
  { name: 'shift of bool gives int64', inputs: { mask }, torch: 'torch.bitwise_left_shift(mask, 1)', run: ({ mask }) => torch.bitwiseLeftShift(mask, 1) },
  { name: 'in place', inputs: { ints, pos }, torch: '(lambda c: (c.bitwise_and_(pos), c)[1])(ints.clone())', run: ({ ints, pos }) => ints.clone().bitwiseAnd_(pos) },
  { name: 'bitwise of floats is refused', inputs: { x }, torch: 'torch.bitwise_and(x, x)', run: ({ x }) => torch.bitwiseAnd(x, x), error: /not implemented for 'float32'/ },
];

const composed: RefCase[] = [
  { name: 'square of float, int and bool', inputs: { x, ints, mask }, torch: '(torch.square(x), torch.square(ints), torch.square(mask))',
    run: ({ x, ints, mask }) => [torch.square(x), torch.square(ints), torch.square(mask)] },
  { name: 'clip', inputs: { x }, torch: '(torch.clip(x, -1, 0.5), x.clip(max=0.0))', run: ({ x }) => [torch.clip(x, -1, 0.5), x.clip(null, 0)] },
  { name: 'isnan, isinf, isposinf, isneginf, isfinite', inputs: { special }, torch: '(special.isnan(), special.isinf(), special.isposinf(), special.isneginf(), special.isfinite())',
    run: ({ special }) => [special.isnan(), special.isinf(), special.isposinf(), special.isneginf(), special.isfinite()] },
  { name: 'isnan, isinf, isfinite of integers', inputs: { ints }, torch: '(ints.isnan(), ints.isinf(), ints.isfinite())', run: ({ ints }) => [ints.isnan(), ints.isinf(), ints.isfinite()] },
  { name: 'nanToNum with defaults and values', inputs: { special, h: special.half() }, torch: '(special.nan_to_num(), special.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0), h.nan_to_num())',
    run: ({ special, h }) => [special.nanToNum(), special.nanToNum({ nan: 1, posinf: 2, neginf: -2 }), h.nanToNum()] },
  { name: 'floorDivide', inputs: { ints, x }, torch: '(torch.floor_divide(ints, 3), torch.floor_divide(x, 0.7))', run: ({ ints, x }) => [torch.floorDivide(ints, 3), torch.floorDivide(x, 0.7)] },
  { name: 'xlogy', inputs: { a: torch.tensor([0, 1, 2, 0, 3], { dtype: 'float32' }), b: torch.tensor([0, 2, NaN, NaN, 0.5], { dtype: 'float32' }), ints, pos },
    torch: '(torch.xlogy(a, b), torch.xlogy(pos, pos), torch.xlogy(2, b.abs()))', run: ({ a, b, pos }) => [torch.xlogy(a, b), torch.xlogy(pos, pos), torch.xlogy(2, b.abs())] },
  { name: 'heaviside', inputs: { h: torch.tensor([-1, 0, 2, 0], { dtype: 'float32' }), v: torch.tensor([0.5], { dtype: 'float32' }) }, torch: 'torch.heaviside(h, v)',
    run: ({ h, v }) => torch.heaviside(h, v) },
  { name: 'heaviside of two dtypes is refused', inputs: { x, ints }, torch: 'torch.heaviside(x, ints)', run: ({ x, ints }) => torch.heaviside(x, ints), error: /different dtypes/ },
  // float16 computes in float and rounds once, as PyTorch's CUDA kernel does (its CPU kernel rounds each step to
  // float16, up to 6 float16 ulps away where logit is near 0).
  { name: 'logit of 1,000 values (the cpu vector loop and its tail): the ends, out of range, NaN; float16, float64 and int64 inputs',
    inputs: { p: torch.cat([torch.rand([997]), torch.tensor([0, 1, -0.5, 1.5, NaN, 1e-30, 0.999999])]) },
    torch: '(torch.logit(p), torch.logit(p, eps=0.01), torch.logit(p.half().float()).half(), torch.logit(p.double(), eps=0.2), torch.logit((p * 3).long()))',
    run: ({ p }) => [torch.logit(p), torch.logit(p, 0.01), torch.logit(p.half()), torch.logit(p.double(), 0.2), torch.logit(p.mul(3).long())] },
  { name: 'exp, sigmoid, silu, tanh and log of 1,000 values (the cpu vector loops), with the edges',
    inputs: { x: torch.cat([torch.randn([990]).mul(20), torch.tensor([100, -120, 0, -0, Infinity, -Infinity, NaN, 1e-40, -1e-40, 0.625])]) },
    torch: '(x.exp(), x.sigmoid(), torch.nn.functional.silu(x), x.tanh(), x.abs().log(), x.log(), x.half().tanh(), x.bfloat16().exp())',
    run: ({ x }) => [x.exp(), x.sigmoid(), x.silu(), x.tanh(), x.abs().log(), x.log(), x.half().tanh(), x.bfloat16().exp()] },
  { name: 'logit with and without eps', inputs: { p: torch.tensor([0, 0.25, 0.5, 0.9, 1], { dtype: 'float32' }) }, torch: '(torch.logit(p), torch.logit(p, eps=0.1))',
    run: ({ p }) => [torch.logit(p), torch.logit(p, 0.1)] },
];

/** The cases by group. */
export const mathFunctionCases: Record<string, RefCase[]> = { unary, binary, bitwise, composed };
