/**
 * For tests that drive the real Jupyter tools: a kernelspec in a temporary
 * prefix, and whether the tools are present. `npm test` installs them (or
 * fails under CI); a test run without them says why it skips.
 */
import { execFileSync, spawnSync } from "child_process";
import { mkdtempSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { CLI } from "./helpers";

export const PY = "/usr/bin/python3";

/** Why the Jupyter tools cannot run here, or null when they can. */
export function jupyterUnavailable(): string | null {
  if (process.env.TSGPU_SKIP_JUPYTER) return process.env.TSGPU_SKIP_JUPYTER;
  const r = spawnSync(PY, ["-c", "import jupyter_client, nbclient, nbconvert"], { encoding: "utf8" });
  if (r.status !== 0) {
    const reason = `Jupyter tools missing: ${(r.stderr || String(r.error)).trim().split("\n").pop()}`;
    if (process.env.CI === "true") throw new Error(reason);
    return reason;
  }
  return null;
}

/** Installs the kernelspec into a fresh prefix and returns the env that makes Jupyter find it. */
export function kernelspecEnv(): NodeJS.ProcessEnv {
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-spec-"));
  execFileSync(process.execPath, [CLI, "install", "--prefix", prefix]);
  return { ...process.env, JUPYTER_PATH: join(prefix, "share", "jupyter") };
}

/** A test that runs only where the Jupyter tools are, and prints why when it cannot. */
export function jupyterTest(name: string, fn: () => Promise<void>, timeout?: number): void {
  const why = jupyterUnavailable();
  if (why) {
    test.skip(`${name} (skipped: ${why})`, () => undefined);
    console.log(`skipping "${name}": ${why}`);
  } else {
    test(name, fn, timeout);
  }
}
