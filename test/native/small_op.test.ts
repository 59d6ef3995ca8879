/**
 * The small-op path: operands of one shape and dtype run in one call that
 * also allocates the result. It must give what the general path gives
 * (values, dtype, shape, strides, statistics) and leave nothing behind when
 * the op fails; attributes travel in the argument buffer by position.
 */
import * as torch from '../../native/index';
import { runOp } from '../../native/ops/dispatch';
import { runChild, errorOf } from './helpers';
import { settleAllocator } from './own_memory';

const live = () => torch.memory.liveTensors('cpu').length;

describe('same-shape operands', () => {
  test('give the values, dtype, shape and strides of the broadcasting path', () => {
    const a = torch.randn([3, 4]);
    const b = torch.randn([3, 4]);
    const bRow = b.narrow(0, 1, 1); // [1, 4]: broadcasts, the general path
    const fast = a.add(b, { alpha: 0.5 });
    const general = a.add(bRow, { alpha: 0.5 });
    const av = a.tolist() as number[][];
    const bv = b.tolist() as number[][];
    const f32 = (x: number) => Math.fround(x);
    expect(fast.shape).toEqual([3, 4]);
    expect(fast.stride()).toEqual([4, 1]);
    expect(fast.dtype).toBe('float32');
    expect(fast.device).toBe('cpu');
    expect(fast.isContiguous()).toBe(true);
    const fv = fast.tolist() as number[][];
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 4; j++) expect(fv[i][j]).toBe(f32(av[i][j] + f32(0.5 * bv[i][j])));
    expect((general.tolist() as number[][])[2]).toEqual([0, 1, 2, 3].map((j) => f32(av[2][j] + f32(0.5 * bv[1][j]))));
    for (const t of [a, b, bRow, fast, general]) t.dispose();
  });

  test('non-contiguous operands of one shape (a transpose) read through their strides', () => {
    const base = torch.arange(6, { dtype: 'float32' });
    const a = base.view([2, 3]);
    const t = a.t(); // [3, 2], strides [1, 3]
    const s = t.mul(t);
    expect(s.shape).toEqual([3, 2]);
    expect(s.stride()).toEqual([2, 1]);
    expect(s.tolist()).toEqual([[0, 9], [1, 16], [4, 25]]);
    for (const x of [base, a, t, s]) x.dispose();
  });

  test('numbers that keep the dtype (integers with int tensors, any with floats) and comparisons', () => {
    const i = torch.tensor([1, 2, 3], { dtype: 'int32' });
    const f = torch.tensor([1, 2, 3], { dtype: 'float16' });
    const r1 = i.add(2);
    const r2 = i.add(0.5); // promotes to the default dtype: the general path
    const r3 = f.mul(1.5);
    const i1 = i.sub(1);
    const r4 = i.gt(i1);
    expect([r1.dtype, r2.dtype, r3.dtype, r4.dtype]).toEqual(['int32', 'float32', 'float16', 'bool']);
    expect(r1.tolist()).toEqual([3, 4, 5]);
    expect(r2.tolist()).toEqual([1.5, 2.5, 3.5]);
    expect(r3.tolist()).toEqual([1.5, 3, 4.5]);
    expect(r4.tolist()).toEqual([true, true, true]);
    for (const x of [i, f, i1, r1, r2, r3, r4]) x.dispose();
  });

  test('count one storage each in the statistics, and dispose gives it back', async () => {
    await settleAllocator(); // the allocator's own counters are measured: no other test's garbage may be freed meanwhile
    const a = torch.randn([256]);
    const b = torch.randn([256]);
    const before = torch.memory.allocated('cpu');
    const stats0 = torch.memory.stats('cpu');
    const c = a.add(b);
    expect(torch.memory.allocated('cpu')).toBe(before + 1024);
    const stats1 = torch.memory.stats('cpu');
    expect(stats1['allocation.all.allocated'] - stats0['allocation.all.allocated']).toBe(1);
    expect(torch.memory.liveTensors('cpu').find((r) => r.id === c.id)).toMatchObject({ shape: [256], dtype: 'float32', nbytes: 1024 });
    c.dispose();
    expect(torch.memory.allocated('cpu')).toBe(before);
    a.dispose();
    b.dispose();
  });
});

describe('a failing small op leaves nothing allocated', () => {
  test('an unsupported dtype (the addon refuses it after allocating the result)', async () => {
    await settleAllocator(); // the allocator's own counters are measured: no other test's garbage may be freed meanwhile
    const a = torch.ones([4], { dtype: 'bool' });
    const before = torch.memory.allocated('cpu');
    const n = live();
    const e = errorOf(() => torch.remainder(a, a));
    expect(e.message).toBe('remainder: dtype bool is not supported (expected numeric)');
    expect(torch.memory.allocated('cpu')).toBe(before);
    expect(live()).toBe(n);
    a.dispose();
  });

  test('a disposed operand', async () => {
    await settleAllocator(); // the allocator's own counters are measured: no other test's garbage may be freed meanwhile
    const a = torch.ones([4]);
    const b = torch.ones([4]);
    b.dispose();
    const before = torch.memory.allocated('cpu');
    const e = errorOf(() => a.add(b));
    expect(e.code).toBe('TSGPU_DISPOSED');
    expect(torch.memory.allocated('cpu')).toBe(before);
    a.dispose();
  });

  test('an interrupt: the op throws and its result is freed', () => {
    const { status, result, stderr } = runChild(`
      const flag = new Int32Array(new SharedArrayBuffer(4));
      torch.setInterruptFlag(flag);
      const a = torch.ones([256]), b = torch.ones([256]);
      const before = torch.memory.allocated('cpu');
      Atomics.store(flag, 0, 1);
      let code = null, message = null;
      try { a.add(b); } catch (e) { code = e.code; message = e.message; }
      Atomics.store(flag, 0, 0);
      const leaked = torch.memory.allocated('cpu') - before;
      const c = a.add(b);
      console.log(JSON.stringify({ code, message, leaked, ok: c.tolist()[0] === 2 }));
    `);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result).toEqual({ code: 'TSGPU_INTERRUPTED', message: 'add: interrupted', leaked: 0, ok: true });
  });
});

describe('attributes by position', () => {
  test('numbers, booleans and strings reach the kernel; wrong types are named', () => {
    const a = torch.zeros([3]);
    runOp('fill', [a], [], { value: true as never }); // a boolean for a double attribute counts as 1
    expect(a.tolist()).toEqual([1, 1, 1]);
    runOp('fill', [a], [], { value: 2.5 });
    expect(a.tolist()).toEqual([2.5, 2.5, 2.5]);
    expect(errorOf(() => runOp('fill', [a], [], { value: 'x' } as never)).message).toBe("fill: expected a number for value, got 'x'");
    expect(errorOf(() => runOp('softmax', [a], [a], { dim: 0.5 })).message).toBe('softmax: expected an integer for dim, got 0.5');
    expect(errorOf(() => runOp('softmax', [a], [a], { dim: true } as never)).message).toBe('softmax: expected an integer for dim, got true');
    const v = torch.tensor([3, 1, 2], { dtype: 'float32' });
    const i = torch.empty([3], { dtype: 'int64' });
    const s = torch.empty([3]);
    expect(errorOf(() => runOp('sort', [s, i], [v], { dim: 0, descending: 1 } as never)).message).toBe(
      'sort: expected a boolean for descending, got 1',
    );
    runOp('sort', [s, i], [v], { dim: 0, descending: true });
    expect(s.tolist()).toEqual([3, 2, 1]);
    const g = torch.tensor([-1, 0, 1]);
    const h = g.gelu({ approximate: 'tanh' }); // a string attribute
    expect((h.tolist() as number[])[1]).toBe(0);
    expect(errorOf(() => g.gelu({ approximate: 'cubic' as never })).message).toBe(
      "gelu: expected 'none' or 'tanh' for approximate, got 'cubic'",
    );
    for (const x of [a, v, i, s, g, h]) x.dispose();
  });
});

test('with memory history on, a small op still records the code that made its result', () => {
  const a = torch.ones([9]);
  torch.memory.recordMemoryHistory('cpu', { maxEntries: 1000 });
  const c = a.add(a);
  const blocks = (torch.memory.snapshot('cpu').segments as any[]).flatMap((s) => s.blocks);
  const mine = blocks.find((b: any) => b.state === 'active_allocated' && b.requested_size === 36 && b.frames.length > 0);
  torch.memory.recordMemoryHistory('cpu', { enabled: false });
  expect(mine).toBeDefined();
  expect(mine.frames[0].filename).toMatch(/small_op\.test\.(js|ts)$/);
  c.dispose();
  a.dispose();
});

describe('dispose() queues frees that the next call into the addon makes', () => {
  test('statistics right after dispose count the memory freed, past the queue length too', async () => {
    await settleAllocator(); // the allocator's own counters are measured: no other test's garbage may be freed meanwhile
    const before = torch.memory.allocated('cpu');
    const many = Array.from({ length: 3000 }, () => torch.empty([64]));
    expect(torch.memory.allocated('cpu')).toBe(before + 3000 * 512);
    for (const t of many) t.dispose(); // no call into the addon in between: the queue fills and overflows
    expect(torch.memory.allocated('cpu')).toBe(before);
    expect(torch.memory.liveTensors('cpu').some((r) => r.id === many[0].id)).toBe(false);
  });

  test('a runtime on a worker thread frees at once (its queue is not drained)', () => {
    const { status, result, stderr } = runChild(`
      const { Worker } = require('worker_threads');
      const w = new Worker(\`
        const torch = require(\${JSON.stringify(${JSON.stringify(require.resolve('../../native/index'))})});
        const { parentPort } = require('worker_threads');
        const before = torch.memory.allocated('cpu');
        const t = torch.ones([1000]);
        const held = torch.memory.allocated('cpu') - before;
        t.dispose();
        parentPort.postMessage({ held, after: torch.memory.allocated('cpu') - before });
      \`, { eval: true });
      w.on('message', (m) => { console.log(JSON.stringify(m)); w.terminate(); });
    `);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result).toEqual({ held: 4096, after: 0 });
  });
});

test('a same-shape result of kSiteMinBytes or more records the code that made it, as other storages do', () => {
  const { kSiteMinBytes } = torch.memory;
  const a = torch.ones([kSiteMinBytes / 4]);
  const small = torch.ones([16]);
  const before = torch.memory.siteCaptureCount();
  const big = a.add(a);
  const little = small.add(small);
  expect(torch.memory.siteCaptureCount() - before).toBe(1);
  const rows = torch.memory.liveTensors('cpu');
  expect(rows.find((r) => r.id === big.id)!.frames![0].filename).toMatch(/small_op\.test\.(js|ts)$/);
  expect(rows.find((r) => r.id === little.id)!.frames).toBeUndefined();
  for (const t of [a, small, big, little]) t.dispose();
});
