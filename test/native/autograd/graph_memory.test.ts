/**
 * The memory of the graph, measured with the allocator's statistics in a
 * fresh process (nothing else allocates there): what grad mode saves, what
 * noGrad and inferenceMode do not, what backward frees as it goes, and what
 * disposing the output of a graph gives back.
 */
import { runChild } from '../helpers';

/** A 3-layer MLP forward in the child; `mode` wraps it. */
const MLP = `
torch.manualSeed(0);
const W = [torch.randn([256, 128]), torch.randn([256, 256]), torch.randn([10, 256])].map((w) => w.requiresGrad_());
const x = torch.randn([64, 128]);
// Intermediates are freed by tidy (else by the garbage collector, later): the graph keeps what backward needs.
const forward = () => torch.tidy(() => torch.linear(torch.linear(torch.linear(x, W[0]).relu(), W[1]).tanh(), W[2]).sum());
const alloc = () => torch.memory.allocated('cpu');
`;

describe('graph memory', () => {
  test('noGrad and inferenceMode keep no activation: only the output is allocated', () => {
    const r = runChild(`${MLP}
      const base = alloc();
      const a = torch.noGrad(forward);
      const noGrad = alloc() - base;
      a.dispose();
      const b = torch.inferenceMode(forward);
      const inference = alloc() - base;
      b.dispose();
      const g = torch.noGrad(); const c = forward(); g[Symbol.dispose]();
      const guard = alloc() - base;
      c.dispose();
      const out = torch.zeros([]); const outBytes = alloc() - base; out.dispose();
      const y = forward();
      const grad = alloc() - base;
      console.log(JSON.stringify({ noGrad, inference, guard, outBytes, grad, gradFn: y.gradFn.name(), req: a.requiresGrad }));`);
    expect(r.status).toBe(0);
    const m = r.result;
    expect(m.noGrad).toBe(m.outBytes);
    expect(m.inference).toBe(m.outBytes);
    expect(m.guard).toBe(m.outBytes);
    expect(m.req).toBe(false);
    // In grad mode the activations are saved: at least the three hidden layers' outputs (64 × 256 floats each, twice).
    expect(m.grad).toBeGreaterThanOrEqual(m.outBytes + 2 * 64 * 256 * 4);
    expect(m.gradFn).toBe('SumBackward1');
  });

  test('backward frees the saved tensors as it uses them; what stays is the gradients', () => {
    const r = runChild(`${MLP}
      const base = alloc();
      const y = forward();
      const withGraph = alloc() - base;
      y.backward();
      const afterBackward = alloc() - base;
      y.dispose();
      const afterDispose = alloc() - base;
      const gradBytes = W.reduce((n, w) => n + w.grad.untypedStorage().nbytes, 0);
      let err = '';
      try { y.backward(); } catch (e) { err = e.message; }
      for (const w of W) w.grad = null;
      const afterZero = alloc() - base;
      console.log(JSON.stringify({ withGraph, afterBackward, afterDispose, gradBytes, afterZero, err }));`);
    expect(r.status).toBe(0);
    const m = r.result;
    expect(m.afterDispose).toBe(m.gradBytes);
    expect(m.afterBackward - m.afterDispose).toBeLessThanOrEqual(512); // the loss itself
    expect(m.afterZero).toBe(0);
    // The graph holds the two hidden activations (relu's and tanh's outputs, 64 × 256 floats each) and the loss, nothing else.
    expect(m.withGraph).toBe(2 * 64 * 256 * 4 + 512);
    expect(m.err).toMatch(/disposed|backward through the graph a second time/);
  });

  test('disposing the output frees the whole graph behind it, and tidy frees what it does not return', () => {
    const r = runChild(`${MLP}
      const base = alloc();
      const y = forward();
      const held = alloc() - base;
      y.dispose();
      const freed = alloc() - base;
      const z = torch.tidy(() => forward().mul(2));
      const tidyHeld = alloc() - base;
      z.backward();
      z.dispose();
      const gradBytes = W.reduce((n, w) => n + w.grad.untypedStorage().nbytes, 0);
      const end = alloc() - base;
      console.log(JSON.stringify({ held, freed, tidyHeld, gradBytes, end }));`);
    expect(r.status).toBe(0);
    const m = r.result;
    expect(m.held).toBeGreaterThanOrEqual(2 * 64 * 256 * 4);
    expect(m.freed).toBe(0);
    expect(m.tidyHeld).toBeGreaterThanOrEqual(2 * 64 * 256 * 4); // the graph of the returned tensor survives the tidy
    expect(m.end).toBe(m.gradBytes);
  });

  test('an in-place op saves one copy of the value it overwrites when its formula needs it, and backward frees it', () => {
    const r = runChild(`
      const alloc = () => torch.memory.allocated('cpu');
      const n = 1 << 16;
      const x = torch.randn([n]);
      const w = torch.randn([n]).requiresGrad_();
      const base = alloc();
      const y = x.clone();
      const buffer = alloc() - base;
      y.mul_(w); // w's gradient is y's old value: a copy is saved (w itself is saved as it is)
      const afterMul = alloc() - base;
      y.mul_(2); // by a number: the formula reads nothing of y
      const afterScalar = alloc() - base;
      const s = y.sum();
      s.backward();
      s.dispose();
      y.dispose();
      const end = alloc() - base;
      const gradIsOld = w.grad.sub(x.mul(2)).abs().max().item() === 0;
      console.log(JSON.stringify({ buffer, afterMul, afterScalar, end, gradBytes: w.grad.untypedStorage().nbytes, gradIsOld }));`);
    expect(r.status).toBe(0);
    const m = r.result;
    expect(m.buffer).toBe(4 << 16);
    expect(m.afterMul).toBe(2 * m.buffer);
    expect(m.afterScalar).toBe(2 * m.buffer);
    expect(m.end).toBe(m.gradBytes);
    expect(m.gradIsOld).toBe(true); // d(2·x·w)/dw = 2·x
  });

  test('retainGraph keeps the graph for a second backward, which accumulates', () => {
    const r = runChild(`
      const w = torch.tensor([1, 2, 3], { dtype: 'float32', requiresGrad: true });
      const y = w.mul(w).sum();
      y.backward(null, { retainGraph: true });
      const first = w.grad.tolist();
      y.backward();
      console.log(JSON.stringify({ first, second: w.grad.tolist() }));`);
    expect(r.status).toBe(0);
    expect(r.result).toEqual({ first: [2, 4, 6], second: [4, 8, 12] });
  });
});
