/**
 * The row and optimizer benchmark: crossEntropy (class indices), softmax and
 * logSoftmax forward and forward + backward at row lengths 1,024 to 262,144
 * over 64M elements, and one AdamW / SGD-with-momentum step over GPT-2
 * small's 124M parameters (foreach, fused and single-tensor), tsgpu against
 * PyTorch on the same device in one run (bench/rows_torch.py times the same
 * cases, by name, after tsgpu's).
 *
 *   node dist/bench/rows_bench.js [--device cuda:0|cpu] [--python python3] [--only substr,substr] [--out NAME]
 *
 * Writes bench/results/rows_<device>.json and .md (or NAME.json / NAME.md).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../native/index';
import { gpt2Shapes, RowCase, rowCases } from './rows_cases';

type T = torch.Tensor;

function arg(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

function synchronize(device: string): void {
  if (device !== 'cpu') torch.cuda.synchronize();
}

/** A function running the case once (its temporaries disposed), and what to free afterwards. */
function prepare(c: RowCase, device: string): { run: () => void; free: () => void } {
  if (c.kind === 'optimizer') {
    torch.manualSeed(1);
    const ps = gpt2Shapes().map((s) => torch.randn(s, { device }).mul(0.02).requiresGrad_());
    for (const p of ps) p.grad = torch.randn(p.shape, { device }).mul(1e-3);
    const impl = c.impl === 'single' ? { foreach: false } : c.impl === 'fused' ? { fused: true } : { foreach: true };
    const opt = c.optimizer === 'AdamW' ? new torch.optim.AdamW(ps, { lr: 1e-4, ...impl }) : new torch.optim.SGD(ps, { lr: 1e-3, momentum: 0.9, ...impl });
    opt.step();  // the state exists before the timed steps
    return { run: () => void opt.step(), free: () => { opt.dispose(); for (const p of ps) p.dispose(); } };
  }
  torch.manualSeed(2);
  const x = torch.randn([c.rows, c.len], { device }).to(c.dtype);
  const target = torch.randint(0, c.len, [c.rows], { device });
  const grad = c.kind === 'crossEntropy' ? null : torch.randn([c.rows, c.len], { device }).to(c.dtype);
  const forward = (xx: T): T => (c.kind === 'crossEntropy' ? torch.crossEntropy(xx, target) : c.kind === 'softmax' ? xx.softmax(-1) : xx.logSoftmax(-1));
  const run = c.pass === 'fwd'
    ? () => torch.noGrad(() => forward(x).dispose())
    : () => {
      const xx = x.detach().requiresGrad_();
      const y = forward(xx);
      const [g] = torch.autograd.grad(y, [xx], grad ? { gradOutputs: [grad] } : {});
      g?.dispose();
      y.dispose();
      xx.dispose();
    };
  return { run, free: () => { x.dispose(); target.dispose(); grad?.dispose(); } };
}

/** Median seconds per run over 5 rounds of c.iters runs, after one warm-up round. */
function time(c: RowCase, device: string): number {
  const { run, free } = prepare(c, device);
  try {
    const rounds: number[] = [];
    for (let r = 0; r < 6; r++) {
      synchronize(device);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < c.iters; i++) run();
      synchronize(device);
      if (r > 0) rounds.push(Number(process.hrtime.bigint() - t0) / 1e9 / c.iters);
    }
    return rounds.sort((a, b) => a - b)[rounds.length >> 1];
  } finally {
    free();
  }
}

function main(): void {
  const argv = process.argv.slice(2);
  const device = arg(argv, '--device') ?? (torch.cuda.isAvailable() ? 'cuda:0' : 'cpu');
  const python = arg(argv, '--python') ?? 'python3';
  const only = arg(argv, '--only')?.split(',') ?? null;
  const cases = rowCases(device).filter((c) => !only || only.some((o) => c.name.includes(o)));
  const ours = new Map<string, number>();
  for (const c of cases) {
    ours.set(c.name, time(c, device));
    process.stderr.write(`tsgpu ${c.name}: ${(ours.get(c.name)! * 1e3).toFixed(3)} ms\n`);
  }
  const script = path.join(__dirname, '..', '..', 'bench', 'rows_torch.py');
  const py = spawnSync(python, [script, device], { input: JSON.stringify({ cases, shapes: gpt2Shapes() }), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (py.status !== 0) throw new Error(`rows_torch.py failed: ${py.stderr}`);
  const theirs = JSON.parse(py.stdout.trim().split('\n').pop()!) as { info: Record<string, string>; times: Record<string, number> };
  const rows = cases.map((c) => {
    const a = ours.get(c.name)!, b = theirs.times[c.name];
    const ratio = b / a;  // throughput ratio: PyTorch's time over ours
    return { name: c.name, tsgpu_ms: a * 1e3, torch_ms: b * 1e3, tsgpu_gbs: c.bytes / a / 1e9, torch_gbs: c.bytes / b / 1e9, ratio, target: c.target, meets: ratio >= c.target };
  });
  const tag = device.replace(':', '_');
  const out = arg(argv, '--out') ?? `rows_${tag}`;
  const dir = path.join(__dirname, '..', '..', 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${out}.json`), JSON.stringify({ device, torch: theirs.info, date: new Date().toISOString(), rows }, null, 2) + '\n');
  const md = [
    `# Rows and optimizer step on ${device} (PyTorch ${theirs.info.torch}, ${theirs.info.device})`, '',
    '| case | tsgpu ms | PyTorch ms | tsgpu GB/s | PyTorch GB/s | ratio | target |', '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.name} | ${r.tsgpu_ms.toFixed(3)} | ${r.torch_ms.toFixed(3)} | ${r.tsgpu_gbs.toFixed(0)} | ${r.torch_gbs.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.target}${r.meets ? '' : ' (missed)'} |`),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, `${out}.md`), md);
  process.stdout.write(md);
}

main();
