/**
 * Files that are not valid safetensors: each gives one error (code
 * TSGPU_SAFETENSORS) naming the file and what is wrong, from torch.load,
 * safetensors.loadFile and readHeader alike, and allocates nothing — the
 * allocator's count of allocations and the bytes allocated are the same
 * after as before. Python's safetensors refuses each of these files too
 * (checked with load_file), so the rules are the format's, not ours. A load
 * that fails part way (out of memory on the second tensor) frees the first.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../../../native/index';
import { collectGarbage, errorOf, MiB, runChild } from '../helpers';
import { PYTHON } from '../torch_reference';
import { requirePythonPackages, tempDir } from './python';
import { settleAllocator } from '../own_memory';

let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  tmp = tempDir();
  await collectGarbage();
});
afterAll(() => tmp.remove());

/** A file of an 8-byte length (the header's, unless `length` says otherwise), the header and the data. */
function writeRaw(name: string, header: string | Buffer | object, data: Buffer = Buffer.alloc(0), length?: bigint): string {
  const h = Buffer.isBuffer(header) ? header : Buffer.from(typeof header === 'string' ? header : JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(length ?? BigInt(h.length));
  const file = path.join(tmp.dir, name);
  fs.writeFileSync(file, Buffer.concat([len, h, data]));
  return file;
}

const f32 = (shape: number[], begin: number, end: number) => ({ dtype: 'F32', shape, data_offsets: [begin, end] });

/** A valid file saved by torch.save: two float32 tensors of 12 and 8 bytes. */
function validFile(name: string): string {
  const file = path.join(tmp.dir, name);
  const a = torch.arange(3, { dtype: 'float32' });
  const b = torch.ones([2]);
  torch.save({ a, b }, file);
  a.dispose();
  b.dispose();
  return file;
}

interface Case {
  name: string;
  make: () => string;
  /** What the message must say. */
  says: RegExp;
  /** A limit of tsgpu's, not of the format (Python's safetensors reads such a file). */
  tsgpuOnly?: boolean;
}

const cases: Case[] = [
  { name: 'an empty file', make: () => (fs.writeFileSync(path.join(tmp.dir, 'empty'), ''), path.join(tmp.dir, 'empty')), says: /the file has 0 bytes, fewer than the 8/ },
  { name: 'a file of 5 bytes', make: () => (fs.writeFileSync(path.join(tmp.dir, 'five'), 'abcde'), path.join(tmp.dir, 'five')), says: /the file has 5 bytes/ },
  { name: 'a header length beyond the file', make: () => writeRaw('beyond', '{}', Buffer.alloc(0), 4096n), says: /header's length is 4096 bytes, but the file has only 2 after/ },
  { name: 'an oversized header length (2^40)', make: () => writeRaw('huge', '{}', Buffer.alloc(0), 2n ** 40n), says: /header's length is 1099511627776 bytes, more than the format's limit of 100000000/ },
  { name: 'a header length of 2^64 - 1', make: () => writeRaw('max', '{}', Buffer.alloc(0), 2n ** 64n - 1n), says: /more than the format's limit/ },
  { name: 'a header too short for an object', make: () => writeRaw('short', '{', Buffer.alloc(0)), says: /header's length is 1 byte, too short/ },
  {
    name: 'a file truncated in its data',
    make: () => {
      const file = validFile('trunc_data.safetensors');
      fs.truncateSync(file, fs.statSync(file).size - 4);
      return file;
    },
    says: /the tensors need 20 bytes of data, but the file has only 16 after the header \(truncated\?\)/,
  },
  {
    name: 'a file truncated in its header',
    make: () => {
      const file = validFile('trunc_header.safetensors');
      fs.truncateSync(file, 30);
      return file;
    },
    says: /but the file has only 22 after the 8-byte length \(truncated\?\)/,
  },
  { name: 'a header that is not JSON', make: () => writeRaw('badjson', '{"a": {"dtype": "F32",'), says: /the header is not valid JSON/ },
  { name: 'a header that is not UTF-8', make: () => writeRaw('badutf8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), says: /the header is not valid UTF-8/ },
  { name: 'a header that is a JSON array', make: () => writeRaw('array', '[1, 2]'), says: /the header is an array, not a JSON object/ },
  { name: 'a header padded with NUL bytes', make: () => writeRaw('nul', Buffer.from('{}\0\0\0\0\0\0')), says: /the header is not valid JSON/ },
  { name: 'a tensor entry that is not an object', make: () => writeRaw('entry', { a: [1, 2] }), says: /tensor "a" is described by an array, not an object/ },
  { name: 'offsets outside the data', make: () => writeRaw('outside', { a: f32([2], 0, 8) }, Buffer.alloc(4)), says: /the tensors need 8 bytes of data, but the file has only 4/ },
  {
    name: 'overlapping offsets',
    make: () => writeRaw('overlap', { a: f32([2], 0, 8), b: f32([2], 4, 12) }, Buffer.alloc(12)),
    says: /tensor "b" \(bytes 4 to 12\) overlaps the tensor before it, which ends at byte 8/,
  },
  { name: 'two tensors on the same bytes', make: () => writeRaw('same', { a: f32([1], 0, 4), b: f32([1], 0, 4) }, Buffer.alloc(4)), says: /tensor "b" \(bytes 0 to 4\) overlaps/ },
  {
    name: 'a gap between tensors',
    make: () => writeRaw('gap', { a: f32([1], 0, 4), b: f32([1], 8, 12) }, Buffer.alloc(12)),
    says: /bytes 4 to 8 of the data belong to no tensor \(a gap before tensor "b"/,
  },
  { name: 'a gap at the start', make: () => writeRaw('gap0', { a: f32([1], 4, 8) }, Buffer.alloc(8)), says: /bytes 0 to 4 of the data belong to no tensor/ },
  {
    name: 'a key given twice',
    make: () => writeRaw('twice', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', Buffer.alloc(8)),
    says: /bytes 0 to 4 of the data belong to no tensor \(a gap before tensor "a", or a key given twice\)/,
  },
  { name: 'bytes after the last tensor', make: () => writeRaw('trailing', { a: f32([1], 0, 4) }, Buffer.alloc(8)), says: /the file has 4 bytes after the last tensor's data \(byte 4 of 8\)/ },
  { name: 'an unknown dtype', make: () => writeRaw('dtype', { a: { dtype: 'F31', shape: [1], data_offsets: [0, 4] } }, Buffer.alloc(4)), says: /tensor "a" has the unknown dtype "F31" \(expected one of F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL\)/ },
  { name: 'a dtype tsgpu does not have', make: () => writeRaw('u16', { a: { dtype: 'U16', shape: [2], data_offsets: [0, 4] } }, Buffer.alloc(4)), says: /tensor "a" has dtype U16, which tsgpu has no dtype for/, tsgpuOnly: true },
  { name: 'a missing dtype', make: () => writeRaw('nodtype', { a: { shape: [1], data_offsets: [0, 4] } }, Buffer.alloc(4)), says: /tensor "a" has no dtype name/ },
  {
    name: 'shape × itemsize different from the byte length',
    make: () => writeRaw('size', { a: f32([2, 3], 0, 20) }, Buffer.alloc(20)),
    says: /tensor "a" of shape \[2, 3\] and dtype F32 needs 24 bytes, but its data_offsets \[0, 20\] hold 20/,
  },
  { name: 'a negative dimension', make: () => writeRaw('neg', { a: f32([-1], 0, 4) }, Buffer.alloc(4)), says: /tensor "a" has the shape \[-1\], not an array of non-negative integers/ },
  { name: 'a fractional dimension', make: () => writeRaw('frac', { a: f32([1.5], 0, 4) }, Buffer.alloc(4)), says: /has the shape \[1.5\]/ },
  { name: 'a shape that is not an array', make: () => writeRaw('shapeobj', { a: { dtype: 'F32', shape: 4, data_offsets: [0, 4] } }, Buffer.alloc(4)), says: /has the shape 4/ },
  { name: 'too many dimensions', make: () => writeRaw('dims', { a: f32(new Array(17).fill(1), 0, 4) }, Buffer.alloc(4)), says: /tensor "a" has 17 dimensions; tsgpu tensors have at most 16/, tsgpuOnly: true },
  { name: 'an element count past 2^53 bytes', make: () => writeRaw('numel', { a: f32([2 ** 30, 2 ** 30, 2 ** 30], 0, 4) }, Buffer.alloc(4)), says: /of shape \[1073741824, 1073741824, 1073741824\] and dtype F32 needs more than 2\^53 bytes, but its data_offsets \[0, 4\] hold 4/ },
  { name: 'data_offsets of three numbers', make: () => writeRaw('offs3', { a: { dtype: 'F32', shape: [1], data_offsets: [0, 4, 8] } }, Buffer.alloc(4)), says: /has the data_offsets \[0,4,8\], not two non-negative integers/ },
  { name: 'an end before the beginning', make: () => writeRaw('backwards', { a: f32([0], 4, 0) }, Buffer.alloc(4)), says: /tensor "a" ends \(byte 0\) before it begins \(byte 4\)/ },
  { name: 'metadata that is not strings', make: () => writeRaw('meta', { __metadata__: { format: 1 }, a: f32([1], 0, 4) }, Buffer.alloc(4)), says: /__metadata__ holds a number under "format"; its values must be strings/ },
  { name: 'metadata that is not an object', make: () => writeRaw('meta2', { __metadata__: 'pt' }), says: /__metadata__ is a string, not an object of strings/ },
];

/** Allocations made and bytes held on the cpu (the allocator's own counters). */
function cpuCounters(): { allocations: number; allocated: number } {
  return { allocations: torch.memory.stats('cpu')['allocation.all.allocated'], allocated: torch.memory.allocated('cpu') };
}

describe('a corrupt file gives one error that names it and what is wrong, and allocates nothing', () => {
  for (const c of cases) {
    test(c.name, async () => {
      await settleAllocator(); // the allocator's counters are read: no garbage of other tests may be freed meanwhile
      const file = c.make();
      const before = cpuCounters();
      for (const load of [() => torch.load(file), () => torch.safetensors.loadFile(file), () => torch.safetensors.readHeader(file)]) {
        const err = errorOf(load) as Error & { code?: string; path?: string };
        expect(err.code).toBe('TSGPU_SAFETENSORS');
        expect(err.path).toBe(file);
        expect(err.message).toContain(`${JSON.stringify(file)} is not a valid safetensors file: `);
        expect(err.message).toMatch(c.says);
      }
      expect(cpuCounters()).toEqual(before);
    });
  }

  test("Python's safetensors refuses every one of these files too", () => {
    requirePythonPackages();
    const files = cases.filter((c) => !c.tsgpuOnly).map((c) => c.make());
    const script = [
      'import json, sys',
      'from safetensors.torch import load_file',
      'out = {}',
      'for f in json.load(sys.stdin):',
      '    try:',
      '        load_file(f); out[f] = "loaded"',
      '    except Exception as e:',
      '        out[f] = type(e).__name__',
      'print(json.dumps(out))',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], { input: JSON.stringify(files), encoding: 'utf8', timeout: 120000 });
    expect(r.stderr).toBe('');
    const verdicts = JSON.parse(r.stdout) as Record<string, string>;
    for (const f of files) expect([f, verdicts[f]]).toEqual([f, expect.not.stringMatching(/^loaded$/)]);
  }, 180000);

  test('a missing file is Node\'s ENOENT error, naming the file', () => {
    const file = path.join(tmp.dir, 'nowhere.safetensors');
    const err = errorOf(() => torch.load(file));
    expect(err.code).toBe('ENOENT');
    expect(err.message).toContain(file);
  });

  test('the structure torch.save keeps in the metadata is checked before anything is allocated', () => {
    const meta = (structure: string) => ({ __metadata__: { format: 'pt', 'tsgpu.structure': structure }, a: f32([1], 0, 4) });
    const bad: [string, RegExp][] = [
      [writeRaw('s_json', meta('{nope'), Buffer.alloc(4)), /its tsgpu.structure metadata is not valid JSON/],
      [writeRaw('s_version', meta('{"version":9,"root":{}}'), Buffer.alloc(4)), /is not a structure of version 1 written by torch.save/],
      [writeRaw('s_missing', meta('{"version":1,"root":{"x":{"$tensor":"b"}}}'), Buffer.alloc(4)), /refers at obj.x to the tensor "b", which the file does not have/],
      [writeRaw('s_unused', meta('{"version":1,"root":{"n":1}}'), Buffer.alloc(4)), /tensor "a" is in the file but not in its tsgpu.structure metadata/],
      [writeRaw('s_tag', meta('{"version":1,"root":{"x":{"$tensor":"a"},"y":[{"$number":"7"}]}}'), Buffer.alloc(4)), /refers at obj.y\[0\] to \{"\$number":"7"\}, which is not a value torch.save writes/],
    ];
    for (const [file, says] of bad) {
      const before = cpuCounters();
      const err = errorOf(() => torch.load(file));
      expect(err.code).toBe('TSGPU_SAFETENSORS');
      expect(err.message).toContain(JSON.stringify(file));
      expect(err.message).toMatch(says);
      expect(cpuCounters()).toEqual(before);
    }
  });
});

describe('a load that fails part way frees what it loaded', () => {
  test('out of memory on the second tensor: the error names the file, and the first tensor is freed', () => {
    const file = path.join(tmp.dir, 'two_big.safetensors');
    const a = torch.zeros([10 * MiB]); // 40 MiB each
    const b = torch.ones([10 * MiB]);
    torch.save({ a, b }, file);
    a.dispose();
    b.dispose();
    const { status, result, stderr } = runChild(
      `
      const before = torch.memory.allocated('cpu');
      let err;
      try { torch.load(${JSON.stringify(file)}); } catch (e) { err = e; }
      const s = torch.memory.stats('cpu');
      console.log(JSON.stringify({ code: err && err.code, message: err && err.message, before,
        after: torch.memory.allocated('cpu'), allocations: s['allocation.all.allocated'], freed: s['allocation.all.freed'] }));
    `,
      { env: { TSGPU_CPU_MEMORY_LIMIT: '64MiB' } },
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result.code).toBe('TSGPU_OOM');
    expect(result.message).toContain(`cannot load ${JSON.stringify(file)}: `);
    expect(result.message).toContain('Tried to allocate 40.00 MiB');
    expect(result.allocations).toBe(1); // the first tensor, and only it
    expect(result.freed).toBe(1);
    expect(result.after).toBe(result.before);
  });
});
