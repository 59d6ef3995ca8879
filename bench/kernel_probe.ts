/**
 * What the benchmarks that watch one kernel process over a long run share
 * (bench/soak.ts, bench/hostile.ts, bench/checker_flood.ts): their command
 * line's `--name value` options, a process's resident memory and children
 * from /proc, and a kernel started as an installed kernelspec starts it, with
 * everything it writes in a temporary folder of the run's own.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { kernelArgv } from '../kernel/commands/install';
import { KernelClient } from '../kernel/transport/client';

export const MiB = 1 << 20;

/** The value after `--name` on the command line, or `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

/** Resident memory of one process (MiB); 0 once it has gone. */
export function rssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) / 1024 : 0;
  } catch { return 0; }
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch { return false; }
  });
}

/**
 * Installs the kernelspec into a fresh folder under the system's temporary one (named `prefix`-…), which
 * builds the type checker's startup snapshot into the run's own cache folder, and starts a kernel with the
 * environment that kernelspec gives it (as Jupyter starts it); history off, caches and data in that folder.
 * Returns the kernel, that folder (the caller removes it) and the repository's root.
 */
export async function startInstalledKernel(prefix: string): Promise<{ k: KernelClient; dir: string; root: string }> {
  const root = path.join(__dirname, '..', '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const env: NodeJS.ProcessEnv = {
    ...process.env, TSGPU_HISTORY_FILE: 'none', TSGPU_CACHE_DIR: path.join(dir, 'cache'),
    XDG_CACHE_HOME: path.join(dir, 'xdg-cache'), XDG_DATA_HOME: path.join(dir, 'xdg-data'),
  };
  execFileSync(process.execPath, [path.join(root, 'dist', 'kernel', 'cli.js'), 'install', '--prefix', path.join(dir, 'prefix')], { env, stdio: 'ignore' });
  const spec = JSON.parse(fs.readFileSync(path.join(dir, 'prefix', 'share', 'jupyter', 'kernels', 'tsgpu', 'kernel.json'), 'utf8'));
  const k = await KernelClient.start({ argv: kernelArgv(), env: { ...env, ...spec.env } });
  return { k, dir, root };
}

/** Waits (up to a minute) until completions carry types, the kernel's type checker having loaded; throws if they never do. */
export async function waitForTypeChecker(k: KernelClient): Promise<void> {
  let typed = false;
  for (let i = 0; i < 120 && !typed; i++) {
    const { reply } = await k.request('complete_request', { code: 'Math.ma', cursor_pos: 7 });
    typed = Array.isArray(reply.content.metadata?._jupyter_types_experimental);
    if (!typed) await new Promise((r) => setTimeout(r, 500));
  }
  if (!typed) throw new Error('the type checker never answered a completion');
}
