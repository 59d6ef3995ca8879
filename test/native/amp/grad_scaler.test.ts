/** GradScaler: scaling, unscaling, skipped steps on inf/NaN, PyTorch's growth and backoff rules, its errors, what a step leaves behind. */
import * as torch from '../../../native/index';

/** The smallest optimizer GradScaler drives: plain SGD with lr 0.1 that counts its steps. */
function sgd(params: torch.Tensor[]) {
  return {
    paramGroups: [{ params }],
    steps: 0,
    step() {
      this.steps++;
      torch.noGrad(() => params.forEach((p) => p.sub_(p.grad!.mul(0.1))));
    },
  };
}

describe('GradScaler', () => {
  test('scales the loss, unscales the gradients, steps with the true gradient', () => {
    const p = torch.tensor([1, 2], { dtype: 'float32', requiresGrad: true });
    const opt = sgd([p]);
    const s = new torch.amp.GradScaler('cpu', { initScale: 1024 });
    s.scale(p.mul(p).sum()).backward();
    expect(p.grad!.tolist()).toEqual([2048, 4096]);
    s.step(opt);
    expect(p.grad!.tolist()).toEqual([2, 4]);
    expect(opt.steps).toBe(1);
    const v = p.tolist() as number[];
    expect(v[0]).toBeCloseTo(0.8, 6);
    expect(v[1]).toBeCloseTo(1.6, 6);
    s.update();
    expect(s.getScale()).toBe(1024);
  });

  test('skips the step when a gradient holds inf or NaN, and backs off', () => {
    const p = torch.tensor([1, 2], { dtype: 'float32', requiresGrad: true });
    const opt = sgd([p]);
    const s = new torch.amp.GradScaler('cpu', { initScale: 8, backoffFactor: 0.25 });
    p.grad = torch.tensor([Infinity, 1], { dtype: 'float32' });
    s.step(opt);
    s.update();
    expect(opt.steps).toBe(0);
    expect(p.tolist()).toEqual([1, 2]);
    expect(s.getScale()).toBe(2);
    p.grad = torch.tensor([NaN, 1], { dtype: 'float32' });
    s.step(opt);
    s.update();
    expect(s.getScale()).toBe(0.5);
  });

  test('grows after growthInterval clean steps; stateDict round trip', () => {
    const p = torch.tensor([1], { dtype: 'float32', requiresGrad: true });
    const opt = sgd([p]);
    const s = new torch.amp.GradScaler('cpu', { initScale: 4, growthInterval: 3 });
    const scales: number[] = [];
    for (let i = 0; i < 7; i++) {
      p.grad = torch.tensor([1], { dtype: 'float32' });
      s.step(opt);
      s.update();
      scales.push(s.getScale());
    }
    expect(scales).toEqual([4, 4, 8, 8, 8, 16, 16]);
    const sd = s.stateDict();
    expect(sd).toEqual({ scale: 16, growth_factor: 2, backoff_factor: 0.5, growth_interval: 3, _growth_tracker: 1 });
    const t = new torch.amp.GradScaler('cpu');
    t.loadStateDict(sd);
    expect(t.getScale()).toBe(16);
  });

  test("PyTorch's errors: unscale_ twice, update with nothing recorded; disabled passes through", () => {
    const p = torch.tensor([1], { dtype: 'float32', requiresGrad: true });
    p.grad = torch.tensor([1], { dtype: 'float32' });
    const opt = sgd([p]);
    const s = new torch.amp.GradScaler('cpu');
    s.unscale_(opt);
    expect(() => s.unscale_(opt)).toThrow(/unscale_\(\) has already been called on this optimizer since the last update\(\)/);
    expect(() => new torch.amp.GradScaler('cpu').update()).toThrow(/No inf checks were recorded prior to update/);
    const off = new torch.amp.GradScaler('cpu', { enabled: false });
    const l = torch.ones([]);
    expect(off.scale(l)).toBe(l);
    expect(off.getScale()).toBe(1);
    expect(() => new torch.amp.GradScaler('cpu', { growthFactor: 0.5 })).toThrow(/expected a number > 1 for growthFactor/);
  });

  test('unscale_ and step leave no tensor behind (its inf/NaN checks are freed as they go)', () => {
    // What two steps leave allocated with the scaler on, against the same steps with it off.
    const leftover = (enabled: boolean) => {
      const ps = [torch.randn([64, 32]).requiresGrad_(), torch.randn([64]).requiresGrad_()];
      // An optimizer that frees its own temporaries, so that whatever is left was left by backward or the scaler.
      const opt = { paramGroups: [{ params: ps }], step: () => torch.noGrad(() => ps.forEach((p) => torch.tidy(() => { p.sub_(p.grad!.mul(0.1)); }))) };
      const s = new torch.amp.GradScaler('cpu', { enabled });
      const before = new Set(torch.memory.liveTensors('cpu').map((t) => t.id));
      for (let i = 0; i < 2; i++) {
        const loss = torch.tidy(() => ps[0].sum().add(ps[1].sum()));
        const scaled = s.scale(loss);
        scaled.backward();
        s.step(opt);
        s.update();
        if (scaled !== loss) scaled.dispose();
        loss.dispose();
      }
      return torch.memory.liveTensors('cpu').filter((t) => !before.has(t.id)).map((t) => `${t.dtype} [${t.shape}]`).sort();
    };
    expect(leftover(true)).toEqual(leftover(false));
  });
});
