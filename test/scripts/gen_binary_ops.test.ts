/**
 * scripts/gen_binary_ops.js, which writes the plain binary ops' TypeScript
 * from one row each joined with its op-list line: a new row is generated with
 * its rule, flags and in-place form as the op list says; a binary line of the
 * op list that is neither a row nor hand-written stops the build, and so do
 * rows that disagree with the op list.
 */
import * as path from 'path';

const root = path.resolve(__dirname, '..', '..', '..');

interface Row { name: string; inputs: string[]; outputs: string[]; attrs: string[]; dtypes: string; inplace: boolean }
interface TableRow { name: string; rule: string; numberSelf?: boolean; zeroDivisor?: boolean; aliases?: string[]; derivative: string; doc: string }
// eslint-disable-next-line @typescript-eslint/no-var-requires
const gen = require(path.join(root, 'scripts', 'gen_binary_ops.js')) as {
  plainBinaryOps(ops: Row[]): { name: string; rule: string; inplace: boolean; numberSelf: boolean }[];
  binaryOpsModule(ops: Row[], header: string): string;
  HAND_WRITTEN: Record<string, string>;
  BINARY_OPS: TableRow[];
};

const line = (name: string, inputs = ['self', 'other#'], extra: Partial<Row> = {}): Row =>
  ({ name, inputs, outputs: ['out'], attrs: [], dtypes: 'numeric', inplace: true, ...extra });

/** The op-list lines the real table needs: every row and hand-written op. */
function rows(...extra: Row[]): Row[] {
  const numberSelf = new Set(gen.BINARY_OPS.filter((r) => r.numberSelf).map((r) => r.name));
  return [
    ...gen.BINARY_OPS.map((r) => line(r.name, [numberSelf.has(r.name) ? 'self#' : 'self', 'other#'], { inplace: r.name !== 'maximum' })),
    ...Object.keys(gen.HAND_WRITTEN).map((n) => line(n, ['self#', n === 'pow' ? 'exponent#' : 'other#'], { attrs: n === 'add' ? ['alpha:double=1'] : [] })),
    ...extra,
  ];
}

afterEach(() => {
  // Rows added by a test are taken out again.
  const i = gen.BINARY_OPS.findIndex((r) => r.name === 'ldexp');
  if (i >= 0) gen.BINARY_OPS.splice(i, 1);
});

test('a new row is generated with its rule, and its in-place form only where the op-list line has inplace', () => {
  gen.BINARY_OPS.push({ name: 'ldexp', rule: 'float', derivative: 'LdexpBackward0', doc: 'self * 2 ** other.' });
  const text = gen.binaryOpsModule(rows(line('ldexp')), '');
  expect(text).toContain("export function ldexp(self: Tensor, other: Operand, out?: Tensor): Tensor { return floatBinary('ldexp', self, other, out); }");
  expect(text).toContain("P.ldexp_ = function (this: Tensor, other: Operand) { return floatBinary('ldexp', this, other, this); };");
  expect(text).toContain("P.remainder = function (this: Tensor, other: Operand) { return promoteBinary('remainder', this, other, undefined, true, true); };");
  expect(text).not.toContain('P.maximum_');
  expect(gen.plainBinaryOps(rows(line('ldexp'))).find((o) => o.name === 'ldexp')).toMatchObject({ rule: 'float', inplace: true, numberSelf: false });
});

test('a binary line that is neither a row nor hand-written stops the generator naming the op', () => {
  expect(() => gen.plainBinaryOps(rows(line('ldexp')))).toThrow(/ldexp is a binary op of op_list\.h that is neither a row of BINARY_OPS nor listed in HAND_WRITTEN/);
});

test('rows that disagree with the op list stop the generator', () => {
  expect(() => gen.plainBinaryOps(rows().filter((r) => r.name !== 'hypot'))).toThrow(/hypot is not an op of op_list\.h/);
  const withAttr = rows().map((r) => (r.name === 'atan2' ? { ...r, attrs: ['mode:string?'] } : r));
  expect(() => gen.plainBinaryOps(withAttr)).toThrow(/atan2 is not a plain binary op .*HAND_WRITTEN/);
  const tensorSelf = rows().map((r) => (r.name === 'mul' ? { ...r, inputs: ['self', 'other#'] } : r));
  expect(() => gen.plainBinaryOps(tensorSelf)).toThrow(/mul takes a number for self \(numberSelf\) but its op-list input is 'self', not 'self#'/);
  gen.BINARY_OPS.push({ name: 'ldexp', rule: 'scale', derivative: 'LdexpBackward0', doc: '' });
  expect(() => gen.plainBinaryOps(rows(line('ldexp')))).toThrow(/ldexp has the rule 'scale'; rules are promote, float, floating, compare, bitwise, shift/);
});
