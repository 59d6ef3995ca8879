/**
 * Each layer against PyTorch 2 with the same weights (the runtime's
 * initialization, loaded into PyTorch's module by load_state_dict, which
 * also checks that the state dict's keys and shapes are PyTorch's), the same
 * inputs: the same output, and after backward of (output · g).sum() with the
 * same g, the same gradient of every parameter.
 */
import * as torch from '../../../native/index';
import { expectClose, lazyPrograms, Value } from './torch_program';

const { nn } = torch;
torch.manualSeed(7);

interface Case {
  name: string;
  /** Python expression of the module (torch in scope). */
  torch: string;
  module: () => torch.nn.Module;
  /** Inputs by name, in call order. */
  args: Record<string, torch.Tensor>;
  /** Python call, given the module m and the args by name (default m(*args)). */
  call?: string;
  /** The runtime's call (default module.forward(...args)); its first output is compared, and the second if given. */
  run?: (m: torch.nn.Module, a: torch.Tensor[]) => torch.Tensor | [torch.Tensor, torch.Tensor | null];
  /** Tensors the Python expression names besides the args. */
  extra?: Record<string, torch.Tensor>;
  /** Compare gradients (default true). */
  grad?: boolean;
  rtol?: number;
  atol?: number;
}

const x3 = torch.randn([2, 5, 6]);
const tokens = torch.tensor([[1, 0, 3, 9], [4, 0, 0, 2]], { dtype: 'int64' });
const seq = torch.randn([4, 3, 8]); // [L, N, E]
const kv = torch.randn([6, 3, 8]); // [S, N, E]
const padMask = torch.tensor([[false, false, false, false, true, true], [false, false, false, false, false, false], [false, true, false, false, false, false]]);
const floatMask = torch.randn([4, 6]);
const logits = torch.randn([8, 5]);
const target = torch.tensor([0, 4, 2, 1, 3, 3, -100, 2], { dtype: 'int64' });
const classWeight = torch.rand([5]).add(0.5);
const mseTarget = torch.randn([2, 5, 6]);

const cases: Case[] = [
  { name: 'Linear on a 3-D input', torch: 'torch.nn.Linear(6, 4)', module: () => new nn.Linear(6, 4), args: { x3 } },
  { name: 'Linear without bias', torch: 'torch.nn.Linear(6, 3, bias=False)', module: () => new nn.Linear(6, 3, { bias: false }), args: { x3 } },
  { name: 'Embedding with paddingIdx', torch: 'torch.nn.Embedding(10, 4, padding_idx=0)', module: () => new nn.Embedding(10, 4, { paddingIdx: 0 }), args: { tokens } },
  { name: 'Embedding with scaleGradByFreq and paddingIdx', torch: 'torch.nn.Embedding(10, 4, padding_idx=2, scale_grad_by_freq=True)', module: () => new nn.Embedding(10, 4, { paddingIdx: 2, scaleGradByFreq: true }), args: { tokens } },
  { name: 'LayerNorm', torch: 'torch.nn.LayerNorm(6)', module: () => new nn.LayerNorm(6), args: { x3 }, rtol: 1e-5, atol: 1e-5 },
  { name: 'LayerNorm over two dims, eps', torch: 'torch.nn.LayerNorm((5, 6), eps=1e-3)', module: () => new nn.LayerNorm([5, 6], { eps: 1e-3 }), args: { x3 }, rtol: 1e-5, atol: 1e-5 },
  { name: 'RMSNorm', torch: 'torch.nn.RMSNorm(6)', module: () => new nn.RMSNorm(6), args: { x3 }, rtol: 1e-5, atol: 1e-5 },
  { name: 'ReLU', torch: 'torch.nn.ReLU()', module: () => new nn.ReLU(), args: { x3 } },
  { name: 'GELU tanh', torch: "torch.nn.GELU(approximate='tanh')", module: () => new nn.GELU('tanh'), args: { x3 } },
  { name: 'SiLU', torch: 'torch.nn.SiLU()', module: () => new nn.SiLU(), args: { x3 } },
  { name: 'Tanh', torch: 'torch.nn.Tanh()', module: () => new nn.Tanh(), args: { x3 } },
  { name: 'Softmax', torch: 'torch.nn.Softmax(dim=1)', module: () => new nn.Softmax(1), args: { x3 } },
  { name: 'Dropout in eval mode', torch: 'torch.nn.Dropout(0.3).eval()', module: () => new nn.Dropout(0.3).eval(), args: { x3 } },
  { name: 'Identity', torch: 'torch.nn.Identity()', module: () => new nn.Identity(), args: { x3 }, grad: false },
  {
    name: 'Sequential', torch: 'torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))',
    module: () => new nn.Sequential(new nn.Linear(6, 8), new nn.GELU(), new nn.Linear(8, 2)), args: { x3 },
  },
  {
    name: 'MultiheadAttention self-attention with weights', torch: 'torch.nn.MultiheadAttention(8, 2)',
    module: () => new nn.MultiheadAttention(8, 2), args: { seq }, call: 'm(seq, seq, seq)',
    run: (m, [s]) => (m as torch.nn.MultiheadAttention).forward(s, s, s), rtol: 1e-4, atol: 1e-5,
  },
  {
    name: 'MultiheadAttention cross-attention, key padding and float masks, weights per head',
    torch: 'torch.nn.MultiheadAttention(8, 4)', module: () => new nn.MultiheadAttention(8, 4), args: { seq, kv, padMask, floatMask },
    call: 'm(seq, kv, kv, key_padding_mask=padMask, attn_mask=floatMask, average_attn_weights=False)',
    run: (m, [s, k, pm, fm]) => (m as torch.nn.MultiheadAttention).forward(s, k, k, { keyPaddingMask: pm, attnMask: fm, averageAttnWeights: false }),
    rtol: 1e-4, atol: 1e-5,
  },
  {
    name: 'MultiheadAttention batchFirst without weights (scaledDotProductAttention)',
    torch: 'torch.nn.MultiheadAttention(8, 2, batch_first=True)', module: () => new nn.MultiheadAttention(8, 2, { batchFirst: true }), args: { kv, padMask },
    call: 'm(kv.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1), key_padding_mask=padMask, need_weights=False)',
    run: (m, [k, pm]) => {
      const b = k.transpose(0, 1);
      return (m as torch.nn.MultiheadAttention).forward(b, b, b, { keyPaddingMask: pm, needWeights: false })[0];
    },
    rtol: 1e-4, atol: 1e-5,
  },
  {
    name: 'MultiheadAttention unbatched', torch: 'torch.nn.MultiheadAttention(8, 2)', module: () => new nn.MultiheadAttention(8, 2), args: { kv },
    call: 'm(kv[:, 0], kv[:, 0], kv[:, 0])',
    run: (m, [k]) => {
      const u = k.select(1, 0);
      return (m as torch.nn.MultiheadAttention).forward(u, u, u);
    },
    rtol: 1e-4, atol: 1e-5,
  },
  {
    name: 'CrossEntropyLoss with class weights, ignored targets and label smoothing',
    torch: 'torch.nn.CrossEntropyLoss(weight=classWeight, label_smoothing=0.1)',
    module: () => new nn.CrossEntropyLoss({ weight: classWeight, labelSmoothing: 0.1 }), args: { logits, target }, extra: { classWeight },
    call: 'm(logits, target)', rtol: 1e-5, atol: 1e-6,
  },
  { name: 'MSELoss sum', torch: "torch.nn.MSELoss(reduction='sum')", module: () => new nn.MSELoss({ reduction: 'sum' }), args: { x3, mseTarget }, call: 'm(x3, mseTarget)', rtol: 1e-5 },
];

// The modules, made once: their state dicts are sent to PyTorch.
const modules = cases.map((c) => c.module());
const outputGrads: torch.Tensor[][] = [];

function runOurs(i: number, a: torch.Tensor[] = Object.values(cases[i].args)): [torch.Tensor, torch.Tensor | null] {
  const c = cases[i];
  const m = modules[i];
  const r = c.run ? c.run(m, a) : (m.forward(...a) as torch.Tensor);
  return Array.isArray(r) ? r : [r, null];
}

// Output gradients g of the output's shape (computed without grad on our side once, to know the shapes).
cases.forEach((_c, i) => {
  const [y, w] = torch.noGrad(() => runOurs(i));
  outputGrads.push([torch.randnLike(y)]);
  y.dispose();
  w?.dispose();
});

const ref = lazyPrograms(cases.map((c, i) => {
  const sd = modules[i].stateDict();
  const inputs: Record<string, torch.Tensor> = { ...c.args, ...c.extra, g: outputGrads[i][0] };
  for (const [k, v] of Object.entries(sd)) inputs[`sd.${k}`] = v;
  const argNames = Object.keys(c.args);
  return {
    inputs,
    code: `
torch.manual_seed(0)
globals().update({k: v for k, v in inputs.items() if not k.startswith("sd.")})
for k in ${JSON.stringify(argNames)}:
    if inputs[k].is_floating_point():
        globals()[k] = inputs[k].clone().requires_grad_()
m = ${c.torch}
m.load_state_dict({k[3:]: v for k, v in inputs.items() if k.startswith("sd.")}, strict=True)
r = ${c.call ?? `m(${argNames.join(', ')})`}
y, w = (r[0], r[1]) if isinstance(r, tuple) else (r, None)
out["y"] = y
out["w"] = w
(y * inputs["g"]).sum().backward()
out["grads"] = {n: p.grad for n, p in m.named_parameters() if p.grad is not None}
out["inputGrads"] = {k: globals()[k].grad for k in ${JSON.stringify(argNames)} if globals()[k].grad is not None}
out["keys"] = list(m.state_dict().keys())
`,
  };
}));

describe('layers against PyTorch: the same weights and inputs give the same outputs and gradients', () => {
  cases.forEach((c, i) => {
    test(c.name, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      const m = modules[i];
      expect(Object.keys(m.stateDict())).toEqual(want.keys);
      // Floating inputs require grad on both sides, so the input gradients are compared too.
      const args = Object.values(c.args).map((t) => (torch.isFloatingPoint(t.dtype) && c.grad !== false ? t.clone().requiresGrad_() : t));
      const [y, w] = runOurs(i, args);
      expectClose(y, want.y, `${c.name} output`, c.rtol, c.atol);
      if (want.w !== null) {
        expect(w).not.toBeNull();
        expectClose(w!, want.w, `${c.name} attention weights`, c.rtol, c.atol);
      }
      if (c.grad === false) return;
      const prod = y.mul(outputGrads[i][0]);
      const s = prod.sum();
      m.zeroGrad();
      s.backward();
      const wantGrads = want.grads as Record<string, Value>;
      const ours = Object.fromEntries([...m.namedParameters()].filter(([, p]) => p.grad !== null).map(([n, p]) => [n, p.grad!]));
      expect(Object.keys(ours).sort()).toEqual(Object.keys(wantGrads).sort());
      for (const [n, g] of Object.entries(ours)) expectClose(g, wantGrads[n], `${c.name} gradient of ${n}`, c.rtol ?? 1e-4, c.atol ?? 1e-5);
      const names = Object.keys(c.args);
      const wantInput = want.inputGrads as Record<string, Value>;
      const ourInput = Object.fromEntries(args.map((a, k) => [names[k], a.grad]).filter(([, g]) => g !== null)) as Record<string, torch.Tensor>;
      expect(Object.keys(ourInput).sort()).toEqual(Object.keys(wantInput).sort());
      for (const [n, g] of Object.entries(ourInput)) expectClose(g, wantInput[n], `${c.name} gradient of input ${n}`, c.rtol ?? 1e-4, c.atol ?? 1e-5);
      for (const t of [y, w, prod, s]) t?.dispose();
    });
  });
});

describe('Dropout in training mode', () => {
  test('zeroes about p of the elements and scales the rest by 1/(1-p)', () => {
    const d = new nn.Dropout(0.25);
    const x = torch.ones([100000]);
    const y = d.forward(x);
    const v = Array.from(y.toArray() as Float32Array);
    const zeros = v.filter((e) => e === 0).length / v.length;
    expect(Math.abs(zeros - 0.25)).toBeLessThan(0.01);
    expect(v.every((e) => e === 0 || Math.abs(e - 1 / 0.75) < 1e-6)).toBe(true);
    d.eval();
    const z = d.forward(x);
    expect(Array.from(z.toArray() as Float32Array).every((e) => e === 1)).toBe(true);
  });
});

describe('layers under autocast', () => {
  test('Linear and MultiheadAttention compute in bfloat16 inside a cpu autocast region', () => {
    const fc = new nn.Linear(6, 4);
    const mha = new nn.MultiheadAttention(8, 2);
    torch.autocast('cpu', { dtype: 'bfloat16' }, () => {
      const y = fc.forward(x3);
      expect(y.dtype).toBe('bfloat16');
      expect(mha.forward(seq, seq, seq, { needWeights: false })[0].dtype).toBe('bfloat16');
    });
    expect(fc.forward(x3).dtype).toBe('float32');
  });
});
