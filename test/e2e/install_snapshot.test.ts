/**
 * The first `tsgpu install` builds the type checker's startup snapshot, and
 * says so when it starts (and that this happens once); a later install of
 * the same version finds it and says nothing of it. The cache keeps one
 * snapshot per version: writing a new one removes the earlier builds of the
 * same version, and leaves other versions' snapshots alone.
 */
import { spawnSync } from "child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { basename, join } from "path";
import { CLI } from "../helpers";

const STARTING = "Building the type checker's startup snapshot (once for this version of tsgpu and Node.js";

test("the first install says it builds the snapshot, once; a new build replaces the older one of its version", () => {
  const cache = mkdtempSync(join(tmpdir(), "tsgpu-snapcache-"));
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-snapspec-"));
  const env: NodeJS.ProcessEnv = { ...process.env, TSGPU_CACHE_DIR: cache };
  delete env.TSGPU_CHECKER_SNAPSHOT;
  const install = () => {
    const r = spawnSync(process.execPath, [CLI, "install", "--prefix", prefix], { encoding: "utf8", env, timeout: 240000 });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    return r.stdout.split("\n").filter(Boolean);
  };
  const snapshots = () => readdirSync(cache).filter((f) => f.endsWith(".snapshot")).sort();

  const first = install();
  expect(first[0]).toMatch(/^Installed kernelspec tsgpu in /);
  expect(first[1]).toMatch(/^Installed the JupyterLab extension \(the memory panel\) in /);
  expect(first[2].startsWith(STARTING)).toBe(true);
  expect(first[3]).toMatch(/^Built the type checker's startup snapshot in [\d.]+ s: /);
  expect(first).toHaveLength(4);
  const built = basename(first[3].slice(first[3].lastIndexOf(": ") + 2));
  const m = /^checker-([0-9a-f]{12})-[0-9a-f]{24}\.snapshot$/.exec(built);
  expect(m).not.toBeNull();
  expect(snapshots()).toEqual([built]);

  // Installed again, the same version: nothing built, nothing said of it.
  expect(install()).toEqual([first[0], first[1]]);

  // An earlier build of this version (another set of compiled files), and a snapshot of another version;
  // the current one is gone, so the next install builds it again.
  const earlier = `checker-${m![1]}-${"0".repeat(24)}.snapshot`;
  const other = `checker-${"f".repeat(12)}-${"1".repeat(24)}.snapshot`;
  copyFileSync(join(cache, built), join(cache, earlier));
  writeFileSync(join(cache, other), "another version's");
  const old = new Date(Date.now() - 3600_000);
  for (const f of [earlier, other]) utimesSync(join(cache, f), old, old);
  rmSync(join(cache, built));
  const again = install();
  expect(again[2].startsWith(STARTING)).toBe(true);
  expect(snapshots()).toEqual([built, other].sort());
}, 480000);
