/**
 * CUDA tests: the same ops as on cpu, compared with the CPU reference, and
 * the memory statistics of cuda:0. Skipped, with the reason printed, where
 * CUDA is unavailable.
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';
import { MiB, runChild } from './helpers';
import { settleAllocator } from './own_memory';

const available = torch.cuda.isAvailable();

function maxAbsDiff(a: ArrayLike<unknown>, b: ArrayLike<unknown>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(Number(a[i]) - Number(b[i])));
  return m;
}

describe('cuda', () => {
  test('availability is reported consistently', () => {
    if (available) {
      expect(torch.cuda.deviceCount()).toBeGreaterThan(0);
      expect(torch.cuda.unavailableReason()).toBe('');
    } else {
      expect(torch.cuda.deviceCount()).toBe(0);
      expect(torch.cuda.unavailableReason().length).toBeGreaterThan(0);
      expect(() => torch.cuda.getDeviceProperties()).toThrow(torch.cuda.unavailableReason());
      expect(() => torch.randn([2], { device: 'cuda:0' })).toThrow(/CUDA is not available/);
    }
  });

  cudaTest('randn, add, mul, sum and matmul match the CPU reference', () => {
    torch.manualSeed(7);
    const gx = torch.randn([257, 129], { device: 'cuda' });
    torch.manualSeed(7);
    const cx = torch.randn([257, 129]);
    expect(maxAbsDiff(gx.toArray(), cx.toArray())).toBeLessThan(1e-4);

    const gy = gx.add(gx).mul(0.5).mul(gx);
    const cy = cx.add(cx).mul(0.5).mul(cx);
    expect(maxAbsDiff(gy.toArray(), cy.toArray())).toBeLessThan(1e-4);

    const gs = Number(gy.sum().item());
    const cs = Number(cy.sum().item());
    expect(Math.abs(gs - cs) / Math.abs(cs)).toBeLessThan(1e-4);

    const ga = torch.rand([65, 33], { device: 'cuda' });
    const gb = torch.rand([33, 17], { device: 'cuda' });
    const gm = ga.matmul(gb);
    const cm = ga.to('cpu').matmul(gb.to('cpu'));
    expect(maxAbsDiff(gm.toArray(), cm.toArray())).toBeLessThan(1e-4);

    const t = torch.tensor([[1, 2], [3, 4]], { device: 'cuda:0', dtype: 'float32' });
    expect(t.matmul(t).tolist()).toEqual([[7, 10], [15, 22]]);
    expect(torch.full([3], 2.5, { device: 'cuda' }).tolist()).toEqual([2.5, 2.5, 2.5]);
    [gx, cx, gy, cy, ga, gb, gm, cm, t].forEach((x) => x.dispose());
  });

  cudaTest('memory statistics on cuda:0 follow PyTorch', async () => {
    await settleAllocator(); // temporaries of earlier tests must not be swept in the middle of the measurement
    torch.cuda.emptyCache();
    const before = torch.cuda.memoryAllocated(0);
    const x = torch.randn([1000, 1000], { device: 'cuda:0' });
    expect(torch.cuda.memoryAllocated(0) - before).toBe(4000256);
    // 20 MiB with ordinary segments, 4 MiB (two 2 MiB granules) with an expandable one.
    expect(torch.cuda.memoryReserved(0)).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    const stats = torch.cuda.memoryStats(0);
    expect(stats['requested_bytes.all.current']).toBeGreaterThanOrEqual(4000000);
    expect(torch.cuda.memorySummary(0).split('\n')[1]).toContain('CUDA memory summary, device ID 0');
    x.dispose();
    expect(torch.cuda.memoryAllocated(0)).toBe(before);
    const r = torch.cuda.emptyCache();
    expect(r.releasedBytes).toBeGreaterThan(0);
    const [free, total] = torch.cuda.memGetInfo(0);
    expect(free).toBeLessThanOrEqual(total);
    const props = torch.cuda.getDeviceProperties(0);
    expect(props.totalMemory).toBe(total);
    expect(typeof props.name).toBe('string');
    expect(torch.memory.devices()).toContain('cuda:0');
  });

  cudaTest('per-process memory fraction caps reserved memory', () => {
    const [, total] = torch.cuda.memGetInfo(0);
    torch.cuda.setPerProcessMemoryFraction(0.05, 0);
    let err: any;
    try {
      torch.empty([Math.floor((total * 0.1) / 4)], { device: 'cuda:0' });
    } catch (e) {
      err = e;
    }
    torch.cuda.setPerProcessMemoryFraction(1, 0);
    expect(err).toBeInstanceOf(torch.OutOfMemoryError);
    expect(err.message).toContain('per-process memory fraction');
  });

  cudaTest('snapshot lists segments and records allocations', () => {
    torch.cuda.memory.recordMemoryHistory({ maxEntries: 100 });
    const t = torch.ones([1024], { device: 'cuda' });
    const snap = torch.cuda.memory.snapshot();
    expect(snap.segments.length).toBeGreaterThan(0);
    expect((snap.device_traces[0] as any[]).some((e) => e.action === 'alloc')).toBe(true);
    torch.cuda.memory.recordMemoryHistory({ enabled: false });
    t.dispose();
  });

  cudaTest('expandable segments grow in place through the driver and hold correct data', () => {
    const { status, result, stderr } = runChild(
      `
      const x = torch.ones([30 * 256 * 1024], { device: 'cuda:0' }); // 30 MiB
      const y = torch.full([3 * 256 * 1024], 2, { device: 'cuda:0', dtype: 'float32' }); // 3 MiB, mapped right after x
      const s = torch.cuda.memoryStats(0);
      const sx = x.sum(), sy = y.sum(); // small pool: its own expandable segment
      const sums = [sx.item(), sy.item()];
      [x, y, sx, sy].forEach((t) => t.dispose());
      const r = torch.cuda.emptyCache();
      console.log(JSON.stringify({ segments: s['segment.all.current'], reserved: s['reserved_bytes.all.current'], sums,
        released: r.releasedBytes, after: torch.cuda.memoryReserved(0) }));
    `,
      { env: { TSGPU_CUDA_ALLOC_CONF: 'expandable_segments:True' } },
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(result).toEqual({ segments: 1, reserved: 34 * MiB, sums: [30 * 256 * 1024, 6 * 256 * 1024], released: 36 * MiB, after: 0 });
  });

  cudaTest('expandable_segments:False gives ordinary cudaMalloc segments', () => {
    const { result } = runChild(
      `
      const x = torch.empty([3 * 256 * 1024], { device: 'cuda:0' });
      console.log(JSON.stringify({ reserved: torch.cuda.memoryReserved(0), settings: torch.memory.getAllocatorSettings() }));
    `,
      { env: { TSGPU_CUDA_ALLOC_CONF: 'expandable_segments:False' } },
    );
    expect(result.reserved).toBe(20 * MiB);
    expect(result.settings).toContain('expandable_segments:False');
  });
});
