/**
 * The `torch.memory` API on the cpu device: PyTorch's numbers, lifetime
 * (dispose, using, tidy, garbage collection) and out-of-memory recovery.
 */
import * as torch from '../../native/index';
import { GiB, MiB, runChild } from './helpers';
import { ownStorages, settleAllocator } from './own_memory';

const STAT_GROUPS = [
  'allocation',
  'segment',
  'active',
  'inactive_split',
  'allocated_bytes',
  'reserved_bytes',
  'active_bytes',
  'inactive_split_bytes',
  'requested_bytes',
];

describe('allocator numbers match PyTorch', () => {
  test('randn([1000, 1000]) rounds to 512 and reserves one 20 MiB large segment', () => {
    const { status, result, stderr } = runChild(`
      const x = torch.randn([1000, 1000]);
      const s = torch.memory.stats('cpu');
      console.log(JSON.stringify({ allocated: torch.memory.allocated('cpu'), reserved: torch.memory.reserved('cpu'),
        requested: s['requested_bytes.all.current'], large: s['segment.large_pool.current'],
        small: s['segment.small_pool.current'], inactive: s['inactive_split_bytes.all.current'] }));
    `);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result).toEqual({
      allocated: 4000256,
      reserved: 20 * MiB,
      requested: 4000000,
      large: 1,
      small: 0,
      inactive: 20 * MiB - 4000256,
    });
  });

  test('small requests use 2 MiB segments; 10 MiB and more are rounded to 2 MiB', () => {
    const { result } = runChild(`
      const a = torch.empty([1]);            // 4 bytes -> 512, small pool
      const b = torch.empty([256 * 1024]);   // 1 MiB exactly -> small pool
      const c = torch.empty([3 * 1024 * 1024]); // 12 MiB -> large segment of 12 MiB
      const s = torch.memory.stats('cpu');
      console.log(JSON.stringify({ a: s['allocated_bytes.small_pool.current'], seg: s['segment.small_pool.current'],
        smallReserved: s['reserved_bytes.small_pool.current'], largeReserved: s['reserved_bytes.large_pool.current'] }));
    `);
    // 512 + 1 MiB in the small pool: two 2 MiB segments (1 MiB + 512 does not fit one with the rest in use? it does).
    expect(result.a).toBe(512 + MiB);
    expect(result.smallReserved).toBe(result.seg * 2 * MiB);
    expect(result.largeReserved).toBe(12 * MiB);
  });
});

describe('allocate and dispose', () => {
  test('allocated, peak and reserved follow dispose', async () => {
    await settleAllocator(); // the process-wide counters are the subject: nothing of other tests may be freed meanwhile
    torch.memory.emptyCache('cpu');
    const before = torch.memory.allocated('cpu');
    torch.memory.resetPeakStats('cpu');
    const x = torch.zeros([256, 1024]); // exactly 1 MiB: small pool
    expect(torch.memory.allocated('cpu') - before).toBe(MiB);
    expect(torch.memory.reserved('cpu')).toBeGreaterThanOrEqual(torch.memory.allocated('cpu'));
    x.dispose();
    expect(x.isDisposed).toBe(true);
    expect(torch.memory.allocated('cpu')).toBe(before);
    expect(torch.memory.maxAllocated('cpu') - before).toBeGreaterThanOrEqual(MiB);
    expect(torch.memory.maxReserved('cpu')).toBeGreaterThanOrEqual(torch.memory.reserved('cpu'));
    x.dispose(); // twice is fine
  });

  test('a freed block is reused from the cache without a new device allocation', () => {
    const a = torch.empty([3 * 1024 * 1024]);
    a.dispose();
    const n = torch.memory.stats('cpu')['num_device_alloc'];
    const b = torch.empty([3 * 1024 * 1024]);
    expect(torch.memory.stats('cpu')['num_device_alloc']).toBe(n);
    b.dispose();
  });

  test('emptyCache releases free segments and explains what it keeps', () => {
    torch.memory.emptyCache('cpu');
    const keep = torch.empty([1000]);
    const drop = torch.empty([5 * 1024 * 1024]);
    drop.dispose();
    const r = torch.memory.emptyCache('cpu');
    expect(r.releasedSegments).toBeGreaterThanOrEqual(1);
    expect(r.releasedBytes).toBeGreaterThanOrEqual(20 * MiB);
    expect(r.keptSegments).toBeGreaterThanOrEqual(1);
    expect(r.keptBytes).toBe(torch.memory.reserved('cpu'));
    expect(r.reason).toMatch(/live tensors/);
    keep.dispose();
  });

  test('stats has every PyTorch key', () => {
    const s = torch.memory.stats('cpu');
    const expected: string[] = [];
    for (const g of STAT_GROUPS)
      for (const p of ['all', 'small_pool', 'large_pool'])
        for (const m of ['current', 'peak', 'allocated', 'freed']) expected.push(`${g}.${p}.${m}`);
    for (const k of ['num_alloc_retries', 'num_ooms', 'num_sync_all_streams', 'num_device_alloc', 'num_device_free', 'max_split_size'])
      expected.push(k);
    for (const g of ['oversize_allocations', 'oversize_segments'])
      for (const m of ['current', 'peak', 'allocated', 'freed']) expected.push(`${g}.${m}`);
    expect(Object.keys(s).sort()).toEqual(expected.sort());
    for (const v of Object.values(s)) expect(Number.isInteger(v)).toBe(true);
  });

  test('memGetInfo, devices and liveTensors', () => {
    const [free, total] = torch.memory.memGetInfo('cpu');
    expect(total).toBeGreaterThan(0);
    expect(free).toBeLessThanOrEqual(total);
    expect(torch.memory.devices()).toContain('cpu');
    const t = torch.ones([3, 4]);
    const live = torch.memory.liveTensors('cpu').find((x) => x.id === t.id);
    expect(live).toEqual({ id: t.id, shape: [3, 4], dtype: 'float32', device: 'cpu', nbytes: 48 });
    t.dispose();
    expect(torch.memory.liveTensors().find((x) => x.id === t.id)).toBeUndefined();
  });
});

describe('tensor lifetime', () => {
  test('a disposed tensor throws TSGPU_DISPOSED naming its shape and device', () => {
    const t = torch.randn([2, 3]);
    t.dispose();
    let err: any;
    try {
      t.add(1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('TSGPU_DISPOSED');
    expect(err.message).toBe('Tensor was disposed (shape [2, 3], device cpu): it can no longer be used');
    expect(() => t.toArray()).toThrow(/disposed/);
  });

  test('tidy frees everything but the result', () => {
    const own = ownStorages();
    const out = torch.tidy(() => {
      const a = torch.ones([1000]);
      const b = a.mul(2);
      return { b, list: [b.add(1)] };
    });
    expect(out.b.toArray()[0]).toBe(2);
    expect(out.list[0].item === undefined).toBe(false);
    expect(own.bytes()).toBe(2 * 1000 * 4); // b and b + 1; a was freed by tidy
    out.b.dispose();
    out.list[0].dispose();
    expect(own.count()).toBe(0);
  });

  test('nested tidy hands returned tensors to the outer scope', () => {
    const own = ownStorages();
    torch.tidy(() => {
      const inner = torch.tidy(() => torch.ones([10]));
      expect(inner.isDisposed).toBe(false);
      expect(own.count()).toBe(1);
      return undefined;
    });
    expect(own.count()).toBe(0);
  });

  test('tidy frees its tensors when fn throws', () => {
    const own = ownStorages();
    expect(() =>
      torch.tidy(() => {
        torch.ones([100]);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(own.count()).toBe(0);
  });

  test('using disposes at the end of the block', () => {
    const own = ownStorages();
    let t: torch.Tensor | undefined;
    {
      using x = torch.zeros([10]);
      t = x;
      expect(own.bytes()).toBe(40);
    }
    expect(t!.isDisposed).toBe(true);
    expect(own.count()).toBe(0);
  });

  test('collectGarbage frees tensors that nothing references', () => {
    const { result } = runChild(
      `
      for (let i = 0; i < 10; i++) torch.empty([1024 * 1024]);
      const before = torch.memory.liveTensors('cpu').length;
      const r = torch.memory.collectGarbage();
      console.log(JSON.stringify({ before, r, after: torch.memory.liveTensors('cpu').length, alloc: torch.memory.allocated('cpu') }));
    `,
      { nodeArgs: ['--expose-gc'] },
    );
    expect(result.r.collected).toBe(true);
    expect(result.after).toBe(0);
    expect(result.alloc).toBe(0);
  });
});

describe('out of memory', () => {
  test('OutOfMemoryError with PyTorch-like numbers under TSGPU_CPU_MEMORY_LIMIT; state survives', () => {
    const { status, result, stderr } = runChild(
      `
      const keep = torch.empty([256 * 1024 * 1024]); // 1 GiB
      let err;
      try { torch.empty([384 * 1024 * 1024]); } catch (e) { err = e; }
      const s = torch.memory.stats('cpu');
      const after = torch.empty([1024]);
      console.log(JSON.stringify({ name: err.name, code: err.code, isOom: err instanceof torch.OutOfMemoryError,
        message: err.message, requested: err.requested, ooms: s.num_ooms, retries: s.num_alloc_retries,
        keepAlive: !keep.isDisposed, after: after.numel }));
    `,
      { env: { TSGPU_CPU_MEMORY_LIMIT: '2GiB' } },
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result.name).toBe('OutOfMemoryError');
    expect(result.code).toBe('TSGPU_OOM');
    expect(result.isOom).toBe(true);
    expect(result.requested).toBe(1.5 * GiB);
    expect(result.message).toContain('Tried to allocate 1.50 GiB.');
    expect(result.message).toContain('Device cpu has a total capacity of 2.00 GiB of which 1024.00 MiB is free.');
    expect(result.message).toContain('Of the allocated memory 1024.00 MiB is allocated by tensors and 0 bytes is reserved but unallocated.');
    expect(result.message).toMatch(/%empty_cache, %reset, or dispose\(\)/);
    expect(result.ooms).toBe(1);
    expect(result.retries).toBeGreaterThanOrEqual(1);
    expect(result.keepAlive).toBe(true);
    expect(result.after).toBe(1024);
  });

  test('cached whole segments are released and the allocation retried before giving up', () => {
    const { result } = runChild(
      `
      const a = torch.empty([400 * 1024 * 1024]); a.dispose(); // 1600 MiB cached, unsplit
      const c = torch.empty([450 * 1024 * 1024]);              // 1800 MiB: fits only after a flush
      const s = torch.memory.stats('cpu');
      console.log(JSON.stringify({ retries: s.num_alloc_retries, frees: s.num_device_free, ooms: s.num_ooms,
        reserved: torch.memory.reserved('cpu') }));
    `,
      { env: { TSGPU_CPU_MEMORY_LIMIT: '2GiB' } },
    );
    expect(result).toEqual({ retries: 1, frees: 1, ooms: 0, reserved: 1800 * MiB });
  });

  test('a split cached segment cannot be flushed: OOM names the reserved-but-unallocated bytes', () => {
    const { result } = runChild(
      `
      const a = torch.empty([400 * 1024 * 1024]); a.dispose(); // 1600 MiB cached
      const b = torch.empty([256 * 1024 * 1024]);              // 1 GiB carved from it
      let msg = ''; try { torch.empty([300 * 1024 * 1024]); } catch (e) { msg = e.message; }
      console.log(JSON.stringify(msg));
    `,
      { env: { TSGPU_CPU_MEMORY_LIMIT: '2GiB' } },
    );
    expect(result).toContain('Tried to allocate 1.17 GiB.');
    expect(result).toContain('576.00 MiB is reserved but unallocated');
  });

  test('1000 iterations dropping two 256 MiB tensors finish under a 2 GiB limit', () => {
    const { status, result, stderr } = runChild(
      `
      const t0 = Date.now();
      for (let i = 0; i < 1000; i++) {
        const a = torch.empty([64 * 1024 * 1024]);
        const b = torch.empty([64 * 1024 * 1024]);
      }
      const s = torch.memory.stats('cpu');
      console.log(JSON.stringify({ ms: Date.now() - t0, ooms: s.num_ooms, peak: s['reserved_bytes.all.peak'] }));
    `,
      // A limit against a hang only: each iteration collects garbage, which a loaded 2-core machine slows tenfold.
      { env: { TSGPU_CPU_MEMORY_LIMIT: '2GiB' }, nodeArgs: ['--expose-gc'], timeoutMs: 300000 },
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result.ooms).toBe(0);
    expect(result.peak).toBeLessThanOrEqual(2 * GiB);
  }, 310000);

  test('setMemoryFraction caps reserved memory on cpu and the OOM message says so', () => {
    const { status, result, stderr } = runChild(
      `
      torch.memory.setMemoryFraction(0.25, 'cpu');             // 512 MiB of the 2 GiB limit
      const a = torch.empty([96 * 1024 * 1024]);                // 384 MiB fits
      let msg = ''; try { torch.empty([64 * 1024 * 1024]); } catch (e) { msg = e.message; } // +256 MiB does not
      a.dispose();
      const b = torch.empty([120 * 1024 * 1024]);               // 480 MiB fits once the cache is flushed
      console.log(JSON.stringify({ msg, peak: torch.memory.maxReserved('cpu'), b: b.numel }));
    `,
      { env: { TSGPU_CPU_MEMORY_LIMIT: '2GiB' } },
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result.msg).toContain('Tried to allocate 256.00 MiB.');
    expect(result.msg).toContain('per-process memory fraction 0.25');
    expect(result.peak).toBeLessThanOrEqual(512 * MiB);
    expect(result.b).toBe(120 * 1024 * 1024);
  });

  test('setMemoryFraction rejects values outside (0, 1]', () => {
    expect(() => torch.memory.setMemoryFraction(1.5, 'cpu')).toThrow('expected a number in (0, 1] for fraction, got 1.5');
    expect(() => torch.memory.setMemoryFraction(0, 'cpu')).toThrow('expected a number in (0, 1] for fraction, got 0');
    expect(() => torch.memory.setMemoryFraction(NaN, 'cpu')).toThrow(/got NaN/);
  });

  test('a malformed TSGPU_CPU_MEMORY_LIMIT is a clear error', () => {
    const { result } = runChild(
      `let msg = ''; try { torch.empty([1]); } catch (e) { msg = e.message; } console.log(JSON.stringify(msg));`,
      { env: { TSGPU_CPU_MEMORY_LIMIT: 'lots' } },
    );
    expect(result).toMatch(/TSGPU_CPU_MEMORY_LIMIT 'lots'/);
  });
});

describe('arguments and devices', () => {
  test('bad shapes, devices and settings name the culprit', () => {
    expect(() => torch.empty(-3)).toThrow('empty: Dimension size must be non-negative, got -3 in [-3]');
    expect(() => torch.empty([2, 1.5])).toThrow('empty: expected an integer for size[1], got 1.5');
    expect(() => torch.empty([2], { device: 'tpu' })).toThrow(/invalid device 'tpu'/);
    expect(() => torch.memory.setAllocatorSettings('bogus:1')).toThrow(/unknown allocator setting 'bogus'/);
    expect(() => torch.memory.setAllocatorSettings('max_split_size_mb:abc')).toThrow(/max_split_size_mb:abc/);
    expect(() => torch.memory.setAllocatorSettings('garbage_collection_threshold:1.5')).toThrow(/garbage_collection_threshold/);
    expect(() => torch.memory.setAllocatorSettings('roundup_power2_divisions:3')).toThrow(/roundup_power2_divisions/);
    expect(() => torch.memory.setAllocatorSettings('expandable_segments:maybe')).toThrow(/expandable_segments/);
    expect(() => torch.memory.setAllocatorSettings('max_split_size_mb')).toThrow(/max_split_size_mb/);
    if (!torch.cuda.isAvailable()) {
      expect(() => torch.empty([2], { device: 'cuda' })).toThrow(torch.cuda.unavailableReason());
    }
  });

  test('toString and inspect print as PyTorch does', () => {
    const t = torch.tensor([[1.5, -2], [3, 4]], { dtype: 'float32' });
    expect(String(t)).toBe('tensor([[ 1.5000, -2.0000],\n        [ 3.0000,  4.0000]])');
    expect(require('util').inspect(t)).toBe(String(t));
    t.dispose();
  });

  test('cpu ops', () => {
    torch.manualSeed(42);
    const a = torch.randn([1000]);
    torch.manualSeed(42);
    const b = torch.randn([1000]);
    expect(a.toArray()).toEqual(b.toArray());
    const mean = Number(a.sum().item()) / 1000;
    expect(Math.abs(mean)).toBeLessThan(0.15);
    const m = torch.tensor([[1, 2], [3, 4]], { dtype: 'float32' });
    expect(m.matmul(m).tolist()).toEqual([[7, 10], [15, 22]]);
    expect(m.add(m).tolist()).toEqual([[2, 4], [6, 8]]);
    expect(m.mul(3).tolist()).toEqual([[3, 6], [9, 12]]);
    expect(torch.full([2], 7).tolist()).toEqual([7, 7]);
    expect(m.to('cpu').tolist()).toEqual([[1, 2], [3, 4]]);
    [a, b, m].forEach((t) => t.dispose());
  });

  test('a malformed TSGPU_CUDA_ALLOC_CONF is reported on first use, naming the variable and the key', () => {
    const { result } = runChild(
      `let msg = ''; try { torch.empty([1]); } catch (e) { msg = e.message; } console.log(JSON.stringify(msg));`,
      { env: { TSGPU_CUDA_ALLOC_CONF: 'max_split_size_mb:128,bogus_key:1' } },
    );
    expect(result).toMatch(/TSGPU_CUDA_ALLOC_CONF: .*unknown allocator setting 'bogus_key'/);
  });

  test('a frame mapper turns script positions into cell and line in the snapshot', () => {
    torch.memory.setFrameMapper((file, line) => (/memory\.test\.(js|ts)$/.test(file) ? { label: 'Cell In[9]', line: 3 } : null));
    torch.memory.recordMemoryHistory('cpu', { maxEntries: 100 });
    const t = torch.ones([11]);
    const blocks = (torch.memory.snapshot('cpu').segments as any[]).flatMap((s) => s.blocks);
    const mine = blocks.find((b: any) => b.state === 'active_allocated' && b.requested_size === 44);
    torch.memory.recordMemoryHistory('cpu', { enabled: false });
    torch.memory.setFrameMapper(null);
    t.dispose();
    expect(mine.frames[0]).toEqual({ filename: 'Cell In[9]', line: 3, column: 0, name: expect.any(String) });
    expect(() => torch.memory.setFrameMapper(42 as any)).toThrow('expected a function or null for the frame mapper, got number');
  });

  test('tensors are small handles: thousands of live tensors, freed by dispose and by collection', () => {
    const { result } = runChild(
      `
      const keep = [];
      for (let i = 0; i < 5000; i++) keep.push(torch.empty([16]));
      const live = torch.memory.liveTensors('cpu').length;
      for (const t of keep.splice(0, 2500)) t.dispose();
      const afterDispose = torch.memory.liveTensors('cpu').length;
      keep.length = 0;
      const r = torch.memory.collectGarbage();
      console.log(JSON.stringify({ live, afterDispose, freed: r.freedTensors, end: torch.memory.liveTensors('cpu').length,
        allocated: torch.memory.allocated('cpu') }));
    `,
      { nodeArgs: ['--expose-gc'] },
    );
    expect(result).toEqual({ live: 5000, afterDispose: 2500, freed: 2500, end: 0, allocated: 0 });
  });

  test('memory history records the allocating code', () => {
    torch.memory.recordMemoryHistory('cpu', { maxEntries: 1000 });
    const t = torch.ones([7]);
    const snap = torch.memory.snapshot('cpu');
    const blocks = (snap.segments as any[]).flatMap((s) => s.blocks);
    const mine = blocks.find((b: any) => b.state === 'active_allocated' && b.requested_size === 28 && b.frames.length > 0);
    expect(mine).toBeDefined();
    expect(mine.frames[0].filename).toMatch(/memory\.test\.(js|ts)$/);
    const trace = snap.device_traces[0] as any[];
    expect(trace.some((e) => e.action === 'alloc' && e.requested_size === 28)).toBe(true);
    torch.memory.recordMemoryHistory('cpu', { enabled: false });
    t.dispose();
  });
});
