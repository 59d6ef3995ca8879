/**
 * The training benchmark: one model's training step (forward, crossEntropy,
 * backward, AdamW, zeroGrad) in tsgpu and in PyTorch (bench/train_torch.py,
 * eager with its defaults) in the same run, on the same device, with the same
 * sizes. Reports throughput (tokens or samples per second), where the step's
 * time goes (forward, backward, optimizer), and on CUDA the peak allocated and
 * reserved memory of both, as ratios tsgpu / PyTorch. Writes
 * bench/results/train_<name>.{json,md}.
 *
 *   node dist/bench/train_bench.js --model mlp --device cpu --threads 1
 *   node dist/bench/train_bench.js --model gpt --device cuda:0 --autocast bfloat16 --layers 12 --width 768 --heads 12 --seq 1024 --batch 8
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../native/index';
import { GPT, MLP, TrainConfig } from './train_model';

function parseArgs(): { cfg: TrainConfig; python: string; name: string } {
  const a = process.argv.slice(2);
  const get = (k: string, d?: string) => {
    const i = a.indexOf(`--${k}`);
    return i >= 0 ? a[i + 1] : d;
  };
  const model = (get('model', 'mlp') as 'gpt' | 'mlp');
  const num = (k: string, d: number) => Number(get(k, String(d)));
  const cfg: TrainConfig = model === 'gpt'
    ? { model, device: get('device', 'cuda:0')!, layers: num('layers', 12), width: num('width', 768), heads: num('heads', 12), seq: num('seq', 1024), batch: num('batch', 8), vocab: num('vocab', 50257), steps: num('steps', 10), warmup: num('warmup', 2) }
    : { model, device: get('device', 'cpu')!, inputs: num('inputs', 784), width: num('width', 1024), classes: num('classes', 10), batch: num('batch', 256), steps: num('steps', 20), warmup: num('warmup', 3) };
  const ac = get('autocast');
  if (ac) cfg.autocast = ac as 'bfloat16' | 'float16';
  const th = get('threads');
  if (th) cfg.threads = Number(th);
  const python = get('python', process.env.TSGPU_PYTHON ?? 'python3')!;
  const name = get('name', `${model}_${cfg.device.replace(':', '_')}${cfg.autocast ? `_${cfg.autocast}` : '_float32'}${cfg.threads ? `_t${cfg.threads}` : ''}`)!;
  return { cfg, python, name };
}

interface Result {
  items_per_s: number;
  step_s: number;
  forward_s: number;
  backward_s: number;
  optimizer_s: number;
  peak_allocated: number | null;
  peak_reserved: number | null;
  losses: number[];
}

function runTsgpu(cfg: TrainConfig): Result {
  const dev = cfg.device;
  const cuda = dev !== 'cpu';
  if (cfg.threads) torch.setNumThreads(cfg.threads);
  torch.manualSeed(0);
  let model: GPT | MLP, x: torch.Tensor, y: torch.Tensor, items: number;
  let lossOf: (out: torch.Tensor) => torch.Tensor;
  if (cfg.model === 'gpt') {
    model = new GPT(cfg as Required<TrainConfig>, dev);
    x = torch.randint(0, cfg.vocab!, [cfg.batch, cfg.seq!], { device: dev });
    y = torch.randint(0, cfg.vocab!, [cfg.batch * cfg.seq!], { device: dev });
    items = cfg.batch * cfg.seq!;
    lossOf = (out) => torch.crossEntropy(out.view([-1, cfg.vocab!]), y);
  } else {
    model = new MLP(cfg as Required<TrainConfig>, dev);
    x = torch.randn([cfg.batch, cfg.inputs!], { device: dev });
    y = torch.randint(0, cfg.classes!, [cfg.batch], { device: dev });
    items = cfg.batch;
    lossOf = (out) => torch.crossEntropy(out, y);
  }
  const opt = new torch.optim.AdamW(model.parameters(), { lr: cfg.lr ?? 3e-4 });
  const sync = () => (cuda ? torch.cuda.synchronize(dev) : undefined);
  const now = () => Number(process.hrtime.bigint()) / 1e9;
  const step = (times: number[][] | null): number => {
    const t0 = now();
    const loss = torch.tidy(() => (cfg.autocast ? torch.autocast(cuda ? 'cuda' : 'cpu', { dtype: cfg.autocast }, () => lossOf(model.forward(x))) : lossOf(model.forward(x))));
    sync();
    const t1 = now();
    loss.backward();
    sync();
    const t2 = now();
    opt.step();
    opt.zeroGrad({ setToNone: true });
    sync();
    const t3 = now();
    if (times) times.push([t1 - t0, t2 - t1, t3 - t2]);
    const v = Number(loss.item());
    loss.dispose();
    return v;
  };
  for (let i = 0; i < (cfg.warmup ?? 2); i++) step(null);
  if (cuda) torch.cuda.resetPeakMemoryStats(dev);
  const times: number[][] = [];
  const losses: number[] = [];
  for (let i = 0; i < cfg.steps; i++) losses.push(step(times));
  const total = times.reduce((s, t) => s + t[0] + t[1] + t[2], 0);
  const avg = (k: number) => times.reduce((s, t) => s + t[k], 0) / times.length;
  return {
    items_per_s: (items * times.length) / total,
    step_s: total / times.length,
    forward_s: avg(0),
    backward_s: avg(1),
    optimizer_s: avg(2),
    peak_allocated: cuda ? torch.cuda.maxMemoryAllocated(dev) : null,
    peak_reserved: cuda ? torch.cuda.maxMemoryReserved(dev) : null,
    losses,
  };
}

function runTorch(cfg: TrainConfig, python: string): Result & { version: string } {
  const r = spawnSync(python, [path.join(__dirname, '..', '..', 'bench', 'train_torch.py'), JSON.stringify({ ...cfg, device: cfg.device === 'cpu' ? 'cpu' : cfg.device })], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`PyTorch's side failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

function main(): void {
  const { cfg, python, name } = parseArgs();
  const ref = runTorch(cfg, python);
  const ours = runTsgpu(cfg);
  const ratio = (a: number | null, b: number | null) => (a === null || b === null ? null : a / b);
  const MiB = (n: number | null) => (n === null ? '-' : (n / 2 ** 20).toFixed(0));
  const result = {
    date: new Date().toISOString(),
    machine: cfg.device === 'cpu' ? `${require('os').cpus()[0].model} (${cfg.threads ?? torch.getNumThreads()} threads)` : torch.cuda.getDeviceProperties(cfg.device).name,
    config: cfg,
    pytorch: ref,
    tsgpu: ours,
    ratios: {
      throughput: ours.items_per_s / ref.items_per_s,
      peak_allocated: ratio(ours.peak_allocated, ref.peak_allocated),
      peak_reserved: ratio(ours.peak_reserved, ref.peak_reserved),
    },
  };
  const unit = cfg.model === 'gpt' ? 'tokens/s' : 'samples/s';
  const ms = (s: number) => (s * 1000).toFixed(1);
  const md = [
    `# Training step: ${name} (${result.date.slice(0, 16)}, ${result.machine}, PyTorch ${ref.version})`,
    '',
    `Config: \`${JSON.stringify(cfg)}\``,
    '',
    `| | ${unit} | step ms | forward ms | backward ms | optimizer ms | peak allocated MiB | peak reserved MiB |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| PyTorch | ${ref.items_per_s.toFixed(0)} | ${ms(ref.step_s)} | ${ms(ref.forward_s)} | ${ms(ref.backward_s)} | ${ms(ref.optimizer_s)} | ${MiB(ref.peak_allocated)} | ${MiB(ref.peak_reserved)} |`,
    `| tsgpu | ${ours.items_per_s.toFixed(0)} | ${ms(ours.step_s)} | ${ms(ours.forward_s)} | ${ms(ours.backward_s)} | ${ms(ours.optimizer_s)} | ${MiB(ours.peak_allocated)} | ${MiB(ours.peak_reserved)} |`,
    `| tsgpu / PyTorch | **${result.ratios.throughput.toFixed(2)}** | | | | | ${result.ratios.peak_allocated?.toFixed(2) ?? '-'} | ${result.ratios.peak_reserved?.toFixed(2) ?? '-'} |`,
    '',
    `Losses (first, last): PyTorch ${ref.losses[0].toFixed(4)}, ${ref.losses[ref.losses.length - 1].toFixed(4)}; tsgpu ${ours.losses[0].toFixed(4)}, ${ours.losses[ours.losses.length - 1].toFixed(4)}`,
    '',
  ].join('\n');
  const dir = path.join(__dirname, '..', '..', 'bench', 'results');
  fs.writeFileSync(path.join(dir, `train_${name}.json`), JSON.stringify(result, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, `train_${name}.md`), md);
  if (process.env.OUT) {
    fs.copyFileSync(path.join(dir, `train_${name}.json`), path.join(process.env.OUT, `train_${name}.json`));
    fs.copyFileSync(path.join(dir, `train_${name}.md`), path.join(process.env.OUT, `train_${name}.md`));
  }
  process.stdout.write(md);
}

main();
