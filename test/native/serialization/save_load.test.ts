/**
 * torch.save / torch.load without Python: nested objects come back the same
 * (every kind of value, tags JSON cannot write, keys that look like tags),
 * what the file holds for them (tensors under dotted paths, the structure in
 * the metadata), tensors that share memory and views, the checks of what
 * can be saved, the device option, and the memory a load takes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import * as vm from 'vm';
import * as torch from '../../../native/index';
import { collectGarbage, errorOf } from '../helpers';
import { rawBytes, tempDir } from './python';
import { settleAllocator } from '../own_memory';

let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  tmp = tempDir();
  await collectGarbage();
});
afterAll(() => tmp.remove());

const file = (name: string): string => path.join(tmp.dir, name);

/** Every tensor inside a value (arrays and plain objects walked). */
function tensorsIn(v: unknown, out: torch.Tensor[] = []): torch.Tensor[] {
  if (v instanceof torch.Tensor) out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => tensorsIn(x, out));
  else if (v !== null && typeof v === 'object') Object.values(v).forEach((x) => tensorsIn(x, out));
  return out;
}

/** The value with each tensor replaced by its dtype, shape and bytes, for toEqual. */
function described(v: unknown): unknown {
  if (v instanceof torch.Tensor) return { tensor: { dtype: v.dtype, shape: v.shape, bytes: rawBytes(v).toString('hex') } };
  if (Array.isArray(v)) return v.map(described);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: described((v as Record<string, unknown>)[k]), enumerable: true });
    return out;
  }
  return v;
}

describe('nested objects', () => {
  test("an optimizer's state dict comes back the same: tensors, numbers, booleans, null and arrays mixed", () => {
    const sd = {
      state: {
        0: { step: torch.tensor(3, { dtype: 'float32' }), exp_avg: torch.randn([2, 3]), exp_avg_sq: torch.rand([2, 3]) },
        1: { step: 3, momentum_buffer: torch.randn([3], { dtype: 'float64' }) },
      },
      param_groups: [
        { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weight_decay: 0.01, amsgrad: false, foreach: null, maximize: false, params: [0, 1] },
      ],
    };
    torch.save(sd, file('optim.safetensors'));
    const header = torch.safetensors.readHeader(file('optim.safetensors'));
    expect(Object.keys(header.tensors)).toEqual(['state.0.step', 'state.0.exp_avg', 'state.0.exp_avg_sq', 'state.1.momentum_buffer']);
    expect(header.tensors['state.0.exp_avg']).toEqual({ dtype: 'float32', shape: [2, 3], dataOffsets: [4, 28] });
    expect(header.metadata?.format).toBe('pt');
    expect(JSON.parse(header.metadata?.['tsgpu.structure'] ?? '')).toEqual({
      version: 1,
      root: {
        state: {
          0: { step: { $tensor: 'state.0.step' }, exp_avg: { $tensor: 'state.0.exp_avg' }, exp_avg_sq: { $tensor: 'state.0.exp_avg_sq' } },
          1: { step: 3, momentum_buffer: { $tensor: 'state.1.momentum_buffer' } },
        },
        param_groups: sd.param_groups,
      },
    });
    const back = torch.load(file('optim.safetensors'));
    try {
      expect(described(back)).toEqual(described(sd));
      expect(back.state[0].exp_avg).toBeInstanceOf(torch.Tensor);
    } finally {
      tensorsIn(sd).forEach((t) => t.dispose());
      tensorsIn(back).forEach((t) => t.dispose());
    }
  });

  test('values JSON cannot write come back as they were: NaN, ±Infinity, -0, bigint, undefined, and keys like the tags', () => {
    const obj = {
      numbers: [NaN, Infinity, -Infinity, -0, 0, 1.5, Number.MAX_SAFE_INTEGER],
      big: 2n ** 70n,
      nothing: undefined,
      holes: [undefined, null],
      text: 'a "quoted" ü',
      tagLike: { $tensor: 'not a tensor' },
      tagLike2: { $object: { $number: 'NaN' } },
      dollars: { $a: 1, $b: 2 },
      ['__proto__']: { polluted: true },
      deep: [[[{ t: torch.arange(4) }]]],
    };
    Object.defineProperty(obj, '__proto__', { value: { own: true }, enumerable: true });
    torch.save(obj, file('values.safetensors'));
    const back = torch.load(file('values.safetensors'));
    try {
      expect(Object.keys(back)).toEqual(Object.keys(obj));
      expect(Object.is(back.numbers[3], -0)).toBe(true);
      expect(back.numbers).toEqual(obj.numbers);
      expect(back.big).toBe(2n ** 70n);
      expect('nothing' in back).toBe(true);
      expect(back.nothing).toBeUndefined();
      expect(back.holes).toEqual([undefined, null]);
      expect(back.text).toBe(obj.text);
      expect(back.tagLike).toEqual({ $tensor: 'not a tensor' });
      expect(back.tagLike2).toEqual({ $object: { $number: 'NaN' } });
      expect(back.dollars).toEqual({ $a: 1, $b: 2 });
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(back, '__proto__')?.value).toEqual({ own: true });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.keys(torch.safetensors.readHeader(file('values.safetensors')).tensors)).toEqual(['deep.0.0.0.t']);
      expect(Array.from(back.deep[0][0][0].t.data())).toEqual([0n, 1n, 2n, 3n]);
    } finally {
      tensorsIn(obj).forEach((t) => t.dispose());
      tensorsIn(back).forEach((t) => t.dispose());
    }
  });

  test('a tensor, an array of tensors and a checkpoint object as the saved object', () => {
    const t = torch.randn([2, 2]);
    const list = [torch.ones([1]), torch.zeros([2])];
    const checkpoint = { epoch: 4, model: { 'fc.weight': t }, losses: [0.5, 0.25] };
    try {
      torch.save(t, file('one.safetensors'));
      const one = torch.load<torch.Tensor>(file('one.safetensors'));
      expect(one).toBeInstanceOf(torch.Tensor);
      expect(rawBytes(one)).toEqual(rawBytes(t));
      one.dispose();
      torch.save(list, file('list.safetensors'));
      expect(Object.keys(torch.safetensors.readHeader(file('list.safetensors')).tensors)).toEqual(['0', '1']);
      const l = torch.load<torch.Tensor[]>(file('list.safetensors'));
      expect(described(l)).toEqual(described(list));
      l.forEach((x) => x.dispose());
      torch.save(checkpoint, file('ckpt.safetensors'));
      expect(Object.keys(torch.safetensors.readHeader(file('ckpt.safetensors')).tensors)).toEqual(['model.fc.weight']);
      const c = torch.load(file('ckpt.safetensors'));
      expect(described(c)).toEqual(described(checkpoint));
      c.model['fc.weight'].dispose();
    } finally {
      t.dispose();
      list.forEach((x) => x.dispose());
    }
  });

  test('objects of another realm (a vm context) and without a prototype are plain objects too', () => {
    const t = torch.ones([2]);
    const foreign = vm.runInNewContext('({ hp: { lr: 0.1, betas: [0.9, 0.99] } })') as { hp: object; w?: torch.Tensor };
    expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
    foreign.w = t;
    const bare = Object.assign(Object.create(null), { n: 1 });
    try {
      torch.save({ foreign, bare }, file('realms.safetensors'));
      const back = torch.load(file('realms.safetensors'));
      expect(back.foreign.hp).toEqual({ lr: 0.1, betas: [0.9, 0.99] });
      expect(back.bare).toEqual({ n: 1 });
      expect(rawBytes(back.foreign.w)).toEqual(rawBytes(t));
      back.foreign.w.dispose();
    } finally {
      t.dispose();
    }
  });

  test('a flat record of tensors keeps exactly its keys and order, and loads back as tensors by name', () => {
    const sd: Record<string, torch.Tensor> = { 'b.weight': torch.ones([2]), 'a.weight': torch.zeros([3]), '0': torch.ones([1]) };
    try {
      torch.save(sd, file('flat.safetensors'));
      const h = torch.safetensors.readHeader(file('flat.safetensors'));
      expect(Object.keys(h.tensors)).toEqual(Object.keys(sd)); // JavaScript puts "0" first, as the record has it
      expect(h.metadata).toEqual({ format: 'pt' });
      const back = torch.load<Record<string, torch.Tensor>>(file('flat.safetensors'));
      expect(described(back)).toEqual(described(sd));
      Object.values(back).forEach((t) => t.dispose());
    } finally {
      Object.values(sd).forEach((t) => t.dispose());
    }
  });
});

describe('shared memory and views', () => {
  test('two keys of one tensor are saved in full and load as two tensors that no longer share memory', () => {
    const w = torch.randn([4, 3]);
    try {
      torch.save({ 'wte.weight': w, 'lm_head.weight': w }, file('tied.safetensors'));
      const h = torch.safetensors.readHeader(file('tied.safetensors'));
      expect(h.tensors['wte.weight'].dataOffsets).toEqual([0, 48]);
      expect(h.tensors['lm_head.weight'].dataOffsets).toEqual([48, 96]);
      const back = torch.load<Record<string, torch.Tensor>>(file('tied.safetensors'));
      expect(rawBytes(back['wte.weight'])).toEqual(rawBytes(w));
      expect(rawBytes(back['lm_head.weight'])).toEqual(rawBytes(w));
      expect(back['wte.weight'].untypedStorage()).not.toBe(back['lm_head.weight'].untypedStorage());
      back['wte.weight'].fill_(0);
      expect(rawBytes(back['lm_head.weight'])).toEqual(rawBytes(w));
      Object.values(back).forEach((t) => t.dispose());
    } finally {
      w.dispose();
    }
  });

  test('a view is saved as the values it shows, not its base: the file holds its elements only', () => {
    const base = torch.randn([100, 100]);
    const col = base.select(1, 7); // 100 elements, stride 100
    const block = base.narrow(0, 10, 2); // contiguous, at an offset
    try {
      torch.save({ col, block }, file('views.safetensors'));
      const h = torch.safetensors.readHeader(file('views.safetensors'));
      expect(h.tensors.col).toEqual({ dtype: 'float32', shape: [100], dataOffsets: [0, 400] });
      expect(h.tensors.block).toEqual({ dtype: 'float32', shape: [2, 100], dataOffsets: [400, 1200] });
      const headerBytes = fs.readFileSync(file('views.safetensors')).readBigUInt64LE(0);
      expect(fs.statSync(file('views.safetensors')).size).toBe(8 + Number(headerBytes) + 1200);
      const back = torch.load<Record<string, torch.Tensor>>(file('views.safetensors'));
      expect(rawBytes(back.col)).toEqual(rawBytes(col));
      expect(rawBytes(back.block)).toEqual(rawBytes(block));
      expect(back.col.isContiguous()).toBe(true);
      Object.values(back).forEach((t) => t.dispose());
    } finally {
      col.dispose();
      block.dispose();
      base.dispose();
    }
  });
});

describe('what cannot be saved', () => {
  const t = torch.ones([1]);
  afterAll(() => t.dispose());

  test.each([
    ['a Map', { a: t, b: new Map() }, /torch.save: cannot save a Map at obj.b: expected tensors, numbers, strings, booleans, null, arrays and plain objects/],
    ['a class instance', { a: t, opt: { when: new Date(0) } }, /cannot save a Date at obj.opt.when/],
    ['a function', { a: t, f: () => 1 }, /cannot save a function at obj.f/],
    ['a symbol', [t, Symbol('s')], /cannot save a symbol at obj\[1\]/],
    ['a typed array', { a: t, raw: new Float32Array(2) }, /cannot save a Float32Array at obj.raw/],
  ])('%s, named with where it is', (_name, obj, says) => {
    const err = errorOf(() => torch.save(obj, file('never.safetensors')));
    expect(err.code).toBe('TSGPU_ARG');
    expect(err.message).toMatch(says);
    expect(fs.existsSync(file('never.safetensors'))).toBe(false);
  });

  test('a cycle', () => {
    const obj: Record<string, unknown> = { a: t };
    obj.self = { back: obj };
    expect(errorOf(() => torch.save(obj, file('never.safetensors'))).message).toMatch(
      /torch.save: obj.self.back refers back to an object that contains it \(a cycle\)/,
    );
  });

  test('two tensors whose paths give one key', () => {
    expect(errorOf(() => torch.save({ 'a.b': t, a: { b: t }, n: 1 }, file('never.safetensors'))).message).toMatch(
      /two tensors would be saved under the key "a.b": obj\["a.b"\] and obj.a.b/,
    );
  });

  test('a disposed tensor, __metadata__ as a name, a bad path, bad metadata: nothing is written', () => {
    const gone = torch.ones([2]);
    gone.dispose();
    expect(errorOf(() => torch.save({ w: gone }, file('never.safetensors'))).message).toMatch(
      /torch.save: the tensor under "w" was disposed: it can no longer be saved/,
    );
    expect(errorOf(() => torch.save({ __metadata__: t }, file('never.safetensors'))).message).toMatch(
      /__metadata__ is the format's own key and cannot name a tensor/,
    );
    expect(errorOf(() => torch.save({ a: t }, 42 as unknown as string)).message).toBe(
      'torch.save: expected a file path (a non-empty string) for f, got number',
    );
    expect(errorOf(() => torch.safetensors.saveFile({ a: t }, file('never.safetensors'), { n: 1 } as unknown as Record<string, string>)).message).toBe(
      'safetensors.saveFile: expected a string for metadata["n"], got number',
    );
    expect(errorOf(() => torch.safetensors.saveFile([t] as unknown as Record<string, torch.Tensor>, file('never.safetensors'))).message).toBe(
      'safetensors.saveFile: expected an object of tensors by name for tensors, got an array',
    );
    expect(fs.existsSync(file('never.safetensors'))).toBe(false);
  });

  test('saving over a file keeps its mode, and writes through a symbolic link to it', () => {
    torch.save({ a: t }, file('target.safetensors'));
    fs.chmodSync(file('target.safetensors'), 0o640);
    fs.symlinkSync(file('target.safetensors'), file('link.safetensors'));
    const two = torch.full([3], 2);
    try {
      torch.save({ two }, file('link.safetensors'));
      expect(fs.lstatSync(file('link.safetensors')).isSymbolicLink()).toBe(true);
      expect(fs.statSync(file('target.safetensors')).mode & 0o777).toBe(0o640);
      expect(Object.keys(torch.safetensors.readHeader(file('target.safetensors')).tensors)).toEqual(['two']);
    } finally {
      two.dispose();
    }
  });

  test('a save that fails leaves the earlier file as it was, and no temporary file', () => {
    torch.save({ a: t }, file('keep.safetensors'));
    const before = fs.readFileSync(file('keep.safetensors'));
    const gone = torch.ones([2]);
    gone.dispose();
    expect(() => torch.save({ a: t, b: gone }, file('keep.safetensors'))).toThrow(/disposed/);
    expect(() => torch.save({ a: t }, path.join(tmp.dir, 'no-such-dir', 'x.safetensors'))).toThrow(/cannot write .*no-such-dir.*ENOENT/);
    expect(fs.readFileSync(file('keep.safetensors'))).toEqual(before);
    expect(fs.readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('loading', () => {
  test('options: device and mapLocation, a file URL, and bad options named', () => {
    const a = torch.arange(5, { dtype: 'int32' });
    try {
      torch.save({ a }, file('opts.safetensors'));
      for (const opts of [undefined, {}, { device: 'cpu' }, { mapLocation: 'cpu' }]) {
        const back = torch.load<Record<string, torch.Tensor>>(file('opts.safetensors'), opts);
        expect(back.a.device).toBe('cpu');
        expect(rawBytes(back.a)).toEqual(rawBytes(a));
        back.a.dispose();
      }
      const viaUrl = torch.load<Record<string, torch.Tensor>>(pathToFileURL(file('opts.safetensors')));
      expect(rawBytes(viaUrl.a)).toEqual(rawBytes(a));
      viaUrl.a.dispose();
      expect(errorOf(() => torch.load(file('opts.safetensors'), 'cuda' as never)).message).toBe(
        "torch.load: expected an options object such as { device: 'cuda' } for options, got string",
      );
      expect(errorOf(() => torch.load(file('opts.safetensors'), { device: 'tpu' })).code).toBe('TSGPU_ARG');
      if (!torch.cuda.isAvailable()) {
        // The device is checked before the file is opened: a missing file still says why CUDA cannot be used.
        const err = errorOf(() => torch.load(file('missing.safetensors'), { device: 'cuda' }));
        expect(err.code).not.toBe('ENOENT');
        expect(err.message).toMatch(/cuda/i);
      }
    } finally {
      a.dispose();
    }
  });

  test('an interrupt stops a load (freeing what it loaded) and a save (keeping the earlier file)', async () => {
    await settleAllocator(); // the allocator's counters are read: no garbage of other tests may be freed meanwhile
    const sd = { a: torch.randn([1000]), b: torch.randn([1000]) };
    torch.save(sd, file('interrupt.safetensors'));
    const before = fs.readFileSync(file('interrupt.safetensors'));
    const flag = new Int32Array(1);
    torch.setInterruptFlag(flag);
    try {
      Atomics.store(flag, 0, 1);
      const allocated0 = torch.memory.allocated('cpu');
      const err = errorOf(() => torch.load(file('interrupt.safetensors')));
      expect(err.code).toBe('TSGPU_INTERRUPTED');
      expect(err.message).toBe(`reading ${JSON.stringify(file('interrupt.safetensors'))}: interrupted`);
      expect(torch.memory.allocated('cpu')).toBe(allocated0);
      const err2 = errorOf(() => torch.save({ c: sd.b, d: sd.a }, file('interrupt.safetensors')));
      expect(err2.code).toBe('TSGPU_INTERRUPTED');
      expect(fs.readFileSync(file('interrupt.safetensors'))).toEqual(before);
      expect(fs.readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      Atomics.store(flag, 0, 0);
      const back = torch.load<Record<string, torch.Tensor>>(file('interrupt.safetensors'));
      expect(rawBytes(back.a)).toEqual(rawBytes(sd.a));
      Object.values(back).forEach((t) => t.dispose());
    } finally {
      torch.setInterruptFlag(null);
      Object.values(sd).forEach((t) => t.dispose());
    }
  });

  test('a load allocates exactly its tensors, once each, and inside torch.tidy the returned tensors survive', async () => {
    await settleAllocator(); // the allocator's counters are read: no garbage of other tests may be freed meanwhile
    const sd = { w: torch.randn([300, 300]), b: torch.randn([300]), n: torch.tensor(7) };
    torch.save(sd, file('mem.safetensors'));
    Object.values(sd).forEach((t) => t.dispose());
    const count = () => torch.memory.stats('cpu')['allocation.all.allocated'];
    const allocated0 = torch.memory.allocated('cpu');
    const count0 = count();
    const back = torch.tidy(() => torch.load<Record<string, torch.Tensor>>(file('mem.safetensors')));
    expect(count() - count0).toBe(3);
    // The caching allocator rounds each to 512 bytes.
    const rounded = (n: number) => Math.ceil(n / 512) * 512;
    expect(torch.memory.allocated('cpu') - allocated0).toBe(rounded(300 * 300 * 4) + rounded(300 * 4) + rounded(8));
    expect(Object.values(back).every((t) => !t.isDisposed)).toBe(true);
    Object.values(back).forEach((t) => t.dispose());
    expect(torch.memory.allocated('cpu')).toBe(allocated0);
  });
});
