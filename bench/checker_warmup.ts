/**
 * Where the type checker's warm-up goes, in CPU time (the machine's load
 * stretches wall time, not CPU time), for its two ways to start:
 *
 *   thread    what the checker thread does: load the compiler (through its
 *             V8 code cache), make the project, build the first program
 *             (TypeScript's own measures: parsing, binding, module
 *             resolution), then the first cell;
 *   snapshot  a checker process started from the startup snapshot: its CPU
 *             until it is ready (Node's start, loading the snapshot, the
 *             program for the notebook's folder from the parsed files), and
 *             until the first cell's diagnostics.
 *
 * Each run is a fresh process. `node dist/bench/checker_warmup.js [--runs N]`
 * writes bench/results/checker_warmup.json and .md. It uses its own cache
 * folder, filled first (code cache, snapshot) as an installed kernel's is.
 */
import { spawn, spawnSync } from "child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { cpus, tmpdir } from "os";
import { join } from "path";

const ROOT = join(__dirname, "..", "..");
const LANGUAGE = join(ROOT, "dist", "kernel", "language");
const CELL = 'const s: number = "hello";';

type Row = Record<string, number>;

/** CPU milliseconds this process has used. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** One thread-path warm-up, in this process (what checker_worker.ts does), phase by phase. */
function threadRun(): Row {
  const row: Row = {};
  let last = cpuMs();
  const lap = (name: string) => { const now = cpuMs(); row[name] = now - last; last = now; };
  const { typescript } = require(join(LANGUAGE, "typescript_module.js"));
  const ts = typescript();
  lap("load typescript.js");
  const { CellLanguage } = require(join(LANGUAGE, "cell_language.js"));
  const { checkerSetup } = require(join(LANGUAGE, "checker.js"));
  const lang = new CellLanguage(checkerSetup(process.cwd()));
  lap("make the project");
  lang.warmUp();
  lap("first program (warm-up)");
  lang.analyze(CELL, 1, true);
  lap("first cell's diagnostics");
  const files = lang.project.ls.getProgram().getSourceFiles();
  row["characters of declarations"] = files.reduce((n: number, f: { text: string }) => n + f.text.length, 0);
  // The warm-up's two big parts in CPU time: every file parsed again, then bound.
  last = cpuMs();
  const again = files.map((f: { fileName: string; text: string }) => ts.createSourceFile(f.fileName, f.text, ts.ScriptTarget.ES2022, true));
  lap("  parsing them all again");
  for (const f of again) (ts as unknown as { bindSourceFile(f: unknown, o: unknown): void }).bindSourceFile(f, lang.project.options);
  lap("  binding them all again");
  return row;
}

/** CPU milliseconds a process has used, from /proc. */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 1000 / 100;
}

/** One snapshot-path start: a checker process, as the kernel starts it. */
function snapshotRun(): Promise<Row> {
  const { checkerSetup } = require(join(LANGUAGE, "checker.js"));
  const { checkerSnapshotFile, startCheckerProcess } = require(join(LANGUAGE, "checker_snapshot.js"));
  const setup = checkerSetup(process.cwd());
  const t0 = performance.now();
  const child = startCheckerProcess(setup, checkerSnapshotFile(setup));
  const row: Row = {};
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("message", (m: { kind: string; ms?: number }) => {
      if (m.kind === "ready") {
        row["process CPU until ready"] = processCpuMs(child.pid!);
        row["  of which the program for the folder (wall)"] = m.ms!;
        row["wall until ready"] = performance.now() - t0;
        child.send({ kind: "analyze", id: 1, seq: 1, code: CELL, withDiagnostics: true });
      } else if (m.kind === "diagnostics") {
        row["process CPU until the first cell's diagnostics"] = processCpuMs(child.pid!);
        row["wall until the first cell's diagnostics"] = performance.now() - t0;
        child.kill();
        resolve(row);
      }
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function medians(rows: Row[]): Row {
  const out: Row = {};
  for (const k of Object.keys(rows[0])) out[k] = Math.round(median(rows.map((r) => r[k])));
  return out;
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === "--thread") { process.stdout.write(JSON.stringify(threadRun())); return; }
  if (mode === "--snapshot") { process.stdout.write(JSON.stringify(await snapshotRun())); process.exit(0); }
  const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 5;
  const cache = mkdtempSync(join(tmpdir(), "tsgpu-warmup-cache-"));
  const env = { ...process.env, TSGPU_CACHE_DIR: cache };
  try {
    const { checkerSetup } = require(join(LANGUAGE, "checker.js"));
    const { ensureCheckerSnapshot } = require(join(LANGUAGE, "checker_snapshot.js"));
    process.env.TSGPU_CACHE_DIR = cache;
    ensureCheckerSnapshot(checkerSetup(process.cwd()));
    // The compiler's code cache is written after a first warm-up, as in a kernel.
    spawnSync(process.execPath, ["-e", `const m = require(${JSON.stringify(join(LANGUAGE, "typescript_module.js"))}); m.typescript(); m.saveTypeScriptCodeCache();`], { env });
    const collect = async (flag: string): Promise<Row[]> => {
      const rows: Row[] = [];
      for (let i = 0; i < runs; i++) {
        const out = await new Promise<string>((resolve) => {
          let text = "";
          const c = spawn(process.execPath, [__filename, flag], { env, stdio: ["ignore", "pipe", "inherit"] });
          c.stdout!.on("data", (d) => { text += d; });
          c.on("close", () => resolve(text));
        });
        rows.push(JSON.parse(out));
      }
      return rows;
    };
    const thread = medians(await collect("--thread"));
    const snapshot = medians(await collect("--snapshot"));
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const results = { date: new Date().toISOString().slice(0, 10), cpu: cpus()[0]?.model, cores: cpus().length, load_average: load, runs, thread, snapshot };
    const out = join(ROOT, "bench", "results", "checker_warmup");
    writeFileSync(`${out}.json`, JSON.stringify(results, null, 1) + "\n");
    const table = (row: Row) => Object.entries(row).map(([k, v]) => `| ${k} | ${v} |`).join("\n");
    writeFileSync(`${out}.md`, [
      `The type checker's warm-up, ${results.date} on ${results.cpu} (${results.cores} cores, load average ${load} while it ran): `,
      `medians of ${runs} fresh processes each, milliseconds of CPU unless marked wall. The first cell: \`${CELL}\`.`,
      "", "Checker thread (no snapshot):", "", "| phase | ms |", "| --- | ---: |", table(thread),
      "", "Checker process from the startup snapshot:", "", "| phase | ms |", "| --- | ---: |", table(snapshot), "",
    ].join("\n"));
    console.log(readFileSync(`${out}.md`, "utf8"));
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

void main();
