/**
 * jest's global setup: when jest runs without `npm test` around it, the
 * tests still get their own history, caches and Jupyter folders (see
 * isolation.ts), in a temporary folder removed when jest exits. The test
 * workers, started after this, inherit the environment.
 */
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { ISOLATED_VAR, isolatedEnv } from "./isolation";

export default function setup(): void {
  if (process.env[ISOLATED_VAR]) return;
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-jest-"));
  Object.assign(process.env, isolatedEnv(dir));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
