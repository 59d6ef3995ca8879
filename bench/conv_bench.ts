/**
 * conv2d alone, for every distinct convolution of ResNet-50 (from its module tree at 224 × 224): the forward
 * pass, the gradient of the input and the gradient of the weight, in tsgpu (cuDNN, benchmark mode) and in
 * PyTorch (bench/conv_torch.py, torch.backends.cudnn.benchmark = True) on the same device in one run, in each
 * dtype asked. Reports each pass's median time over rounds and the workspace each call took (the peak allocated
 * during the call above the operands and the output), as ratios PyTorch time / tsgpu time (≥ 1 is as fast) and
 * tsgpu workspace / PyTorch workspace. float32 runs with TF32 allowed in both (cuDNN's default in PyTorch).
 * Writes bench/results/conv_<name>.{json,md}.
 *
 *   node dist/bench/conv_bench.js --device cuda:0 [--batch 32] [--dtypes bfloat16,float32] [--reps 10] [--rounds 3]
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../native/index';
import { cudnnConvolutionBackwardInput, cudnnConvolutionBackwardWeight } from '../native/ops/cudnn';
import type { Bottleneck, ResNet } from '../native/vision/models/resnet';
import type { Conv2d } from '../native/nn/modules/conv';

/** One convolution: input [batch, cin, size, size], weight [cout, cin, k, k]. */
export interface ConvShape {
  cin: number;
  cout: number;
  k: number;
  stride: number;
  padding: number;
  size: number;
}

/** The distinct convolutions of a torchvision ResNet at `image` × `image`, in model order. */
export function resnetConvShapes(net: ResNet, image: number): ConvShape[] {
  const out = new Map<string, ConvShape>();
  const add = (c: Conv2d, size: number) => {
    const s: ConvShape = { cin: c.inChannels, cout: c.outChannels, k: c.kernelSize[0], stride: c.stride[0], padding: (c.padding as [number, number])[0], size };
    out.set(JSON.stringify(s), s);
    return Math.floor((size + 2 * s.padding - s.k) / s.stride) + 1;
  };
  let s = add(net.conv1, image);
  s = Math.floor((s + 2 - 3) / 2) + 1; // the 3×3 max pool, stride 2, padding 1
  for (const layer of [net.layer1, net.layer2, net.layer3, net.layer4]) {
    for (const block of [...layer.children()] as Bottleneck[]) {
      const a = add(block.conv1, s);
      const b = add(block.conv2, a);
      add(block.conv3, b);
      if (block.downsample) add([...block.downsample.children()][0] as Conv2d, s);
      s = b;
    }
  }
  return [...out.values()];
}

interface PassResult { ms: number; workspace: number }
interface ShapeResult { shape: ConvShape; dtype: string; forward: PassResult; input: PassResult; weight: PassResult }

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function runTsgpu(shapes: ConvShape[], dtypes: string[], batch: number, dev: string, reps: number, rounds: number): ShapeResult[] {
  torch.backends.cudnn.benchmark = true;
  torch.backends.cudnn.allowTf32 = true;
  const results: ShapeResult[] = [];
  for (const dtype of dtypes) {
    for (const sh of shapes) {
      const o = Math.floor((sh.size + 2 * sh.padding - sh.k) / sh.stride) + 1;
      const opts = { dtype: dtype as torch.DType, device: dev };
      const x = torch.randn([batch, sh.cin, sh.size, sh.size], opts);
      const w = torch.randn([sh.cout, sh.cin, sh.k, sh.k], opts);
      const g = torch.randn([batch, sh.cout, o, o], opts);
      const p = { stride: [sh.stride, sh.stride] as [number, number], padding: [sh.padding, sh.padding] as [number, number], dilation: [1, 1] as [number, number], groups: 1 };
      const passes: Record<string, () => torch.Tensor> = {
        forward: () => torch.nn.functional.conv2d(x, w, null, { stride: sh.stride, padding: sh.padding }),
        input: () => cudnnConvolutionBackwardInput(g, w, p, x.shape),
        weight: () => cudnnConvolutionBackwardWeight(g, x, p, w.shape),
      };
      const r: Partial<ShapeResult> = { shape: sh, dtype };
      for (const [name, f] of Object.entries(passes)) {
        f().dispose(); // benchmark mode times the algorithms here, once
        torch.cuda.synchronize(dev);
        const before = torch.cuda.memoryAllocated(dev);
        torch.cuda.resetPeakMemoryStats(dev);
        const y = f();
        torch.cuda.synchronize(dev);
        const workspace = torch.cuda.maxMemoryAllocated(dev) - before - y.nbytes;
        y.dispose();
        const times: number[] = [];
        for (let i = 0; i < rounds; i++) {
          torch.cuda.synchronize(dev);
          const t0 = performance.now();
          for (let j = 0; j < reps; j++) f().dispose();
          torch.cuda.synchronize(dev);
          times.push((performance.now() - t0) / reps);
        }
        (r as Record<string, unknown>)[name] = { ms: median(times), workspace: Math.max(0, workspace) };
      }
      [x, w, g].forEach((t) => t.dispose());
      results.push(r as ShapeResult);
    }
  }
  return results;
}

function main(): void {
  const a = process.argv.slice(2);
  const get = (k: string, d: string) => (a.includes(`--${k}`) ? a[a.indexOf(`--${k}`) + 1] : d);
  const dev = get('device', 'cuda:0');
  const batch = Number(get('batch', '32'));
  const dtypes = get('dtypes', 'bfloat16,float32').split(',');
  const reps = Number(get('reps', '10')), rounds = Number(get('rounds', '3'));
  const python = get('python', process.env.TSGPU_PYTHON ?? 'python3');
  const net = torch.vision.models.resnet50();
  const shapes = resnetConvShapes(net as unknown as ResNet, 224);
  const cfg = { device: dev, batch, dtypes, reps, rounds, shapes };
  const r = spawnSync(python, [path.join(__dirname, '..', '..', 'bench', 'conv_torch.py'), JSON.stringify(cfg)], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`PyTorch's side failed (status ${r.status})`);
  const ref = JSON.parse(r.stdout.trim().split('\n').pop()!) as { version: string; results: ShapeResult[] };
  const ours = runTsgpu(shapes, dtypes, batch, dev, reps, rounds);
  const rows = ours.map((t, i) => {
    const p = ref.results[i];
    const ratio = (k: 'forward' | 'input' | 'weight') => ({ speed: p[k].ms / t[k].ms, workspace: p[k].workspace > 0 ? t[k].workspace / p[k].workspace : t[k].workspace === 0 ? 1 : null });
    return { ...t, pytorch: p, ratios: { forward: ratio('forward'), input: ratio('input'), weight: ratio('weight') } };
  });
  const machine = torch.cuda.getDeviceProperties(dev).name;
  const all = rows.flatMap((r) => [r.ratios.forward.speed, r.ratios.input.speed, r.ratios.weight.speed]);
  const result = { date: new Date().toISOString(), machine, pytorch_version: ref.version, cudnn: torch.backends.cudnn.description(), config: { device: dev, batch, dtypes, reps, rounds }, min_speed_ratio: Math.min(...all), rows };
  const f2 = (v: number | null) => (v === null ? '-' : v.toFixed(2));
  const md = [
    `# conv2d on ResNet-50's shapes, batch ${batch} (${result.date.slice(0, 16)}, ${machine}, PyTorch ${ref.version})`,
    '',
    `Speed ratio = PyTorch's time / tsgpu's (≥ 1: tsgpu as fast or faster); workspace ratio = tsgpu's / PyTorch's. Both with cudnn.benchmark on. tsgpu: ${result.cudnn}. Lowest speed ratio: **${result.min_speed_ratio.toFixed(2)}**.`,
    '',
    '| dtype | input → output, kernel/stride | forward ms (tsgpu / PyTorch) | speed | grad input ms | speed | grad weight ms | speed | workspace ratios (f / i / w) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map((r) => {
      const s = r.shape;
      const o = Math.floor((s.size + 2 * s.padding - s.k) / s.stride) + 1;
      const ms = (k: 'forward' | 'input' | 'weight') => `${r[k].ms.toFixed(3)} / ${r.pytorch[k].ms.toFixed(3)}`;
      return `| ${r.dtype} | ${s.cin}×${s.size}² → ${s.cout}×${o}², ${s.k}×${s.k}/${s.stride} | ${ms('forward')} | ${f2(r.ratios.forward.speed)} | ${ms('input')} | ${f2(r.ratios.input.speed)} | ${ms('weight')} | ${f2(r.ratios.weight.speed)} | ${f2(r.ratios.forward.workspace)} / ${f2(r.ratios.input.workspace)} / ${f2(r.ratios.weight.workspace)} |`;
    }),
    '',
  ].join('\n');
  const name = `conv_resnet50_${dev.replace(':', '_')}`;
  const dir = path.join(__dirname, '..', '..', 'bench', 'results');
  for (const [ext, text] of [['json', JSON.stringify(result, null, 2) + '\n'], ['md', md]]) {
    fs.writeFileSync(path.join(dir, `${name}.${ext}`), text);
    if (process.env.OUT) fs.writeFileSync(path.join(process.env.OUT, `${name}.${ext}`), text);
  }
  process.stdout.write(md);
}

if (require.main === module) main();
