/**
 * torch.utils.checkpoint: the same gradients as without it (dropout masks
 * replayed), a lower peak of allocated memory for four blocks (measured in a
 * fresh process), checkpointSequential (which keeps only its segments'
 * inputs), and the recomputation under the autocast settings of the forward.
 */
import * as torch from '../../../native/index';
import { runChild } from '../helpers';

type T = torch.Tensor;

function blocks(seed: number, n: number, width: number): T[] {
  torch.manualSeed(seed);
  return Array.from({ length: n }, () => torch.randn([width, width], { dtype: 'float64' }).mul(0.3).requiresGrad_());
}
const block = (w: T) => (x: T) => torch.tidy(() => torch.dropout(torch.linear(x, w).tanh(), 0.2, true));

describe('checkpoint', () => {
  test('gradients equal the plain run, with dropout replayed', () => {
    const a = blocks(1, 3, 8), c = blocks(1, 3, 8);
    const x = torch.randn([4, 8], { dtype: 'float64' });
    torch.manualSeed(5);
    let y = x;
    for (const w of a) y = block(w)(y);
    y.sum().backward();
    torch.manualSeed(5);
    let z = x;
    for (const w of c) z = torch.utils.checkpoint(block(w), z);
    expect(z.gradFn!.name()).toBe('CheckpointFunctionBackward');
    z.sum().backward();
    for (let i = 0; i < 3; i++) {
      const d = a[i].grad!.sub(c[i].grad!).abs().max().item();
      expect(d).toBeLessThan(1e-12);
    }
    expect(y.sub(z).abs().max().item()).toBeLessThan(1e-12);
  });

  test('checkpointSequential gives the same gradients', () => {
    const a = blocks(2, 4, 6), c = blocks(2, 4, 6);
    const x = torch.randn([3, 6], { dtype: 'float64' });
    const mods = (ws: T[]) => ws.map((w) => ({ forward: (v: T) => torch.linear(v, w).sigmoid() }));
    mods(a).reduce((v, m) => m.forward(v), x).sum().backward();
    torch.utils.checkpointSequential(mods(c), 2, x).sum().backward();
    for (let i = 0; i < 4; i++) expect(a[i].grad!.sub(c[i].grad!).abs().max().item()).toBeLessThan(1e-12);
  });

  test('four checkpointed blocks lower the peak of allocated memory', () => {
    // Each mode in a fresh process, so that nothing else is allocated or collected meanwhile.
    const peak = (ckpt: boolean) => {
      const r = runChild(`
        const width = 256, rows = 1024;
        torch.manualSeed(0);
        // Made in tidy: an undisposed randn collected during the measurement would shift its numbers.
        const W = Array.from({ length: 4 }, () => torch.tidy(() => torch.randn([width, width]).mul(0.05)).requiresGrad_());
        const x = torch.randn([rows, width]);
        const block = (w) => (v) => torch.tidy(() => torch.linear(torch.linear(v, w).gelu(), w).tanh());
        const base = torch.memory.allocated('cpu');
        torch.memory.resetPeakStats('cpu');
        const y = torch.tidy(() => { let v = x; for (const w of W) v = ${ckpt} ? torch.utils.checkpoint(block(w), v) : block(w)(v); return v.sum(); });
        const forward = torch.memory.allocated('cpu') - base;
        y.backward();
        y.dispose();
        const grads = W.reduce((n, w) => n + w.grad.untypedStorage().nbytes, 0);
        console.log(JSON.stringify({ peak: torch.memory.maxAllocated('cpu') - base, forward, end: torch.memory.allocated('cpu') - base, grads }));`);
      expect(r.status).toBe(0);
      return r.result;
    };
    const plain = peak(false), ckpt = peak(true);
    const act = 1024 * 256 * 4;
    // Kept between forward and backward: 3 activations per block without checkpointing; with it, each block's output.
    expect(plain.forward).toBe(12 * act + 512);
    expect(ckpt.forward).toBe(3 * act + 512);
    expect(ckpt.end).toBe(ckpt.grads);
    expect(plain.end).toBe(plain.grads);
    expect(ckpt.peak).toBeLessThan(plain.peak * 0.85);
  });

  test('under CPU autocast the recomputation runs in bfloat16 too: the same loss and gradients as autocast without checkpointing', () => {
    const run = (ckpt: boolean) => {
      torch.manualSeed(3);
      const ws = Array.from({ length: 3 }, () => torch.randn([16, 16]).mul(0.3).requiresGrad_());
      const x = torch.randn([8, 16]);
      const blk = (w: T) => (v: T) => torch.tidy(() => torch.linear(v, w).relu());
      const loss = torch.autocast('cpu', { dtype: 'bfloat16' }, () => {
        let v = x;
        for (const w of ws) v = ckpt ? torch.utils.checkpoint(blk(w), v) : blk(w)(v);
        return v.float().sum();
      });
      loss.backward();
      return { loss: loss.item(), grads: ws.map((w) => Array.from(w.grad!.toArray() as Float32Array)) };
    };
    const plain = run(false), ckpt = run(true);
    expect(ckpt.loss).toBe(plain.loss);
    expect(ckpt.grads).toEqual(plain.grads);
  });

  test('checkpointSequential keeps only each segment\'s input between forward and backward, and nothing after', () => {
    const measure = (segments: number) => {
      const r = runChild(`
        const width = 256, rows = 1024, depth = 8;
        torch.manualSeed(0);
        const mods = [];
        for (let i = 0; i < depth; i++) mods.push(new torch.nn.Linear(width, width), new torch.nn.ReLU());
        const x = torch.randn([rows, width]);
        const base = torch.memory.allocated('cpu');
        torch.memory.resetPeakStats('cpu');
        const y = ${segments} > 0 ? torch.utils.checkpointSequential(mods, ${segments}, x) : mods.reduce((v, m) => { const o = m.forward(v); if (v !== x) v.dispose(); return o; }, x);
        const forward = torch.memory.allocated('cpu') - base;
        const loss = y.sum();
        y.dispose();
        loss.backward();
        loss.dispose();
        const grads = mods.flatMap((m) => [...m.parameters()]).reduce((n, p) => n + p.grad.untypedStorage().nbytes, 0);
        console.log(JSON.stringify({ peak: torch.memory.maxAllocated('cpu') - base, forward, end: torch.memory.allocated('cpu') - base, grads }));`);
      expect(r.status).toBe(0);
      return r.result;
    };
    const plain = measure(0), ckpt = measure(4);
    const act = 1024 * 256 * 4;
    // Each ReLU saves its output, which is the next Linear's saved input: the plain run keeps 8 activations. In 4
    // segments of 4 modules, the three checkpointed ones keep their inputs (x, not counted, and two more), and the
    // last segment, run normally, keeps its input and its two ReLU outputs: 5.
    expect(plain.forward).toBe(8 * act);
    expect(ckpt.forward).toBe(5 * act);
    expect(ckpt.end).toBe(ckpt.grads);
    expect(plain.end).toBe(plain.grads);
    expect(ckpt.peak).toBeLessThan(plain.peak);
  });
});
