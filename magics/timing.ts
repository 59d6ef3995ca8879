/**
 * %time / %%time and %timeit / %%timeit, as IPython's: the device is
 * synchronized before the clock stops (CUDA work is asynchronous), and
 * %timeit picks its loop count the way IPython does — 1, 10, 100, … loops
 * until one batch takes at least 0.2 s — then runs 7 batches and shows
 * mean ± standard deviation per loop.
 */
import { Magic, MagicContext, UsageError } from "./context";
import { escapeHtml, htmlBlock } from "./format";
import { magicMime } from "./mime";

/** Waits for every CUDA device in use (no-op without CUDA). */
function synchronize(ctx: MagicContext): void {
  if (!ctx.runtime.cuda.isAvailable()) return;
  for (const d of ctx.runtime.memory.devices()) if (d.startsWith("cuda:")) ctx.runtime.cuda.synchronize(d);
}

/** IPython's _format_time: 3 significant digits in s, ms, µs or ns. */
export function formatTime(seconds: number, precision = 3): string {
  if (seconds >= 60) {
    const parts: string[] = [];
    let left = seconds;
    for (const [suffix, len] of [["d", 86400], ["h", 3600], ["min", 60], ["s", 1]] as const) {
      const v = Math.floor(left / len);
      if (v > 0) { left %= len; parts.push(`${v}${suffix}`); }
      if (left < 1) break;
    }
    return parts.join(" ");
  }
  const units = ["s", "ms", "µs", "ns"];
  const order = seconds > 0 ? Math.min(Math.max(-Math.floor(Math.log10(seconds) / 3), 0), 3) : 3;
  return `${Number((seconds * 1000 ** order).toPrecision(precision))} ${units[order]}`;
}

async function timeOnce(ctx: MagicContext, code: string): Promise<unknown> {
  if (!code.trim()) throw new UsageError("%time: expected a statement to time, got nothing");
  const run = ctx.kernel.compile(code);
  synchronize(ctx);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let result: unknown;
  try {
    result = await run();
  } finally {
    synchronize(ctx);
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const user = cpu.user / 1e6, sys = cpu.system / 1e6;
    const text = `CPU times: user ${formatTime(user)}, sys: ${formatTime(sys)}, total: ${formatTime(user + sys)}\nWall time: ${formatTime(wall)}`;
    ctx.output.print(text);
  }
  return result;
}

export const timeMagic: Magic = {
  name: "time",
  raw: true,
  usage: "%time STATEMENT  |  %%time   (run once; CPU and wall time, with the device synchronized)",
  run: (args, ctx) => timeOnce(ctx, args[0] ?? ""),
  runCell: (args, body, ctx) => {
    if (args.length) throw new UsageError(`%%time: expected no arguments, got ${args.join(" ")}`);
    return timeOnce(ctx, body);
  },
};

/** `%timeit`'s options: `-n` loops per run (chosen when absent), `-r` runs, `-q` quiet, and the statement. */
export interface TimeitOptions { number?: number; repeat: number; quiet: boolean; code: string }

/** `%timeit`'s argument text → its options; the statement is what follows the options, as typed. */
export function parseTimeit(text: string): TimeitOptions {
  const opts: TimeitOptions = { repeat: 7, quiet: false, code: "" };
  let rest = text.trimStart();
  for (;;) {
    const m = /^(-n|-r)\s*(\S+)\s*|^(-q)\s+/.exec(rest);
    if (!m) break;
    if (m[3]) opts.quiet = true;
    else {
      const v = Number(m[2]);
      if (!Number.isInteger(v) || v < 1) throw new UsageError(`%timeit: expected a positive integer for ${m[1]}, got ${m[2]}`);
      if (m[1] === "-n") opts.number = v; else opts.repeat = v;
    }
    rest = rest.slice(m[0].length);
  }
  opts.code = rest;
  return opts;
}

async function timeit(ctx: MagicContext, opts: TimeitOptions): Promise<void> {
  if (!opts.code.trim()) throw new UsageError("%timeit: expected a statement to time, got nothing");
  const run = ctx.kernel.compile(opts.code);
  const batch = async (n: number): Promise<number> => {
    synchronize(ctx);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await run();
    synchronize(ctx);
    return Number(process.hrtime.bigint() - t0) / 1e9;
  };
  let number = opts.number;
  if (number === undefined) {
    for (let index = 0; index < 10; index++) {
      number = 10 ** index;
      if (await batch(number) >= 0.2) break;
    }
  }
  const runs: number[] = [];
  for (let r = 0; r < opts.repeat; r++) runs.push(await batch(number!));
  const perLoop = runs.map((t) => t / number!);
  const mean = perLoop.reduce((a, b) => a + b, 0) / perLoop.length;
  const std = Math.sqrt(perLoop.reduce((a, b) => a + (b - mean) ** 2, 0) / perLoop.length);
  const text = `${formatTime(mean)} ± ${formatTime(std)} per loop (mean ± std. dev. of ${opts.repeat} run${opts.repeat === 1 ? "" : "s"}, ${number} loop${number === 1 ? "" : "s"} each)`;
  const json = { loops: number, repeat: opts.repeat, mean_s: mean, std_s: std, best_s: Math.min(...perLoop), all_runs_s: runs };
  if (opts.quiet) return;
  ctx.output.display({ "text/plain": text, "text/html": htmlBlock(`<p>${escapeHtml(text)}</p>`), [magicMime("timeit")]: json });
}

export const timeitMagic: Magic = {
  name: "timeit",
  raw: true,
  usage: "%timeit [-n N] [-r R] [-q] STATEMENT  |  %%timeit [-n N] [-r R]   (mean ± std. dev. per loop; loops chosen as IPython does)",
  run: (args, ctx) => timeit(ctx, parseTimeit(args[0] ?? "")),
  runCell: (args, body, ctx) => timeit(ctx, { ...parseTimeit(args.join(" ")), code: body }),
};
