/**
 * The models of the training benchmark (bench/train_bench.ts), layer for
 * layer those of bench/train_torch.py: a GPT (pre-norm blocks, causal
 * scaledDotProductAttention, tanh GELU, untied head) and a 3-layer MLP.
 */
import * as torch from '../native/index';

type T = torch.Tensor;
const { nn } = torch;

/** Sizes of the models. */
export interface TrainConfig {
  model: 'gpt' | 'mlp';
  device: string;
  batch: number;
  steps: number;
  warmup?: number;
  /** GPT */
  layers?: number;
  width?: number;
  heads?: number;
  seq?: number;
  vocab?: number;
  /** MLP */
  inputs?: number;
  classes?: number;
  /** Lower precision of an autocast region around the forward pass, or none. */
  autocast?: 'bfloat16' | 'float16';
  threads?: number;
  lr?: number;
}

export class Block extends nn.Module {
  ln_1: InstanceType<typeof nn.LayerNorm>;
  attn: InstanceType<typeof nn.Linear>;
  proj: InstanceType<typeof nn.Linear>;
  ln_2: InstanceType<typeof nn.LayerNorm>;
  fc: InstanceType<typeof nn.Linear>;
  out: InstanceType<typeof nn.Linear>;
  constructor(c: number, private readonly heads: number, device: string) {
    super();
    this.ln_1 = new nn.LayerNorm(c, { device });
    this.attn = new nn.Linear(c, 3 * c, { device });
    this.proj = new nn.Linear(c, c, { device });
    this.ln_2 = new nn.LayerNorm(c, { device });
    this.fc = new nn.Linear(c, 4 * c, { device });
    this.out = new nn.Linear(4 * c, c, { device });
  }
  forward(x: T): T {
    return torch.tidy(() => {
      const [b, t, c] = x.shape;
      const h = this.heads;
      const [q, k, v] = this.attn.forward(this.ln_1.forward(x)).split(c, 2).map((z) => z.view([b, t, h, c / h]).transpose(1, 2));
      const y = torch.scaledDotProductAttention(q, k, v, { isCausal: true });
      const x1 = x.add(this.proj.forward(y.transpose(1, 2).reshape([b, t, c])));
      return x1.add(this.out.forward(this.fc.forward(this.ln_2.forward(x1)).gelu({ approximate: 'tanh' })));
    });
  }
}

export class GPT extends nn.Module {
  wte: InstanceType<typeof nn.Embedding>;
  wpe: InstanceType<typeof nn.Embedding>;
  blocks: InstanceType<typeof nn.ModuleList>;
  ln_f: InstanceType<typeof nn.LayerNorm>;
  head: InstanceType<typeof nn.Linear>;
  constructor(cfg: Required<Pick<TrainConfig, 'layers' | 'width' | 'heads' | 'seq' | 'vocab'>>, device: string) {
    super();
    const c = cfg.width;
    this.wte = new nn.Embedding(cfg.vocab, c, { device });
    this.wpe = new nn.Embedding(cfg.seq, c, { device });
    this.blocks = new nn.ModuleList(Array.from({ length: cfg.layers }, () => new Block(c, cfg.heads, device)));
    this.ln_f = new nn.LayerNorm(c, { device });
    this.head = new nn.Linear(c, cfg.vocab, { bias: false, device });
  }
  forward(idx: T): T {
    return torch.tidy(() => {
      const t = idx.shape[1];
      let x = this.wte.forward(idx).add(this.wpe.forward(torch.arange(t, { device: idx.device })));
      for (const b of this.blocks.children()) x = (b as Block).forward(x);
      return this.head.forward(this.ln_f.forward(x));
    });
  }
}

export class MLP extends nn.Module {
  net: InstanceType<typeof nn.Sequential>;
  constructor(cfg: Required<Pick<TrainConfig, 'inputs' | 'width' | 'classes'>>, device: string) {
    super();
    const w = cfg.width;
    this.net = new nn.Sequential(new nn.Linear(cfg.inputs, w, { device }), new nn.ReLU(), new nn.Linear(w, w, { device }), new nn.ReLU(), new nn.Linear(w, cfg.classes, { device }));
  }
  forward(x: T): T {
    return torch.tidy(() => this.net.forward(x));
  }
}
