/**
 * jest's global setup: when jest runs without `npm test` around it, the
 * tests still get their own history, caches and Jupyter folders (see
 * isolation.ts), in a temporary folder removed when jest exits. The test
 * workers, started after this, inherit the environment. The type checker's
 * startup snapshot is built in the run's cache folder, as `tsgpu install`
 * builds it on a user's machine, so that the kernels the tests start check
 * as an installed kernel does (tests of the checker on its thread say so).
 */
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { ISOLATED_VAR, isolatedEnv } from "./isolation";
import { checkerSetup } from "../kernel/language/checker";
import { ensureCheckerSnapshot, snapshotsEnabled } from "../kernel/language/checker_snapshot";

export default function setup(): void {
  if (!process.env[ISOLATED_VAR]) {
    const dir = mkdtempSync(join(tmpdir(), "tsgpu-jest-"));
    Object.assign(process.env, isolatedEnv(dir));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  if (!snapshotsEnabled()) return;
  try {
    ensureCheckerSnapshot(checkerSetup(process.cwd()));
  } catch (e) {
    process.stderr.write(`jest setup: the type checker's snapshot was not built, kernels check on a thread: ${(e as Error).message}\n`);
  }
}
