/**
 * Attention benchmark: scaledDotProductAttention forward and backward in
 * tsgpu (the flash kernel on CUDA) against PyTorch's SDPA (FlashAttention-2)
 * on the same shapes, in one run: the shapes of issue 23 (batch 8, 12 heads,
 * head 64, causal, bfloat16, sequence 1024 and 4096) and the non-causal 1024.
 *
 *   node dist/bench/attention_bench.js [--device cuda:0] [--iters 20] [--python python3] [--out NAME]
 *
 * Times are medians over `iters` calls, each synchronized; memory is the peak
 * allocated by one forward + backward beyond the inputs (the S × S weights of
 * a non-flash path would show here). Writes bench/results/attention_<device>.json
 * and .md (or NAME.json / NAME.md).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../native/index';

interface Case {
  B: number;
  H: number;
  L: number;
  E: number;
  dtype: 'bfloat16' | 'float16' | 'float32';
  causal: boolean;
}

interface Result {
  forward_ms: number;
  backward_ms: number;
  peak_bytes: number;
  node: string;
}

const CASES: Case[] = [
  { B: 8, H: 12, L: 1024, E: 64, dtype: 'bfloat16', causal: true },
  { B: 8, H: 12, L: 4096, E: 64, dtype: 'bfloat16', causal: true },
  { B: 8, H: 12, L: 1024, E: 64, dtype: 'bfloat16', causal: false },
];

function arg(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Milliseconds of fn, synchronized before and after, median of iters. */
function timed(fn: () => void, iters: number): number {
  const times: number[] = [];
  for (let i = 0; i < iters; i++) {
    torch.cuda.synchronize();
    const t0 = process.hrtime.bigint();
    fn();
    torch.cuda.synchronize();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

/** tsgpu's figures for one case. */
function runCase(c: Case, device: string, iters: number): Result {
  const shape = [c.B, c.H, c.L, c.E];
  const [q, k, v] = [0, 1, 2].map(() => torch.randn(shape, { device, dtype: c.dtype }).requiresGrad_());
  const g = torch.randn(shape, { device, dtype: c.dtype });
  const clear = () => {
    for (const x of [q, k, v]) {
      x.grad?.dispose();
      x.grad = null;
    }
  };
  const step = () => {
    const out = torch.scaledDotProductAttention(q, k, v, { isCausal: c.causal });
    out.backward(g);
    out.dispose();
  };
  for (let i = 0; i < 3; i++) step();
  clear();
  const forwardMs = timed(() => torch.noGrad(() => torch.scaledDotProductAttention(q, k, v, { isCausal: c.causal }).dispose()), iters);
  const out = torch.scaledDotProductAttention(q, k, v, { isCausal: c.causal });
  const node = out.gradFn?.name() ?? '';
  const backwardMs = timed(() => out.backward(g, { retainGraph: true }), iters);
  out.dispose();
  clear();
  torch.cuda.synchronize();
  const base = torch.cuda.memoryAllocated();
  torch.cuda.resetPeakMemoryStats();
  step();
  torch.cuda.synchronize();
  const peak = torch.cuda.maxMemoryAllocated() - base;
  clear();
  for (const x of [q, k, v, g]) x.dispose();
  return { forward_ms: forwardMs, backward_ms: backwardMs, peak_bytes: peak, node };
}

function main(): void {
  const argv = process.argv.slice(2);
  const device = arg(argv, '--device') ?? 'cuda:0';
  const iters = Number(arg(argv, '--iters') ?? 20);
  const python = arg(argv, '--python') ?? process.env.TSGPU_PYTHON ?? 'python3';
  if (!torch.cuda.isAvailable()) throw new Error(`attention_bench: needs a CUDA device (${torch.cuda.unavailableReason()})`);
  const script = path.join(__dirname, '..', '..', 'bench', 'attention_torch.py');
  const py = spawnSync(python, [script, JSON.stringify({ device: 'cuda', cases: CASES, iters })], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (py.status !== 0) throw new Error(`attention_torch.py failed: ${py.stderr}`);
  const ref = JSON.parse(py.stdout.trim().split('\n').pop()!) as { torch: string; device: string; results: Result[] };
  const ours = CASES.map((c) => runCase(c, device, iters));
  const rows = CASES.map((c, i) => ({ case: c, tsgpu: ours[i], pytorch: ref.results[i] }));
  const name = arg(argv, '--out') ?? `attention_${device.replace(':', '_')}`;
  const dir = path.join(__dirname, '..', '..', 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ pytorch: ref.torch, device: ref.device, date: new Date().toISOString(), rows }, null, 2) + '\n');
  const md = [
    `# Attention: tsgpu against PyTorch ${ref.torch} on ${ref.device} (${new Date().toISOString().slice(0, 10)})`,
    '',
    '| shape | fwd tsgpu (ms) | fwd PyTorch | speed fwd | bwd tsgpu (ms) | bwd PyTorch | speed bwd | peak tsgpu | peak PyTorch |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(({ case: c, tsgpu: t, pytorch: p }) =>
      `| ${c.dtype} ${c.B}×${c.H}×${c.L}×${c.E}${c.causal ? ' causal' : ''} | ${t.forward_ms.toFixed(3)} | ${p.forward_ms.toFixed(3)} | ` +
      `${(p.forward_ms / t.forward_ms).toFixed(2)}× | ${t.backward_ms.toFixed(3)} | ${p.backward_ms.toFixed(3)} | ${(p.backward_ms / t.backward_ms).toFixed(2)}× | ` +
      `${(t.peak_bytes / 2 ** 20).toFixed(1)} MiB | ${(p.peak_bytes / 2 ** 20).toFixed(1)} MiB |`,
    ),
    '',
    `Speed is PyTorch's time over tsgpu's (≥ 1: tsgpu faster). Backward nodes: tsgpu ${ours[0].node}, PyTorch ${ref.results[0].node}.`,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, `${name}.md`), md);
  process.stdout.write(md);
}

main();
