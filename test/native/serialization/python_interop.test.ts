/**
 * torch.save / torch.load against Python's safetensors and PyTorch, both
 * directions: what tsgpu writes, `safetensors.torch.load_file` reads with
 * the same keys (in the same order), dtypes, shapes and bytes; what
 * `safetensors.torch.save_file` writes (every dtype, 0-d and empty tensors,
 * the state dict of a model in GPT-2's layout and of a PyTorch module),
 * torch.load reads equal; an optimizer's state dict as PyTorch's AdamW
 * makes it comes back as the same object.
 *
 * Python runs twice for the whole file (it takes seconds to start): once
 * to read what tsgpu wrote and write its own files, once to read what tsgpu
 * wrote back from those.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../../../native/index';
import { PYTHON } from '../torch_reference';
import { expectSameAsPython, PyTensor, python, rawBytes, requirePythonPackages, tempDir } from './python';

interface PyRead {
  tensors: PyTensor[];
  metadata: Record<string, string> | null;
}
interface PyWrite {
  tensors: PyTensor[];
  file_order: string[];
}
interface PyOptimizer {
  tensors: PyTensor[];
  param_groups: Record<string, unknown>[];
}

let tmp: ReturnType<typeof tempDir>;
const file = (name: string): string => path.join(tmp.dir, name);

function disposeAll(obj: Record<string, torch.Tensor>): void {
  for (const t of Object.values(obj)) t.dispose();
}

/** A tensor with Python's dtype, shape and bytes. */
function fromPython(p: PyTensor): torch.Tensor {
  return torch.fromBuffer(new Uint8Array(Buffer.from(p.data, 'base64')), { dtype: p.dtype as torch.DType, shape: p.shape });
}

/** Tensors of every dtype, with values from the generator, and the shapes the format must carry. */
function everyDtype(): Record<string, torch.Tensor> {
  torch.manualSeed(23);
  const base = torch.randn([3, 4]);
  const out: Record<string, torch.Tensor> = {
    'blocks.0.attn.qkv.weight': torch.randn([6, 4]),
    'blocks.0.attn.qkv.bias': torch.randn([6]),
    f64: torch.randn([5], { dtype: 'float64' }),
    f16: torch.randn([2, 3], { dtype: 'float16' }),
    bf16: torch.randn([4, 2], { dtype: 'bfloat16' }),
    i64: torch.tensor(new BigInt64Array([-(2n ** 62n), 2n ** 53n + 1n, -1n, 0n, 2n ** 63n - 1n])),
    i32: torch.randint(-(2 ** 31), 2 ** 31 - 1, [3, 2], { dtype: 'int32' }),
    i16: torch.randint(-(2 ** 15), 2 ** 15 - 1, [6], { dtype: 'int16' }),
    i8: torch.randint(-128, 127, [2, 2, 2], { dtype: 'int8' }),
    u8: torch.randint(0, 255, [9], { dtype: 'uint8' }),
    bool: torch.rand([7]).gt(0.5),
    scalar: torch.tensor(3.5),
    scalar_i64: torch.tensor(-7),
    empty: torch.empty([0, 3]),
    empty_bf16: torch.empty([2, 0], { dtype: 'bfloat16' }),
    special: torch.tensor([NaN, Infinity, -Infinity, -0, 1e-45]),
    // Views: saved as the values they show.
    transposed: base.transpose(0, 1),
    narrowed: base.narrow(0, 1, 2),
    expanded: torch.randn([1, 4]).expand([3, 4]),
    stepped: base.slice(1, 0, 4, 2),
    row: base.select(0, 2),
  };
  base.dispose();
  return out;
}

/**
 * The same keys in the same order (the order of the data), but for empty
 * tensors: they take no bytes and share an offset with a neighbour, and
 * Python's safetensors orders such ties differently from run to run.
 */
function expectSameOrder(got: string[], want: string[], isEmpty: (key: string) => boolean): void {
  expect(new Set(got)).toEqual(new Set(want));
  expect(got.length).toBe(want.length);
  expect(got.filter((k) => !isEmpty(k))).toEqual(want.filter((k) => !isEmpty(k)));
}

// What tsgpu saved, and what Python answered in its two runs.
let every: Record<string, torch.Tensor>;
let small: Record<string, torch.Tensor>;
let optimizerSd: { state: Record<string, Record<string, torch.Tensor>>; param_groups: Record<string, unknown>[] };
let readEvery: PyRead, readMeta: PyRead, readNoMeta: PyRead, pyEvery: PyWrite, pyEvery2: PyWrite;
let pyModule: { tensors: PyTensor[] }, pyOptimizer: PyOptimizer, readModuleAgain: PyRead, readAdamw: PyRead;

beforeAll(() => {
  tmp = tempDir();
  every = everyDtype();
  torch.save(every, file('every.safetensors'));
  small = { a: torch.arange(6).view([2, 3]), b: torch.ones([2], { dtype: 'float16' }) };
  torch.safetensors.saveFile(small, file('meta.safetensors'), { format: 'pt', note: 'ünïcode ✓' });
  torch.safetensors.saveFile(small, file('nometa.safetensors'));
  [readEvery, readMeta, readNoMeta, pyEvery, pyEvery2, pyModule, pyOptimizer] = python(
    { op: 'read', path: file('every.safetensors') },
    { op: 'read', path: file('meta.safetensors') },
    { op: 'read', path: file('nometa.safetensors') },
    { op: 'write', path: file('py.safetensors'), seed: 5 },
    { op: 'write', path: file('py2.safetensors'), seed: 6 },
    { op: 'module', path: file('module.safetensors'), seed: 7 },
    { op: 'optimizer', seed: 8 },
  );
  // Python's module state dict, loaded and saved again in PyTorch's state-dict order.
  const module = torch.load<Record<string, torch.Tensor>>(file('module.safetensors'));
  const ordered: Record<string, torch.Tensor> = {};
  for (const p of pyModule.tensors) ordered[p.key] = module[p.key];
  torch.save(ordered, file('module_again.safetensors'));
  disposeAll(module);
  // The object an optimizer's stateDict() gives: tensors and plain numbers, booleans, null and arrays mixed.
  const state: Record<string, Record<string, torch.Tensor>> = {};
  for (const p of pyOptimizer.tensors) {
    const [, index, name] = p.key.split('.');
    (state[index] ??= {})[name] = fromPython(p);
  }
  optimizerSd = { state, param_groups: pyOptimizer.param_groups };
  torch.save(optimizerSd, file('adamw.safetensors'));
  [readModuleAgain, readAdamw] = python({ op: 'read', path: file('module_again.safetensors') }, { op: 'read', path: file('adamw.safetensors') });
}, 300000); // Python starts three times (its packages checked, then two runs), seconds each on a busy machine

afterAll(() => {
  disposeAll(every);
  disposeAll(small);
  for (const s of Object.values(optimizerSd.state)) disposeAll(s);
  tmp.remove();
});

describe('tsgpu writes, Python reads', () => {
  test('a state dict of every dtype, 0-d, empty and view tensors: the same keys in order, dtypes, shapes and bytes', () => {
    expectSameOrder(readEvery.tensors.map((t) => t.key), Object.keys(every), (k) => every[k].numel === 0);
    for (const p of readEvery.tensors) expectSameAsPython(every[p.key], p);
    expect(readEvery.metadata).toEqual({ format: 'pt' });
  });

  test('safetensors.saveFile writes the metadata given, and no other', () => {
    expect(readMeta.metadata).toEqual({ format: 'pt', note: 'ünïcode ✓' });
    expect(readMeta.tensors.map((t) => t.key)).toEqual(['a', 'b']);
    for (const p of readMeta.tensors) expectSameAsPython(small[p.key], p);
    expect(readNoMeta.metadata).toBeNull();
    expect(readNoMeta.tensors).toEqual(readMeta.tensors);
  });
});

describe('Python writes, tsgpu reads', () => {
  test('save_file of every dtype (bf16, f16, int64 beyond 2^53, bool, 0-d, empty): torch.load reads them equal, in the file order', () => {
    const got = torch.load<Record<string, torch.Tensor>>(file('py.safetensors'));
    try {
      expectSameOrder(Object.keys(got), pyEvery.file_order, (k) => got[k].numel === 0);
      expect(new Set(Object.keys(got))).toEqual(new Set(pyEvery.tensors.map((t) => t.key)));
      for (const p of pyEvery.tensors) {
        expect(got[p.key].device).toBe('cpu');
        expectSameAsPython(got[p.key], p);
      }
      expect(got.i64.data()[1]).toBe(2n ** 53n + 1n);
      expect(got.scalar.shape).toEqual([]);
      expect(got.scalar.item()).toBe(3.5);
      expect(got.empty_bf16.shape).toEqual([2, 0]);
      expect(got.bool.dtype).toBe('bool');
      expect(torch.safetensors.readHeader(file('py.safetensors')).metadata).toEqual({
        format: 'pt',
        written_by: 'safetensors.torch.save_file',
      });
    } finally {
      disposeAll(got);
    }
  });

  test('safetensors.loadFile reads the same tensors as torch.load', () => {
    const got = torch.safetensors.loadFile(file('py2.safetensors'), { device: 'cpu' });
    try {
      expectSameOrder(Object.keys(got), pyEvery2.file_order, (k) => got[k].numel === 0);
      for (const p of pyEvery2.tensors) expectSameAsPython(got[p.key], p);
    } finally {
      disposeAll(got);
    }
  });

  test("a model in GPT-2's layout and a PyTorch module: their state dict loads with exactly its keys, and saves back the same", () => {
    const keys = pyModule.tensors.map((t) => t.key);
    expect(keys.slice(0, 5)).toEqual(['wte.weight', 'wpe.weight', 'h.0.ln_1.weight', 'h.0.ln_1.bias', 'h.0.attn.c_attn.weight']);
    expect(keys).toContain('torch_block.self_attn.in_proj_weight');
    const got = torch.load<Record<string, torch.Tensor>>(file('module.safetensors'));
    try {
      expect(new Set(Object.keys(got))).toEqual(new Set(keys));
      for (const p of pyModule.tensors) expectSameAsPython(got[p.key], p);
      expect(got['h.0.attn.c_attn.weight'].shape).toEqual([8, 24]); // Conv1D's [in, out]
      // Saved again in PyTorch's state-dict order: Python reads the same keys, in that order, and bytes.
      expect(readModuleAgain.tensors).toEqual(pyModule.tensors);
    } finally {
      disposeAll(got);
    }
  });
});

describe("an optimizer's state dict shaped as PyTorch's", () => {
  test("AdamW's state: Python reads state.<i>.<name> tensors; torch.load rebuilds the same object", () => {
    expect(Object.keys(optimizerSd.state)).toEqual(['0', '1']);
    expect(pyOptimizer.tensors.map((t) => t.key)).toEqual([
      'state.0.step', 'state.0.exp_avg', 'state.0.exp_avg_sq', 'state.1.step', 'state.1.exp_avg', 'state.1.exp_avg_sq',
    ]);
    expect(pyOptimizer.param_groups[0]).toMatchObject({ lr: 0.001, betas: [0.9, 0.999], params: [0, 1], foreach: null, amsgrad: false });
    expect(readAdamw.tensors).toEqual(pyOptimizer.tensors);
    const loaded = torch.load<typeof optimizerSd>(file('adamw.safetensors'));
    try {
      expect(loaded.param_groups).toEqual(pyOptimizer.param_groups);
      expect(Object.keys(loaded.state)).toEqual(['0', '1']);
      for (const p of pyOptimizer.tensors) {
        const [, index, name] = p.key.split('.');
        const t = loaded.state[index][name];
        expect(t).toBeInstanceOf(torch.Tensor);
        expectSameAsPython(t, p);
        expect(rawBytes(t)).toEqual(rawBytes(optimizerSd.state[index][name]));
      }
      expect(Object.keys(loaded.state[0])).toEqual(['step', 'exp_avg', 'exp_avg_sq']);
    } finally {
      for (const s of Object.values(loaded.state)) disposeAll(s);
    }
  });
});

describe('the Python these tests need', () => {
  test('a Python without safetensors fails the tests with the package named', () => {
    // A module named safetensors that cannot be imported, ahead of the real one on the path.
    const dir = path.join(tmp.dir, 'shadow');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'safetensors.py'), 'raise ImportError("No module named \'safetensors\'")\n');
    expect(() => requirePythonPackages(PYTHON, { PYTHONPATH: dir })).toThrow(
      /need the Python packages torch and safetensors in .* \(TSGPU_PYTHON\), which lacks: safetensors \(ImportError: No module named 'safetensors'\)/,
    );
    expect(() => requirePythonPackages(path.join(tmp.dir, 'no-python'))).toThrow(/which lacks: python itself/);
  });
});
