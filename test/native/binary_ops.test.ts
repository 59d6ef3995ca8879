/**
 * The generated plain binary ops and comparisons (native/generated/binary_ops.ts,
 * one per row of PLAIN_BINARY_OPS): every row has its `torch.` function, its
 * Tensor method, its in-place `_` method exactly where the op-list line has
 * the inplace flag, and its aliases; its derivative slot agrees with the
 * derivative table; its flags hold (a number for self, the integer zero
 * divisor, `out`); and it agrees with PyTorch (cpu) on the cases of
 * op_cases/binary_ops.ts. Every binary line of the op list is either a row or
 * hand-written. A new row is tested here with no line added.
 */
import * as torch from '../../native/index';
import * as path from 'path';
import { NOT_DIFFERENTIABLE, OP_LIST, PLAIN_BINARY_OPS } from '../../native/generated/op_list';
import * as generated from '../../native/generated/binary_ops';
import { DERIVATIVES } from '../../native/autograd/derivatives';
import { compareWithTorch } from './torch_reference';
import { binaryOpCases } from './op_cases/binary_ops';

type Binary = (a: torch.Tensor | number, b: torch.Tensor | number | boolean, out?: torch.Tensor) => torch.Tensor;
const T = torch as unknown as Record<string, Binary>;
const G = generated as unknown as Record<string, Binary>;
const M = (t: torch.Tensor): Record<string, ((o: torch.Tensor | number | boolean) => torch.Tensor) | undefined> =>
  t as unknown as Record<string, ((o: torch.Tensor | number | boolean) => torch.Tensor) | undefined>;

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { HAND_WRITTEN } = require(path.resolve(__dirname, '..', '..', '..', 'scripts', 'gen_binary_ops.js')) as { HAND_WRITTEN: Record<string, string> };

const x = torch.tensor([[1, -2, 3], [0.5, 4, -1]]);
const y = torch.tensor([2, -2, 0.5]);
const ints = torch.tensor([[4, -3, 9], [6, 1, -7]], { dtype: 'int32' });

test('every binary line of the op list is a generated row or written by hand', () => {
  const binary = OP_LIST.filter((o) => o.inputs.length === 2 && o.outputs.length === 1 &&
    o.inputs[0].replace('#', '') === 'self' && ['other', 'exponent'].includes(o.inputs[1].replace('#', ''))).map((o) => o.name);
  const covered = [...PLAIN_BINARY_OPS.map((o) => o.name as string), ...Object.keys(HAND_WRITTEN)];
  expect([...binary].sort()).toEqual([...covered].sort());
  expect(Object.keys(HAND_WRITTEN).sort()).toEqual(['add', 'div', 'pow', 'sub']);
  expect(new Set(PLAIN_BINARY_OPS.map((o) => o.rule))).toEqual(new Set(['promote', 'float', 'floating', 'compare', 'bitwise', 'shift']));
});

describe.each(PLAIN_BINARY_OPS.map((o) => [o.name, o] as const))('%s', (name, op) => {
  test('is a torch function, a method, in place where the op list says, and its aliases are the same op', () => {
    expect(T[name]).toBe(G[name]);
    const [a, b] = op.rule === 'bitwise' || op.rule === 'shift' ? [ints, torch.tensor([1, 2, 3], { dtype: 'int32' })] : [x, y];
    const want = T[name](a, b);
    const viaMethod = M(a)[name]!(b);
    expect({ dtype: viaMethod.dtype, values: viaMethod.toArray() }).toEqual({ dtype: want.dtype, values: want.toArray() });
    for (const alias of op.aliases) {
      expect(T[alias]).toBe(T[name]);
      expect(M(a)[alias]!(b).toArray()).toEqual(want.toArray());
    }
    expect(typeof M(a)[`${name}_`]).toBe(op.inplace ? 'function' : 'undefined');
    if (op.inplace) {
      const c = a.clone();
      expect(M(c)[`${name}_`]!(b)).toBe(c);
      expect(c.toArray()).toEqual(want.to(a.dtype).toArray());
    }
  });

  test('writes into out when given', () => {
    const [a, b] = op.rule === 'bitwise' || op.rule === 'shift' ? [ints, 2] : [x, y];
    const want = T[name](a, b);
    const out = torch.empty(want.shape, { dtype: want.dtype });
    expect(T[name](a, b, out)).toBe(out);
    expect(out.toArray()).toEqual(want.toArray());
  });

  test(`derivative slot: ${op.derivative}`, () => {
    const row = DERIVATIVES[name];
    if (op.derivative === NOT_DIFFERENTIABLE) {
      expect(row.nondifferentiable).toBe(true);
    } else {
      expect({ name: row.name, nondifferentiable: row.nondifferentiable }).toEqual({ name: op.derivative, nondifferentiable: undefined });
      expect(typeof row.backward).toBe('function');
    }
  });

  if (op.numberSelf) {
    test('self may be a number', () => {
      const got = T[name](3, ints.abs().add(1));
      expect(got.dtype).toBe('int32');
      expect(() => T[name](3, 4)).toThrow(`${name}: expected at least one Tensor for self or other, got 'number'`);
    });
  } else {
    test('self must be a tensor', () => {
      expect(() => T[name](3, x)).toThrow(`${name}: expected a Tensor for self, got 'number'`);
    });
  }

  if (op.zeroDivisor) {
    test('an integer divisor of 0 throws on cpu', () => {
      expect(() => T[name](ints, 0)).toThrow(`${name}: ZeroDivisionError: integer division by zero (a divisor of dtype int32 is 0)`);
      expect(() => T[name](ints, torch.tensor([1, 0, 2], { dtype: 'int32' }))).toThrow(/ZeroDivisionError/);
    });
  }
});

// One PyTorch process for the cases of every row.
describe('agrees with PyTorch', () => {
  compareWithTorch(PLAIN_BINARY_OPS.flatMap((o) => binaryOpCases[`binary ${o.name}`]));
});

test('a comparison in place keeps the tensor\'s dtype (1 and 0), as PyTorch\'s eq_', () => {
  const c = x.clone();
  c.eq_(torch.tensor([1, 4, 3]));
  expect({ dtype: c.dtype, values: c.toArray() }).toEqual({ dtype: 'float32', values: new Float32Array([1, 0, 1, 0, 1, 0]) });
});
