/**
 * Differential tests against PyTorch (cpu): views, type promotion, casts,
 * creation and printing, on random inputs made by the runtime.
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

torch.manualSeed(1234);
const x = torch.randn([2, 3, 4]);
const m = torch.randn([3, 5]);
const v = torch.randn([5]);
const i32 = torch.randint(-50, 50, [3, 4]).int();
const u8 = torch.randint(0, 200, [3, 4]).byte();
const i8 = torch.randint(-100, 100, [4]).char();
const f16 = torch.randn([3, 4]).half();
const bf16 = torch.randn([3, 4]).bfloat16();
const f64 = torch.randn([3, 4]).double();
const zero = torch.tensor(2.5, { dtype: 'float64' });
const scaled = torch.randn([4, 5]).mul(100);
const small = torch.rand([3, 3]).mul(1e-5);
const ints = torch.randint(-3, 4, [3, 4]).float();
const big = torch.randn([100, 100]);
const wide = torch.randn([4, 2000]);
// Over the copy's parallel grain (65,536 elements), so that its split over threads and its dense-run memcpy run.
const large = torch.randn([96, 80, 40]);

const views: RefCase[] = [
  { name: 'view', inputs: { x }, torch: 'x.view(6, 4)', run: ({ x }) => x.view(6, 4) },
  { name: 'view with -1', inputs: { x }, torch: 'x.view(-1, 12)', run: ({ x }) => x.view([-1, 12]) },
  { name: 'reshape of a transpose copies', inputs: { x }, torch: 'x.transpose(0, 2).reshape(4, 6)', run: ({ x }) => x.transpose(0, 2).reshape(4, 6) },
  { name: 'view of a transpose is refused', inputs: { x }, torch: 'x.transpose(0, 1).view(-1)', run: ({ x }) => x.transpose(0, 1).view(-1), error: /view: size \[24\] is not compatible/ },
  { name: 'view merging contiguous dims of a transpose', inputs: { x }, torch: 'x.permute(1, 0, 2).reshape(3, 8).view(3, 2, 4)', run: ({ x }) => x.permute(1, 0, 2).reshape(3, 8).view(3, 2, 4) },
  { name: 'transpose', inputs: { x }, torch: 'x.transpose(0, 2)', run: ({ x }) => x.transpose(0, 2) },
  { name: 't', inputs: { m }, torch: 'm.t()', run: ({ m }) => m.t() },
  { name: 'mT', inputs: { x }, torch: 'x.mT', run: ({ x }) => x.mT },
  { name: 'permute', inputs: { x }, torch: 'x.permute(2, 0, 1)', run: ({ x }) => x.permute(2, 0, 1) },
  { name: 'permute with negative dims', inputs: { x }, torch: 'x.permute(-1, -3, -2)', run: ({ x }) => x.permute([-1, -3, -2]) },
  { name: 'movedim', inputs: { x }, torch: 'x.movedim(0, 2)', run: ({ x }) => x.movedim(0, 2) },
  { name: 'unsqueeze and squeeze', inputs: { x }, torch: 'x.unsqueeze(1).unsqueeze(-1).squeeze(1)', run: ({ x }) => x.unsqueeze(1).unsqueeze(-1).squeeze(1) },
  { name: 'squeeze all', inputs: { v }, torch: 'v.view(1, 5, 1).squeeze()', run: ({ v }) => v.view(1, 5, 1).squeeze() },
  { name: 'expand', inputs: { v }, torch: 'v.expand(3, 5)', run: ({ v }) => v.expand(3, 5) },
  { name: 'expand with -1 and a new dim', inputs: { m }, torch: 'm.unsqueeze(1).expand(2, -1, 4, -1)', run: ({ m }) => m.unsqueeze(1).expand(2, -1, 4, -1) },
  { name: 'expand of a non-1 dim is refused', inputs: { v }, torch: 'v.expand(3, 4)', run: ({ v }) => v.expand(3, 4), error: /expand: the expanded size 4/ },
  { name: 'broadcastTo', inputs: { v }, torch: 'torch.broadcast_to(v, (2, 3, 5))', run: ({ v }) => v.broadcastTo([2, 3, 5]) },
  { name: 'flatten', inputs: { x }, torch: 'x.flatten(1)', run: ({ x }) => x.flatten(1) },
  { name: 'flatten of a permuted tensor', inputs: { x }, torch: 'x.permute(2, 1, 0).flatten()', run: ({ x }) => x.permute(2, 1, 0).flatten() },
  { name: 'unflatten', inputs: { x }, torch: 'x.unflatten(2, (2, -1))', run: ({ x }) => x.unflatten(2, [2, -1]) },
  { name: 'narrow', inputs: { x }, torch: 'x.narrow(2, 1, 2)', run: ({ x }) => x.narrow(2, 1, 2) },
  { name: 'select negative index', inputs: { x }, torch: 'x.select(1, -1)', run: ({ x }) => x.select(1, -1) },
  { name: 'slice with a step', inputs: { x }, torch: 'x[:, :, 1::2]', run: ({ x }) => x.slice(2, 1, null, 2) },
  { name: 'slice with negative bounds', inputs: { m }, torch: 'm[-2:, -4:-1]', run: ({ m }) => m.slice(0, -2).slice(1, -4, -1) },
  { name: 'index helper', inputs: { x }, torch: 'x[1, :, 1:3]', run: ({ x }) => x.index(1, ':', '1:3') },
  { name: 'index with ellipsis and None', inputs: { x }, torch: 'x[..., None, ::3]', run: ({ x }) => x.index('...', null, '::3') },
  { name: 'index of an integer then a step', inputs: { x }, torch: 'x[0, ::2]', run: ({ x }) => x.index(0, '::2') },
  { name: 'split', inputs: { x }, torch: 'x.split(2, 2)', run: ({ x }) => x.split(2, 2) },
  { name: 'split by sizes', inputs: { m }, torch: 'm.split([1, 4], 1)', run: ({ m }) => m.split([1, 4], 1) },
  { name: 'chunk', inputs: { m }, torch: 'm.chunk(3, 1)', run: ({ m }) => m.chunk(3, 1) },
  { name: 'unbind', inputs: { m }, torch: 'm.unbind(0)', run: ({ m }) => m.unbind(0) },
  { name: 'contiguous of a permutation', inputs: { x }, torch: 'x.permute(1, 2, 0).contiguous()', run: ({ x }) => x.permute(1, 2, 0).contiguous() },
  {
    name: 'in-place add on a view writes through to the base',
    inputs: { x },
    torch: '(lambda y: (y.select(1, 0).add_(1.5), y)[1])(x.clone())',
    run: ({ x }) => {
      const y = x.clone();
      y.select(1, 0).add_(1.5);
      return y;
    },
  },
  {
    name: 'in-place add from another view of the same storage',
    inputs: { m },
    torch: '(lambda y: (y[:, 3:5].add_(y[:, 0:2].t().t(), alpha=2), y)[1])(m.clone())',
    run: ({ m }) => {
      const y = m.clone();
      y.slice(1, 3, 5).add_(y.slice(1, 0, 2).t().t(), { alpha: 2 });
      return y;
    },
  },
  {
    name: 'copy_ broadcasts into a slice',
    inputs: { m, v },
    torch: '(lambda y: (y[1:].copy_(v[:5]), y)[1])(m.clone())',
    run: ({ m, v }) => {
      const y = m.clone();
      y.slice(0, 1).copy_(v);
      return y;
    },
  },
  { name: 'fill_ of a strided view', inputs: { m }, torch: '(lambda y: (y[:, ::2].fill_(7), y)[1])(m.clone())', run: ({ m }) => { const y = m.clone(); y.slice(1, 0, null, 2).fill_(7); return y; } },
];

const promotion: RefCase[] = [
  { name: 'int32 + float32 -> float32', inputs: { i32, m: torch.randn([3, 4]) }, torch: 'i32 + m', run: ({ i32, m }) => i32.add(m) },
  { name: 'uint8 + int8 -> int16', inputs: { u8, i8 }, torch: 'u8 + i8', run: ({ u8, i8 }) => u8.add(i8) },
  { name: 'int32 + a fractional number -> float32', inputs: { i32 }, torch: 'i32 + 2.5', run: ({ i32 }) => i32.add(2.5) },
  { name: 'int32 + an integer stays int32', inputs: { i32 }, torch: 'i32 + 7', run: ({ i32 }) => i32.add(7) },
  { name: 'uint8 + an integer stays uint8', inputs: { u8 }, torch: 'u8 + 3', run: ({ u8 }) => u8.add(3) },
  { name: 'float16 + float32 -> float32', inputs: { f16, m: torch.randn([3, 4]) }, torch: 'f16 + m', run: ({ f16, m }) => f16.add(m) },
  { name: 'float16 + bfloat16 -> float32', inputs: { f16, bf16 }, torch: 'f16 + bf16', run: ({ f16, bf16 }) => f16.add(bf16) },
  { name: 'float16 + a number stays float16', inputs: { f16 }, torch: 'f16 + 0.1', run: ({ f16 }) => f16.add(0.1) },
  { name: 'bfloat16 + bfloat16 with alpha', inputs: { bf16 }, torch: 'torch.add(bf16, bf16, alpha=3)', run: ({ bf16 }) => bf16.add(bf16, { alpha: 3 }) },
  { name: 'float16 + a 0-dim float64 tensor stays float16', inputs: { f16, zero }, torch: 'f16 + zero', run: ({ f16, zero }) => f16.add(zero) },
  { name: 'int32 + a 0-dim float64 tensor -> float64', inputs: { i32, zero }, torch: 'i32 + zero', run: ({ i32, zero }) => i32.add(zero) },
  { name: 'float64 + float32 broadcast', inputs: { f64, v: torch.randn([4]) }, torch: 'f64 + v', run: ({ f64, v }) => f64.add(v) },
  { name: 'sub with alpha', inputs: { m: torch.randn([3, 4]), v: torch.randn([4]) }, torch: 'torch.sub(m, v, alpha=0.5)', run: ({ m, v }) => m.sub(v, { alpha: 0.5 }) },
  { name: 'add broadcasting [3,1] with [1,4]', inputs: { a: torch.randn([3, 1]), b: torch.randn([1, 4]) }, torch: 'a + b', run: ({ a, b }) => a.add(b) },
  { name: 'add of shapes that do not broadcast is refused', inputs: { a: torch.randn([2, 3]), b: torch.randn([4]) }, torch: 'a + b', run: ({ a, b }) => a.add(b), error: /add: shapes \[2, 3\] and \[4\] cannot be broadcast/ },
  { name: 'in-place int32 += float is refused', inputs: { i32 }, torch: 'i32.clone().add_(m)', run: ({ i32 }) => i32.clone().add_(torch.randn([3, 4])), error: /result type float32 can't be cast/ },
  {
    name: 'promote_types over every pair of dtypes',
    inputs: {},
    torch:
      "json.dumps([str(torch.promote_types(a, b)).replace('torch.', '') for a in TYPES for b in TYPES], separators=(',', ':'))".replace(
        /TYPES/g,
        '[torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool]',
      ),
    run: () => {
      const names: torch.DType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool'];
      return JSON.stringify(names.flatMap((a) => names.map((b) => torch.promoteTypes(a, b))));
    },
  },
];

const casts: RefCase[] = [
  { name: 'float32 -> float16', inputs: { m }, torch: 'm.half()', run: ({ m }) => m.half() },
  { name: 'float32 -> bfloat16', inputs: { m }, torch: 'm.bfloat16()', run: ({ m }) => m.bfloat16() },
  { name: 'float32 -> int32 truncates toward zero', inputs: { scaled }, torch: 'scaled.int()', run: ({ scaled }) => scaled.int() },
  { name: 'float32 -> int64', inputs: { scaled }, torch: 'scaled.long()', run: ({ scaled }) => scaled.long() },
  { name: 'float -> bool', inputs: { ints }, torch: 'ints.bool()', run: ({ ints }) => ints.bool() },
  { name: 'bool -> float32', inputs: { ints }, torch: 'ints.bool().float()', run: ({ ints }) => ints.bool().float() },
  { name: 'float16 -> float64', inputs: { f16 }, torch: 'f16.double()', run: ({ f16 }) => f16.double() },
  { name: 'bfloat16 -> float16', inputs: { bf16 }, torch: 'bf16.half()', run: ({ bf16 }) => bf16.half() },
  { name: 'int8 -> uint8 wraps', inputs: { i8 }, torch: 'i8.to(torch.uint8)', run: ({ i8 }) => i8.to('uint8') },
  { name: 'int32 -> float16', inputs: { i32 }, torch: 'i32.half()', run: ({ i32 }) => i32.half() },
  { name: 'large narrow copied (dense runs)', inputs: { large }, torch: 'large.narrow(2, 3, 30).contiguous()', run: ({ large }) => large.narrow(2, 3, 30).contiguous() },
  { name: 'large permutation copied', inputs: { large }, torch: 'large.permute(2, 0, 1).contiguous()', run: ({ large }) => large.permute(2, 0, 1).contiguous() },
  { name: 'large cat along the last dim', inputs: { large }, torch: 'torch.cat([large[:, :, 5:], large[:, :, :5]], 2)', run: ({ large }) => torch.cat([large.narrow(2, 5, 35), large.narrow(2, 0, 5)], 2) },
  { name: 'large roll', inputs: { large }, torch: 'torch.roll(large, (7, -3), (0, 2))', run: ({ large }) => torch.roll(large, [7, -3], [0, 2]) },
  { name: 'large copy_ into a transposed view', inputs: { large }, torch: 'torch.zeros(40, 80, 96).transpose(0, 2).copy_(large)', run: ({ large }) => torch.zeros([40, 80, 96]).transpose(0, 2).copy_(large) },
  { name: 'large strided view to float64', inputs: { large }, torch: 'large[::2, :, 1::3].to(torch.float64)', run: ({ large }) => large.slice(0, 0, null, 2).slice(2, 1, null, 3).to('float64') },
  { name: 'large expand copied with a cast', inputs: { large }, torch: 'large[:1].expand(96, 80, 40).half()', run: ({ large }) => large.narrow(0, 0, 1).expand([96, 80, 40]).half() },
  { name: 'to(dtype) of a strided view', inputs: { x }, torch: 'x.transpose(1, 2).to(torch.float64)', run: ({ x }) => x.transpose(1, 2).to('float64') },
];

const creation: RefCase[] = [
  { name: 'arange(10)', inputs: {}, torch: 'torch.arange(10)', run: () => torch.arange(10) },
  { name: 'arange with a fractional step', inputs: {}, torch: 'torch.arange(1, 2.5, 0.25)', run: () => torch.arange(1, 2.5, 0.25) },
  { name: 'arange counting down', inputs: {}, torch: 'torch.arange(5, -5, -3)', run: () => torch.arange(5, -5, -3) },
  { name: 'linspace', inputs: {}, torch: 'torch.linspace(-1, 1, 7)', run: () => torch.linspace(-1, 1, 7) },
  { name: 'linspace float64', inputs: {}, torch: 'torch.linspace(0, 10, 33, dtype=torch.float64)', run: () => torch.linspace(0, 10, 33, { dtype: 'float64' }) },
  { name: 'eye(3, 4)', inputs: {}, torch: 'torch.eye(3, 4)', run: () => torch.eye(3, 4) },
  { name: 'full with an integer is int64', inputs: {}, torch: 'torch.full((2, 3), 7)', run: () => torch.full([2, 3], 7) },
  { name: 'full with a fraction', inputs: {}, torch: 'torch.full((2,), 0.5)', run: () => torch.full([2], 0.5) },
  { name: 'full with a boolean', inputs: {}, torch: 'torch.full((2,), True)', run: () => torch.full([2], true) },
  { name: 'zeros int16', inputs: {}, torch: 'torch.zeros(2, 2, dtype=torch.int16)', run: () => torch.zeros([2, 2], { dtype: 'int16' }) },
  { name: 'ones_like keeps dtype', inputs: { f16 }, torch: 'torch.ones_like(f16)', run: ({ f16 }) => torch.onesLike(f16) },
  { name: 'tensor from nested integers is int64', inputs: {}, torch: 'torch.tensor([[1, 2], [3, 4]])', run: () => torch.tensor([[1, 2], [3, 4]]) },
  { name: 'tensor from fractions is float32', inputs: {}, torch: 'torch.tensor([0.5, 1, 2])', run: () => torch.tensor([0.5, 1, 2]) },
  { name: 'tensor from booleans', inputs: {}, torch: 'torch.tensor([True, False])', run: () => torch.tensor([true, false]) },
  { name: 'tensor with dtype bfloat16', inputs: {}, torch: 'torch.tensor([0.1, 3.14159, -2], dtype=torch.bfloat16)', run: () => torch.tensor([0.1, 3.14159, -2], { dtype: 'bfloat16' }) },
];

const printing: RefCase[] = [
  { name: 'repr float32 matrix', inputs: { m }, torch: 'repr(m)', run: ({ m }) => String(m) },
  { name: 'repr 3-d', inputs: { x }, torch: 'repr(x)', run: ({ x }) => String(x) },
  { name: 'repr summarized', inputs: { big }, torch: 'repr(big)', run: ({ big }) => String(big) },
  { name: 'repr wide rows wrap', inputs: { wide }, torch: 'repr(wide)', run: ({ wide }) => String(wide) },
  { name: 'repr scientific (large range)', inputs: { scaled }, torch: 'repr(scaled * scaled)', run: ({ scaled }) => String(scaled.mul(scaled)) },
  { name: 'repr scientific (tiny values)', inputs: { small }, torch: 'repr(small)', run: ({ small }) => String(small) },
  { name: 'repr integer-valued floats', inputs: { ints }, torch: 'repr(ints)', run: ({ ints }) => String(ints) },
  { name: 'repr int64', inputs: {}, torch: 'repr(torch.arange(-3, 12))', run: () => String(torch.arange(-3, 12)) },
  { name: 'repr int32 shows its dtype', inputs: { i32 }, torch: 'repr(i32)', run: ({ i32 }) => String(i32) },
  { name: 'repr bool', inputs: { ints }, torch: 'repr(ints.bool())', run: ({ ints }) => String(ints.bool()) },
  { name: 'repr float16', inputs: { f16 }, torch: 'repr(f16)', run: ({ f16 }) => String(f16) },
  { name: 'repr bfloat16', inputs: { bf16 }, torch: 'repr(bf16)', run: ({ bf16 }) => String(bf16) },
  { name: 'repr float64 0-dim', inputs: { zero }, torch: 'repr(zero)', run: ({ zero }) => String(zero) },
  { name: 'repr empty', inputs: {}, torch: 'repr(torch.zeros(0, 3))', run: () => String(torch.zeros([0, 3])) },
  { name: 'repr with inf and nan', inputs: {}, torch: "repr(torch.tensor([1.5, float('inf'), float('nan'), -2.25]))", run: () => String(torch.tensor([1.5, Infinity, NaN, -2.25])) },
];

describe('views', () => compareWithTorch(views));
describe('type promotion', () => compareWithTorch(promotion));
describe('casts', () => compareWithTorch(casts));
describe('creation', () => compareWithTorch(creation));
describe('printing', () => compareWithTorch(printing));
