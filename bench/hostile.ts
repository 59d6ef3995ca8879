/**
 * Hostile messages against one kernel: 100,000 random and mutated multipart
 * messages (test/kernel/fuzz_lib.ts: bad frames and signatures, non-JSON,
 * huge JSON, wrong types, unknown types, six 64 MiB frames) on shell,
 * control and stdin, every reply read:
 *   node dist/bench/hostile.js [--messages 100000] [--every 10000] [--snapshots DIR]
 * The kernel's resident memory (its process and its checker's) is sampled
 * once it is ready and has collected its garbage, and after every `every`
 * messages the same way. Goal: it grows by less than 32 MiB from the start.
 * Writes bench/results/hostile.{json,md}; with --snapshots, the kernel's heap
 * snapshots at the start and at the end go to DIR (dist/bench/heap_diff.js
 * compares them).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { arg, childrenOf, MiB, rssMiB, startInstalledKernel, waitForTypeChecker } from './kernel_probe';
import { Fuzzer } from '../test/kernel/fuzz_lib';

/** Where the 64 MiB frames come (as in test/kernel/protocol/fuzz.test.ts); `--huge 1000,2000` or `--huge none` for others. */
const HUGE_AT = [2000, 4000, 6000, 40_000, 70_000, 95_000];


async function main(): Promise<void> {
  const messages = Number(arg('messages', '100000'));
  const every = Number(arg('every', '10000'));
  const snapshots = arg('snapshots', '');
  const huge = arg('huge', '') === 'none' ? [] : arg('huge', '') ? arg('huge', '').split(',').map(Number) : HUGE_AT;
  const snapshot = async (n: number) => {
    if (!snapshots) return;
    fs.mkdirSync(snapshots, { recursive: true });
    await k.execute(`require('v8').writeHeapSnapshot(${JSON.stringify(path.resolve(snapshots, `kernel_${n}.heapsnapshot`))});`, { store_history: false });
  };
  const { k, dir, root } = await startInstalledKernel('tsgpu-hostile');
  try {
    await waitForTypeChecker(k);
    await k.execute('const before = 6;');
    const kernel = k.proc!.pid!;
    const checkers = childrenOf(kernel);
    const samples: { messages: number; kernel_mib: number; checker_mib: number; total_mib: number; heap_mib: number; seconds: number }[] = [];
    const t0 = Date.now();
    const sample = async (n: number) => {
      await k.request('kernel_info_request', {});
      const { outputs } = await k.execute('gc(); console.log(process.memoryUsage().heapUsed)', { store_history: false });
      const heap = Number(outputs.filter((m) => m.header.msg_type === 'stream' && m.content.name === 'stdout').map((m) => m.content.text).join('').trim()) / MiB;
      await new Promise((r) => setTimeout(r, 300));
      const kernelMiB = rssMiB(kernel), checkerMiB = checkers.reduce((a, p) => a + rssMiB(p), 0);
      samples.push({ messages: n, kernel_mib: kernelMiB, checker_mib: checkerMiB, total_mib: kernelMiB + checkerMiB, heap_mib: heap, seconds: (Date.now() - t0) / 1000 });
      process.stderr.write(`${n} messages: kernel ${kernelMiB.toFixed(1)} MiB (heap ${heap.toFixed(1)}), checker ${checkerMiB.toFixed(1)} MiB\n`);
    };
    await sample(0);
    await snapshot(0);
    const fuzzer = new Fuzzer(20261201, { signer: k.signer, origin: k.origin, hugeAt: huge });
    const counts: Record<string, number> = {};
    const sockets = [k.shell, k.control, k.shell, k.control, k.stdin];
    for (let i = 1; i <= messages; i++) {
      const { kind, frames } = fuzzer.next();
      counts[kind] = (counts[kind] ?? 0) + 1;
      await sockets[i % sockets.length].send(frames);
      if (i % 500 === 0) { await k.request('kernel_info_request', {}, 'control', 60000); k.iopubLog.length = 0; }
      if (i % every === 0) await sample(i);
    }
    await snapshot(messages);
    const { reply, outputs } = await k.execute('before * 7');
    const answered = reply.content.status === 'ok' && outputs.some((m) => m.header.msg_type === 'execute_result' && m.content.data['text/plain'] === '42');
    const first = samples[0], last = samples[samples.length - 1];
    const peak = samples.reduce((a, s) => Math.max(a, s.total_mib), 0);
    const result = {
      date: new Date().toISOString(), machine: `${os.cpus()[0]?.model} (${os.cpus().length} cores)`, node: process.version,
      load_average: os.loadavg(), messages, huge_frames_64mib: huge.filter((n) => n <= messages).length, counts,
      cell_answered_after: answered, stderr_lines: k.stderr.split('\n').length,
      growth_mib: last.total_mib - first.total_mib, highest_growth_mib: peak - first.total_mib,
      kernel_growth_mib: last.kernel_mib - first.kernel_mib, checker_growth_mib: last.checker_mib - first.checker_mib,
      goal_growth_mib: 32, meets: peak - first.total_mib < 32 && answered, seconds: (Date.now() - t0) / 1000, samples,
    };
    const out = path.join(root, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'hostile.json'), JSON.stringify(result, null, 2) + '\n');
    const rows = samples.map((s) => `| ${s.messages} | ${s.kernel_mib.toFixed(1)} | ${s.heap_mib.toFixed(1)} | ${s.checker_mib.toFixed(1)} | ${s.total_mib.toFixed(1)} | ${s.seconds.toFixed(0)} |`);
    fs.writeFileSync(path.join(out, 'hostile.md'), [
      `# Hostile messages: ${messages} (${result.date.slice(0, 16)}, ${result.machine}, Node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`, '',
      `Kernel and checker RSS: ${first.total_mib.toFixed(1)} MiB at the start, ${last.total_mib.toFixed(1)} MiB after the last message ` +
      `(**${result.growth_mib >= 0 ? '+' : ''}${result.growth_mib.toFixed(1)} MiB**, highest +${result.highest_growth_mib.toFixed(1)}; goal < 32 MiB: ${result.meets ? 'met' : 'not met'}). ` +
      `A cell ran correctly after: ${answered ? 'yes' : 'no'}. ${result.stderr_lines} lines on the kernel's stderr.`, '',
      '| messages | kernel RSS MiB | kernel heap MiB | checker RSS MiB | total MiB | seconds |', '| ---: | ---: | ---: | ---: | ---: | ---: |', ...rows, '',
    ].join('\n'));
    console.log(JSON.stringify({ messages, growth_mib: result.growth_mib, highest_growth_mib: result.highest_growth_mib, meets: result.meets }));
  } finally {
    await k.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
