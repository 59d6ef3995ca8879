/**
 * The generated plain unary ops (native/generated/unary_ops.ts, one per row
 * of PLAIN_UNARY_OPS): every op has its `torch.` function, Tensor method,
 * in-place `_` method and aliases; each computes as its dtype set in the op
 * list says, checked against PyTorch (cpu) on the same inputs (the cases of
 * op_cases/unary_ops.ts: integers and bool give the default dtype, numeric
 * ops keep the dtype); numeric ops refuse bool; the in-place form writes
 * into its tensor, through a view too, and refuses a result it cannot hold. A new row of that shape in the op list is tested
 * here with no line added.
 */
import * as torch from '../../native/index';
import { PLAIN_UNARY_OPS } from '../../native/generated/op_list';
import { compareWithTorch } from './torch_reference';
import { unaryOpCases } from './op_cases/unary_ops';
import * as generated from '../../native/generated/unary_ops';
import * as autocastOps from '../../native/amp/install';

type Unary = (t: torch.Tensor) => torch.Tensor;
const T = torch as unknown as Record<string, Unary>;
const method = (t: torch.Tensor, name: string): torch.Tensor => (t as unknown as Record<string, () => torch.Tensor>)[name]();

torch.manualSeed(2132);
const f32 = torch.rand([4, 4]).mul(1.8).sub(0.9);
const f64 = f32.double();
const i32 = torch.randint(-3, 4, [3, 4]).int();
const b = torch.tensor([true, false, true]);

test('the op list has plain unary ops of both dtype sets', () => {
  const sets = new Set(PLAIN_UNARY_OPS.map((o) => o.dtypes));
  expect([...sets].sort()).toEqual(['float', 'numeric']);
});

test('torch exports the generated ops, except those it exports wrapped for autocast', () => {
  for (const { name } of PLAIN_UNARY_OPS) {
    const wrapped = (autocastOps as unknown as Record<string, Unary>)[name];
    expect(T[name]).toBe(wrapped ?? (generated as unknown as Record<string, Unary>)[name]);
  }
  expect(T.exp).not.toBe(generated.exp);
});

describe.each(PLAIN_UNARY_OPS.map((o) => [o.name, o] as const))('%s', (name, op) => {
  test('is a torch function, a method, an in-place method, and its aliases are the same op', () => {
    expect(typeof T[name]).toBe('function');
    const x = f32.clone();
    const want = T[name](x);
    for (const got of [method(x, name), ...op.aliases.map((a) => T[a](x)), ...op.aliases.map((a) => method(x, a))]) {
      expect(got.dtype).toBe(want.dtype);
      expect(got.toArray()).toEqual(want.toArray());
    }
    const same = method(x, `${name}_`);
    expect(same).toBe(x);
    expect(x.toArray()).toEqual(want.toArray());
  });

  test('in place through a column view writes only that column', () => {
    const x = f64.clone();
    const col = x.select(1, 2);
    const want = T[name](col);
    method(col, `${name}_`);
    expect(x.select(1, 2).toArray()).toEqual(want.toArray());
    expect(x.select(1, 0).toArray()).toEqual(f64.select(1, 0).toArray());
  });

  if (op.dtypes === 'float') {
    test('in place on int32 is refused (the float result cannot be held)', () => {
      expect(() => method(i32.clone(), `${name}_`)).toThrow(new RegExp(`^${name}: result type float32 can't be cast to the desired output type int32`));
    });
  } else {
    test('bool is refused, naming the dtype set', () => {
      expect(() => T[name](b)).toThrow(new RegExp(`^${name}: dtype bool is not supported \\(expected numeric\\)`));
    });
  }

  compareWithTorch(unaryOpCases[`unary ${name}`]);
});
