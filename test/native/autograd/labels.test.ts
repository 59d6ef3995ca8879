/** What liveTensors() says holds training memory: parameters, their gradients, tensors saved for backward. */
import * as torch from '../../../native/index';

test('parameters, gradients and saved tensors are labelled by kind', () => {
  const w = torch.randn([32, 16], { requiresGrad: true });
  torch.autograd.labelTensor(w, 'parameter', 'parameter fc.weight');
  const x = torch.randn([8, 16]);
  const h = torch.linear(x, w).tanh();
  const y = h.sum();
  const byId = () => new Map(torch.memory.liveTensors('cpu').map((t) => [t.id, t.holder]));
  let m = byId();
  expect(m.get(w.id)).toEqual({ kind: 'parameter', label: 'parameter fc.weight' });
  // tanh saved its output: h's storage is held for backward.
  expect(m.get(h.id)).toEqual({ kind: 'saved', label: 'saved for backward by TanhBackward0' });
  y.backward();
  m = byId();
  expect(m.get(w.grad!.id)).toEqual({ kind: 'gradient', label: 'gradient of fc.weight' });
  expect(m.get(h.id)).toBeUndefined(); // backward freed what it saved
  for (const t of [w, x, h, y]) t.dispose();
});

test('a graph dropped inside one synchronous run is collected before the run ends', () => {
  // Nothing the memory views keep may hold a node: a WeakRef would keep it to the end of the job, and an
  // evaluation loop without noGrad (or a forward that failed) would keep every graph it built until the cell ended.
  const w = torch.randn([64, 64], { requiresGrad: true });
  const x = torch.randn([32, 64]);
  // The tensors held for backward other than the inputs (which live on as variables): the tanh outputs.
  const saved = () => torch.memory.liveTensors('cpu').filter((t) => t.holder?.kind === 'saved' && t.id !== x.id && t.id !== w.id).length;
  const before = saved();
  // Each graph saves tanh's output and is dropped (built in a function of its own, so that no frame still holds one).
  const build = (n: number) => { for (let i = 0; i < n; i++) torch.linear(x, w).tanh(); };
  build(5);
  expect(saved()).toBe(before + 5);
  expect(torch.memory.collectGarbage().collected).toBe(true);
  expect(saved()).toBe(before);
  w.dispose();
  x.dispose();
});
