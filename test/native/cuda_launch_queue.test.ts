/**
 * The CUDA launch queue (native/src/runtime/launch_queue.h): elementwise ops
 * are launched by a thread of the device after op() returned. Results must
 * be those of launching in program order: chains of dependent ops, memory
 * freed and reused while its kernels are still queued, ops that are never
 * queued (reductions, matmul, random fills) mixed in, copies to the host,
 * emptyCache with calls queued, and exact memory statistics. Each is checked
 * against the same computation on the CPU. Skipped, with the reason, where
 * CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda_launch_queue
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';
import { settleAllocator } from './own_memory';

function values(t: torch.Tensor): number[] {
  const c = t.device === 'cpu' ? t : t.cpu();
  const out = Array.from(c.toArray() as ArrayLike<number>, Number);
  if (c !== t) c.dispose();
  return out;
}

function expectClose(gpu: torch.Tensor, cpu: torch.Tensor, what: string, rtol = 1e-5, atol = 1e-5): void {
  const a = values(gpu);
  const b = values(cpu);
  expect({ what, n: a.length }).toEqual({ what, n: b.length });
  for (let i = 0; i < a.length; i++) {
    if (!(Math.abs(a[i] - b[i]) <= atol + rtol * Math.abs(b[i])))
      throw new Error(`${what}: cuda ${a[i]} vs cpu ${b[i]} at element ${i} of ${a.length}`);
  }
}

/** The same function on cpu and on cuda copies of the inputs. */
function both(xs: torch.Tensor[], f: (...a: torch.Tensor[]) => torch.Tensor, what: string): void {
  const cpu = f(...xs);
  const gx = xs.map((x) => x.cuda());
  const gpu = f(...gx);
  expectClose(gpu, cpu, what);
  [cpu, gpu, ...gx].forEach((t) => t.dispose());
}

beforeAll(() => torch.manualSeed(7));

describe('cuda launch queue', () => {
  cudaTest('a chain of 5000 dependent in-place ops reads back as run in order', () => {
    const x0 = torch.randn([256]);
    both([x0], (x) => {
      const y = x.clone();
      for (let i = 0; i < 2500; i++) {
        y.mul_(1.001);
        y.add_(0.5);
      }
      return y;
    }, 'mul_/add_ chain');
    x0.dispose();
  });

  cudaTest('temporaries freed while their kernels are queued: the memory is reused in order', () => {
    const x0 = torch.randn([1000]);
    both([x0], (x) => {
      let y = x.clone();
      for (let i = 0; i < 3000; i++) {
        const scaled = y.mul(0.999);
        const next = scaled.add(1);
        // Each step frees the blocks the previous steps wrote.
        [scaled, y].forEach((t) => t.dispose());
        y = next;
      }
      return y;
    }, 'dispose-and-reuse chain');
    x0.dispose();
  });

  cudaTest('queued elementwise ops mixed with ops that run at once (sum, matmul, softmax, randn)', () => {
    const a = torch.randn([64, 64]);
    const b = torch.randn([64, 64]);
    both([a, b], (x, y) => {
      let acc = x.add(y);
      for (let i = 0; i < 50; i++) {
        const s = acc.sum(1, { keepdim: true }); // a reduction: not queued
        const th = acc.tanh(); // queued
        const mm = torch.matmul(th, y); // not queued
        const m = mm.div(64);
        const sd = s.div(640);
        const d = acc.sub(sd);
        const e = d.add(m);
        const next = e.sigmoid();
        [s, th, mm, m, sd, d, e, acc].forEach((t) => t.dispose());
        acc = next;
      }
      const out = torch.softmax(acc, -1);
      acc.dispose();
      return out;
    }, 'mixed chain');
    [a, b].forEach((t) => t.dispose());
  });

  cudaTest('copies to and from the host wait for queued ops; item() and tolist() see their results', () => {
    const x = torch.zeros([4096], { device: 'cuda' });
    for (let i = 0; i < 1000; i++) x.add_(1);
    const sum = x.sum();
    expect(sum.item()).toBe(4096 * 1000);
    const ones = torch.ones([4096]);
    const h = ones.mul(2);
    x.copy_(h); // host to device, after the 1000 queued adds
    x.mul_(3);
    const max = x.max();
    expect(max.item()).toBe(6);
    const head = x.slice(0, 0, 3);
    expect((head.tolist() as number[])).toEqual([6, 6, 6]);
    [x, sum, ones, h, max, head].forEach((t) => t.dispose());
  });

  cudaTest('emptyCache and memory statistics with calls queued', async () => {
    // Tensors that other test files dropped are freed now (settleAllocator checks none is pending), not during the count.
    for (let i = 0, last = -1; i < 10 && torch.cuda.memoryAllocated() !== last; i++) {
      last = torch.cuda.memoryAllocated();
      await settleAllocator();
      torch.cuda.synchronize();
    }
    const start = torch.cuda.memoryAllocated();
    const allocatedBefore = torch.cuda.memoryStats()['allocated_bytes.all.allocated'];
    const xs: torch.Tensor[] = [];
    for (let i = 0; i < 200; i++) {
      const f = torch.full([1 << 16], i, { device: 'cuda', dtype: 'float32' });
      const m = f.mul(2);
      xs.push(m.add(1));
      [f, m].forEach((t) => t.dispose());
    }
    // Counted as each call returns, queued or not: 600 allocations of 256 KiB, 200 of them still held.
    expect(torch.cuda.memoryStats()['allocated_bytes.all.allocated'] - allocatedBefore).toBe(600 * (1 << 18));
    expect(torch.cuda.memoryAllocated()).toBe(start + 200 * (1 << 18));
    const keep = xs[199].clone();
    xs.forEach((t) => t.dispose());
    torch.cuda.emptyCache(); // returns the freed segments while the clone may still be queued
    const top = keep.max();
    expect(top.item()).toBe(399);
    [top, keep].forEach((t) => t.dispose());
    expect(torch.cuda.memoryAllocated()).toBe(start);
  });

  cudaTest('an argument error stays the error of the call that caused it, after the same op was queued', () => {
    const a = torch.randn([8], { device: 'cuda' });
    for (let i = 0; i < 100; i++) a.add_(1);
    const short = torch.ones([3], { device: 'cuda' });
    const onHost = torch.ones([8]);
    expect(() => torch.add(a, short)).toThrow(/add: shapes \[8\] and \[3\] cannot be broadcast/);
    expect(() => a.add(onHost)).toThrow(/expected all tensors on one device/);
    [short, onHost].forEach((t) => t.dispose());
    a.add_(1); // the queue still works
    const sum = a.sum();
    expect(Number.isFinite(sum.item() as number)).toBe(true);
    [a, sum].forEach((t) => t.dispose());
  });
});
