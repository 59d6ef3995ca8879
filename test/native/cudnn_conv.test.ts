/**
 * cuDNN's convolutions (native/ops/cudnn.ts, native/src/ops/cuda/cudnn_conv.cu): torch.backends.cudnn's
 * defaults and what it says where cuDNN is missing (here, on any machine); on CUDA, conv2d and convTranspose2d
 * forward and backward through cuDNN against the CPU in every floating dtype, with TF32 and without, the
 * same with cuDNN turned off (the im2col path), benchmark mode choosing an algorithm once per shape and using
 * it again, deterministic mode, the workspace counted by the caching allocator, and a cuDNN status other than
 * success reported with its name and the op's arguments.
 *
 * Run on a GPU machine: node node_modules/jest/bin/jest.js dist/test/native/cudnn_conv
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as torch from '../../native/index';
import { runOp } from '../../native/ops/helpers';
import { cudaTest, testOrSkip, cudaUnavailable } from '../skip';

type T = torch.Tensor;
const F = torch.nn.functional;
const cudnn = torch.backends.cudnn;

function values(t: T): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, (x) => Number(x));
}

/** Largest |a - b| / max(1, |b|) over the elements. */
function worst(a: T, b: T): number {
  const x = values(a), y = values(b);
  let e = 0;
  for (let i = 0; i < x.length; i++) e = Math.max(e, Math.abs(x[i] - y[i]) / Math.max(1, Math.abs(y[i])));
  return e;
}

/** Output and the gradients of sum(out * ramp) with respect to every input, on `dev`. */
function run(dev: string, inputs: T[], dtype: torch.DType, f: (...xs: T[]) => T): T[] {
  const xs = inputs.map((x) => x.to(dev).to(dtype).detach().requiresGrad_(true));
  const y = f(...xs);
  const w = torch.linspace(-1, 1, y.numel, { dtype: y.dtype, device: dev }).reshape(y.shape);
  const g = torch.autograd.grad(y.mul(w).sum(), xs) as T[];
  return [y.detach(), ...g].map((t) => t.to('cpu').double());
}

const CASES: Array<[string, number[][], (...xs: T[]) => T]> = [
  ['3×3, padding 1, bias', [[2, 3, 9, 8], [5, 3, 3, 3], [5]], (x, w, b) => F.conv2d(x, w, b, { padding: 1 })],
  ['strided, dilated, 2 groups', [[2, 4, 11, 10], [6, 2, 3, 2]], (x, w) => F.conv2d(x, w, null, { stride: 2, dilation: [2, 1], groups: 2 })],
  ['1×1 stride 2 (a downsample)', [[3, 8, 7, 7], [16, 8, 1, 1]], (x, w) => F.conv2d(x, w, null, { stride: 2 })],
  ['depthwise 3×3', [[2, 6, 8, 8], [6, 1, 3, 3]], (x, w) => F.conv2d(x, w, null, { padding: 1, groups: 6 })],
  ['unbatched 3-D input', [[3, 6, 6], [4, 3, 3, 3]], (x, w) => F.conv2d(x, w)],
  ["'same' with an odd kernel", [[1, 2, 6, 7], [3, 2, 3, 5]], (x, w) => F.conv2d(x, w, null, { padding: 'same' })],
  ['convTranspose2d, stride 2, output padding 1, bias', [[2, 4, 4, 5], [4, 3, 3, 3], [3]], (x, w, b) => F.convTranspose2d(x, w, b, { stride: 2, padding: 1, outputPadding: 1 })],
  ['convTranspose2d, 2 groups', [[1, 4, 5, 5], [4, 2, 2, 2]], (x, w) => F.convTranspose2d(x, w, null, { stride: 2, groups: 2 })],
];

/** Tolerance relative to max(1, |cpu|) per dtype (16-bit inputs are rounded before either side computes). */
const TOL: Record<string, number> = { float64: 1e-10, float32: 1e-4, float16: 2e-2, bfloat16: 1e-1 };

describe('torch.backends.cudnn', () => {
  test("has PyTorch's defaults: enabled, benchmark off, deterministic off, TF32 allowed", () => {
    expect({ enabled: cudnn.enabled, benchmark: cudnn.benchmark, deterministic: cudnn.deterministic, allowTf32: cudnn.allowTf32 })
      .toEqual({ enabled: true, benchmark: false, deterministic: false, allowTf32: true });
  });

  test('says what it loaded, or where it looked and why it could not load', () => {
    const d = cudnn.description();
    if (cudnn.isAvailable()) {
      expect(d).toMatch(/^cuDNN 9\.\d+\.\d+ \(.*libcudnn\.so\.9\)$/);
      expect(cudnn.version()).toBeGreaterThanOrEqual(90000);
    } else {
      expect(cudnn.version()).toBeNull();
      expect(d).toMatch(/^(not built with CUDA|cuDNN could not be loaded \(looked for .*libcudnn\.so\.9.*\/usr\/local\/cuda\/lib64.*nvidia\/cudnn\/lib.*\): .+)$/);
    }
  });

  test('a file named by TSGPU_CUDNN_LIBRARY is tried first, and its loader error is in the reason', () => {
    const script = `const t = require(${JSON.stringify(path.join(__dirname, '..', '..', 'native', 'index.js'))}); console.log(JSON.stringify([t.backends.cudnn.isAvailable(), t.backends.cudnn.description()]))`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, TSGPU_CUDNN_LIBRARY: '/nonexistent/libcudnn-test.so.9' } });
    expect(r.status).toBe(0);
    const [available, description] = JSON.parse(r.stdout.trim()) as [boolean, string];
    if (description === 'not built with CUDA') return;
    if (available) expect(description).toMatch(/^cuDNN 9/); // a real cuDNN further down the list still loads
    else expect(description).toContain('/nonexistent/libcudnn-test.so.9');
  });
});

const needsCudnn = (): string => cudaUnavailable() || (cudnn.isAvailable() ? '' : `needs cuDNN: ${cudnn.description()}`);

describe('convolutions through cuDNN against the CPU', () => {
  afterEach(() => {
    Object.assign(cudnn, { enabled: true, benchmark: false, deterministic: false, allowTf32: true });
  });

  for (const dtype of ['float32', 'float64', 'float16', 'bfloat16'] as torch.DType[]) {
    testOrSkip(needsCudnn(), `${dtype}: every case's output and gradients, cuDNN and the im2col path, match the CPU`, () => {
      cudnn.allowTf32 = false;
      for (const [name, shapes, f] of CASES) {
        torch.manualSeed(7);
        const inputs = shapes.map((s) => torch.randn(s));
        const cpu = run('cpu', inputs, dtype === 'float64' ? 'float64' : 'float32', f);
        for (const viaCudnn of [true, false]) {
          cudnn.enabled = viaCudnn;
          const gpu = run('cuda', inputs, dtype, f);
          gpu.forEach((t, i) => {
            const e = worst(t, cpu[i]);
            if (!(e <= TOL[dtype])) throw new Error(`${name} (${viaCudnn ? 'cuDNN' : 'im2col'}) ${i === 0 ? 'output' : `gradient ${i - 1}`}: relative error ${e} > ${TOL[dtype]}`);
          });
        }
      }
    });
  }

  testOrSkip(needsCudnn(), 'float32 with TF32 (the default) stays within TF32 rounding of the CPU', () => {
    torch.manualSeed(8);
    const x = torch.randn([4, 16, 12, 12]), w = torch.randn([32, 16, 3, 3]);
    const e = worst(F.conv2d(x.to('cuda'), w.to('cuda'), null, { padding: 1 }).cpu(), F.conv2d(x, w, null, { padding: 1 }));
    expect(e).toBeLessThan(5e-2);
  });

  testOrSkip(needsCudnn(), 'gradients of a float64 cuDNN convolution pass gradcheck', () => {
    torch.manualSeed(9);
    const x = torch.randn([1, 2, 5, 5], { dtype: 'float64', device: 'cuda', requiresGrad: true });
    const w = torch.randn([3, 2, 3, 3], { dtype: 'float64', device: 'cuda', requiresGrad: true });
    expect(torch.autograd.gradcheck((a: T, b: T) => F.conv2d(a, b, null, { stride: 2, padding: 1 }), [x, w])).toBe(true);
    expect(F.conv2d(x, w).gradFn?.name()).toBe('ConvolutionBackward0');
  });

  testOrSkip(needsCudnn(), 'benchmark mode times the algorithms once per shape, then uses its choice again', () => {
    cudnn.clearChoices();
    cudnn.benchmark = true;
    const x = torch.randn([8, 32, 28, 28], { device: 'cuda' }), w = torch.randn([64, 32, 3, 3], { device: 'cuda' });
    for (let i = 0; i < 3; i++) F.conv2d(x, w, null, { padding: 1 }).dispose();
    let cs = cudnn.choices();
    expect(cs.length).toBe(1);
    expect(cs[0]).toMatchObject({ pass: 'forward', benchmarked: true, uses: 3 });
    expect(cs[0].timeMs).toBeGreaterThan(0);
    F.conv2d(x.narrow(0, 0, 4), w, null, { padding: 1 }).dispose(); // another shape: chosen anew
    cs = cudnn.choices();
    expect(cs.map((c) => c.uses)).toEqual([3, 1]);
    cudnn.benchmark = false;
    F.conv2d(x, w, null, { padding: 1 }).dispose(); // benchmark off is another choice, by the heuristics
    expect(cudnn.choices()[2]).toMatchObject({ pass: 'forward', benchmarked: false, timeMs: -1 });
  });

  testOrSkip(needsCudnn(), 'deterministic mode gives the same weight gradient bit for bit, run after run', () => {
    cudnn.deterministic = true;
    torch.manualSeed(10);
    const x = torch.randn([16, 8, 20, 20], { device: 'cuda' }), g = torch.randn([16, 8, 20, 20], { device: 'cuda' });
    const w = torch.randn([8, 8, 3, 3], { device: 'cuda', requiresGrad: true });
    const grads = [0, 1, 2].map(() => {
      const y = F.conv2d(x, w, null, { padding: 1 });
      const [gw] = torch.autograd.grad(y.mul(g).sum(), [w]) as T[];
      return values(gw);
    });
    expect(grads[1]).toEqual(grads[0]);
    expect(grads[2]).toEqual(grads[0]);
    expect(cudnn.choices().filter((c) => c.key.includes(' det')).map((c) => c.pass).sort()).toEqual(expect.arrayContaining(['backwardWeight', 'forward']));
  });

  testOrSkip(needsCudnn(), "the workspace comes from the caching allocator: the call's peak covers it", () => {
    cudnn.clearChoices();
    cudnn.benchmark = true;
    const x = torch.randn([32, 64, 56, 56], { device: 'cuda', dtype: 'bfloat16' }), w = torch.randn([64, 64, 3, 3], { device: 'cuda', dtype: 'bfloat16' });
    F.conv2d(x, w, null, { padding: 1 }).dispose();
    const ws = cudnn.choices()[0].workspaceBytes;
    torch.cuda.synchronize();
    const before = torch.cuda.memoryAllocated();
    torch.cuda.resetPeakMemoryStats();
    const y = F.conv2d(x, w, null, { padding: 1 });
    const outBytes = y.nbytes;
    expect(torch.cuda.maxMemoryAllocated() - before).toBeGreaterThanOrEqual(outBytes + ws);
    expect(torch.cuda.memoryAllocated() - before).toBe(Math.ceil(outBytes / 512) * 512);
    y.dispose();
  });

  testOrSkip(needsCudnn(), "a cuDNN status other than success is an error with the status's name and the op's arguments; the kernel goes on", () => {
    const x = torch.randn([1, 3, 8, 8], { device: 'cuda' }), w = torch.randn([4, 3, 3, 3], { device: 'cuda' });
    const wrong = torch.empty([1, 4, 5, 5], { device: 'cuda' }); // a 3×3 convolution of 8×8 is 6×6
    expect(() => runOp('convolution', [wrong], [x, w], { stride: [1, 1], padding: [0, 0], dilation: [1, 1] }))
      .toThrow(/^convolution: cuDNN's \w+ failed with CUDNN_STATUS_\w+ \(input \[1, 3, 8, 8\] float32, weight \[4, 3, 3, 3\], stride \[1, 1\], padding \[0, 0\], dilation \[1, 1\], groups 1\)$/);
    expect(F.conv2d(x, w).shape).toEqual([1, 4, 6, 6]);
  });

  cudaTest('bad shapes are refused before cuDNN, with the shapes named', () => {
    const x = torch.randn([1, 3, 8, 8], { device: 'cuda' });
    expect(() => F.conv2d(x, torch.randn([4, 2, 3, 3], { device: 'cuda' }))).toThrow(/expected input\[1, 3, 8, 8\] to have 2 channels, but got 3 channels/);
    expect(() => F.conv2d(x, torch.randn([4, 3, 9, 9], { device: 'cuda' }))).toThrow(/Kernel size can't be greater than actual input size/);
    expect(() => F.conv2d(x, torch.randn([4, 1, 3, 3], { device: 'cuda' }), null, { groups: 2 })).toThrow(/Given groups=2/);
    expect(() => F.conv2d(torch.randn([8, 8], { device: 'cuda' }), torch.randn([4, 3, 3, 3], { device: 'cuda' }))).toThrow(/Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[8, 8\] \(2-D\)/);
  });
});
