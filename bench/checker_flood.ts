/**
 * A flood of completion requests, each on a new text (a new program for the
 * type checker), against one kernel whose checker runs from its startup
 * snapshot, as an installed kernel's does:
 *   node dist/bench/checker_flood.js [--requests 10000] [--every 500]
 * Records the resident memory of the kernel's process and of the checker's
 * every `every` requests, and writes bench/results/checker_flood.{json,md}.
 * The goal: the checker grows by at most 64 MiB over 10,000 requests
 * (measured from the first answer the checker gave, after its warm-up).
 * Everything it writes (kernelspec, snapshot, history) goes to a temporary
 * folder.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { arg, childrenOf, MiB, rssMiB, startInstalledKernel, waitForTypeChecker } from './kernel_probe';



async function main(): Promise<void> {
  const requests = Number(arg('requests', '10000'));
  const every = Number(arg('every', '500'));
  const { k, dir, root } = await startInstalledKernel('tsgpu-flood');
  try {
    const complete = async (code: string): Promise<boolean> => {
      const { reply } = await k.request('complete_request', { code, cursor_pos: code.length });
      return Array.isArray(reply.content.metadata?._jupyter_types_experimental);
    };
    await waitForTypeChecker(k);
    const kernel = k.proc!.pid!;
    const checkers = childrenOf(kernel);
    if (!checkers.length) throw new Error('no checker process: the kernel runs its checker on a thread (no snapshot)');
    const samples: { requests: number; kernel_mib: number; checker_mib: number; seconds: number }[] = [];
    const t0 = Date.now();
    const sample = (n: number) => samples.push({
      requests: n, kernel_mib: rssMiB(kernel), checker_mib: checkers.reduce((a, p) => a + rssMiB(p), 0), seconds: (Date.now() - t0) / 1000,
    });
    sample(0);
    let answered = 0;
    for (let i = 1; i <= requests; i++) {
      if (await complete(`const v${i} = ${i};\nMath.${'acefilmprst'[i % 11]}`)) answered++;
      if (i % every === 0) { sample(i); process.stderr.write(`${i} requests: checker ${samples[samples.length - 1].checker_mib.toFixed(1)} MiB\n`); }
    }
    const first = samples[0];
    const last = samples[samples.length - 1];
    const result = {
      date: new Date().toISOString(), machine: `${os.cpus()[0]?.model} (${os.cpus().length} cores)`, node: process.version,
      requests, answered_by_checker: answered,
      checker_growth_mib: last.checker_mib - first.checker_mib, kernel_growth_mib: last.kernel_mib - first.kernel_mib,
      goal_checker_growth_mib: 64, meets: last.checker_mib - first.checker_mib <= 64, samples,
    };
    const out = path.join(root, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'checker_flood.json'), JSON.stringify(result, null, 2) + '\n');
    const rows = samples.map((s) => `| ${s.requests} | ${s.kernel_mib.toFixed(1)} | ${s.checker_mib.toFixed(1)} | ${s.seconds.toFixed(0)} |`);
    fs.writeFileSync(path.join(out, 'checker_flood.md'), [
      `# Completion flood: ${requests} requests, each on a new text (${result.date.slice(0, 16)}, ${result.machine}, Node ${process.version})`, '',
      `Checker process: ${first.checker_mib.toFixed(1)} → ${last.checker_mib.toFixed(1)} MiB (**+${result.checker_growth_mib.toFixed(1)} MiB**, goal ≤ 64: ${result.meets ? 'met' : 'not met'}); ` +
      `kernel process: ${first.kernel_mib.toFixed(1)} → ${last.kernel_mib.toFixed(1)} MiB. ${answered} of ${requests} answered by the checker.`, '',
      '| requests | kernel RSS MiB | checker RSS MiB | seconds |', '| ---: | ---: | ---: | ---: |', ...rows, '',
    ].join('\n'));
    console.log(JSON.stringify({ requests, checker_growth_mib: result.checker_growth_mib, kernel_growth_mib: result.kernel_growth_mib, meets: result.meets }));
  } finally {
    await k.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
