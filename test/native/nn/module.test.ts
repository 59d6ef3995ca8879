/**
 * nn.Module: registration of fields in assignment order, the iterators,
 * stateDict keys of a small transformer equal to PyTorch's (and its weights
 * loading into PyTorch's model, which then computes the same logits),
 * loadStateDict's errors, hooks through forward and call, train/eval,
 * apply, to(dtype), requiresGrad_, zeroGrad, parameter labels.
 */
import * as torch from '../../../native/index';
import { expectClose, lazyPrograms } from './torch_program';

const { nn } = torch;
type Tensor = torch.Tensor;

class Block extends torch.nn.Module {
  ln = new nn.LayerNorm(8);
  attn = new nn.MultiheadAttention(8, 2, { batchFirst: true });
  mlp = new nn.Sequential(new nn.Linear(8, 16), new nn.GELU(), new nn.Linear(16, 8));
  forward(x: Tensor, mask: Tensor): Tensor {
    const h = this.ln.forward(x);
    const [a] = this.attn.forward(h, h, h, { attnMask: mask, needWeights: false });
    const x1 = x.add(a);
    const m = this.mlp.forward(x1);
    const x2 = x1.add(m);
    for (const t of [h, a, x1, m]) t.dispose();
    return x2;
  }
}

class TinyLM extends torch.nn.Module {
  embed = new nn.Embedding(11, 8);
  blocks = new nn.ModuleList([new Block(), new Block()]);
  norm = new nn.RMSNorm(8);
  head = new nn.Linear(8, 11, { bias: false });
  constructor() {
    super();
    this.registerBuffer('causal', torch.triu(torch.ones([4, 4]), 1).gt(0));
    this.registerBuffer('scratch', torch.zeros([3]), { persistent: false });
  }
  declare causal: Tensor;
  forward(tokens: Tensor): Tensor {
    let x = this.embed.forward(tokens);
    for (const b of this.blocks) {
      const y = (b as Block).forward(x, this.causal);
      x.dispose();
      x = y;
    }
    const n = this.norm.forward(x);
    x.dispose();
    const logits = this.head.forward(n);
    n.dispose();
    return logits;
  }
}

const PY_MODEL = `
import torch.nn as nn
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8)
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))
    def forward(self, x, mask):
        h = self.ln(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(x)
class TinyLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 8)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.norm = nn.RMSNorm(8)
        self.head = nn.Linear(8, 11, bias=False)
        self.register_buffer("causal", torch.triu(torch.ones(4, 4), 1) > 0)
        self.register_buffer("scratch", torch.zeros(3), persistent=False)
    def forward(self, tokens):
        x = self.embed(tokens)
        for b in self.blocks:
            x = b(x, self.causal)
        return self.head(self.norm(x))
`;

torch.manualSeed(5);
const model = new TinyLM();
const tokens = torch.randint(0, 11, [2, 4]);
const sd = model.stateDict();
const ref = lazyPrograms([{
  inputs: { tokens, ...Object.fromEntries(Object.entries(sd).map(([k, v]) => [`sd.${k}`, v])) },
  code: `${PY_MODEL}
m = TinyLM()
out["keys"] = list(m.state_dict().keys())
out["shapes"] = [list(v.shape) for v in m.state_dict().values()]
out["params"] = [n for n, _ in m.named_parameters()]
out["buffers"] = [n for n, _ in m.named_buffers()]
out["modules"] = [n for n, _ in m.named_modules()]
out["children"] = [n for n, _ in m.named_children()]
m.load_state_dict({k[3:]: v for k, v in inputs.items() if k.startswith("sd.")})
out["logits"] = m(inputs["tokens"])
`,
}]);

describe('Module registration and iteration against PyTorch', () => {
  test('stateDict keys and shapes, parameter, buffer, module and child names are PyTorch\'s', () => {
    const want = ref()[0];
    if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
    expect(Object.keys(sd)).toEqual(want.keys);
    expect(Object.values(sd).map((t) => t.shape)).toEqual(want.shapes);
    expect([...model.namedParameters()].map(([n]) => n)).toEqual(want.params);
    expect([...model.namedBuffers()].map(([n]) => n)).toEqual(want.buffers);
    expect([...model.namedModules()].map(([n]) => n)).toEqual(want.modules);
    expect([...model.namedChildren()].map(([n]) => n)).toEqual(want.children);
  });

  test('PyTorch\'s model with our weights computes the same logits', () => {
    const want = ref()[0];
    const logits = torch.noGrad(() => model.forward(tokens));
    expectClose(logits, want.logits, 'logits', 1e-4, 1e-5);
  });

  test('parameters are labelled with their module path for the memory views', () => {
    expect(model.blocks.get(1).getSubmodule('attn.out_proj') instanceof torch.nn.Linear).toBe(true);
    const p = (model.blocks.get(1) as Block).attn.out_proj.weight;
    expect(p.autogradLabel).toBe('parameter blocks.1.attn.out_proj.weight');
    // Seen from a submodule the path is shorter: the root's name stays.
    [...(model.blocks.get(1) as Block).parameters()];
    expect(p.autogradLabel).toBe('parameter blocks.1.attn.out_proj.weight');
  });
});

describe('loadStateDict', () => {
  test('missing, unexpected and wrongly shaped keys are named in one error, and nothing is copied', () => {
    const m = new nn.Linear(4, 3);
    const before = m.weight.clone();
    const bad = { weight: torch.randn([3, 5]), extra: torch.randn([1]) };
    let msg = '';
    try {
      m.loadStateDict(bad);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain('Error(s) in loading state_dict for Linear:');
    expect(msg).toContain('Missing key(s) in state_dict: "bias".');
    expect(msg).toContain('Unexpected key(s) in state_dict: "extra".');
    expect(msg).toContain('size mismatch for weight: copying a param with shape [3, 5] from checkpoint, the shape in current model is [3, 4].');
    expect(Array.from(m.weight.toArray() as Float32Array)).toEqual(Array.from(before.toArray() as Float32Array));
  });

  test('strict: false returns the missing and unexpected keys; a wrong shape is still an error', () => {
    const m = new nn.Linear(4, 3);
    const w = torch.randn([3, 4]);
    const r = m.loadStateDict({ weight: w, extra: torch.zeros([1]) }, { strict: false });
    expect(r).toEqual({ missingKeys: ['bias'], unexpectedKeys: ['extra'] });
    expect(Array.from(m.weight.toArray() as Float32Array)).toEqual(Array.from(w.toArray() as Float32Array));
    expect(() => m.loadStateDict({ bias: torch.zeros([4]) }, { strict: false })).toThrow(/size mismatch for bias: copying a param with shape \[4\] from checkpoint, the shape in current model is \[3\]/);
  });

  test('a state dict round trip through another instance', () => {
    const a = new nn.Sequential(new nn.Linear(3, 4), new nn.LayerNorm(4));
    const b = new nn.Sequential(new nn.Linear(3, 4), new nn.LayerNorm(4));
    b.loadStateDict(a.stateDict());
    for (const [k, v] of Object.entries(a.stateDict())) expect(Array.from(b.stateDict()[k].toArray() as Float32Array)).toEqual(Array.from(v.toArray() as Float32Array));
  });
});

describe('hooks', () => {
  test('pre-hooks and hooks run through forward and call, may replace arguments and output, and can be removed', () => {
    const fc = new nn.Linear(2, 2);
    const seen: string[] = [];
    const pre = fc.registerForwardPreHook((_m, args) => {
      seen.push('pre');
      return [(args[0] as Tensor).mul(0)];
    });
    const post = fc.registerForwardHook((_m, _args, out) => {
      seen.push('post');
      return (out as Tensor).add(100);
    });
    const x = torch.randn([1, 2]);
    const viaForward = fc.forward(x);
    const viaCall = fc.call(x) as Tensor;
    const bias = Array.from(fc.bias!.toArray() as Float32Array).map((b) => b + 100);
    for (const y of [viaForward, viaCall]) {
      Array.from(y.toArray() as Float32Array).forEach((v, i) => expect(v).toBeCloseTo(bias[i], 4));
    }
    expect(seen).toEqual(['pre', 'post', 'pre', 'post']);
    pre.remove();
    post.remove();
    fc.forward(x);
    expect(seen.length).toBe(4);
  });

  test('the hooks of a container\'s modules run when the container runs', () => {
    const seq = new nn.Sequential(new nn.Linear(2, 3), new nn.ReLU(), new nn.Linear(3, 1));
    const names: string[] = [];
    for (const [n, m] of seq.namedChildren()) m.registerForwardHook(() => void names.push(n));
    seq.call(torch.randn([4, 2]));
    expect(names).toEqual(['0', '1', '2']);
  });
});

describe('modes, apply, conversion and gradients', () => {
  test('train() and eval() reach every module; Dropout follows', () => {
    const m = new nn.Sequential(new nn.Linear(2, 2), new nn.Dropout(0.9));
    m.eval();
    expect([...m.modules()].every((x) => !x.training)).toBe(true);
    const x = torch.ones([1000]);
    expect(Array.from((m.get(1).forward(x) as Tensor).toArray() as Float32Array).every((v) => v === 1)).toBe(true);
    m.train();
    expect([...m.modules()].every((x) => x.training)).toBe(true);
  });

  test('apply visits the children before the module', () => {
    const m = new nn.Sequential(new nn.Linear(2, 2), new nn.Sequential(new nn.ReLU()));
    const order: string[] = [];
    m.apply((x) => void order.push(x.constructor.name));
    expect(order).toEqual(['Linear', 'ReLU', 'Sequential', 'Sequential']);
  });

  test('to(dtype) converts the floating parameters and buffers, keeps requiresGrad and names', () => {
    const m = new TinyLM();
    m.to('float64');
    const params = [...m.namedParameters()];
    expect(params.every(([, p]) => p.dtype === 'float64' && p.requiresGrad && p instanceof nn.Parameter)).toBe(true);
    expect(m.causal.dtype).toBe('bool');
    const logits = torch.noGrad(() => m.forward(tokens));
    expect(logits.dtype).toBe('float64');
    expect(() => m.to('int64')).toThrow(/nn.Module.to only accepts floating point dtypes, but got desired dtype=int64/);
  });

  test('requiresGrad_ and zeroGrad', () => {
    const m = new nn.Linear(3, 2);
    m.requiresGrad_(false);
    expect([...m.parameters()].some((p) => p.requiresGrad)).toBe(false);
    m.requiresGrad_();
    const y = m.forward(torch.randn([4, 3]));
    const s = y.sum();
    s.backward();
    expect(m.weight.grad!.shape).toEqual([2, 3]);
    m.zeroGrad({ setToNone: false });
    expect(Array.from(m.weight.grad!.toArray() as Float32Array).every((v) => v === 0)).toBe(true);
    m.zeroGrad();
    expect(m.weight.grad).toBeNull();
  });

  test('a module shared by two paths is listed once; a tied parameter once among parameters, under both keys in stateDict', () => {
    const shared = new nn.Linear(2, 2);
    const m = new nn.Sequential(shared, new nn.ReLU(), shared);
    expect([...m.parameters()].length).toBe(2);
    expect([...m.modules()].length).toBe(3);
    // ... but a Sequential runs it at each of its places.
    let calls = 0;
    shared.registerForwardHook(() => void calls++);
    m.forward(torch.randn([1, 2]));
    expect(calls).toBe(2);
    expect(m.length).toBe(3);
    const tied = new nn.Module() as torch.nn.Module & Record<string, unknown>;
    tied.registerModule('a', new nn.Linear(2, 2, { bias: false }));
    tied.registerModule('b', new nn.Linear(2, 2, { bias: false }));
    (tied.b as torch.nn.Linear).weight = (tied.a as torch.nn.Linear).weight;
    expect([...tied.parameters()].length).toBe(1);
    expect(Object.keys(tied.stateDict())).toEqual(['a.weight', 'b.weight']);
  });

  test('registration errors', () => {
    const m = new nn.Linear(2, 2);
    expect(() => m.registerBuffer('a.b', torch.zeros([1]))).toThrow(/name can't contain "."/);
    expect(() => m.registerBuffer('forward', torch.zeros([1]))).toThrow(/attribute 'forward' already exists/);
    expect(() => m.registerParameter('p', torch.zeros([1]) as torch.nn.Parameter)).toThrow(/cannot assign 'Tensor' object to parameter 'p'/);
    expect(() => new nn.Parameter(torch.zeros([2], { dtype: 'int64' }))).toThrow(/only Tensors of floating point dtype can require gradients/);
    expect(new nn.Parameter(torch.zeros([2]), false).requiresGrad).toBe(false);
    expect(() => new nn.Module().forward()).toThrow(/Module \[Module\] is missing the required "forward" function/);
  });
});
