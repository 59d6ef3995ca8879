/**
 * The launch paths of the CUDA kernels, each against the CPU result on the
 * same inputs: vector (16-byte) and scalar elementwise paths (aligned,
 * misaligned, odd tails, in place), reductions (split over blocks, a warp or
 * a block per row, a thread per output), softmax/logSoftmax and
 * layerNorm/rmsNorm rows (a warp per row in registers, a block per row with
 * the row in shared memory, a block per row reading it again, strided rows),
 * copies (tiled transposes, batched, with casts, general strides), sort and
 * topk of rows up to and beyond one block's 2048 elements, scatterAdd on
 * every numeric dtype and scatterReduce on every dtype (atomic max/min,
 * compare-and-swap products and 8/16-bit updates). Skipped, with the reason, where CUDA is unavailable.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cuda
 */
import * as torch from '../../native/index';
import { cudaTest } from '../skip';

type T = torch.Tensor;
const FLOATS: torch.DType[] = ['float32', 'float64', 'float16', 'bfloat16'];
/** [rtol, atol] per dtype: float results differ by a few ulps between devices (exp, erf, summation order). */
const TOL: Record<string, [number, number]> = {
  float32: [2e-5, 1e-6],
  float64: [1e-12, 1e-12],
  float16: [4e-3, 2e-3],
  bfloat16: [2e-2, 1e-2],
};

function values(t: T): number[] {
  const c = t.device === 'cpu' ? t : t.cpu();
  const out = Array.from(c.toArray() as ArrayLike<number | bigint | boolean>, (v) => Number(v));
  if (c !== t) c.dispose();
  return out;
}

/** Shape, dtype and device first; then every element within rtol/atol (exact for integers and bool). */
function expectClose(gpu: T, cpu: T, what: string, tol?: [number, number]): void {
  expect({ what, shape: gpu.shape, dtype: gpu.dtype, device: gpu.device }).toEqual({
    what, shape: cpu.shape, dtype: cpu.dtype, device: 'cuda:0',
  });
  const [rtol, atol] = tol ?? TOL[cpu.dtype] ?? [0, 0];
  const a = values(gpu);
  const b = values(cpu);
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    if (a[i] === b[i]) continue;
    const err = Math.abs(a[i] - b[i]);
    if (!(err <= atol + rtol * Math.abs(b[i])))
      throw new Error(`${what}: cuda ${a[i]} vs cpu ${b[i]} at element ${i} of ${a.length} (rtol ${rtol}, atol ${atol})`);
  }
}

/** Random values of a dtype on cpu: normal * 3 for floats, integers in [-50, 50) (or [0, 50)). */
function sample(shape: number[], dtype: torch.DType = 'float32'): T {
  return torch.tidy(() => {
    if (dtype === 'bool') return torch.randint(0, 2, shape).bool();
    if (FLOATS.includes(dtype)) return torch.randn(shape).mul(3).to(dtype);
    return torch.randint(dtype === 'uint8' ? 0 : -50, 50, shape).to(dtype);
  });
}

/** Runs f on x (cpu) and on x copied to cuda, and compares. */
function sameOnCuda(what: string, xs: T[], f: (...a: T[]) => T, tol?: [number, number]): void {
  torch.tidy(() => {
    const cpu = f(...xs);
    const gpu = f(...xs.map((x) => x.cuda()));
    expectClose(gpu, cpu, what, tol);
  });
}

beforeAll(() => torch.manualSeed(20261201));

describe('cuda elementwise: vector and scalar paths', () => {
  // Lengths around the vector widths (2, 4 and 8 elements) and a long one, so tails of every size run.
  const lengths = [1, 3, 4, 7, 8, 9, 15, 17, 31, 1000, 100003];

  cudaTest('add, mul, gelu (exact and tanh), exp on contiguous, aligned tensors with odd tails', () => {
    for (const dtype of FLOATS) {
      for (const n of lengths) {
        const a = sample([n], dtype);
        const b = sample([n], dtype);
        sameOnCuda(`add ${dtype} [${n}]`, [a, b], (x, y) => x.add(y));
        sameOnCuda(`mul ${dtype} [${n}]`, [a, b], (x, y) => x.mul(y));
        sameOnCuda(`gelu ${dtype} [${n}]`, [a], (x) => torch.gelu(x));
        sameOnCuda(`gelu tanh ${dtype} [${n}]`, [a], (x) => torch.gelu(x, { approximate: 'tanh' }));
        sameOnCuda(`exp ${dtype} [${n}]`, [a], (x) => x.div(4).exp());
        [a, b].forEach((t) => t.dispose());
      }
    }
  });

  cudaTest('long contiguous tensors whose length is not a multiple of the vector width: a vector launch and a tail launch', () => {
    for (const dtype of ['float32', 'float16'] as torch.DType[]) {
      for (const n of [(1 << 20) + 1, (1 << 20) + 7]) {
        const a = sample([n], dtype);
        const b = sample([n], dtype);
        sameOnCuda(`add ${dtype} [${n}]`, [a, b], (x, y) => x.add(y));
        sameOnCuda(`gelu ${dtype} [${n}]`, [a], (x) => torch.gelu(x));
        sameOnCuda(`add_ in place ${dtype} [${n}]`, [a, b], (x, y) => x.clone().add_(y));
        [a, b].forEach((t) => t.dispose());
      }
    }
  });

  cudaTest('misaligned operands (views one element in) take the scalar path, alone or mixed with aligned ones', () => {
    for (const dtype of ['float32', 'float16', 'float64'] as torch.DType[]) {
      const a = sample([1029], dtype);
      const b = sample([1029], dtype);
      sameOnCuda(`both misaligned ${dtype}`, [a, b], (x, y) => x.slice(0, 1).add(y.slice(0, 1)));
      sameOnCuda(`one misaligned ${dtype}`, [a, b], (x, y) => x.slice(0, 1).mul(y.slice(0, 0, 1028)));
      sameOnCuda(`misaligned gelu ${dtype}`, [a], (x) => torch.gelu(x.slice(0, 3)));
      sameOnCuda(`aligned view ${dtype}`, [a, b], (x, y) => x.slice(0, 8, 1020).add(y.slice(0, 16, 1028)));
      [a, b].forEach((t) => t.dispose());
    }
  });

  cudaTest('integer, bool-output and mixed-width operands; a broadcast number', () => {
    for (const dtype of ['int8', 'uint8', 'int16', 'int32', 'int64'] as torch.DType[]) {
      const a = sample([1000003], dtype);
      const b = sample([1000003], dtype);
      sameOnCuda(`add ${dtype}`, [a, b], (x, y) => x.add(y));
      sameOnCuda(`mul by a number ${dtype}`, [a], (x) => x.mul(3));
      sameOnCuda(`gt ${dtype}`, [a, b], (x, y) => x.gt(y));
      [a, b].forEach((t) => t.dispose());
    }
    const f = sample([4099]);
    sameOnCuda('float32 gt gives bool', [f], (x) => x.gt(0.5));
    sameOnCuda('logicalNot of float32', [f], (x) => torch.logicalNot(x.gt(0)));
    const m = sample([4099], 'bool');
    sameOnCuda('where(bool, float32, float32)', [m, f], (c, x) => torch.where(c, x, x.neg()));
    [f, m].forEach((t) => t.dispose());
  });

  cudaTest('in-place ops write through on aligned and misaligned views', () => {
    for (const start of [0, 1, 4]) {
      const a = sample([2053]);
      const b = sample([2053]);
      sameOnCuda(`add_ from ${start}`, [a, b], (x, y) => {
        const z = x.clone();
        z.slice(0, start).add_(y.slice(0, start));
        return z;
      });
      [a, b].forEach((t) => t.dispose());
    }
  });
});

describe('cuda reductions: split, rows and thread-per-output paths', () => {
  cudaTest('over all elements (split across blocks), aligned and misaligned starts, every kind of reducer', () => {
    for (const n of [65536, 1000003, 4194311]) {
      const x = sample([n]);
      for (const start of [0, 1, 3]) {
        const v = (t: T) => t.slice(0, start);
        sameOnCuda(`sum [${n}] from ${start}`, [x], (t) => v(t).sum());
        sameOnCuda(`mean [${n}] from ${start}`, [x], (t) => v(t).mean());
        sameOnCuda(`amax [${n}] from ${start}`, [x], (t) => v(t).amax());
        sameOnCuda(`amin [${n}] from ${start}`, [x], (t) => v(t).amin());
        sameOnCuda(`argmax [${n}] from ${start}`, [x], (t) => torch.argmax(v(t)));
        sameOnCuda(`var [${n}] from ${start}`, [x], (t) => torch.var(v(t)), [1e-5, 1e-6]);
        sameOnCuda(`std [${n}] from ${start}`, [x], (t) => torch.std(v(t)), [1e-5, 1e-6]);
        sameOnCuda(`norm [${n}] from ${start}`, [x], (t) => torch.norm(v(t)));
        sameOnCuda(`logsumexp [${n}] from ${start}`, [x], (t) => torch.logsumexp(v(t), 0));
        sameOnCuda(`any [${n}] from ${start}`, [x], (t) => torch.any(v(t).gt(11)));
        sameOnCuda(`all [${n}] from ${start}`, [x], (t) => torch.all(v(t).gt(-100)));
      }
      x.dispose();
    }
    for (const dtype of ['float16', 'bfloat16', 'float64', 'int32', 'int64', 'int8', 'bool'] as torch.DType[]) {
      const x = sample([300007], dtype);
      sameOnCuda(`sum ${dtype}`, [x], (t) => t.sum(), dtype === 'bfloat16' ? [2e-2, 2] : dtype === 'float16' ? [4e-3, 1] : undefined);
      sameOnCuda(`amax ${dtype}`, [x], (t) => t.amax());
      sameOnCuda(`argmin ${dtype} (ties: the first)`, [x], (t) => torch.argmin(t));
      x.dispose();
    }
  });

  cudaTest('over the last dim: short rows (thread per output), warp rows, block rows, few long rows (split)', () => {
    const shapes = [[1000, 5], [300, 16], [300, 17], [257, 33], [50, 1000], [20, 4096], [20, 4097], [9, 70001], [3, 5, 4100]];
    for (const shape of shapes) {
      for (const dtype of ['float32', 'float16', 'int32'] as torch.DType[]) {
        const x = sample(shape, dtype);
        const tol: [number, number] | undefined = dtype === 'float16' ? [4e-3, 2e-2] : undefined;
        sameOnCuda(`sum(-1) ${dtype} [${shape}]`, [x], (t) => t.sum(-1), tol);
        sameOnCuda(`amax(-1) ${dtype} [${shape}]`, [x], (t) => t.amax(-1));
        sameOnCuda(`argmax(-1) ${dtype} [${shape}]`, [x], (t) => torch.argmax(t, -1));
        sameOnCuda(`max(-1).indices ${dtype} [${shape}]`, [x], (t) => torch.max(t, -1).indices);
        if (dtype !== 'int32') {
          sameOnCuda(`mean(-1) ${dtype} [${shape}]`, [x], (t) => t.mean(-1), tol);
          sameOnCuda(`var(-1) ${dtype} [${shape}]`, [x], (t) => torch.var(t, -1), dtype === 'float32' ? [1e-5, 1e-6] : tol);
          sameOnCuda(`logsumexp(-1) ${dtype} [${shape}]`, [x], (t) => torch.logsumexp(t, -1), tol);
        }
        x.dispose();
      }
    }
  });

  cudaTest('over leading and middle dims, and over views', () => {
    const a = sample([1000, 37]);
    const b = sample([70001, 3]);
    const c = sample([4, 300, 5]);
    sameOnCuda('sum(0) [1000, 37]', [a], (t) => t.sum(0));
    sameOnCuda('argmax(0) [1000, 37]', [a], (t) => torch.argmax(t, 0));
    sameOnCuda('sum(0) [70001, 3] (split, strided)', [b], (t) => t.sum(0));
    sameOnCuda('amin(0) [70001, 3] (split, strided)', [b], (t) => t.amin(0));
    sameOnCuda('sum(1) [4, 300, 5]', [c], (t) => t.sum(1));
    sameOnCuda('sum([0, 2]) [4, 300, 5]', [c], (t) => t.sum([0, 2]));
    sameOnCuda('sum(1) of a transpose', [a], (t) => t.t().sum(1));
    sameOnCuda('sum of a sliced transpose', [a], (t) => t.t().slice(1, 3, 900).sum());
    sameOnCuda('mean(-1) keepdim of a step slice', [a], (t) => t.slice(1, 0, 37, 2).mean(-1, { keepdim: true }));
    [a, b, c].forEach((t) => t.dispose());
  });
});

describe('cuda softmax, logSoftmax, layerNorm, rmsNorm rows', () => {
  // Warp rows (<= 1024, lanes holding 1..32 elements; 16-byte accesses where the length is a multiple of
  // the vector width), block rows cached in shared memory (float: <= 11264 elements, double: <= 5632),
  // block rows read again beyond. Rows of exactly 32 * 2^k elements take the warp kernel without bounds checks.
  const lengths = [1, 7, 32, 33, 100, 256, 512, 1000, 1024, 1025, 3000, 5632, 5633, 11264, 11265, 20000];

  cudaTest('softmax and logSoftmax along the last dim, every floating dtype', () => {
    for (const n of lengths) {
      const rows = n > 5000 ? 3 : 37;
      for (const dtype of FLOATS) {
        const x = sample([rows, n], dtype);
        sameOnCuda(`softmax ${dtype} [${rows}, ${n}]`, [x], (t) => torch.softmax(t, -1));
        sameOnCuda(`logSoftmax ${dtype} [${rows}, ${n}]`, [x], (t) => torch.logSoftmax(t, -1));
        x.dispose();
      }
    }
  });

  cudaTest('softmax of strided rows (dim 0), of a batch, and of rows with -inf and NaN', () => {
    const x = sample([300, 7]);
    sameOnCuda('softmax dim 0', [x], (t) => torch.softmax(t, 0));
    sameOnCuda('logSoftmax dim 0', [x], (t) => torch.logSoftmax(t, 0));
    const z = sample([9, 1032]);
    for (const dtype of FLOATS) {
      const zd = z.to(dtype);
      sameOnCuda(`softmax of aligned row slices ${dtype}`, [zd], (t) => torch.softmax(t.slice(1, 8, 1032), -1));
      sameOnCuda(`logSoftmax of misaligned row slices ${dtype}`, [zd], (t) => torch.logSoftmax(t.slice(1, 1, 1001), -1));
      sameOnCuda(`softmax of every other row ${dtype}`, [zd], (t) => torch.softmax(t.slice(0, 0, 9, 2), -1));
      zd.dispose();
    }
    z.dispose();
    const y = sample([4, 5, 1500]);
    sameOnCuda('softmax batch [4, 5, 1500]', [y], (t) => torch.softmax(t, -1));
    const special = torch.tensor([
      [-Infinity, -Infinity, -Infinity, -Infinity],
      [1, NaN, 2, 3],
      [-Infinity, 0, 1, 2],
      [1000, 1000, -1000, 0],
    ]);
    sameOnCuda('softmax of -inf, NaN and large rows', [special], (t) => torch.softmax(t, -1));
    sameOnCuda('logSoftmax of -inf, NaN and large rows', [special], (t) => torch.logSoftmax(t, -1));
    const wide = torch.full([2, 3000], -Infinity);
    sameOnCuda('softmax of a long -inf row', [wide], (t) => torch.softmax(t, -1));
    [x, y, special, wide].forEach((t) => t.dispose());
  });

  cudaTest('layerNorm (with and without weight and bias) and rmsNorm, every floating dtype', () => {
    for (const n of lengths) {
      const rows = n > 5000 ? 3 : 29;
      for (const dtype of FLOATS) {
        const x = sample([rows, n], dtype);
        const w = sample([n], dtype);
        const b = sample([n], dtype);
        const tol: [number, number] = dtype === 'float32' ? [1e-4, 1e-5] : TOL[dtype];
        sameOnCuda(`layerNorm ${dtype} [${rows}, ${n}]`, [x], (t) => torch.layerNorm(t, [n]), tol);
        sameOnCuda(`layerNorm affine ${dtype} [${rows}, ${n}]`, [x, w, b], (t, ww, bb) => torch.layerNorm(t, [n], ww, bb), tol);
        sameOnCuda(`rmsNorm ${dtype} [${rows}, ${n}]`, [x], (t) => torch.rmsNorm(t, [n]), tol);
        sameOnCuda(`rmsNorm weight ${dtype} [${rows}, ${n}]`, [x, w], (t, ww) => torch.rmsNorm(t, [n], ww), tol);
        [x, w, b].forEach((t) => t.dispose());
      }
    }
    const c = sample([6, 10, 12]);
    sameOnCuda('layerNorm over two dims', [c], (t) => torch.layerNorm(t, [10, 12]), [1e-4, 1e-5]);
    c.dispose();
  });

  cudaTest('nativeLayerNorm mean and rstd on each path (warp rows, cached and uncached block rows), float32 for 16-bit inputs', () => {
    for (const n of lengths) {
      const rows = n > 5000 ? 3 : 29;
      for (const dtype of FLOATS) {
        torch.tidy(() => {
          const x = sample([rows, n], dtype);
          const [out, mean, rstd] = torch.nativeLayerNorm(x.cuda(), [n]);
          const stat = dtype === 'float64' ? 'float64' : 'float32';
          expect([mean.dtype, rstd.dtype, mean.shape, rstd.shape]).toEqual([stat, stat, [rows, 1], [rows, 1]]);
          // The reference: the statistics of the same values, in the statistics' dtype on cpu.
          const xs = x.to(stat);
          const wantMean = xs.mean(-1, { keepdim: true });
          const wantRstd = xs.sub(wantMean).pow(2).mean(-1, { keepdim: true }).add(1e-5).rsqrt();
          const tol: [number, number] = dtype === 'float64' ? [1e-12, 1e-12] : [1e-4, 1e-5];
          expectClose(mean, wantMean, `mean ${dtype} [${rows}, ${n}]`, tol);
          expectClose(rstd, wantRstd, `rstd ${dtype} [${rows}, ${n}]`, tol);
          expectClose(out, torch.layerNorm(x, [n]), `out ${dtype} [${rows}, ${n}]`, dtype === 'float32' ? [1e-4, 1e-5] : TOL[dtype]);
        });
      }
    }
  });

  cudaTest('layerNorm backward from the saved mean and rstd, on each path', () => {
    for (const n of [7, 1000, 3000, 20000]) {
      for (const dtype of ['float32', 'float64', 'float16', 'bfloat16'] as torch.DType[]) {
        torch.tidy(() => {
          const x = sample([5, n], dtype);
          const w = sample([n], dtype);
          const b = sample([n], dtype);
          const g = sample([5, n], dtype);
          const grads = (dev: string): T[] => {
            const xx = x.detach().to(dev).requiresGrad_();
            const ww = w.detach().to(dev).requiresGrad_();
            const bb = b.detach().to(dev).requiresGrad_();
            torch.layerNorm(xx, [n], ww, bb).backward(g.to(dev));
            return [xx.grad!, ww.grad!, bb.grad!];
          };
          const cpu = grads('cpu');
          const gpu = grads('cuda');
          const tol: [number, number] = dtype === 'float32' ? [1e-3, 1e-3] : dtype === 'float64' ? [1e-10, 1e-10] : [5e-2, 5e-2];
          ['input', 'weight', 'bias'].forEach((what, i) => expectClose(gpu[i], cpu[i], `layerNorm grad ${what} ${dtype} [5, ${n}]`, tol));
        });
      }
    }
  });
});

describe('cuda copies: tiled transposes and strided paths', () => {
  const DTYPES: torch.DType[] = ['uint8', 'bool', 'float16', 'bfloat16', 'int16', 'float32', 'int32', 'float64', 'int64'];

  cudaTest('t().contiguous() of 2-D tensors, tile-aligned and not, every element size', () => {
    for (const [r, c] of [[33, 65], [64, 64], [1000, 17], [16, 1000], [1025, 2049], [5, 3]]) {
      for (const dtype of DTYPES) {
        const x = sample([r, c], dtype);
        sameOnCuda(`t() ${dtype} [${r}, ${c}]`, [x], (t) => t.t().contiguous(), [0, 0]);
        x.dispose();
      }
    }
  });

  cudaTest('batched transposes, permutes, sliced sources, writes into transposed views, casts', () => {
    const x = sample([3, 40, 50]);
    sameOnCuda('transpose(1, 2) batched', [x], (t) => t.transpose(1, 2).contiguous(), [0, 0]);
    sameOnCuda('transpose(0, 2)', [x], (t) => t.transpose(0, 2).contiguous(), [0, 0]);
    sameOnCuda('permute(2, 0, 1)', [x], (t) => t.permute(2, 0, 1).contiguous(), [0, 0]);
    sameOnCuda('permute(1, 0, 2)', [x], (t) => t.permute(1, 0, 2).contiguous(), [0, 0]);
    sameOnCuda('sliced transpose', [x], (t) => t.slice(1, 3, 37).slice(2, 1, 49, 1).transpose(1, 2).contiguous(), [0, 0]);
    sameOnCuda('step-sliced transpose', [x], (t) => t.slice(2, 0, 50, 2).transpose(1, 2).contiguous(), [0, 0]);
    sameOnCuda('copy_ into a transposed view', [x], (t) => {
      const out = torch.zeros([3, 50, 40], { device: t.device });
      out.transpose(1, 2).copy_(t);
      return out;
    }, [0, 0]);
    sameOnCuda('transpose with a cast to bfloat16', [x], (t) => t.transpose(1, 2).to('bfloat16'), [0, 0]);
    sameOnCuda('transpose with a cast to int32', [x], (t) => t.transpose(1, 2).to('int32'), [0, 0]);
    sameOnCuda('expand then contiguous', [x], (t) => t.select(0, 1).unsqueeze(0).expand(4, 40, 50).contiguous(), [0, 0]);
    const big = sample([4, 130, 70], 'float16');
    sameOnCuda('batched half transpose', [big], (t) => t.transpose(-1, -2).contiguous(), [0, 0]);
    [x, big].forEach((t) => t.dispose());
  });
});

describe('cuda sort and topk beyond one block', () => {
  function sortBoth(what: string, x: T, dim: number, descending: boolean): void {
    torch.tidy(() => {
      const c = torch.sort(x, dim, descending);
      const g = torch.sort(x.cuda(), dim, descending);
      expectClose(g.values, c.values, `${what} values`, [0, 0]);
      expectClose(g.indices, c.indices, `${what} indices`, [0, 0]);
    });
  }

  cudaTest('rows of 2048 and fewer, and of 2049 to 70000 elements, ascending and descending', () => {
    for (const n of [1, 5, 2047, 2048, 2049, 4096, 5000, 70001]) {
      const x = sample([n > 5000 ? 2 : 3, n]);
      sortBoth(`sort [${x.shape}]`, x, -1, false);
      sortBoth(`sort descending [${x.shape}]`, x, -1, true);
      x.dispose();
    }
  });

  cudaTest('long rows with ties (stable), NaN, other dtypes, and along a strided dim', () => {
    const ties = torch.randint(0, 5, [2, 6000]).float();
    sortBoth('ties', ties, -1, false);
    sortBoth('ties descending', ties, -1, true);
    const nan = sample([1, 3000]);
    nan.slice(1, 100, 2000, 97).fill_(NaN);
    sortBoth('NaN last', nan, -1, false);
    sortBoth('NaN first descending', nan, -1, true);
    for (const dtype of ['float16', 'bfloat16', 'float64', 'int32', 'int64', 'int8'] as torch.DType[]) {
      const x = sample([2, 4100], dtype);
      sortBoth(`sort ${dtype}`, x, -1, false);
      x.dispose();
    }
    const cols = sample([3000, 3]);
    sortBoth('sort along dim 0', cols, 0, false);
    [ties, nan, cols].forEach((t) => t.dispose());
  });

  cudaTest('topk and argsort of long rows', () => {
    const x = sample([3, 5000]);
    torch.tidy(() => {
      for (const k of [1, 10, 4999, 5000]) {
        const c = torch.topk(x, k);
        const g = torch.topk(x.cuda(), k);
        expectClose(g.values, c.values, `topk ${k} values`, [0, 0]);
        expectClose(g.indices, c.indices, `topk ${k} indices`, [0, 0]);
        const cs = torch.topk(x, k, -1, false);
        const gs = torch.topk(x.cuda(), k, -1, false);
        expectClose(gs.indices, cs.indices, `smallest ${k} indices`, [0, 0]);
      }
      expectClose(torch.argsort(x.cuda(), 1), torch.argsort(x, 1), 'argsort', [0, 0]);
    });
    x.dispose();
  });

  cudaTest('what composes over sort on long rows: stable argsort, median, nanmedian, kthvalue, mode, quantile', () => {
    torch.tidy(() => {
      const x = sample([3, 6001]);
      const ties = torch.randint(0, 7, [2, 9000]).float();
      const withNan = sample([2, 4500]);
      withNan.slice(1, 10, 4000, 13).fill_(NaN);
      for (const [what, t] of [['distinct', x], ['ties', ties]] as [string, T][]) {
        expectClose(torch.argsort(t.cuda(), -1, false, true), torch.argsort(t, -1, false, true), `stable argsort ${what}`, [0, 0]);
        expectClose(torch.argsort(t.cuda(), -1, true, true), torch.argsort(t, -1, true, true), `stable argsort descending ${what}`, [0, 0]);
        const mc = torch.median(t, -1), mg = torch.median(t.cuda(), -1);
        expectClose(mg.values, mc.values, `median values ${what}`, [0, 0]);
        expectClose(mg.indices, mc.indices, `median indices ${what}`, [0, 0]);
        for (const k of [1, 2500, t.shape[1]]) {
          const kc = torch.kthvalue(t, k), kg = torch.kthvalue(t.cuda(), k);
          expectClose(kg.values, kc.values, `kthvalue ${k} values ${what}`, [0, 0]);
          expectClose(kg.indices, kc.indices, `kthvalue ${k} indices ${what}`, [0, 0]);
        }
        expectClose(torch.quantile(t.cuda(), 0.3, -1), torch.quantile(t, 0.3, -1), `quantile ${what}`);
      }
      const oc = torch.mode(ties, -1), og = torch.mode(ties.cuda(), -1);
      expectClose(og.values, oc.values, 'mode values', [0, 0]);
      expectClose(og.indices, oc.indices, 'mode indices', [0, 0]);
      const nc = torch.nanmedian(withNan, -1), ng = torch.nanmedian(withNan.cuda(), -1);
      expectClose(ng.values, nc.values, 'nanmedian values', [0, 0]);
      expectClose(ng.indices, nc.indices, 'nanmedian indices', [0, 0]);
      const pc = torch.median(withNan, -1), pg = torch.median(withNan.cuda(), -1);
      expectClose(pg.values, pc.values, 'median with NaN values', [0, 0]);
    });
  });
});

describe('cuda scatterAdd on every numeric dtype', () => {
  cudaTest('16-bit floats and narrow integers with repeated indices (atomic adds on one element)', () => {
    // Small integers: every sum is exact in each dtype, whatever the order of the atomic adds.
    for (const dtype of ['float16', 'bfloat16', 'int8', 'uint8', 'int16', 'float32', 'float64', 'int32', 'int64'] as torch.DType[]) {
      torch.tidy(() => {
        const self = torch.randint(0, 4, [6, 9]).to(dtype);
        const src = torch.randint(0, 3, [40, 9]).to(dtype);
        const index = torch.randint(0, 6, [40, 9]);
        sameOnCuda(`scatterAdd dim 0 ${dtype}`, [self, index, src], (s, i, v) => s.scatterAdd(0, i, v), [0, 0]);
        const idx1 = torch.randint(0, 9, [6, 30]);
        const src1 = torch.randint(0, 3, [6, 30]).to(dtype);
        sameOnCuda(`scatterAdd dim 1 ${dtype}`, [self, idx1, src1], (s, i, v) => s.scatterAdd(1, i, v), [0, 0]);
        // Neighbouring bytes of one 32-bit word updated at once (the compare-and-swap path of 8/16-bit types).
        const line = torch.zeros([8], { dtype });
        const many = torch.arange(0, 4000).remainder(8).long();
        const ones = torch.ones([4000], { dtype });
        sameOnCuda(`scatterAdd neighbours ${dtype}`, [line, many, ones], (s, i, v) => s.scatterAdd(0, i, v), [0, 0]);
      });
    }
  });
});

describe('cuda indexAdd on 16-bit floats (scatterAdd\'s atomics)', () => {
  cudaTest('float16 and bfloat16, repeated indices, with alpha, along dims 0 and 1', () => {
    for (const dtype of ['float16', 'bfloat16'] as torch.DType[]) {
      torch.tidy(() => {
        // Small integers: every sum is exact in both dtypes, whatever the order of the atomic adds.
        const self = torch.randint(0, 4, [7, 5]).to(dtype);
        const index = torch.randint(0, 7, [60]);
        const source = torch.randint(0, 3, [60, 5]).to(dtype);
        sameOnCuda(`indexAdd dim 0 ${dtype}`, [self, index, source], (s, i, v) => s.indexAdd(0, i, v), [0, 0]);
        sameOnCuda(`indexAdd dim 0 alpha 2 ${dtype}`, [self, index, source], (s, i, v) => s.indexAdd(0, i, v, { alpha: 2 }), [0, 0]);
        const index1 = torch.randint(0, 5, [40]);
        const source1 = torch.randint(0, 3, [7, 40]).to(dtype);
        sameOnCuda(`indexAdd dim 1 ${dtype}`, [self, index1, source1], (s, i, v) => s.indexAdd(1, i, v), [0, 0]);
      });
    }
  });
});

describe('cuda scatterReduce on every dtype', () => {
  const DTYPES: torch.DType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool'];
  /** 0/1 values (and 2 for sums): every sum, product, max and min is exact in each dtype, whatever the order of the atomics. */
  const small = (shape: number[], dtype: torch.DType, high: number): T => torch.tidy(() => torch.randint(0, high, shape).to(dtype));

  cudaTest('sum, prod, mean, amax, amin with and without self, many updates of each target and of neighbouring bytes', () => {
    for (const dtype of DTYPES) {
      for (const reduce of ['sum', 'prod', 'mean', 'amax', 'amin'] as torch.ScatterReduction[]) {
        if (dtype === 'bool' && reduce === 'mean') continue;
        for (const includeSelf of [true, false]) {
          torch.tidy(() => {
            const what = `scatterReduce ${reduce} includeSelf ${includeSelf} ${dtype}`;
            const high = reduce === 'sum' || reduce === 'mean' ? 3 : 2;
            const self = small([6, 9], dtype, high);
            const index = torch.randint(0, 6, [40, 9]);
            const src = small([40, 9], dtype, high);
            sameOnCuda(`${what} dim 0`, [self, index, src], (s, i, v) => s.scatterReduce(0, i, v, reduce, { includeSelf }), [0, 0]);
            // 4000 updates of 8 neighbouring elements (one or two 32-bit words for 1- and 2-byte dtypes).
            const line = small([8], dtype, 2);
            const many = torch.arange(0, 4000).remainder(8).long();
            const vals = small([4000], dtype, 2);
            sameOnCuda(`${what} neighbours`, [line, many, vals], (s, i, v) => s.scatterReduce(0, i, v, reduce, { includeSelf }), [0, 0]);
          });
        }
      }
    }
  });

  cudaTest('amax and amin of random floats are exact (no rounding), NaN from self or src propagates', () => {
    for (const dtype of ['float32', 'float64', 'float16', 'bfloat16'] as torch.DType[]) {
      torch.tidy(() => {
        const self = torch.randn([5, 33]).to(dtype);
        const index = torch.randint(0, 5, [300, 33]);
        const src = torch.randn([300, 33]).to(dtype);
        const nanSelf = torch.where(self.gt(1.5), NaN, self);
        const nanSrc = torch.where(src.gt(2.5), NaN, src);
        for (const reduce of ['amax', 'amin'] as torch.ScatterReduction[]) {
          sameOnCuda(`${reduce} ${dtype}`, [self, index, src], (s, i, v) => s.scatterReduce(0, i, v, reduce), [0, 0]);
          sameOnCuda(`${reduce} ${dtype} with NaN`, [nanSelf, index, nanSrc], (s, i, v) => s.scatterReduce(0, i, v, reduce), [0, 0]);
        }
      });
    }
  });

  cudaTest("scatter with reduce 'add' and 'multiply' (a number source), and scatterReduce_ into a strided view", () => {
    for (const dtype of ['float32', 'int32', 'int64', 'uint8'] as torch.DType[]) {
      torch.tidy(() => {
        const self = small([6, 9], dtype, 3);
        const index = torch.randint(0, 6, [20, 9]);
        const src = small([20, 9], dtype, 3);
        sameOnCuda(`scatter add ${dtype}`, [self, index, src], (s, i, v) => s.scatter(0, i, v, { reduce: 'add' }), [0, 0]);
        sameOnCuda(`scatter multiply by 2 ${dtype}`, [self, index], (s, i) => s.scatter(0, i, 2, { reduce: 'multiply' }), [0, 0]);
        sameOnCuda(`scatterReduce_ into a transpose ${dtype}`, [self, index, src], (s, i, v) => {
          const t = s.t().contiguous();
          t.t().scatterReduce_(0, i, v, 'amax', { includeSelf: false });
          return t;
        }, [0, 0]);
      });
    }
  });
});
