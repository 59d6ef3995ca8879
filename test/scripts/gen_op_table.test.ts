/**
 * docs/ops.md, the table of every function and method, is generated from the
 * code (scripts/gen_op_table.js): this test fails when it is stale (an op,
 * function or method added or removed, a kernel or backward formula
 * changed), and checks that the table says what the code has.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../../native/index';
import { testOrSkip } from '../skip';

const root = path.resolve(__dirname, '..', '..', '..');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const gen = require(path.join(root, 'scripts', 'gen_op_table.js')) as {
  opTable(t: unknown): string;
  readmeWith(text: string): string;
  load(): { opList: { name: string; kernels: string[] }[] };
  builtWithCuda(t: unknown): boolean;
  OUT: string;
  README: string;
};

const tables = gen.load();
const why = gen.builtWithCuda(tables) ? '' : 'the addon was built without CUDA, and the table lists the CUDA kernels of a CUDA build';

testOrSkip(why, 'docs/ops.md is what scripts/gen_op_table.js writes (run it after adding an op or a function)', () => {
  const want = gen.opTable(tables);
  const have = fs.existsSync(gen.OUT) ? fs.readFileSync(gen.OUT, 'utf8') : '';
  expect(have === want ? 'fresh' : 'stale: run node scripts/gen_op_table.js').toBe('fresh');
});

test('README.md links the table between its markers', () => {
  const readme = fs.readFileSync(gen.README, 'utf8');
  expect(gen.readmeWith(readme)).toBe(readme);
  expect(readme).toContain('[docs/ops.md](docs/ops.md)');
});

test('the table has a row for every function and method, and every op of the op list', () => {
  const text = gen.opTable(tables);
  const rows = new Set([...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]));
  const fns = Object.keys(torch).filter((k) => typeof (torch as Record<string, unknown>)[k] === 'function' && /^[a-z]/.test(k));
  const F = torch.nn.functional as unknown as Record<string, unknown>;
  const functional = Object.keys(F).filter((k) => typeof F[k] === 'function');
  for (const n of [...fns, ...functional, 'einsum', 'multinomial', 'vectorNorm', 'groupNorm', 'unfold']) expect([n, rows.has(n)]).toEqual([n, true]);
  for (const op of tables.opList) expect([op.name, rows.has(op.name)]).toEqual([op.name, true]);
  // An op row says where its kernels are, as the addon reports them.
  const add = text.split('\n').find((l) => l.startsWith('| `add` | ✓ |')) ?? '';
  expect(add).toMatch(/op `add` \| ✓ \| (✓)? \| numeric \| yes \(`AddBackward0`\)/);
});
