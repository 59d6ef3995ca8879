/**
 * A long session through one kernel: 10,000 cells of a mix a user writes
 * (tensor work, cells with type errors, completions while typing, `%memory`,
 * printing, errors, functions defined again, results kept in `Out`):
 *   node dist/bench/soak.js [--cells 10000] [--every 500] [--label NAME] [--snapshots DIR]
 * The kernel runs with its checker from the startup snapshot, as an
 * installed kernel does. Every `every` cells the kernel collects its garbage
 * and the resident memory of its process and of the checker's is sampled.
 * The baseline is the first thousand cells: RSS after the 1,000th, and the
 * median round trip of cells 1–1,000; the figures are the RSS after the last
 * cell and the median round trip of the last thousand, against them.
 * Goals: RSS ≤ +5 %, round trip ≤ 1.05×. Writes bench/results/soak{_NAME}.{json,md};
 * with --snapshots, the kernel's heap snapshots after the baseline and at
 * the end go to DIR (compare them with dist/bench/heap_diff.js).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { arg, childrenOf, MiB, rssMiB, startInstalledKernel, waitForTypeChecker } from './kernel_probe';



/** One step of the mix: a cell to run, or a completion request. */
type Step = { kind: string; code: string; complete?: boolean };

/** The i-th step: ten kinds in turn, with names from small sets (a session reuses its names) and texts that change. */
export function step(i: number): Step {
  const n = Math.floor(i / 10);
  switch (i % 10) {
    case 0: return { kind: 'tensor', code: `let w${n % 20} = torch.randn([96, 96]);\nlet h = w${n % 20}.matmul(w${n % 20}).relu();\nh.mean().item()` };
    case 1: return { kind: 'type error', code: `const count${n % 40}: number = "${n} items";\ncount${n % 40}` };
    case 2: return { kind: 'completion', code: `let q = torch.ones([${n % 7 + 1}]);\nq.${'acdefmrsv'[n % 9]}`, complete: true };
    case 3: return { kind: '%memory', code: '%memory' };
    case 4: return { kind: 'print', code: `console.log('step', ${n}, Math.random().toFixed(3))` };
    case 5: return { kind: 'error', code: `throw new Error('expected failure ${n}')` };
    case 6: return { kind: 'function', code: `function scale${n % 30}(x: number): number { return x * ${n}; }\nscale${n % 30}(2)` };
    case 7: return { kind: 'disposed tensor', code: `{ using t = torch.ones([64 * 1024]); t.add(${n % 5}).sum().item(); }` };
    case 8: return { kind: 'completion', code: `const items${n % 10} = [${n}, ${n + 1}];\nitems${n % 10}.${'fimprs'[n % 6]}`, complete: true };
    default: return { kind: 'result', code: `({ step: ${n}, label: 'soak-${n}' })` };
  }
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };

async function main(): Promise<void> {
  const cells = Number(arg('cells', '10000'));
  const every = Number(arg('every', '500'));
  const label = arg('label', '');
  const snapshots = arg('snapshots', '');
  const base = Math.min(1000, Math.floor(cells / 2));
  const { k, dir, root } = await startInstalledKernel('tsgpu-soak');
  try {
    await waitForTypeChecker(k);
    const kernel = k.proc!.pid!;
    const checkers = childrenOf(kernel);
    /** The main thread's heap after a collection, and what the CPU allocator holds (its cache included). */
    const heapOf = async (): Promise<{ heap: number; reserved: number }> => {
      const { outputs } = await k.execute('gc(); console.log(JSON.stringify([process.memoryUsage().heapUsed, torch.memory.reserved("cpu")]))', { store_history: false });
      const text = outputs.filter((m) => m.header.msg_type === 'stream' && m.content.name === 'stdout').map((m) => m.content.text).join('');
      const [heap, reserved] = JSON.parse(text.trim()) as number[];
      return { heap: heap / MiB, reserved: reserved / MiB };
    };
    const samples: { cells: number; kernel_mib: number; checker_mib: number; total_mib: number; heap_mib: number; cpu_reserved_mib: number; seconds: number }[] = [];
    const t0 = Date.now();
    const sample = async (n: number) => {
      const { heap, reserved } = await heapOf();
      await new Promise((r) => setTimeout(r, 200));
      const kernelMiB = rssMiB(kernel), checkerMiB = checkers.reduce((a, p) => a + rssMiB(p), 0);
      samples.push({ cells: n, kernel_mib: kernelMiB, checker_mib: checkerMiB, total_mib: kernelMiB + checkerMiB, heap_mib: heap, cpu_reserved_mib: reserved, seconds: (Date.now() - t0) / 1000 });
      process.stderr.write(`${n} cells: kernel ${kernelMiB.toFixed(1)} MiB (heap ${heap.toFixed(1)}, cpu reserved ${reserved.toFixed(1)}), checker ${checkerMiB.toFixed(1)} MiB\n`);
    };
    await sample(0);
    const rtt: number[] = [];
    const kinds: string[] = [];
    const errors: Record<string, number> = {};
    for (let i = 0; i < cells; i++) {
      const s = step(i);
      const t = process.hrtime.bigint();
      if (s.complete) {
        await k.request('complete_request', { code: s.code, cursor_pos: s.code.length });
      } else {
        const { reply } = await k.execute(s.code, { stop_on_error: false });
        if (reply.content.status !== 'ok') errors[s.kind] = (errors[s.kind] ?? 0) + 1;
      }
      rtt.push(Number(process.hrtime.bigint() - t) / 1e6);
      kinds.push(s.kind);
      k.iopubLog.length = 0;
      if ((i + 1) % every === 0 || i + 1 === base) await sample(i + 1);
      if (snapshots && (i + 1 === base || i + 1 === cells)) {
        fs.mkdirSync(snapshots, { recursive: true });
        await k.execute(`require('v8').writeHeapSnapshot(${JSON.stringify(path.resolve(snapshots, `kernel_${i + 1}.heapsnapshot`))});`, { store_history: false });
      }
    }
    const at = (n: number) => samples.find((s) => s.cells === n)!;
    const first = at(base), last = samples[samples.length - 1];
    const window = (from: number, to: number) => median(rtt.slice(from, to));
    const byKind = (from: number, to: number) => {
      const out: Record<string, number> = {};
      for (const kind of new Set(kinds)) out[kind] = median(rtt.slice(from, to).filter((_, j) => kinds[from + j] === kind));
      return out;
    };
    const rttFirst = window(0, base), rttLast = window(cells - base, cells);
    const rssGrowth = last.total_mib / first.total_mib - 1;
    const result = {
      date: new Date().toISOString(), machine: `${os.cpus()[0]?.model} (${os.cpus().length} cores)`, node: process.version,
      load_average: os.loadavg(), cells, baseline_cells: base, failed_cells_by_kind: errors,
      rss_mib: { after_baseline: first.total_mib, end: last.total_mib }, rss_growth: rssGrowth,
      kernel_rss_growth_mib: last.kernel_mib - first.kernel_mib, checker_rss_growth_mib: last.checker_mib - first.checker_mib,
      main_heap_growth_mib: last.heap_mib - first.heap_mib, cpu_reserved_growth_mib: last.cpu_reserved_mib - first.cpu_reserved_mib,
      rtt_ms_median: { first_cells: rttFirst, last_cells: rttLast }, rtt_ratio: rttLast / rttFirst,
      rtt_ms_median_by_kind: { first_cells: byKind(0, base), last_cells: byKind(cells - base, cells) },
      goals: { rss_growth: 0.05, rtt_ratio: 1.05 }, meets: { rss: rssGrowth <= 0.05, rtt: rttLast / rttFirst <= 1.05 },
      seconds: (Date.now() - t0) / 1000, samples,
    };
    const name = label ? `soak_${label}` : 'soak';
    const out = path.join(root, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify(result, null, 2) + '\n');
    const kindRows = Object.keys(result.rtt_ms_median_by_kind.first_cells).map((kind) =>
      `| ${kind} | ${result.rtt_ms_median_by_kind.first_cells[kind].toFixed(2)} | ${result.rtt_ms_median_by_kind.last_cells[kind].toFixed(2)} |`);
    const rows = samples.map((s) => `| ${s.cells} | ${s.kernel_mib.toFixed(1)} | ${s.heap_mib.toFixed(1)} | ${s.cpu_reserved_mib.toFixed(1)} | ${s.checker_mib.toFixed(1)} | ${s.total_mib.toFixed(1)} | ${s.seconds.toFixed(0)} |`);
    fs.writeFileSync(path.join(out, `${name}.md`), [
      `# Soak: ${cells} mixed cells through one kernel (${result.date.slice(0, 16)}, ${result.machine}, Node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`, '',
      `RSS of the kernel and its checker after cell ${base}: ${first.total_mib.toFixed(1)} MiB; after cell ${cells}: ${last.total_mib.toFixed(1)} MiB ` +
      `(**${rssGrowth >= 0 ? '+' : ''}${(rssGrowth * 100).toFixed(1)} %**, goal ≤ +5 %: ${result.meets.rss ? 'met' : 'not met'}). ` +
      `Median round trip, cells 1–${base}: ${rttFirst.toFixed(2)} ms; last ${base}: ${rttLast.toFixed(2)} ms (**${(rttLast / rttFirst).toFixed(2)}×**, goal ≤ 1.05×: ${result.meets.rtt ? 'met' : 'not met'}).`, '',
      '| kind | median ms, first | median ms, last |', '| --- | ---: | ---: |', ...kindRows, '',
      '| cells | kernel RSS MiB | kernel heap MiB | CPU reserved MiB | checker RSS MiB | total MiB | seconds |', '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |', ...rows, '',
    ].join('\n'));
    console.log(JSON.stringify({ cells, rss_growth: rssGrowth, rtt_ratio: rttLast / rttFirst, meets: result.meets }));
  } finally {
    await k.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
