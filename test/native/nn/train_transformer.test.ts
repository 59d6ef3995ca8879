/**
 * A two-layer transformer trained in tsgpu and in PyTorch 2 from the same
 * weights: tsgpu writes its initial state dict to one safetensors file,
 * PyTorch reads that file (safetensors' own loader) into the same module tree,
 * and both run 10 steps on the same tokens. For SGD, Adam and AdamW, each
 * plain, under CPU autocast (bfloat16), with every block checkpointed, and
 * with both, the losses of every step, the gradients of the first step and
 * the weights after the last step agree within the tolerances below. The
 * same model also learns a synthetic task (its loss falls below a set value).
 *
 * Tolerances: float32 runs agree to rounding (1e-4 relative on weights);
 * under autocast both sides round the matmuls to bfloat16 (8 bits of
 * mantissa) and sum in a different order, so losses agree to 2e-2, and
 * weights to 2e-2 with SGD. Adam and AdamW move each weight by about lr a
 * step whatever its gradient's size, so a weight whose gradient is within
 * bfloat16's rounding of zero may move the other way: there at least 95% of
 * each tensor's elements agree to 5e-2 relative (5e-3 absolute) and none is
 * further than 4·lr from PyTorch's (10 steps could put it 20·lr away).
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as torch from '../../../native/index';
import { expectClose, expectNumbersClose, lazyPrograms, numbers, Value } from './torch_program';

const { nn, optim } = torch;
const F = torch.nn.functional;
type Tensor = torch.Tensor;

/**
 * Throws unless at least `fraction` of the elements are within atol + rtol·|want|
 * and every element is within maxAbs of PyTorch's.
 */
function expectMostlyClose(got: Tensor, want: Value, what: string, rtol: number, atol: number, fraction: number, maxAbs: number): void {
  if (!(want instanceof torch.Tensor)) throw new Error(`${what}: PyTorch gave no tensor`);
  expect({ what, shape: got.shape }).toEqual({ what, shape: want.shape });
  const a = numbers(got);
  const b = numbers(want);
  let close = 0;
  let worst = 0;
  let worstAt = 0;
  a.forEach((x, i) => {
    const d = Math.abs(x - b[i]);
    if (d <= atol + rtol * Math.abs(b[i])) close++;
    if (!(d <= worst)) { worst = d; worstAt = i; }
  });
  if (close < fraction * a.length) throw new Error(`${what}: only ${close} of ${a.length} elements agree with PyTorch within rtol ${rtol}, atol ${atol}`);
  if (!(worst <= maxAbs)) throw new Error(`${what}: element ${worstAt} is ${a[worstAt]}, PyTorch's ${b[worstAt]}: further apart than ${maxAbs}`);
}

const V = 16; // vocabulary
const T = 8; // sequence
const D = 16; // width
const H = 2; // heads
const B = 4; // batch

class Block extends nn.Module {
  ln1 = new nn.LayerNorm(D);
  qkv = new nn.Linear(D, 3 * D, { bias: false });
  proj = new nn.Linear(D, D);
  ln2 = new nn.LayerNorm(D);
  fc1 = new nn.Linear(D, 4 * D);
  act = new nn.GELU();
  fc2 = new nn.Linear(4 * D, D);
  forward(x: Tensor): Tensor {
    const [b, t] = x.shape;
    const [q, k, v] = this.qkv.forward(this.ln1.forward(x)).view(b, t, 3, H, D / H).permute(2, 0, 3, 1, 4).unbind(0);
    const a = F.scaledDotProductAttention(q, k, v, { isCausal: true }).transpose(1, 2).reshape(b, t, D);
    const x1 = x.add(this.proj.forward(a));
    return x1.add(this.fc2.forward(this.act.forward(this.fc1.forward(this.ln2.forward(x1)))));
  }
}

class TinyGPT extends nn.Module {
  tok = new nn.Embedding(V, D);
  pos = new nn.Embedding(T, D);
  blocks = new nn.ModuleList([new Block(), new Block()]);
  lnf = new nn.LayerNorm(D);
  head = new nn.Linear(D, V, { bias: false });
  constructor(readonly checkpointed = false) {
    super();
  }
  forward(idx: Tensor): Tensor {
    let x = this.tok.forward(idx).add(this.pos.forward(torch.arange(idx.shape[1])));
    for (const blk of this.blocks.children() as Iterable<Block>) {
      x = this.checkpointed ? torch.utils.checkpoint((y: Tensor) => blk.forward(y), x) : blk.forward(x);
    }
    return this.head.forward(this.lnf.forward(x));
  }
}

/** The same module tree in PyTorch, with the parameter names tsgpu's stateDict gives. */
const PY_MODEL = `
import torch.nn as nn
torch.set_num_threads(1)
import torch.nn.functional as F
import torch.utils.checkpoint as cp
from safetensors.torch import load_file
V, T, D, H = ${V}, ${T}, ${D}, ${H}
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D); self.qkv = nn.Linear(D, 3 * D, bias=False); self.proj = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D); self.fc1 = nn.Linear(D, 4 * D); self.act = nn.GELU(); self.fc2 = nn.Linear(4 * D, D)
    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, H, D // H).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, D)
        x1 = x + self.proj(a)
        return x1 + self.fc2(self.act(self.fc1(self.ln2(x1))))
class TinyGPT(nn.Module):
    def __init__(self, checkpointed):
        super().__init__()
        self.tok = nn.Embedding(V, D); self.pos = nn.Embedding(T, D)
        self.blocks = nn.ModuleList([Block(), Block()]); self.lnf = nn.LayerNorm(D); self.head = nn.Linear(D, V, bias=False)
        self.checkpointed = checkpointed
    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for blk in self.blocks:
            x = cp.checkpoint(blk, x, use_reentrant=False) if self.checkpointed else blk(x)
        return self.head(self.lnf(x))
`;

type MakeOpt = (ps: Iterable<torch.nn.Parameter>) => torch.optim.Optimizer<{ lr: number }>;
const ADAM_LR = 0.01;
const OPTIMIZERS: [string, MakeOpt, string][] = [
  ['SGD with momentum', (ps) => new optim.SGD(ps, { lr: 0.1, momentum: 0.9 }), 'torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)'],
  ['Adam', (ps) => new optim.Adam(ps, { lr: ADAM_LR }), `torch.optim.Adam(m.parameters(), lr=${ADAM_LR})`],
  ['AdamW', (ps) => new optim.AdamW(ps, { lr: ADAM_LR, weightDecay: 0.1 }), `torch.optim.AdamW(m.parameters(), lr=${ADAM_LR}, weight_decay=0.1)`],
];
const VARIANTS: { name: string; autocast: boolean; checkpoint: boolean }[] = [
  { name: 'float32', autocast: false, checkpoint: false },
  { name: 'autocast bfloat16', autocast: true, checkpoint: false },
  { name: 'checkpointed blocks', autocast: false, checkpoint: true },
  { name: 'autocast bfloat16 and checkpointed blocks', autocast: true, checkpoint: true },
];
const CASES = OPTIMIZERS.flatMap(([oname, make, py]) => VARIANTS.map((v) => ({ ...v, oname, make, py })));

const dir = mkdtempSync(join(tmpdir(), 'tsgpu-train-transformer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

torch.manualSeed(7);
const initial = new TinyGPT();
const weightsFile = join(dir, 'initial.safetensors');
torch.save(initial.stateDict(), weightsFile);
const X = torch.randint(0, V, [B, T]);
const Y = X.roll(-1, 1); // predict the next token of a cyclic sequence

const ref = lazyPrograms(CASES.map((c) => ({
  inputs: { X, Y },
  code: `${PY_MODEL}
m = TinyGPT(${c.checkpoint ? 'True' : 'False'})
m.load_state_dict(load_file(${JSON.stringify(weightsFile)}))
opt = ${c.py}
losses, grads = [], {}
for step in range(10):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=${c.autocast ? 'True' : 'False'}):
        logits = m(inputs["X"])
        loss = F.cross_entropy(logits.reshape(-1, V), inputs["Y"].reshape(-1))
    loss.backward()
    if step == 0:
        grads = {k: p.grad.clone() for k, p in m.named_parameters()}
    opt.step()
    losses.append(loss.item())
out["losses"] = losses
out["grads"] = grads
out["state"] = m.state_dict()
`,
})));

describe('a two-layer transformer, 10 steps against PyTorch from one safetensors file', () => {
  CASES.forEach((c, i) => {
    test(`${c.oname}, ${c.name}`, () => {
      const want = ref()[i];
      if ('error' in want) throw new Error(`PyTorch: ${want.error}`);
      const model = new TinyGPT(c.checkpoint);
      model.loadStateDict(torch.load(weightsFile) as Record<string, Tensor>);
      const opt = c.make(model.parameters());
      const losses: number[] = [];
      let grads: Record<string, Tensor> = {};
      for (let step = 0; step < 10; step++) {
        opt.zeroGrad();
        const loss = torch.autocast('cpu', { dtype: 'bfloat16', enabled: c.autocast }, () =>
          torch.crossEntropy(model.forward(X).reshape(-1, V), Y.reshape(-1)));
        loss.backward();
        if (step === 0) grads = Object.fromEntries([...model.namedParameters()].map(([k, p]) => [k, p.grad!.clone()]));
        opt.step();
        losses.push(Number(loss.item()));
      }
      const lossTol = c.autocast ? 2e-2 : 1e-5;
      expectNumbersClose(losses, want.losses as number[], 'losses', lossTol, lossTol);
      if (c.autocast) {
        // Autocast really ran in the low precision: the losses are not float32's (PyTorch's float32 run of the same optimizer).
        const f32 = ref()[i - VARIANTS.indexOf(VARIANTS.find((v) => v.autocast === c.autocast && v.checkpoint === c.checkpoint)!)].losses as number[];
        expect(Math.max(...losses.map((l, s) => Math.abs(l - f32[s])))).toBeGreaterThan(1e-4);
      }
      const wantGrads = want.grads as Record<string, Value>;
      expect(Object.keys(grads).sort()).toEqual(Object.keys(wantGrads).sort());
      const gradTol = c.autocast ? 5e-2 : 1e-4;
      for (const [k, g] of Object.entries(grads)) expectClose(g, wantGrads[k], `gradient of ${k}`, gradTol, gradTol * 0.1);
      const sd = model.stateDict();
      const wantState = want.state as Record<string, Value>;
      expect(Object.keys(sd).sort()).toEqual(Object.keys(wantState).sort());
      for (const [k, v] of Object.entries(sd)) {
        if (!c.autocast) expectClose(v, wantState[k], `weight ${k}`, 1e-4, 1e-5);
        else if (c.oname.startsWith('SGD')) expectClose(v, wantState[k], `weight ${k}`, 2e-2, 2e-3);
        else expectMostlyClose(v, wantState[k], `weight ${k}`, 5e-2, 5e-3, 0.95, 4 * ADAM_LR);
      }
    });
  });
});

describe('the two-layer transformer learns', () => {
  test('next-token prediction on cyclic sequences (loss below 0.1 in 200 AdamW steps)', () => {
    torch.manualSeed(3);
    const model = new TinyGPT();
    const opt = new optim.AdamW(model.parameters(), { lr: 0.01 });
    // Sequences 0,1,2,…,V-1 shifted: the next token is always the previous plus one.
    const starts = torch.randint(0, V, [32, 1]);
    const idx = starts.add(torch.arange(T + 1)).remainder(V);
    const x = idx.narrow(1, 0, T);
    const y = idx.narrow(1, 1, T);
    let first = 0;
    let last = 0;
    for (let step = 0; step < 200; step++) {
      opt.zeroGrad();
      const loss = torch.crossEntropy(model.forward(x).reshape(-1, V), y.reshape(-1));
      loss.backward();
      opt.step();
      last = Number(loss.item());
      if (step === 0) first = last;
    }
    expect(first).toBeGreaterThan(2);
    expect(last).toBeLessThan(0.1);
  });
});
