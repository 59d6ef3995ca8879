/**
 * The ResNet-152 experiment: under one memory budget (setPerProcessMemoryFraction), the largest training batch
 * (224 × 224 images, SGD with momentum 0.9, 1000 classes) that fits in each setting — float32, bfloat16 autocast,
 * float16 autocast with GradScaler, float32 with checkpointing per stage (layer1…layer4 each one segment), and
 * bfloat16 with checkpointing — then the step time, images per second and peak allocated and reserved memory at
 * that batch, for tsgpu and for PyTorch eager (bench/resnet_torch.py) on the same device and budget, in one run.
 * The search doubles from 16 and bisects to a multiple of 16 with cuDNN's heuristics; the timed steps run with
 * cudnn.benchmark on (as the article recommends) in both. Writes bench/results/resnet_<name>.{json,md}.
 *
 *   node dist/bench/resnet_bench.js --device cuda:0 --budget-gib 16 [--depth 152] [--image 224] [--steps 3]
 *     [--modes float32,bfloat16,float16,checkpoint,bfloat16+checkpoint] [--max-batch 1024] [--python python3]
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../native/index';
import type { ResNet } from '../native/vision/models/resnet';

type Tensor = torch.Tensor;

export interface ResnetConfig {
  device: string;
  depth: number;
  image: number;
  budget_gib: number;
  steps: number;
  max_batch: number;
  modes: string[];
}

/** What one setting is: autocast dtype (or none) and whether each stage is checkpointed. */
export function modeOf(name: string): { amp: 'bfloat16' | 'float16' | null; checkpoint: boolean } {
  const amp = name.includes('bfloat16') ? 'bfloat16' : name.includes('float16') ? 'float16' : null;
  return { amp, checkpoint: name.includes('checkpoint') };
}

interface ModeResult {
  mode: string;
  batch: number;
  trials: number;
  step_ms: number | null;
  images_per_s: number | null;
  peak_allocated: number | null;
  peak_reserved: number | null;
}

function parseArgs(): { cfg: ResnetConfig; python: string; name: string } {
  const a = process.argv.slice(2);
  const get = (k: string, d: string) => {
    const i = a.indexOf(`--${k}`);
    return i >= 0 ? a[i + 1] : d;
  };
  const cfg: ResnetConfig = {
    device: get('device', 'cuda:0'),
    depth: Number(get('depth', '152')),
    image: Number(get('image', '224')),
    budget_gib: Number(get('budget-gib', '16')),
    steps: Number(get('steps', '3')),
    max_batch: Number(get('max-batch', '1024')),
    modes: get('modes', 'float32,bfloat16,float16,checkpoint,bfloat16+checkpoint').split(','),
  };
  const name = get('name', `resnet${cfg.depth}_${cfg.device.replace(':', '_')}_${cfg.budget_gib}gib`);
  return { cfg, python: get('python', process.env.TSGPU_PYTHON ?? 'python3'), name };
}

function forward(net: ResNet, x: Tensor, checkpointed: boolean): Tensor {
  if (!checkpointed) return net.forward(x);
  const stem = (t: Tensor) => net.maxpool.forward(net.relu.forward(net.bn1.forward(net.conv1.forward(t)))) as Tensor;
  let h = stem(x);
  for (const layer of [net.layer1, net.layer2, net.layer3, net.layer4]) {
    const next = torch.utils.checkpoint((t: Tensor) => layer.forward(t) as Tensor, h);
    h.dispose();
    h = next;
  }
  const pooled = net.avgpool.forward(h) as Tensor;
  h.dispose();
  const flat = pooled.flatten(1);
  pooled.dispose();
  const out = net.fc.forward(flat) as Tensor;
  flat.dispose();
  return out;
}

/** Runs `steps` training steps at `batch`; returns the seconds of each after the first, or null on out of memory. */
function steps(net: ResNet, cfg: ResnetConfig, mode: string, batch: number, n: number): number[] | null {
  const { amp, checkpoint } = modeOf(mode);
  const dev = cfg.device;
  const opt = new torch.optim.SGD(net.parameters(), { lr: 0.01, momentum: 0.9 });
  const scaler = new torch.amp.GradScaler('cuda', { enabled: amp === 'float16' });
  let x: Tensor | null = null, y: Tensor | null = null;
  const times: number[] = [];
  try {
    x = torch.randn([batch, 3, cfg.image, cfg.image], { device: dev });
    y = torch.randint(0, 1000, [batch], { device: dev });
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const loss = torch.tidy(() => torch.autocast('cuda', { dtype: amp ?? 'bfloat16', enabled: amp !== null }, () => torch.crossEntropy(forward(net, x!, checkpoint), y!)));
      const scaled = scaler.scale(loss);
      scaled.backward();
      scaler.step(opt);
      scaler.update();
      opt.zeroGrad({ setToNone: true });
      torch.cuda.synchronize(dev);
      if (scaled !== loss) scaled.dispose();
      loss.dispose();
      if (i > 0) times.push((performance.now() - t0) / 1000);
    }
    return times;
  } catch (e) {
    if ((e as Error).name !== 'OutOfMemoryError') throw e;
    return null;
  } finally {
    x?.dispose();
    y?.dispose();
    opt.zeroGrad({ setToNone: true });
    opt.dispose();
    torch.memory.emptyCache(dev);
  }
}

/** The largest multiple of 16 (up to max_batch) whose two training steps fit: doubling from 16, then bisection. */
export function largest(fits: (b: number) => boolean, max: number): { batch: number; trials: number } {
  let lo = 0, hi = 16, trials = 0;
  while (hi <= max && (trials++, fits(hi))) {
    lo = hi;
    hi *= 2;
  }
  if (hi > max) return { batch: lo, trials };
  while (hi - lo > 16) {
    const mid = Math.floor((lo + hi) / 32) * 16;
    trials++;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return { batch: lo, trials };
}

function runTsgpu(cfg: ResnetConfig): { results: ModeResult[]; cudnn: string } {
  const dev = cfg.device;
  const total = torch.cuda.memGetInfo(dev)[1];
  torch.cuda.setPerProcessMemoryFraction(Math.min(1, (cfg.budget_gib * 2 ** 30) / total), dev);
  torch.manualSeed(0);
  const net = (torch.vision.models as unknown as Record<string, (o: object) => ResNet>)[`resnet${cfg.depth}`]({ device: dev });
  const results: ModeResult[] = [];
  for (const mode of cfg.modes) {
    torch.backends.cudnn.benchmark = false;
    const { batch, trials } = largest((b) => steps(net, cfg, mode, b, 2) !== null, cfg.max_batch);
    let timed: number[] | null = null;
    if (batch > 0) {
      torch.backends.cudnn.benchmark = true;
      steps(net, cfg, mode, batch, 2); // benchmark mode times each shape's algorithms once
      torch.cuda.resetPeakMemoryStats(dev);
      timed = steps(net, cfg, mode, batch, cfg.steps + 1);
    }
    const s = timed && timed.length ? timed.reduce((p, q) => p + q, 0) / timed.length : null;
    results.push({
      mode, batch, trials,
      step_ms: s === null ? null : s * 1000,
      images_per_s: s === null ? null : batch / s,
      peak_allocated: timed ? torch.cuda.maxMemoryAllocated(dev) : null,
      peak_reserved: timed ? torch.cuda.maxMemoryReserved(dev) : null,
    });
    process.stderr.write(`tsgpu ${mode}: ${JSON.stringify(results[results.length - 1])}\n`);
  }
  return { results, cudnn: torch.backends.cudnn.description() };
}

function main(): void {
  const { cfg, python, name } = parseArgs();
  const r = spawnSync(python, [path.join(__dirname, '..', '..', 'bench', 'resnet_torch.py'), JSON.stringify(cfg)], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`PyTorch's side failed (status ${r.status})`);
  const ref = JSON.parse(r.stdout.trim().split('\n').pop()!) as { version: string; cudnn: number; results: ModeResult[] };
  const ours = runTsgpu(cfg);
  const by = (rs: ModeResult[], m: string) => rs.find((x) => x.mode === m)!;
  const div = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);
  const rows = cfg.modes.map((m) => {
    const t = by(ours.results, m), p = by(ref.results, m);
    return { mode: m, tsgpu: t, pytorch: p, ratios: { batch: div(t.batch, p.batch), step_time: div(t.step_ms, p.step_ms), images_per_s: div(t.images_per_s, p.images_per_s), peak_reserved: div(t.peak_reserved, p.peak_reserved) } };
  });
  const machine = torch.cuda.getDeviceProperties(cfg.device).name;
  const result = { date: new Date().toISOString(), machine, config: cfg, pytorch_version: ref.version, pytorch_cudnn: ref.cudnn, tsgpu_cudnn: ours.cudnn, rows };
  const f = (v: number | null, d = 0) => (v === null ? '-' : v.toFixed(d));
  const mib = (v: number | null) => (v === null ? '-' : (v / 2 ** 20).toFixed(0));
  const md = [
    `# ResNet-${cfg.depth} under a ${cfg.budget_gib} GiB budget (${result.date.slice(0, 16)}, ${machine}, PyTorch ${ref.version})`,
    '',
    `Images ${cfg.image}×${cfg.image}, SGD with momentum; largest batch by doubling from 16 and bisecting to a multiple of 16; step time the mean of ${cfg.steps} steps with cudnn.benchmark on. tsgpu: ${ours.cudnn}.`,
    '',
    '| setting | batch (tsgpu / PyTorch) | step ms (tsgpu / PyTorch) | images/s (tsgpu / PyTorch) | peak allocated MiB | peak reserved MiB | step time ratio | reserved ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.mode} | ${r.tsgpu.batch} / ${r.pytorch.batch} | ${f(r.tsgpu.step_ms)} / ${f(r.pytorch.step_ms)} | ${f(r.tsgpu.images_per_s, 1)} / ${f(r.pytorch.images_per_s, 1)} | ${mib(r.tsgpu.peak_allocated)} / ${mib(r.pytorch.peak_allocated)} | ${mib(r.tsgpu.peak_reserved)} / ${mib(r.pytorch.peak_reserved)} | ${f(r.ratios.step_time, 2)} | ${f(r.ratios.peak_reserved, 2)} |`),
    '',
  ].join('\n');
  const dir = path.join(__dirname, '..', '..', 'bench', 'results');
  for (const [ext, text] of [['json', JSON.stringify(result, null, 2) + '\n'], ['md', md]]) {
    fs.writeFileSync(path.join(dir, `resnet_${name}.${ext}`), text);
    if (process.env.OUT) fs.writeFileSync(path.join(process.env.OUT, `resnet_${name}.${ext}`), text);
  }
  process.stdout.write(md);
}

if (require.main === module) main();
