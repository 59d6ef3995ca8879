/**
 * The multi-tensor optimizer updates (foreach, PyTorch's default on cuda,
 * and fused) against the single-tensor reference (foreach: false) on the
 * same parameters and the same gradients: 5 steps of Adam, Adam with
 * amsgrad and L2 decay, AdamW, AdamW with amsgrad and maximize, SGD, SGD
 * with momentum / dampening / weight decay and Nesterov, in float32,
 * bfloat16 and float16 parameters, give the same parameters and the same
 * state. On cpu through { fused: true } and { foreach: true }; on cuda the
 * default and { fused: true }, with more parameters than one launch's table
 * holds and one longer than its chunks (skipped, with the reason, without a
 * CUDA device). Also the choice of implementation and its errors.
 */
import * as torch from '../../../native/index';
import { cudaTest } from '../../skip';
import { setFusedKernelsOnCuda } from '../../../native/ops/cuda_gates';

// These tests are of the fused CUDA kernels (on by default; TSGPU_CUDA_FUSED=0 turns them off,
// native/ops/cuda_gates.ts): they turn them on whatever the environment says. The native softmax of long rows
// reads the variable at its first call.
process.env.TSGPU_CUDA_FUSED = '1';
setFusedKernelsOnCuda(true);

const { optim } = torch;
type T = torch.Tensor;
type Opt = torch.optim.Optimizer<{ lr: number }>;
type Make = (params: T[], impl: Record<string, boolean | null>) => Opt;

const STEPS = 5;

const makers: Record<string, Make> = {
  'Adam': (p, i) => new optim.Adam(p, { lr: 0.01, ...i }),
  'Adam amsgrad, L2 weight decay, betas': (p, i) => new optim.Adam(p, { lr: 0.02, amsgrad: true, weightDecay: 0.05, betas: [0.8, 0.99], eps: 1e-6, ...i }),
  'AdamW': (p, i) => new optim.AdamW(p, { lr: 0.01, ...i }),
  'AdamW amsgrad maximize': (p, i) => new optim.AdamW(p, { lr: 0.05, weightDecay: 0.1, amsgrad: true, maximize: true, ...i }),
  'SGD': (p, i) => new optim.SGD(p, { lr: 0.1, ...i }),
  'SGD momentum, dampening, weight decay': (p, i) => new optim.SGD(p, { lr: 0.05, momentum: 0.8, dampening: 0.3, weightDecay: 0.01, ...i }),
  'SGD nesterov maximize': (p, i) => new optim.SGD(p, { lr: 0.05, momentum: 0.9, nesterov: true, maximize: true, ...i }),
};

/** Parameters of these shapes (seeded), on `device` in `dtype`. */
function params(shapes: number[][], dtype: torch.DType, device: string): T[] {
  torch.manualSeed(5);
  // Drawn on the device itself (both runs of a comparison draw the same numbers): 17M normals a step on the host
  // would make each CUDA test take seconds.
  return shapes.map((s) => torch.randn(s, { device }).to(dtype).requiresGrad_());
}

/** Runs STEPS steps with the same seeded gradients (one parameter skips step 2: its state lags a step). */
function train(make: Make, impl: Record<string, boolean | null>, shapes: number[][], dtype: torch.DType, device: string): { ps: T[]; opt: Opt } {
  const ps = params(shapes, dtype, device);
  const opt = make(ps, impl);
  for (let s = 0; s < STEPS; s++) {
    torch.manualSeed(100 + s);
    ps.forEach((p, k) => {
      const g = torch.randn(p.shape, { device }).to(dtype);
      p.grad = s === 2 && k === 1 ? null : g;
    });
    opt.step();
  }
  return { ps, opt };
}

/** Largest |a - b| / max(1, |b|). */
function worst(a: T, b: T): number {
  const x = a.detach().float().cpu().toArray() as Float32Array;
  const y = b.detach().float().cpu().toArray() as Float32Array;
  let w = 0;
  for (let i = 0; i < x.length; i++) w = Math.max(w, Math.abs(x[i] - y[i]) / Math.max(1, Math.abs(y[i])));
  return w;
}

// The single-tensor update rounds to the parameter's dtype after each op, the multi-tensor one once: in 16-bit
// dtypes they drift a few units in the last place apart over 5 steps (bfloat16: up to 0.039 seen on cpu).
const TOL: Record<string, number> = { float32: 1e-5, bfloat16: 6e-2, float16: 8e-3 };

/** The multi-tensor run's parameters and state against the reference's. */
function expectSameRuns(name: string, impl: Record<string, boolean | null>, shapes: number[][], dtype: torch.DType, device: string): void {
  const make = makers[name];
  const ref = train(make, { foreach: false }, shapes, dtype, device);
  const got = train(make, impl, shapes, dtype, device);
  const errors: Record<string, number> = {};
  ref.ps.forEach((p, k) => {
    errors[`param ${k}`] = worst(got.ps[k], p);
    const rs = ref.opt.state.get(p) ?? {};
    const gs = got.opt.state.get(got.ps[k]) ?? {};
    expect(Object.keys(gs).sort()).toEqual(Object.keys(rs).sort());
    for (const [key, v] of Object.entries(rs)) {
      if (v instanceof torch.Tensor) {
        expect((gs[key] as T).dtype).toBe(v.dtype);
        errors[`${key} ${k}`] = worst(gs[key] as T, v);
      } else {
        expect(gs[key]).toBe(v);
      }
    }
  });
  const bad = Object.entries(errors).filter(([, e]) => !(e <= TOL[dtype]));
  expect(bad).toEqual([]);
}

describe('multi-tensor updates on cpu against the single-tensor reference', () => {
  const shapes = [[7, 5], [5], [3, 40000], [1]];
  for (const name of Object.keys(makers)) {
    for (const dtype of ['float32', 'bfloat16'] as torch.DType[]) {
      test(`${name}, ${dtype}, fused`, () => expectSameRuns(name, { fused: true }, shapes, dtype, 'cpu'));
    }
    test(`${name}, float32, foreach`, () => expectSameRuns(name, { foreach: true }, shapes, 'float32', 'cpu'));
  }
});

describe('multi-tensor updates on cuda against the single-tensor reference', () => {
  // 40 parameters (more than a launch's table of 32) and one of 17M elements (more than 256 chunks of 64K).
  const shapes = [[17_000_001], ...Array.from({ length: 39 }, (_, k) => [k + 1, 33])];
  for (const name of Object.keys(makers)) {
    for (const dtype of ['float32', 'bfloat16', 'float16'] as torch.DType[]) {
      cudaTest(`${name}, ${dtype}, foreach (the default)`, () => expectSameRuns(name, { foreach: null }, shapes, dtype, 'cuda'), 120_000);
      cudaTest(`${name}, ${dtype}, fused`, () => expectSameRuns(name, { fused: true }, shapes, dtype, 'cuda'), 120_000);
    }
  }
});

describe('choosing the implementation', () => {
  test('foreach and fused together are refused with PyTorch\'s message', () => {
    const [p] = params([[2]], 'float32', 'cpu');
    expect(() => new optim.Adam([p], { foreach: true, fused: true })).toThrow('`fused` and `foreach` cannot be `True` together.');
    expect(() => new optim.SGD([p], { foreach: true, fused: true })).toThrow('`fused` and `foreach` cannot be `True` together.');
  });

  test('on cpu the default is the single-tensor update; fused and foreach call adamStep once per step', () => {
    const dispatch = require('../../../native/ops/dispatch') as typeof import('../../../native/ops/dispatch');
    const spy = jest.spyOn(dispatch, 'runOp');
    const stepCalls = (impl: Record<string, boolean | null>): number => {
      const [p, q] = params([[3, 3], [4]], 'float32', 'cpu');
      const opt = new optim.Adam([p, q], impl);
      p.grad = torch.ones([3, 3]);
      q.grad = torch.ones([4]);
      spy.mockClear();
      opt.step();
      return spy.mock.calls.filter((c) => c[0] === 'adamStep').length;
    };
    try {
      expect({ default: stepCalls({}), fused: stepCalls({ fused: true }), foreach: stepCalls({ foreach: true }), single: stepCalls({ foreach: false }) })
        .toEqual({ default: 0, fused: 1, foreach: 1, single: 0 });
    } finally {
      spy.mockRestore();
    }
  });

  test('state dicts keep foreach and fused under PyTorch\'s keys', () => {
    const [p] = params([[2]], 'float32', 'cpu');
    const opt = new optim.AdamW([p], { fused: true });
    p.grad = torch.ones([2]);
    opt.step();
    const g = opt.stateDict().param_groups[0];
    expect({ foreach: g.foreach, fused: g.fused }).toEqual({ foreach: null, fused: true });
  });
});
