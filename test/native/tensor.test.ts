/**
 * The tensor as a view of a storage: sharing, lifetime and statistics; the
 * dtype and op tables against the addon; argument errors; host transfers.
 */
import * as torch from '../../native/index';
import { errorOf } from './helpers';
import { ownStorages, settleAllocator } from './own_memory';
import { testOrSkip } from '../skip';
import { native } from '../../native/addon';
import { DTYPE_TABLE } from '../../native/generated/dtypes';
import { CPU_ONLY_OPS, OP_LIST } from '../../native/generated/op_list';

describe('generated tables agree with the addon', () => {
  test('dtype table', () => {
    expect(native.dtypes()).toEqual(DTYPE_TABLE.map((r) => ({ ...r })));
  });

  test('op list (names, inputs, outputs, attributes, dtypes, flags)', () => {
    const fromAddon = native.opList().map(({ kernels, accepts, ...rest }) => rest);
    expect(fromAddon).toEqual(OP_LIST.map((r) => ({ ...r, inputs: [...r.inputs], outputs: [...r.outputs], attrs: [...r.attrs] })));
  });

  test('every op has a cpu kernel and no registration problems', () => {
    expect(native.registryProblems()).toEqual([]);
    const missing = native.opList().filter((o) => !o.kernels.includes('cpu')).map((o) => o.name);
    expect(missing).toEqual([]);
  });

  testOrSkip(native.builtWithCuda ? '' : 'the addon was built without CUDA (no nvcc)', 'every op has a cuda kernel where CUDA is compiled in, but the cpuonly ones', () => {
    const missing = native.opList().filter((o) => !o.kernels.includes('cuda')).map((o) => o.name);
    expect(missing).toEqual([...CPU_ONLY_OPS]);
    expect(CPU_ONLY_OPS.length).toBeGreaterThan(0);
    for (const name of CPU_ONLY_OPS) expect(native.opList().find((o) => o.name === name)?.kernels).toEqual(['cpu']);
  });
});

describe('views share storage', () => {
  test('a view writes through to its base and counts once in the statistics', async () => {
    await settleAllocator(); // the process-wide statistics are the subject: nothing of other tests may be freed meanwhile
    const before = torch.memory.allocated('cpu');
    const base = torch.zeros([4, 4]);
    const after = torch.memory.allocated('cpu');
    const tr = base.transpose(0, 1);
    const v = tr.slice(0, 1, 3);
    tr.dispose(); // every tensor viewing a storage holds it, intermediate views too
    const w = base.view(16);
    expect(torch.memory.allocated('cpu')).toBe(after);
    expect(v.untypedStorage()).toBe(base.untypedStorage());
    expect(v.id).toBe(base.id);
    expect(torch.memory.liveTensors('cpu').filter((t) => t.id === base.id && t.nbytes === 64)).toHaveLength(1);
    v.fill_(3);
    expect(base.tolist()).toEqual([
      [0, 3, 3, 0],
      [0, 3, 3, 0],
      [0, 3, 3, 0],
      [0, 3, 3, 0],
    ]);
    expect(v.stride()).toEqual([1, 4]);
    expect(v.storageOffset()).toBe(1);
    expect(v.isContiguous()).toBe(false);
    // The storage lives until the last view is disposed.
    base.dispose();
    expect(base.isDisposed).toBe(true);
    const total = w.sum();
    expect(total.item()).toBe(24);
    total.dispose();
    w.dispose();
    expect(torch.memory.allocated('cpu')).toBe(after);
    v.dispose();
    expect(torch.memory.allocated('cpu')).toBe(before);
  });

  test('tidy keeps a returned view and frees the temporaries', () => {
    const own = ownStorages();
    const row = torch.tidy(() => {
      const m = torch.arange(12, { dtype: 'float32' }).view(3, 4);
      const tmp = m.add(1);
      return tmp.select(0, 2);
    });
    expect(row.tolist()).toEqual([9, 10, 11, 12]);
    expect(own.list().map((r) => [r.id, r.nbytes])).toEqual([[row.id, 48]]); // the storage of `tmp` only
    row.dispose();
    expect(own.count()).toBe(0);
  });

  test('using a disposed view fails with TSGPU_DISPOSED; other views keep working', () => {
    const a = torch.ones([2, 3]);
    const b = a.t();
    b.dispose();
    const e = errorOf(() => b.add(1));
    expect(e.code).toBe('TSGPU_DISPOSED');
    expect(e.message).toBe('Tensor was disposed (shape [3, 2], device cpu): it can no longer be used');
    expect(a.add(1).tolist()).toEqual([
      [2, 2, 2],
      [2, 2, 2],
    ]);
    a.dispose();
  });

  test('to() with nothing to change is a new view of the same storage', () => {
    const a = torch.randn([3]);
    const b = a.to('cpu');
    expect(b).not.toBe(a);
    expect(b.untypedStorage()).toBe(a.untypedStorage());
    b.dispose();
    expect(a.isDisposed).toBe(false);
    a.dispose();
  });
});

test('printing a big tensor or a view of one allocates no tensor memory', () => {
  const x = torch.randn([1000, 1000]);
  const h = x.half();
  torch.memory.resetPeakStats('cpu');
  const peak = torch.memory.maxAllocated('cpu');
  const texts = [String(x), String(x.t()), String(h.t().unsqueeze(0))];
  expect(torch.memory.maxAllocated('cpu')).toBe(peak);
  expect(texts[1].split('\n')[0]).toMatch(/^tensor\(\[\[ ?-?\d\.\d{4}, .*\.\.\.,/);
  expect(texts[2].endsWith('dtype=torch.float16)')).toBe(true);
  [x, h].forEach((t) => t.dispose());
});

test('print options that PyTorch would refuse are refused with their name, and change nothing', () => {
  const before = torch.getPrintOptions();
  expect(() => torch.setPrintOptions({ profile: 'long' as 'full' })).toThrow("setPrintOptions: expected 'default', 'short' or 'full' for profile, got \"long\"");
  expect(() => torch.setPrintOptions({ precision: -1 })).toThrow('setPrintOptions: expected a non-negative integer for precision, got -1');
  expect(() => torch.setPrintOptions({ linewidth: 0 })).toThrow('setPrintOptions: expected a positive integer for linewidth, got 0');
  expect(() => torch.setPrintOptions({ threshold: Number.NaN })).toThrow('setPrintOptions: expected a non-negative number for threshold, got NaN');
  expect(() => torch.setPrintOptions({ sciMode: 'yes' as unknown as boolean })).toThrow('setPrintOptions: expected true, false or null for sciMode, got "yes"');
  expect(torch.getPrintOptions()).toEqual(before);
});

describe('dtypes', () => {
  test('every dtype round-trips through tensor(), toArray() and tolist()', () => {
    const values = [0, 1, -2, 3, 100];
    for (const row of DTYPE_TABLE) {
      // uint8 cannot hold -2: tensor() refuses it (PyTorch's overflow error), so its row uses 254.
      const vals = row.name === 'uint8' ? values.map((v) => (v < 0 ? v + 256 : v)) : values;
      if (row.name === 'uint8') expect(() => torch.tensor(values, { dtype: 'uint8' })).toThrow(/value -2 cannot be converted to type uint8 without overflow/);
      const t = torch.tensor(vals, { dtype: row.name });
      const want = vals.map((v) => (row.name === 'bool' ? v !== 0 : v));
      expect({ dtype: row.name, list: t.tolist() }).toEqual({ dtype: row.name, list: want });
      expect(t.nbytes).toBe(5 * row.bytes);
      expect(t.itemsize).toBe(row.bytes);
      t.dispose();
    }
  });

  test('data() is the raw elements; toArray() the values', () => {
    const h = torch.tensor([1, -2.5], { dtype: 'float16' });
    expect(Array.from(h.data() as Uint16Array)).toEqual([0x3c00, 0xc100]);
    expect(Array.from(h.toArray() as Float32Array)).toEqual([1, -2.5]);
    const l = torch.tensor([2 ** 40, -3]);
    expect(l.dtype).toBe('int64');
    expect(Array.from(l.toArray() as BigInt64Array)).toEqual([2n ** 40n, -3n]);
    [h, l].forEach((t) => t.dispose());
  });

  test('fromBuffer reads raw bytes as the dtype and shape given', () => {
    const t = torch.fromBuffer(new Float64Array([1, 2, 3, 4, 5, 6]), { dtype: 'float64', shape: [2, 3] });
    expect(t.tolist()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(errorOf(() => torch.fromBuffer(new Uint8Array(7), { dtype: 'int32' })).message).toBe(
      'fromBuffer: 7 bytes are not a whole number of int32 elements (4 bytes each)',
    );
    t.dispose();
  });

  test('default dtype', () => {
    expect(torch.getDefaultDtype()).toBe('float32');
    torch.setDefaultDtype('float64');
    try {
      const t = torch.randn([2]);
      expect(t.dtype).toBe('float64');
      expect(torch.tensor([0.5]).dtype).toBe('float64');
      expect(torch.arange(3).dtype).toBe('int64');
      expect(String(torch.tensor([0.5]))).toBe('tensor([0.5000])');
      t.dispose();
    } finally {
      torch.setDefaultDtype('float32');
    }
    expect(String(torch.tensor([0.5], { dtype: 'float64' }))).toBe('tensor([0.5000], dtype=torch.float64)');
    expect(errorOf(() => torch.setDefaultDtype('int32')).message).toBe('expected a floating-point dtype for setDefaultDtype, got int32');
  });

  test('resultType: numbers are weak, 0-dim tensors weaker than dimensioned ones', () => {
    const i = torch.zeros([2], { dtype: 'int32' });
    const h = torch.zeros([2], { dtype: 'float16' });
    const d0 = torch.tensor(1, { dtype: 'float64' });
    expect(torch.resultType(i, 2)).toBe('int32');
    expect(torch.resultType(i, 2.5)).toBe('float32');
    expect(torch.resultType(h, 2.5)).toBe('float16');
    expect(torch.resultType(h, d0)).toBe('float16');
    expect(torch.resultType(i, d0)).toBe('float64');
    expect(torch.resultType(i, true)).toBe('int32');
    [i, h, d0].forEach((t) => t.dispose());
  });
});

describe('random numbers', () => {
  test('manualSeed repeats the same numbers; uniform_ and normal_ fill views in place', () => {
    torch.manualSeed(7);
    const a = torch.rand([1000]);
    const n = torch.randn([1001]);
    torch.manualSeed(7);
    const b = torch.rand([1000]);
    const m = torch.randn([1001]);
    expect(a.tolist()).toEqual(b.tolist());
    expect(n.tolist()).toEqual(m.tolist());
    expect(torch.initialSeed()).toBe(7);
    const u = a.tolist() as number[];
    expect(Math.min(...u)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...u)).toBeLessThan(1);
    const mean = u.reduce((s, x) => s + x, 0) / u.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.05);
    const z = torch.zeros([4, 4]);
    z.slice(1, 0, 2).normal_(10, 0.1);
    const rows = z.tolist() as number[][];
    for (const r of rows) {
      expect(Math.abs(r[0] - 10)).toBeLessThan(1);
      expect(r[2]).toBe(0);
    }
    const ri = torch.randint(3, 6, [500]).tolist() as number[];
    expect(new Set(ri)).toEqual(new Set([3, 4, 5]));
    const p = torch.randperm(50).tolist() as number[];
    expect([...p].sort((x, y) => x - y)).toEqual([...Array(50).keys()]);
    expect(p).not.toEqual([...Array(50).keys()]);
    [a, b, n, m, z].forEach((t) => t.dispose());
  });

  test('uniform_ of an integer tensor is refused by the op list', () => {
    const t = torch.zeros([2], { dtype: 'int32' });
    expect(errorOf(() => t.uniform_()).message).toBe('uniform: dtype int32 is not supported (expected float)');
    t.dispose();
  });
});

describe('errors name the op, the shapes, dtypes and devices', () => {
  test('argument errors', () => {
    const a = torch.zeros([2, 3]);
    expect(errorOf(() => a.view(4, 2)).message).toBe('view: shape [4, 2] is invalid for input of size 6');
    expect(errorOf(() => a.transpose(0, 2)).message).toBe(
      'transpose: dimension 2 is out of range for a tensor of 2 dimensions (expected -2 to 1)',
    );
    expect(errorOf(() => a.select(1, 3)).message).toBe('select: index 3 is out of range for dimension 1 of size 3');
    expect(errorOf(() => a.add('x' as unknown as number)).message).toBe("add: expected a Tensor or a number for argument 2, got 'x'");
    expect(errorOf(() => a.add(torch.zeros([3, 2]))).message).toBe('add: shapes [2, 3] and [3, 2] cannot be broadcast');
    expect(errorOf(() => torch.tensor([[1, 2], [3]])).message).toBe('tensor: data is ragged: expected 2 elements at depth 1, got 1');
    expect(errorOf(() => torch.zeros([2], { dtype: 'float8' as torch.DType })).message).toMatch(/^expected a dtype \(float32, .*\) for dtype, got 'float8'$/);
    expect(errorOf(() => a.index(0, 0, 0)).message).toBe('index: too many indices (3) for a tensor of 2 dimensions');
    expect(errorOf(() => torch.arange(0, 5, 0)).message).toBe('arange: step must be nonzero');
    const e = errorOf(() => torch.randint(5, 2, [3]));
    expect(e.code).toBe('TSGPU_ARG');
    expect(e.message).toBe('randint: expected low < high, got low=5 and high=2');
    a.dispose();
  });

  test('options PyTorch has and tsgpu refuses say why: embedding sparse, scatter reductions', () => {
    const weight = torch.randn([5, 3]);
    const ids = torch.tensor([[0, 4], [2, 2]], { dtype: 'int64' });
    const e = errorOf(() => torch.embedding(ids, weight, { sparse: true }));
    expect(e.code).toBe('TSGPU_ARG');
    expect(e.message).toBe("embedding: sparse gradients are not supported (tsgpu has no sparse tensors); pass sparse: false (the default) for a dense gradient of weight's shape");
    expect(errorOf(() => torch.embedding(ids, weight, { scaleGradByFreq: 1 as unknown as boolean })).message).toBe('embedding: expected a boolean for scaleGradByFreq, got 1');
    const idx = torch.tensor([[1, 0, 1]], { dtype: 'int64' });
    expect(errorOf(() => weight.scatterReduce(0, idx, weight, 'sum', { includeSelf: 'no' as unknown as boolean })).message).toBe(
      "scatterReduce: expected a boolean for includeSelf, got 'no'");
    expect(errorOf(() => weight.scatterReduce(0, idx, 2 as unknown as torch.Tensor, 'sum')).message).toBe("scatterReduce: expected a Tensor for src, got 'number'");
    for (const t of [weight, ids, idx]) t.dispose();
  });

  test('a failed op leaves nothing allocated', async () => {
    // The allocator's counter, not the storage table: a result freed from the table but not from the allocator must show.
    await settleAllocator();
    const a = torch.zeros([2, 3]);
    const b = torch.zeros([4]);
    const before = torch.memory.allocated('cpu');
    expect(() => a.add(b)).toThrow(/cannot be broadcast/);
    const i = torch.zeros([2], { dtype: 'int64' });
    const mid = torch.memory.allocated('cpu');
    expect(() => i.normal_()).toThrow(/normal: dtype int64 is not supported/);
    expect(torch.memory.allocated('cpu')).toBe(mid);
    i.dispose();
    expect(torch.memory.allocated('cpu')).toBe(before);
    a.dispose();
    b.dispose();
  });

  test('the binding checks devices and counts even when called directly', () => {
    const a = torch.zeros([2]);
    const { runOp } = require('../../native/ops/dispatch');
    expect(errorOf(() => runOp('add', [a], [a])).message).toBe('add: expected 2 inputs and 1 outputs, got 1 and 1');
    expect(errorOf(() => runOp('add', [a], [1, a])).message).toBe('add: expected a tensor for self, got a number');
    expect(errorOf(() => runOp('fill', [a], [], {})).message).toBe('fill: expected a value for value, got nothing');
    expect(errorOf(() => runOp('fill', [a], [], { value: 'x' })).message).toBe("fill: expected a number for value, got 'x'");
    a.dispose();
  });
});
