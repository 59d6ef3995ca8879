/**
 * CUDA against the CPU reference: every op of the runtime's own families
 * (copy and casts, fill, arange, random, add) on every dtype and on views,
 * integer division by zero (0 there, as documented in ops/math.ts),
 * stream ordering (no synchronization after launches, freeing while a
 * kernel runs), and printing with the device. Skipped, with the reason,
 * where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';
import { DTYPE_TABLE } from '../../native/generated/dtypes';
import { settleAllocator } from './own_memory';

const DTYPES = DTYPE_TABLE.map((r) => r.name);
const FLOATS: torch.DType[] = ['float32', 'float64', 'float16', 'bfloat16'];
const NUMERIC = DTYPES.filter((d) => d !== 'bool');

function values(t: torch.Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, (x) => Number(x));
}

/** Compares a cuda tensor with a cpu one: shape, dtype, and values within rtol. */
function expectSame(gpu: torch.Tensor, cpu: torch.Tensor, rtol = 0, what = ''): void {
  expect({ what, shape: gpu.shape, dtype: gpu.dtype, device: gpu.device }).toEqual({
    what,
    shape: cpu.shape,
    dtype: cpu.dtype,
    device: 'cuda:0',
  });
  const a = values(gpu);
  const b = values(cpu);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    const e = Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i]));
    if (!(e <= worst)) {
      worst = Number.isNaN(e) ? Infinity : e;
      at = i;
    }
  }
  if (worst > rtol) throw new Error(`${what}: cuda ${a[at]} vs cpu ${b[at]} at element ${at} (relative ${worst} > ${rtol})`);
}

/** Random values of a dtype on cpu (integers in a range every dtype holds). */
function sample(shape: number[], dtype: torch.DType): torch.Tensor {
  return torch.tidy(() => {
    if (dtype === 'bool') return torch.randint(0, 2, shape).bool();
    if (FLOATS.includes(dtype)) return torch.randn(shape).mul(3).to(dtype);
    return torch.randint(dtype === 'uint8' ? 0 : -100, 100, shape).to(dtype);
  });
}

describe('cuda ops against cpu', () => {
  cudaTest('casts between every pair of dtypes, contiguous and strided', () => {
    for (const from of DTYPES) {
      const c = sample([37, 19], from);
      const g = c.cuda();
      for (const to of DTYPES) {
        torch.tidy(() => {
          expectSame(g.to(to), c.to(to), 0, `${from} -> ${to}`);
          expectSame(g.t().to(to), c.t().to(to), 0, `${from} -> ${to} transposed`);
        });
      }
      c.dispose();
      g.dispose();
    }
  });

  cudaTest('copies of views: transpose, permute, slice with a step, expand, select', () => {
    const c = sample([6, 7, 8], 'float32');
    const g = c.cuda();
    torch.tidy(() => {
      expectSame(g.transpose(0, 2).contiguous(), c.transpose(0, 2).contiguous(), 0, 'transpose');
      expectSame(g.permute(1, 2, 0).contiguous(), c.permute(1, 2, 0).contiguous(), 0, 'permute');
      expectSame(g.slice(2, 1, null, 3).contiguous(), c.slice(2, 1, null, 3).contiguous(), 0, 'slice step');
      expectSame(g.select(1, 4).unsqueeze(1).expand(6, 5, 8).contiguous(), c.select(1, 4).unsqueeze(1).expand(6, 5, 8).contiguous(), 0, 'expand');
      expectSame(g.index(2, '1:', '::2').cpu().cuda(), c.index(2, '1:', '::2').contiguous(), 0, 'index');
      const gy = g.clone();
      const cy = c.clone();
      gy.slice(1, 0, 3).copy_(g.slice(1, 4, 7).transpose(0, 2).transpose(0, 2));
      cy.slice(1, 0, 3).copy_(c.slice(1, 4, 7));
      expectSame(gy, cy, 0, 'copy_ into a view');
      const gz = torch.zeros([5, 4], { device: 'cuda' });
      gz.slice(0, 1).copy_(c.select(0, 0).select(0, 0).slice(0, 0, 4)); // from the cpu
      const cz = torch.zeros([5, 4]);
      cz.slice(0, 1).copy_(c.select(0, 0).select(0, 0).slice(0, 0, 4));
      expectSame(gz, cz, 0, 'copy_ across devices with broadcast');
    });
    [c, g].forEach((t) => t.dispose());
  });

  cudaTest('fill, arange, linspace, eye, full on every dtype', () => {
    for (const dtype of DTYPES) {
      torch.tidy(() => {
        const opts = { dtype };
        const gopts = { dtype, device: 'cuda' };
        expectSame(torch.full([33, 3], 1, gopts), torch.full([33, 3], 1, opts), 0, `full ${dtype}`);
        expectSame(torch.eye(5, 7, gopts), torch.eye(5, 7, opts), 0, `eye ${dtype}`);
        const z = torch.zeros([4, 6], gopts);
        z.slice(1, 1, null, 2).fill_(1);
        const zc = torch.zeros([4, 6], opts);
        zc.slice(1, 1, null, 2).fill_(1);
        expectSame(z, zc, 0, `fill_ of a view ${dtype}`);
        if (dtype !== 'bool') {
          expectSame(torch.arange(0, 100, 3, gopts), torch.arange(0, 100, 3, opts), 0, `arange ${dtype}`);
        }
      });
    }
    torch.tidy(() => {
      expectSame(torch.linspace(-3, 7, 1001, { device: 'cuda' }), torch.linspace(-3, 7, 1001), 0, 'linspace');
      expectSame(torch.arange(0, 1, 0.001, { device: 'cuda', dtype: 'float64' }), torch.arange(0, 1, 0.001, { dtype: 'float64' }), 0, 'arange float64');
    });
  });

  cudaTest('random numbers: the same on cuda and cpu after manualSeed, for every floating dtype', () => {
    for (const dtype of FLOATS) {
      torch.tidy(() => {
        const n = 100003; // not a multiple of 4: the last Philox block is partial
        torch.manualSeed(11);
        const gu = torch.rand([n], { dtype, device: 'cuda' });
        const gn = torch.randn([n], { dtype, device: 'cuda' });
        const gi = torch.randint(-5, 17, [n], { device: 'cuda' });
        torch.manualSeed(11);
        const cu = torch.rand([n], { dtype });
        const cn = torch.randn([n], { dtype });
        const ci = torch.randint(-5, 17, [n]);
        expectSame(gu, cu, 0, `rand ${dtype}`);
        // logf/sinf/cosf of CUDA and of the C library differ in the last bits.
        expectSame(gn, cn, dtype === 'float32' || dtype === 'float64' ? 1e-5 : 1e-2, `randn ${dtype}`);
        expectSame(gi, ci, 0, 'randint');
        const gv = torch.zeros([300, 300], { dtype, device: 'cuda' });
        const cv = torch.zeros([300, 300], { dtype });
        torch.manualSeed(3);
        gv.t().slice(0, 0, 200).normal_(2, 3);
        torch.manualSeed(3);
        cv.t().slice(0, 0, 200).normal_(2, 3);
        expectSame(gv, cv, dtype === 'float32' || dtype === 'float64' ? 1e-5 : 1e-2, `normal_ of a view ${dtype}`);
      });
    }
  });

  cudaTest('add with broadcasting, numbers, alpha, promotion and in place on views, every numeric dtype', () => {
    for (const dtype of NUMERIC) {
      torch.tidy(() => {
        const a = sample([17, 1, 9], dtype);
        const b = sample([5, 1], dtype);
        const ga = a.cuda();
        const gb = b.cuda();
        const tol = dtype === 'float16' || dtype === 'bfloat16' ? 1e-2 : 1e-6;
        expectSame(ga.add(gb), a.add(b), tol, `add ${dtype}`);
        expectSame(ga.add(gb, { alpha: 2 }), a.add(b, { alpha: 2 }), tol, `add alpha ${dtype}`);
        expectSame(ga.add(3), a.add(3), tol, `add number ${dtype}`);
        expectSame(ga.sub(1.5), a.sub(1.5), tol, `sub fraction ${dtype}`);
        expectSame(ga.add(gb.float()), a.add(b.float()), tol, `add promoted ${dtype}`);
        const gc = ga.expand(17, 5, 9).contiguous();
        const cc = a.expand(17, 5, 9).contiguous();
        // [17, 5, 9] -> transpose(0, 2) [9, 5, 17] -> slice [5, 5, 17]; b as [5, 1, 1] broadcasts over it.
        gc.transpose(0, 2).slice(0, 2, 7).add_(gb.unsqueeze(-1));
        cc.transpose(0, 2).slice(0, 2, 7).add_(b.unsqueeze(-1));
        expectSame(gc, cc, tol, `add_ on a view ${dtype}`);
      });
    }
  });

  cudaTest('integer division by zero gives 0 there (div trunc and floor, remainder; in place, broadcast, a number dividend), the rest as on cpu', () => {
    type Op = (x: torch.Tensor | number, y: torch.Tensor) => torch.Tensor;
    const ops: [string, Op][] = [
      ['div trunc', (x, y) => torch.div(x, y, { roundingMode: 'trunc' })],
      ['div floor', (x, y) => torch.div(x, y, { roundingMode: 'floor' })],
      ['remainder', (x, y) => torch.remainder(x, y)],
      ['remainder_', (x, y) => (x as torch.Tensor).clone().remainder_(y)],
      ['div_ floor', (x, y) => (x as torch.Tensor).clone().div_(y, { roundingMode: 'floor' })],
    ];
    for (const dtype of ['int8', 'uint8', 'int16', 'int32', 'int64'] as torch.DType[]) {
      // Lengths around the vector widths, so vector bodies and scalar tails both meet zeros.
      for (const n of [1, 7, 33, 1000, 100003]) {
        torch.tidy(() => {
          const a = sample([n], dtype);
          const d = torch.randint(dtype === 'uint8' ? 0 : -3, 4, [n]).to(dtype);
          const zero = d.eq(0);
          const safe = torch.where(zero, 1, d);
          const ga = a.cuda();
          const gd = d.cuda();
          for (const [name, op] of ops) expectSame(op(ga, gd), torch.where(zero, 0, op(a, safe)), 0, `${name} ${dtype} n=${n}`);
          expectSame(torch.remainder(7, gd), torch.where(zero, 0, torch.remainder(7, safe)), 0, `7 remainder ${dtype} n=${n}`);
          const none = torch.zeros([], { dtype, device: 'cuda' });
          for (const [name, op] of ops) expectSame(op(ga, none), torch.zeros([n], { dtype }), 0, `${name} ${dtype} by a 0-dim zero`);
        });
      }
    }
    // A number divisor is on the host: a zero is refused before anything runs, on cuda as on cpu.
    const g = torch.ones([4], { dtype: 'int32', device: 'cuda' });
    expect(() => g.div(0, { roundingMode: 'trunc' })).toThrow("div (roundingMode 'trunc'): ZeroDivisionError: integer division by zero");
    expect(() => g.remainder(0)).toThrow('remainder: ZeroDivisionError: integer division by zero');
    g.dispose();
  });

  cudaTest('stream order: a chain of ops without synchronizing, and freeing inputs while kernels run', () => {
    torch.manualSeed(5);
    const n = 1 << 22; // 16 MiB of float32 per tensor
    const c = torch.randn([n]);
    const g = c.cuda();
    // Queue work, drop its inputs at once, and let the allocator hand their memory to the next op.
    let gx = g.add(1);
    for (let i = 0; i < 20; i++) {
      const next = gx.add(gx, { alpha: 0.5 });
      gx.dispose();
      gx = next;
    }
    let cx = c.add(1);
    for (let i = 0; i < 20; i++) {
      const next = cx.add(cx, { alpha: 0.5 });
      cx.dispose();
      cx = next;
    }
    const fresh = torch.empty([n], { device: 'cuda' }); // reuses a freed block, in stream order
    fresh.copy_(gx);
    expectSame(fresh, cx, 1e-6, 'chain');
    [c, g, gx, cx, fresh].forEach((t) => t.dispose());
    torch.cuda.synchronize();
  });

  cudaTest('views count their storage once in the cuda statistics', async () => {
    await settleAllocator(); // the device's counter is read: no garbage of other tests may be freed meanwhile
    const before = torch.cuda.memoryAllocated(0);
    const a = torch.zeros([1024, 1024], { device: 'cuda' });
    const grown = torch.cuda.memoryAllocated(0) - before;
    const u = a.unsqueeze(0);
    const views = [a.t(), a.view(-1), a.slice(0, 10), u, u.expand(3, 1024, 1024)];
    expect(torch.cuda.memoryAllocated(0) - before).toBe(grown);
    a.dispose();
    views.forEach((v) => v.dispose());
    expect(torch.cuda.memoryAllocated(0)).toBe(before);
  });

  cudaTest('printing names the device; errors name both devices', () => {
    const g = torch.tensor([[0.5, -1], [2, 3]], { device: 'cuda', dtype: 'bfloat16' });
    expect(String(g)).toBe("tensor([[ 0.5000, -1.0000],\n        [ 2.0000,  3.0000]], device='cuda:0', dtype=torch.bfloat16)");
    const c = torch.ones([2, 2]);
    expect(() => g.add(c)).toThrow('add: expected all tensors on one device, got cuda:0 and cpu');
    [g, c].forEach((t) => t.dispose());
  });
});
