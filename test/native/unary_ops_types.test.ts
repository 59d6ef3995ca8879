/**
 * The generated plain unary ops as the cells' type checker sees them: the
 * checker reads the runtime's declarations from dist/native (the generated
 * module's .d.ts among them, through index.d.ts), so every op of
 * PLAIN_UNARY_OPS type-checks as a `torch.` function, method, in-place method
 * and alias, completes, and shows its doc comment with its dtype rule on
 * inspection. Driven on CellLanguage, the checker's own object.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CellLanguage } from '../../kernel/language/cell_language';
import { AMBIENT_DECLARATIONS } from '../../kernel/language/ambient';
import { PLAIN_UNARY_OPS } from '../../native/generated/op_list';
import { ROOT } from '../helpers';

jest.setTimeout(60000);

let dir: string;
let lang: CellLanguage;
let seq = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tsgpu-unary-types-'));
  lang = new CellLanguage({ cwd: dir, kernelRoot: ROOT, runtimeTypes: join(ROOT, 'dist', 'native'), ambient: AMBIENT_DECLARATIONS });
  lang.warmUp();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRELUDE = 'const x = torch.randn(2, 3);\n';
const diagnostics = (code: string) => lang.analyze(PRELUDE + code, ++seq, true).map((d) => d.message);

test('every generated op type-checks as a function, a method, an in-place method and its aliases', () => {
  const calls = PLAIN_UNARY_OPS.flatMap((o) => [
    `torch.${o.name}(x);`, `x.${o.name}();`, `x.${o.name}_();`,
    ...o.aliases.flatMap((a) => [`torch.${a}(x);`, `x.${a}();`]),
  ]);
  expect(diagnostics(calls.join('\n'))).toEqual([]);
  // The checker does check: a method no module declares is an error.
  expect(diagnostics('x.notAnOpAtAll();').join('\n')).toMatch(/notAnOpAtAll/);
  // And the declarations take no argument.
  expect(diagnostics('x.erfinv(1);').join('\n')).toMatch(/Expected 0 arguments/);
});

test('methods complete, the in-place form beside the op', () => {
  const code = `${PRELUDE}x.erfi`;
  const names = (lang.complete(code, code.length)?.matches ?? []).map((m) => m.name);
  expect(names).toEqual(expect.arrayContaining(['erfinv', 'erfinv_']));
});

test.each(PLAIN_UNARY_OPS.map((o) => [o.name, o.dtypes] as const))('%s shows its doc comment and dtype rule', (name, dtypes) => {
  const rule = dtypes === 'float' ? /Floating: integer and bool inputs compute in the default dtype\./ : /Any dtype but bool/;
  for (const code of [`${PRELUDE}x.${name}`, `${PRELUDE}x.${name}_`]) {
    const info = lang.inspect(code, code.length);
    expect(info?.signature).toMatch(new RegExp(`Tensor\\.${name}_?\\(\\): Tensor`));
    expect(info?.documentation).toMatch(rule);
  }
});
