/**
 * Op benchmark: tsgpu against PyTorch on the same machine, device, sizes and
 * thread count, in one run, rounds alternating between the two.
 *
 *   node dist/bench/ops_bench.js [--device cpu|cuda:0] [--threads N] [--rounds R]
 *                                [--python python3] [--only name,name] [--tag TAG] [--out NAME]
 *
 * CPU cases: matmul 1024² and 4096², randn/add/sum/softmax/gelu/layerNorm over
 * 64M float32, a 256-element add (latency, allocation included). GPU cases:
 * matmul 8192³ fp32/tf32/fp16/bf16, attention-shaped bmm, add/mul/copy/cast
 * over 1 GiB, sum/softmax/layerNorm/gelu/transpose-contiguous, the small add,
 * and (where build/Release/tsgpu_launch_floor was built) the host time of one
 * bare kernel launch from C++ against PyTorch's small add: the floor under it.
 * An op this build lacks is reported as missing, not skipped silently.
 * Writes bench/results/ops_<device>[_t<threads>][_<tag>].json and .md (or NAME.json
 * and NAME.md with --out). Latency cases also report CPU time per op (user +
 * system, all threads) of both processes, which a loaded machine disturbs less
 * than the wall-clock time.
 */
import { ChildProcessWithoutNullStreams, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as readline from 'readline';
import * as torch from '../native/index';
import { native } from '../native/addon';
import { runOp } from '../native/ops/dispatch';
import { emptyTensor } from '../native/tensor';
import { cpuCases, gpuCases, InputKind, OpCase } from './ops_cases';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const T: any = torch;

interface Args {
  device: string;
  threads: number;
  rounds: number;
  python: string;
  only: string[] | null;
  tag: string;
  out: string;
}

function parse(argv: string[]): Args {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const device = get('--device') ?? 'cpu';
  return {
    device,
    threads: Number(get('--threads') ?? (device === 'cpu' ? 1 : os.cpus().length)),
    rounds: Number(get('--rounds') ?? 5),
    python: get('--python') ?? 'python3',
    only: get('--only')?.split(',') ?? null,
    tag: get('--tag') ?? '',
    out: get('--out') ?? '',
  };
}

/** The first of `paths` (dotted, from the torch namespace) that is a function, or null. */
function resolve(...paths: string[]): ((...a: unknown[]) => unknown) | null {
  for (const p of paths) {
    let v: unknown = T;
    for (const part of p.split('.')) v = v == null ? undefined : (v as Record<string, unknown>)[part];
    if (typeof v === 'function') return v as (...a: unknown[]) => unknown;
  }
  return null;
}

type Runner = () => { dispose(): void };

/** tsgpu's inputs and op for a case, or the reason it cannot run in this build. */
function makeOp(c: OpCase, device: string): { run: Runner; inputs: { dispose(): void }[]; note?: string } | { missing: string } {
  const opts = { device, dtype: c.dtype };
  if (c.op === 'randn') {
    const shape = c.shapes[0];
    return { run: () => T.randn(shape, opts), inputs: [] };
  }
  const fns: Record<string, ((...a: unknown[]) => unknown) | null> = {
    matmul: resolve('matmul'),
    bmm: resolve('bmm'),
    add: resolve('add'),
    mul: resolve('mul'),
    sum: resolve('sum'),
    softmax: resolve('softmax', 'nn.functional.softmax'),
    gelu: resolve('nn.functional.gelu', 'gelu'),
    layerNorm: resolve('nn.functional.layerNorm', 'layerNorm'),
  };
  const xs = c.shapes.map((s, i) => makeInput(c.inputs?.[i] ?? 'randn', s, opts));
  const [a, b] = xs;
  const F = T.nn.functional;
  // Results that are several tensors ({ values, indices }) are disposed together.
  const both = (r: { values: torch.Tensor; indices: torch.Tensor }) => ({ dispose: () => { r.values.dispose(); r.indices.dispose(); } });
  const table: Record<string, Runner | null> = {
    matmul: fns.matmul && (() => fns.matmul!(a, b) as ReturnType<Runner>),
    bmm: fns.bmm && (() => fns.bmm!(a, b) as ReturnType<Runner>),
    add: fns.add && (() => fns.add!(a, b) as ReturnType<Runner>),
    mul: fns.mul && (() => fns.mul!(a, b) as ReturnType<Runner>),
    sum: fns.sum && (() => fns.sum!(a) as ReturnType<Runner>),
    softmax: fns.softmax && (() => fns.softmax!(a, -1) as ReturnType<Runner>),
    gelu: fns.gelu && (() => fns.gelu!(a) as ReturnType<Runner>),
    layerNorm: fns.layerNorm && (() => fns.layerNorm!(a, [a.shape[a.shape.length - 1]]) as ReturnType<Runner>),
    copy: typeof a.clone === 'function' ? () => a.clone() : null,
    cast_bf16: typeof a.to === 'function' ? () => a.to('bfloat16') : null,
    transpose_contiguous: typeof a.transpose === 'function' ? () => a.transpose(0, 1).contiguous() : null,
    // The ops of newOpCpuCases (ops_cases.ts), written as a PyTorch user writes them.
    erf: () => T.erf(a),
    tan: () => T.tan(a),
    atan2: () => T.atan2(a, b),
    hypot: () => T.hypot(a, b),
    clip: () => T.clip(a, -0.5, 0.5),
    isnan: () => T.isnan(a),
    logit: () => T.logit(a),
    exp: () => T.exp(a),
    tanh: () => T.tanh(a),
    sigmoid: () => T.sigmoid(a),
    log: () => T.log(a),
    leakyRelu: () => F.leakyRelu(a, 0.01),
    cumsum: () => T.cumsum(a, 1),
    cumprod: () => T.cumprod(a, 1),
    logcumsumexp: () => T.logcumsumexp(a, 1),
    median: () => both(T.median(a, -1)),
    topk: () => both(T.topk(a, 8, -1)),
    sort: () => both(T.sort(a, -1)),
    unique: () => T.unique(a),
    flip: () => T.flip(a, [0]),
    roll: () => T.roll(a, 17, 1),
    maskedSelect: () => T.maskedSelect(a, b),
    take: () => T.take(a, b),
    dot: () => T.dot(a, b),
    einsum: () => T.einsum('bij,bjk->bik', a, b),
    cdist: () => T.cdist(a, b),
    bernoulli: () => T.bernoulli(a),
    normal: () => T.normal(0, 1, a.shape, opts),
    multinomial: () => T.multinomial(a, 16),
    pad_reflect: () => F.pad(a, [2, 2, 2, 2], 'reflect'),
    groupNorm: () => F.groupNorm(a, 8),
    oneHot: () => F.oneHot(a, 100),
    cosineSimilarity: () => F.cosineSimilarity(a, b, 1),
  };
  let run = table[c.op];
  let note: string | undefined;
  if (!run) {
    const direct = directOp(c, a, device);
    if (direct) {
      run = direct;
      note = `${c.op} through runOp (no TypeScript function in this build yet)`;
    }
  }
  if (!run) {
    for (const x of xs) x.dispose();
    return { missing: `torch.${c.op} is not in this build` };
  }
  return { run, inputs: xs, note };
}

/** One input of a case, made as its kind says (OpCase.inputs; ops_torch.py makes the same). */
function makeInput(kind: InputKind, shape: number[], opts: { device: string; dtype: OpCase['dtype'] }): torch.Tensor {
  if (kind === 'rand') return T.rand(shape, opts);
  if (kind === 'mask') {
    const x = T.randn(shape, opts);
    const m = x.gt(0);
    x.dispose();
    return m;
  }
  if (kind.startsWith('index:')) return T.randint(0, Number(kind.slice(6)), shape, { device: opts.device, dtype: 'int64' });
  return T.randn(shape, opts);
}

/** The native op behind a case when its kernel is registered for the device but no TypeScript function exists yet. */
function directOp(c: OpCase, a: torch.Tensor, device: string): Runner | null {
  const kind = device === 'cpu' ? 'cpu' : 'cuda';
  const has = (name: string) => native.opList().some((o) => o.name === name && o.kernels.includes(kind));
  const attrs: Record<string, object> = { softmax: { dim: a.shape.length - 1 }, gelu: {} };
  if (!(c.op in attrs) || !has(c.op)) return null;
  return () => {
    const out = emptyTensor(a.shape.slice(), a.dtype, a.device);
    runOp(c.op as 'softmax' | 'gelu', [out], [a], attrs[c.op]);
    return out;
  };
}

/** Requests to the PyTorch process (bench/ops_torch.py), one JSON line each way. */
class TorchPeer {
  private lines: AsyncIterableIterator<string>;
  constructor(private child: ChildProcessWithoutNullStreams) {
    this.lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }
  static start(python: string, device: string, threads: number): TorchPeer {
    const script = path.join(__dirname, '..', '..', 'bench', 'ops_torch.py');
    // torch.set_num_threads does not reach the OpenBLAS that Debian's PyTorch calls: give it the same count.
    const env = device === 'cpu' ? { ...process.env, OPENBLAS_NUM_THREADS: String(threads), OMP_NUM_THREADS: String(threads) } : process.env;
    const child = spawn(python, [script, device, String(threads)], { stdio: ['pipe', 'pipe', 'pipe'], env });
    child.stderr.on('data', (d) => process.stderr.write(`[torch] ${d}`));
    return new TorchPeer(child);
  }
  async ask(req: object): Promise<Record<string, unknown>> {
    this.child.stdin.write(JSON.stringify(req) + '\n');
    const next = await this.lines.next();
    if (next.done) throw new Error('the PyTorch process exited');
    return JSON.parse(next.value);
  }
  stop(): void {
    this.child.stdin.end();
  }
}

function synchronize(device: string): void {
  if (device !== 'cpu') T.cuda.synchronize();
}

/** Seconds and CPU seconds per op over one round of c.iters ops (results disposed, as dropped temporaries are in PyTorch). */
function tsgpuRound(c: OpCase, run: Runner, device: string): { s: number; cpu: number } {
  synchronize(device);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < c.iters; i++) run().dispose();
  synchronize(device);
  const s = Number(process.hrtime.bigint() - t0) / 1e9 / c.iters;
  const used = process.cpuUsage(c0);
  return { s, cpu: (used.user + used.system) / 1e6 / c.iters };
}

const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[xs.length >> 1];

interface Row {
  name: string;
  metric: OpCase['metric'];
  tsgpu_s: number | null;
  torch_s: number | null;
  tsgpu: number | null;  // GFLOP/s, GB/s or µs
  torch: number | null;
  ratio: number | null;  // throughput: tsgpu/torch; latency: tsgpu time / torch time
  target: number;
  meets: boolean | null;
  /** Latency cases: CPU seconds per op of each process, and their ratio. */
  tsgpu_cpu_s?: number;
  torch_cpu_s?: number;
  cpu_ratio?: number;
  note?: string;
}

function figure(c: OpCase, s: number): number {
  if (c.metric === 'latency') return s * 1e6;
  return c.work / s / 1e9;
}

async function measure(c: OpCase, args: Args, peer: TorchPeer): Promise<Row> {
  const row: Row = { name: c.name, metric: c.metric, tsgpu_s: null, torch_s: null, tsgpu: null, torch: null, ratio: null, target: c.target, meets: null };
  if (c.tf32 !== undefined && T.backends?.cuda?.matmul) T.backends.cuda.matmul.allowTf32 = c.tf32;
  const made = makeOp(c, args.device);
  const setup = await peer.ask({ cmd: 'setup', case: c });
  if (setup.error) row.note = `PyTorch: ${setup.error}`;
  if ('missing' in made) {
    row.note = made.missing;
    await peer.ask({ cmd: 'drop' });
    return row;
  }
  if (made.note) row.note = made.note;
  const ours: number[] = [], theirs: number[] = [], oursCpu: number[] = [], theirsCpu: number[] = [];
  try {
    made.run().dispose(); // warm up
    for (let r = 0; r < args.rounds; r++) {
      const mine = tsgpuRound(c, made.run, args.device);
      ours.push(mine.s);
      oursCpu.push(mine.cpu);
      if (!setup.error) {
        const res = await peer.ask({ cmd: 'round' });
        if (typeof res.cpu_s === 'number') theirsCpu.push(res.cpu_s);
        if (typeof res.s === 'number') theirs.push(res.s);
        else row.note = `PyTorch: ${res.error}`;
      }
    }
  } catch (e) {
    row.note = `tsgpu: ${(e as Error).message}`;
  } finally {
    for (const x of made.inputs) x.dispose();
    await peer.ask({ cmd: 'drop' });
  }
  if (ours.length) row.tsgpu_s = median(ours);
  if (theirs.length) row.torch_s = median(theirs);
  if (row.tsgpu_s !== null) row.tsgpu = figure(c, row.tsgpu_s);
  if (row.torch_s !== null) row.torch = figure(c, row.torch_s);
  if (row.tsgpu_s !== null && row.torch_s !== null) {
    row.ratio = c.metric === 'latency' ? row.tsgpu_s / row.torch_s : row.torch_s / row.tsgpu_s;
    row.meets = c.metric === 'latency' ? row.ratio <= c.target : row.ratio >= c.target;
  }
  if (c.metric === 'latency' && oursCpu.length && theirsCpu.length) {
    row.tsgpu_cpu_s = median(oursCpu);
    row.torch_cpu_s = median(theirsCpu);
    row.cpu_ratio = row.tsgpu_cpu_s / row.torch_cpu_s;
  }
  return row;
}

/**
 * The host time of one bare kernel launch from C++ (build/Release/tsgpu_launch_floor), against PyTorch's
 * small add of the same run: the floor under any op that launches one kernel. Null without that binary.
 */
function launchFloorRow(small: Row | undefined): Row | null {
  const bin = path.join(__dirname, '..', '..', 'build', 'Release', 'tsgpu_launch_floor');
  if (!fs.existsSync(bin) || !small || small.torch_s === null) return null;
  const run = spawnSync(bin, [], { encoding: 'utf8', timeout: 60_000 });
  let floor: { launch_us?: number; error?: string };
  try {
    floor = JSON.parse(run.stdout.trim().split('\n').pop() ?? '');
  } catch {
    floor = { error: `tsgpu_launch_floor printed ${JSON.stringify(run.stdout)} ${run.stderr ?? ''}` };
  }
  const row: Row = {
    name: 'launch_floor_256', metric: 'latency', tsgpu_s: null, torch_s: small.torch_s, tsgpu: null,
    torch: small.torch, ratio: null, target: small.target, meets: null,
    note: 'one kernel launch from a C++ loop, no op around it, against the PyTorch small add',
  };
  if (typeof floor.launch_us !== 'number') {
    row.note = `tsgpu_launch_floor: ${floor.error}`;
    return row;
  }
  row.tsgpu_s = floor.launch_us / 1e6;
  row.tsgpu = floor.launch_us;
  row.ratio = row.tsgpu_s / small.torch_s;
  row.meets = row.ratio <= row.target;
  return row;
}

function table(rows: Row[]): string {
  const unit = (r: Row) => (r.metric === 'flops' ? 'GFLOP/s' : r.metric === 'bytes' ? 'GB/s' : 'µs/op');
  const fmt = (x: number | null) => (x === null ? '–' : x >= 100 ? x.toFixed(0) : x.toPrecision(3));
  const ms = (s: number | null) => (s === null ? '–' : fmt(s * 1e3));
  const lines = [
    '| case | unit | tsgpu | PyTorch | ratio | target | meets | ms per op (tsgpu / PyTorch) |',
    '| --- | --- | ---: | ---: | ---: | --- | --- | ---: |',
  ];
  for (const r of rows) {
    const target = r.metric === 'latency' ? `≤ ${r.target}` : `≥ ${r.target}`;
    const meets = (r.meets === null ? '–' : r.meets ? 'yes' : 'no') + (r.note ? ` (${r.note})` : '');
    const ratio = r.ratio === null ? '–' : r.ratio.toFixed(2);
    lines.push(`| ${r.name} | ${unit(r)} | ${fmt(r.tsgpu)} | ${fmt(r.torch)} | ${ratio} | ${target} | ${meets} | ${ms(r.tsgpu_s)} / ${ms(r.torch_s)} |`);
  }
  const cpu = rows.filter((r) => r.cpu_ratio !== undefined);
  if (cpu.length) {
    lines.push('', 'CPU time per op (user + system, each process), µs: ' +
      cpu.map((r) => `${r.name} ${fmt(r.tsgpu_cpu_s! * 1e6)} vs ${fmt(r.torch_cpu_s! * 1e6)} (ratio ${r.cpu_ratio!.toFixed(2)})`).join('; ') + '.');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args.device === 'cpu') {
    if (typeof T.setNumThreads !== 'function') throw new Error('torch.setNumThreads is not in this build');
    T.setNumThreads(args.threads);
  }
  const peer = TorchPeer.start(args.python, args.device, args.threads);
  try {
    const torchInfo = await peer.ask({ cmd: 'info' });
    let cases = args.device === 'cpu' ? cpuCases() : gpuCases();
    if (args.only) cases = cases.filter((c) => args.only!.includes(c.name));
    const rows: Row[] = [];
    for (const c of cases) {
      const row = await measure(c, args, peer);
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
    if (args.device !== 'cpu') {
      const floor = launchFloorRow(rows.find((r) => r.name === 'small_add_256'));
      if (floor) rows.push(floor);
    }
    const result = {
      date: new Date().toISOString(),
      machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, os: `${os.type()} ${os.release()}` },
      device: args.device,
      threads: args.threads,
      rounds: args.rounds,
      tsgpu: { node: process.version, matmul: T.matmulBackends ? T.matmulBackends() : null },
      pytorch: torchInfo,
      rows,
    };
    const dir = path.join(__dirname, '..', '..', 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const base = args.out || `ops_${args.device.replace(':', '_')}${args.device === 'cpu' ? `_t${args.threads}` : ''}${args.tag ? `_${args.tag}` : ''}`;
    fs.writeFileSync(path.join(dir, `${base}.json`), JSON.stringify(result, null, 2) + '\n');
    const md = `# Ops: tsgpu vs PyTorch ${torchInfo.torch} on ${args.device} (${args.device === 'cpu' ? `${args.threads} thread(s), ` : ''}${result.date.slice(0, 10)})\n\n` +
      `Machine: ${result.machine.cpu} (${result.machine.cores} cores)${torchInfo.device ? `, ${torchInfo.device}` : ''}. Medians of ${args.rounds} alternating rounds.` +
      `${args.device === 'cpu' ? ` Both sides use ${args.threads} thread(s), their BLAS included (PyTorch's through OPENBLAS_NUM_THREADS).` : ''}\n\n` +
      `${table(rows)}\n`;
    fs.writeFileSync(path.join(dir, `${base}.md`), md);
    process.stdout.write(md);
  } finally {
    peer.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
