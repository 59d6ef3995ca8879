/**
 * Keeping test runs off the user's own files. A run gets its own history
 * file, code cache, Jupyter data and runtime folders under a temporary
 * folder (kernels started by the tests inherit them), and the user's tsgpu
 * folders (~/.local/share/tsgpu, ~/.cache/tsgpu, or where XDG_DATA_HOME and
 * XDG_CACHE_HOME put them) are snapshotted before and compared after, so a
 * test that writes there fails the run.
 *
 * `npm test` (scripts/test.js) uses this for everything it runs; jest's
 * global setup (jest_global.ts) uses it when jest is started on its own.
 */
import { createHash } from "crypto";
import { mkdirSync, readdirSync, readFileSync, statSync } from "fs";
import { homedir } from "os";
import { join } from "path";

/** The variable that says a run's environment is isolated already (its value is the folder). */
export const ISOLATED_VAR = "TSGPU_TEST_HOME";

/**
 * The environment variables that send every file a test run writes into
 * `dir` (created): history, code cache, XDG data and cache, Jupyter's data
 * (user kernelspecs) and runtime (connection files) folders.
 */
export function isolatedEnv(dir: string): Record<string, string> {
  const sub = (name: string) => { const p = join(dir, name); mkdirSync(p, { recursive: true }); return p; };
  return {
    [ISOLATED_VAR]: dir,
    TSGPU_HISTORY_FILE: join(sub("data"), "tsgpu", "history.jsonl"),
    TSGPU_CACHE_DIR: join(sub("cache"), "tsgpu"),
    XDG_DATA_HOME: sub("data"),
    XDG_CACHE_HOME: sub("cache"),
    JUPYTER_DATA_DIR: sub("jupyter-data"),
    JUPYTER_RUNTIME_DIR: sub("jupyter-runtime"),
  };
}

/** The user's tsgpu folders, as the kernel finds them when no TSGPU_* variable says otherwise. */
export function userFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const data = join(env.XDG_DATA_HOME || join(home, ".local", "share"), "tsgpu");
  const cache = join(env.XDG_CACHE_HOME || join(home, ".cache"), "tsgpu");
  const defaults = [join(home, ".local", "share", "tsgpu"), join(home, ".cache", "tsgpu")];
  return [...new Set([data, cache, ...defaults])];
}

/** Every file under the folders (recursively) → "size bytes, sha1 …". Missing folders hold nothing. */
export function snapshot(folders: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    let names: string[];
    try { names = readdirSync(dir); } catch { return; }
    for (const name of names) {
      const p = join(dir, name);
      let st;
      try { st = statSync(p); } catch { continue; }
      if (st.isDirectory()) walk(p);
      else {
        let digest = "unreadable";
        try { digest = createHash("sha1").update(readFileSync(p)).digest("hex"); } catch { /* kept as unreadable */ }
        out.set(p, `${st.size} bytes, sha1 ${digest}`);
      }
    }
  };
  for (const f of folders) walk(f);
  return out;
}

/** What differs between two snapshots, one line per file ("added …", "changed …", "removed …"). */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [p, v] of after) {
    const was = before.get(p);
    if (was === undefined) out.push(`added ${p} (${v})`);
    else if (was !== v) out.push(`changed ${p} (was ${was}, now ${v})`);
  }
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`);
  return out.sort();
}
