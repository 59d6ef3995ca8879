/**
 * torch.cuda on a machine where CUDA cannot be used: the memory statistics
 * answer as PyTorch's do (0, `{}`, a table of zeros; resets and emptyCache do
 * nothing), the calls that need a device say why CUDA is unavailable, and
 * that reason is in a user's words when there is no driver at all. Skipped,
 * saying so, on a machine with a usable CUDA device (cuda.test.ts covers it).
 */
import * as torch from '../../native/index';
import { native } from '../../native/addon';
import { cudaDriverLibraryFound, NO_DRIVER_REASON } from '../helpers';

const withoutCuda = !torch.cuda.isAvailable();
const noCudaTest = withoutCuda ? test : test.skip;
if (!withoutCuda) {
  // eslint-disable-next-line no-console
  console.log('no_cuda tests skipped: they need a machine without a usable CUDA device, and this one has one');
}

describe('torch.cuda without CUDA', () => {
  noCudaTest('memory statistics read as those of an unused device', () => {
    for (const d of [undefined, 0, 3, 'cuda', 'cuda:1']) {
      expect(torch.cuda.memoryAllocated(d)).toBe(0);
      expect(torch.cuda.maxMemoryAllocated(d)).toBe(0);
      expect(torch.cuda.memoryReserved(d)).toBe(0);
      expect(torch.cuda.maxMemoryReserved(d)).toBe(0);
      expect(torch.cuda.memoryStats(d)).toEqual({});
    }
  });

  noCudaTest('resets, emptyCache and snapshot do nothing and throw nothing', () => {
    expect(torch.cuda.resetPeakMemoryStats()).toBeUndefined();
    expect(torch.cuda.resetPeakMemoryStats('cuda:0')).toBeUndefined();
    expect(torch.cuda.resetAccumulatedMemoryStats(0)).toBeUndefined();
    expect(torch.cuda.emptyCache()).toEqual({ releasedBytes: 0, releasedSegments: 0, keptBytes: 0, keptSegments: 0, reason: '' });
    expect(torch.cuda.memory.snapshot()).toEqual({ segments: [], device_traces: [] });
  });

  noCudaTest('memorySummary is the CUDA table with every count zero', () => {
    const full = torch.cuda.memorySummary().split('\n').filter(Boolean);
    expect(full[1]).toContain('CUDA memory summary, device ID 0');
    expect(full[3]).toContain('CUDA OOMs: 0');
    expect(full[3]).toContain('cudaMalloc retries: 0');
    expect(full.every((l) => l.length === 77)).toBe(true);
    // Nine metrics with their large and small pool, and the two oversize rows.
    const rows = full.filter((l) => l.split('|').length === 7 && !l.includes('Metric'));
    expect(rows).toHaveLength(9 * 3 + 2);
    expect(rows.map((l) => l.slice(2, 23).trim())).toEqual(expect.arrayContaining(['Allocated memory', 'GPU reserved memory', 'Non-releasable allocs', 'from large pool', 'Oversize GPU segments']));
    // The five byte metrics come first (shown as "0 B"), then the counts ("0").
    const cells = rows.map((l) => l.split('|').slice(2, 6).map((c) => c.trim()));
    expect(cells.slice(0, 15)).toEqual(Array(15).fill(['0 B', '0 B', '0 B', '0 B']));
    expect(cells.slice(15)).toEqual(Array(14).fill(['0', '0', '0', '0']));
    const short = torch.cuda.memorySummary('cuda:2', { abbreviated: true }).split('\n').filter(Boolean);
    expect(short[1]).toContain('device ID 2');
    expect(short.length).toBeLessThan(full.length);
    expect(short.some((l) => l.includes('from large pool'))).toBe(false);
  });

  noCudaTest('a device that is not a CUDA device is still an argument error', () => {
    for (const d of ['cpu', -1, 1.5, 'cuda:x', 'gpu']) {
      expect(() => torch.cuda.memoryAllocated(d as any)).toThrow(`expected a CUDA device such as 0 or "cuda:0", got '${String(d)}'`);
      expect(() => torch.cuda.memorySummary(d as any)).toThrow(/expected a CUDA device/);
    }
  });

  noCudaTest('the calls that need a device say why CUDA is unavailable', () => {
    const why = `CUDA is not available: ${torch.cuda.unavailableReason()}`;
    expect(torch.cuda.unavailableReason()).not.toBe('');
    expect(() => torch.cuda.getDeviceProperties()).toThrow(why);
    expect(() => torch.cuda.memGetInfo(0)).toThrow(why);
    expect(() => torch.cuda.synchronize()).toThrow(why);
    expect(() => torch.cuda.setPerProcessMemoryFraction(0.5)).toThrow(why);
    expect(() => torch.cuda.memory.recordMemoryHistory()).toThrow(why);
    expect(() => torch.zeros([2], { device: 'cuda' })).toThrow(why);
  });

  const noDriver = withoutCuda && native.builtWithCuda && !cudaDriverLibraryFound();
  (noDriver ? test : test.skip)('without a driver the reason says so in plain words', () => {
    expect(torch.cuda.unavailableReason()).toBe(NO_DRIVER_REASON);
  });
  if (!noDriver) {
    // eslint-disable-next-line no-console
    console.log('the no-driver reason test is skipped: it needs a build with CUDA on a machine without libcuda.so.1');
  }
});
