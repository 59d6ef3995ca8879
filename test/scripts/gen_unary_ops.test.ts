/**
 * scripts/gen_unary_ops.js, which writes the plain unary ops' TypeScript from
 * the op list: which rows it generates (one tensor in, one out, no
 * attributes, inplace, dtypes float or numeric), that a row of that shape
 * fitting no rule stops the build unless it is listed as hand-written, that
 * its tables name only real ops, and that the generated files are fresh.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';

const root = path.resolve(__dirname, '..', '..', '..');

interface Row { name: string; inputs: string[]; outputs: string[]; attrs: string[]; dtypes: string; inplace: boolean }
// eslint-disable-next-line @typescript-eslint/no-var-requires
const gen = require(path.join(root, 'scripts', 'gen_unary_ops.js')) as {
  plainUnaryOps(ops: Row[]): { name: string; rule: string }[];
  unaryOpsModule(ops: Row[], header: string): string;
  HAND_WRITTEN: Record<string, string>;
};

/** The rows the real tables need (every op they name), plus `extra`. */
function rows(...extra: Row[]): Row[] {
  const plain = (name: string, dtypes: string): Row => ({ name, inputs: ['self'], outputs: ['out'], attrs: [], dtypes, inplace: true });
  const named = ['exp', 'expm1', 'log', 'log1p', 'log2', 'sqrt', 'rsqrt', 'reciprocal', 'sin', 'cos', 'tanh', 'sigmoid', 'silu',
    'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'asinh', 'acosh', 'atanh', 'log10', 'exp2', 'erf', 'erfc', 'erfinv'];
  const numeric = ['neg', 'abs', 'relu', 'floor', 'ceil', 'trunc', 'sign', 'round'];
  return [
    ...named.map((n) => plain(n, 'float')), ...numeric.map((n) => plain(n, 'numeric')),
    plain('logicalNot', 'all'), plain('bitwiseNot', 'int|bool'),
    // Every other hand-written op, so that the tables name only rows given here.
    ...Object.keys(gen.HAND_WRITTEN).filter((n) => ![...named, ...numeric, 'logicalNot', 'bitwiseNot'].includes(n))
      .map((n) => ({ name: n, inputs: ['self'], outputs: ['out'], attrs: [], dtypes: 'all', inplace: false })),
    ...extra,
  ];
}

test('a new plain row is generated with the rule of its dtype set; hand-written rows are not', () => {
  const ops = gen.plainUnaryOps(rows({ name: 'cbrt', inputs: ['self'], outputs: ['out'], attrs: [], dtypes: 'float', inplace: true }));
  expect(ops.find((o) => o.name === 'cbrt')).toEqual({ name: 'cbrt', rule: 'float' });
  expect(ops.find((o) => o.name === 'neg')).toEqual({ name: 'neg', rule: 'numeric' });
  for (const n of Object.keys(gen.HAND_WRITTEN)) expect(ops.some((o) => o.name === n)).toBe(false);
  const text = gen.unaryOpsModule(rows({ name: 'cbrt', inputs: ['self'], outputs: ['out'], attrs: [], dtypes: 'float', inplace: true }), '');
  expect(text).toContain("export function cbrt(self: Tensor): Tensor { return unaryFloat('cbrt', self); }");
  expect(text).toContain("P.cbrt_ = function (this: Tensor) { return unaryFloat('cbrt', this, this); };");
  expect(text).toMatch(/\/\*\* The elementwise op `cbrt` of the op list\. Floating: .*\*\/\n {4}cbrt\(\): Tensor;/);
});

test('rows with attributes, more inputs or another output are not plain', () => {
  const ops = gen.plainUnaryOps(rows(
    { name: 'gelu', inputs: ['self'], outputs: ['out'], attrs: ['approximate:string=none'], dtypes: 'float', inplace: true },
    { name: 'mul', inputs: ['self', 'other#'], outputs: ['out'], attrs: [], dtypes: 'numeric', inplace: true },
    { name: 'frexp', inputs: ['self'], outputs: ['mantissa', 'exponent'], attrs: [], dtypes: 'float', inplace: false },
  ));
  expect(ops.some((o) => ['gelu', 'mul', 'frexp'].includes(o.name))).toBe(false);
});

test('a plain row whose dtypes fit no rule, or without inplace, stops the generator naming the op', () => {
  expect(() => gen.plainUnaryOps(rows({ name: 'isReal', inputs: ['self'], outputs: ['out'], attrs: [], dtypes: 'all', inplace: true })))
    .toThrow(/isReal takes one tensor and no attributes but has dtypes 'all'.*HAND_WRITTEN/);
  expect(() => gen.plainUnaryOps(rows({ name: 'cbrt', inputs: ['self'], outputs: ['out'], attrs: [], dtypes: 'float', inplace: false })))
    .toThrow(/cbrt .* and no inplace flag/);
});

test('a table naming an op the op list lacks stops the generator', () => {
  expect(() => gen.plainUnaryOps(rows().filter((r) => r.name !== 'asin'))).toThrow(/asin is not an op of op_list\.h/);
});

test('the generated files are what the op list makes (gen_native_tables --check)', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'gen_native_tables.js'), '--check'], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});
