/**
 * Where each storage was made, without memory history: every storage carries
 * the cell set by `setAllocationCell`, and storages of at least
 * `kSiteMinBytes` bytes the frames of the code that made them. Smaller ones
 * capture no stack (counted by `siteCaptureCount`).
 */
import * as torch from '../../native/index';

const { kSiteMinBytes } = torch.memory;

function info(t: torch.Tensor) {
  return torch.memory.liveTensors('cpu').find((x) => x.id === t.id)!;
}

/** The script line of the caller, as V8 reports it (not source-mapped, as the runtime records it). */
function callerLine(): number {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_e, sites) => sites;
  const holder: { stack?: any } = {};
  Error.captureStackTrace(holder, callerLine);
  const line = holder.stack[0].getLineNumber() as number;
  Error.prepareStackTrace = prepare;
  return line;
}

afterEach(() => torch.memory.setAllocationCell(0));

describe('allocation sites', () => {
  test('a storage of kSiteMinBytes records the code that made it; one 4 bytes smaller records none', () => {
    expect(kSiteMinBytes).toBe(1 << 20);
    const before = torch.memory.siteCaptureCount();
    const big = torch.empty([kSiteMinBytes / 4]);
    const line = callerLine() - 1; // the line above
    const small = torch.empty([kSiteMinBytes / 4 - 1]);
    expect(torch.memory.siteCaptureCount() - before).toBe(1);
    const frames = info(big).frames!;
    expect(frames[0]).toMatchObject({ line });
    expect(frames[0].filename).toMatch(/sites\.test\.(js|ts)$/);
    expect(frames[0].cell).toBeUndefined(); // a plain script, not a notebook cell
    expect(info(small).frames).toBeUndefined();
    big.dispose();
    small.dispose();
  });

  test('thousands of small tensors capture no stack', () => {
    const before = torch.memory.siteCaptureCount();
    const a = torch.ones([64]);
    for (let i = 0; i < 2000; i++) a.add(a).dispose();
    a.dispose();
    expect(torch.memory.siteCaptureCount() - before).toBe(0);
  });

  test('memory history captures the stack of every storage', () => {
    torch.memory.recordMemoryHistory('cpu', { maxEntries: 100 });
    const before = torch.memory.siteCaptureCount();
    const small = [1, 2, 3].map(() => torch.empty([4]));
    torch.memory.recordMemoryHistory('cpu', { enabled: false });
    expect(torch.memory.siteCaptureCount() - before).toBe(3);
    for (const t of small) {
      expect(info(t).frames![0].filename).toMatch(/sites\.test\.(js|ts)$/);
      t.dispose();
    }
  });

  test('setAllocationCell tags the storages made after it, small ones included', () => {
    torch.memory.setAllocationCell(7);
    const a = torch.empty([3]);
    torch.memory.setAllocationCell(8);
    const b = torch.empty([3]);
    torch.memory.setAllocationCell(0);
    const c = torch.empty([3]);
    expect([info(a).cell, info(b).cell, info(c).cell]).toEqual([7, 8, undefined]);
    for (const t of [a, b, c]) t.dispose();
  });

  test('a bad cell number is an argument error naming it', () => {
    expect(() => torch.memory.setAllocationCell(-1)).toThrow('expected a non-negative integer below 2147483648 for cell, got -1');
    expect(() => torch.memory.setAllocationCell(1.5)).toThrow('got 1.5');
    expect(() => torch.memory.setAllocationCell(2 ** 31)).toThrow('got 2147483648');
  });

  test('a frame mapper gives large storages the cell and line as numbers', () => {
    torch.memory.setFrameMapper((file, line) => (/sites\.test\.(js|ts)$/.test(file) ? { label: 'Cell In[4]', line: 2, cell: 4 } : null));
    const big = torch.zeros([kSiteMinBytes / 4]);
    torch.memory.setFrameMapper(null);
    expect(info(big).frames![0]).toEqual({ filename: 'Cell In[4]', line: 2, column: 0, name: expect.any(String), cell: 4 });
    big.dispose();
  });
});
