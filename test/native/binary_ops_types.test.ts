/**
 * The generated plain binary ops as the cells' type checker sees them (the
 * runtime's declarations in dist/native, the generated module's .d.ts among
 * them): every row of PLAIN_BINARY_OPS type-checks as a `torch.` function,
 * a method, its in-place method where it has one, and its aliases; an
 * in-place method the op lacks is an error; inspection shows the row's doc
 * with its rule. Driven on CellLanguage, the checker's own object.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CellLanguage } from '../../kernel/language/cell_language';
import { AMBIENT_DECLARATIONS } from '../../kernel/language/ambient';
import { PLAIN_BINARY_OPS } from '../../native/generated/op_list';
import { ROOT } from '../helpers';

jest.setTimeout(60000);

let dir: string;
let lang: CellLanguage;
let seq = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tsgpu-binary-types-'));
  lang = new CellLanguage({ cwd: dir, kernelRoot: ROOT, runtimeTypes: join(ROOT, 'dist', 'native'), ambient: AMBIENT_DECLARATIONS });
  lang.warmUp();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRELUDE = 'const x = torch.randn(2, 3);\nconst y = torch.randn(3);\n';
const diagnostics = (code: string) => lang.analyze(PRELUDE + code, ++seq, true).map((d) => d.message);

test('every generated op type-checks as a function, a method, its in-place method and its aliases', () => {
  const calls = PLAIN_BINARY_OPS.flatMap((o) => [
    `torch.${o.name}(x, y);`, `torch.${o.name}(x, 2, x);`, `x.${o.name}(y);`, `x.${o.name}(2);`,
    ...(o.inplace ? [`x.${o.name}_(y);`] : []),
    ...(o.numberSelf ? [`torch.${o.name}(2, y);`] : []),
    ...o.aliases.flatMap((a) => [`torch.${a}(x, y);`, `x.${a}(y);`]),
  ]);
  expect(diagnostics(calls.join('\n'))).toEqual([]);
  expect(diagnostics('x.maximum_(y);').join('\n')).toMatch(/maximum_/);
  expect(diagnostics('torch.eq(2, y);').join('\n')).toMatch(/not assignable to parameter of type 'Tensor'/);
});

test.each(PLAIN_BINARY_OPS.map((o) => [o.name, o.rule] as const))('%s shows its doc comment and rule', (name, rule) => {
  const code = `${PRELUDE}x.${name}`;
  const info = lang.inspect(code, code.length);
  expect(info?.signature).toMatch(new RegExp(`Tensor\\.${name}\\(other: Operand\\): Tensor`));
  expect(info?.documentation).toMatch(rule === 'compare' ? /the result is bool/ : /Broadcast;/);
});
