/**
 * What the optimizers hold, measured with the allocator's statistics
 * (torch.memory.allocated('cpu') around a step, after the test's own
 * temporaries are disposed; every block is rounded up to 512 bytes): Adam's
 * state is two float32 tensors per parameter (three with amsgrad), SGD's
 * momentum one, plain SGD none; later steps allocate nothing more;
 * zeroGrad({ setToNone: true }) frees every gradient; dispose() gives the
 * state back.
 */
import * as torch from '../../../native/index';
import { settleAllocator } from '../own_memory';

const { optim } = torch;
const block = (bytes: number): number => Math.ceil(bytes / 512) * 512;
const allocated = (): number => torch.memory.allocated('cpu');

function params(): torch.Tensor[] {
  return [torch.randn([64, 32]).requiresGrad_(), torch.randn([32]).requiresGrad_(), torch.randn([7, 3]).requiresGrad_()];
}
const paramBytes = (ps: torch.Tensor[]): number => ps.reduce((n, p) => n + block(p.nbytes), 0);

function setGrads(ps: torch.Tensor[]): void {
  for (const p of ps) p.grad = torch.randnLike(p);
}

const cases: [string, (ps: torch.Tensor[]) => torch.optim.Optimizer<{ lr: number }>, number][] = [
  ['Adam: exp_avg and exp_avg_sq', (ps) => new optim.Adam(ps), 2],
  ['Adam with amsgrad: and max_exp_avg_sq', (ps) => new optim.Adam(ps, { amsgrad: true }), 3],
  ['AdamW with weight decay', (ps) => new optim.AdamW(ps, { weightDecay: 0.1 }), 2],
  ['SGD with momentum: momentum_buffer', (ps) => new optim.SGD(ps, { lr: 0.1, momentum: 0.9, nesterov: true, weightDecay: 0.01 }), 1],
  ['SGD without momentum: no state', (ps) => new optim.SGD(ps, { lr: 0.1, weightDecay: 0.01 }), 0],
];

describe('optimizer state in the allocator statistics', () => {
  for (const [name, make, perParam] of cases) {
    test(name, async () => {
      const ps = params();
      await settleAllocator(); // tensors dropped earlier must not be freed during the measurement
      const opt = make(ps);
      setGrads(ps);
      const before = allocated();
      opt.step();
      expect(allocated() - before).toBe(perParam * paramBytes(ps));
      // Every state tensor is a float32 tensor of its parameter's shape, named for the memory views.
      for (const p of ps) {
        const tensors = Object.entries(opt.state.get(p) ?? {}).filter(([, v]) => v instanceof torch.Tensor) as [string, torch.Tensor][];
        expect(tensors.length).toBe(perParam);
        for (const [key, t] of tensors) {
          expect({ dtype: t.dtype, shape: t.shape }).toEqual({ dtype: 'float32', shape: p.shape });
          expect(t.autogradLabel).toBe(`${key} of param ${ps.indexOf(p)}`);
        }
      }
      const afterFirst = allocated();
      for (let s = 0; s < 3; s++) {
        opt.zeroGrad();
        setGrads(ps);
        opt.step();
      }
      expect(allocated()).toBe(afterFirst);
      const withGrads = allocated();
      opt.zeroGrad({ setToNone: true });
      expect(withGrads - allocated()).toBe(paramBytes(ps));
      const noGrads = allocated();
      opt.dispose();
      expect(noGrads - allocated()).toBe(perParam * paramBytes(ps));
      ps.forEach((p) => p.dispose());
    });
  }

  test('zeroGrad({ setToNone: false }) keeps the gradients\' memory', async () => {
    const ps = params();
    await settleAllocator();
    const opt = new optim.SGD(ps, { lr: 0.1 });
    setGrads(ps);
    const before = allocated();
    opt.zeroGrad({ setToNone: false });
    expect(allocated()).toBe(before);
    expect(ps.every((p) => p.grad !== null)).toBe(true);
    opt.zeroGrad();
    expect(before - allocated()).toBe(paramBytes(ps));
  });
});

describe('a training step inside torch.tidy', () => {
  test('keeps the parameters, gradients and optimizer state, and frees everything else', async () => {
    const fc = new torch.nn.Linear(32, 16);
    const x = torch.randn([64, 32]);
    const opt = new optim.Adam(fc.parameters());
    const ps = [...fc.parameters()];
    await settleAllocator();
    const base = allocated();
    torch.tidy(() => {
      opt.zeroGrad();
      const y = fc.forward(x);
      const loss = y.pow(2).mean();
      loss.backward();
      opt.step();
    });
    // Gradients (one per parameter) and Adam's two state tensors per parameter remain; activations do not.
    expect(allocated() - base).toBe(3 * paramBytes(ps));
    expect(ps.every((p) => !p.isDisposed && p.grad !== null && !p.grad.isDisposed)).toBe(true);
    for (const p of ps) expect(Object.values(opt.state.get(p)!).every((v) => !(v instanceof torch.Tensor) || !v.isDisposed)).toBe(true);
  });
});

describe('the memory views name training memory', () => {
  test('liveTensors() names parameters by module path, their gradients, and the optimizer state of each', () => {
    const model = new torch.nn.Sequential(new torch.nn.Linear(4, 3), new torch.nn.ReLU(), new torch.nn.Linear(3, 2));
    const opt = new optim.Adam(model.parameters());
    const y = model.forward(torch.randn([5, 4]));
    const s = y.sum();
    s.backward();
    opt.step();
    const holder = new Map(torch.memory.liveTensors('cpu').map((t) => [t.id, t.holder]));
    const w = (model.get(2) as torch.nn.Linear).weight;
    expect(holder.get(w.id)).toEqual({ kind: 'parameter', label: 'parameter 2.weight' });
    expect(holder.get(w.grad!.id)).toEqual({ kind: 'gradient', label: 'gradient of 2.weight' });
    const st = opt.state.get(w)!;
    expect(holder.get((st.exp_avg as torch.Tensor).id)).toEqual({ kind: 'optimizer', label: 'exp_avg of 2.weight' });
    expect(holder.get((st.exp_avg_sq as torch.Tensor).id)).toEqual({ kind: 'optimizer', label: 'exp_avg_sq of 2.weight' });
  });
});
