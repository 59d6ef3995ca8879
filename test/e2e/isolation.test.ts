/**
 * Tests keep off the user's own files: the conformance suite passes on a
 * machine where tsgpu has been used (its history holds earlier cells) and
 * leaves that history as it was; kernels started by tests keep their history
 * in the run's own folder.
 */
import { spawnSync } from "child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { ROOT, startKernel } from "../helpers";
import { jupyterTest, PY } from "../jupyter";
import { changes, ISOLATED_VAR, snapshot, userFolders } from "../isolation";

/** A home folder as a used machine has it: a history with `1 + 1` in it, and a code cache. */
function usedHome(): { home: string; history: string } {
  const home = mkdtempSync(join(tmpdir(), "tsgpu-home-"));
  const history = join(home, ".local", "share", "tsgpu", "history.jsonl");
  mkdirSync(join(home, ".local", "share", "tsgpu"), { recursive: true });
  writeFileSync(history, JSON.stringify({ s: 1, l: 1, i: "1 + 1" }) + "\n" + JSON.stringify({ s: 1, l: 2, i: "1 + 2" }) + "\n");
  mkdirSync(join(home, ".cache", "tsgpu"), { recursive: true });
  writeFileSync(join(home, ".cache", "tsgpu", "old.v8cache"), "cache of an earlier session");
  return { home, history };
}

/** The environment without the variables a test run sets, with HOME at `home`: a user's shell. */
function userEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const k of ["TSGPU_HISTORY_FILE", "TSGPU_CACHE_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", ISOLATED_VAR]) delete env[k];
  return env;
}

jupyterTest("the conformance suite's history tests pass with `1 + 1` in the user's history, which stays as it was", async () => {
  const { home, history } = usedHome();
  const before = snapshot(userFolders({ HOME: home }));
  const r = spawnSync(PY, ["-m", "unittest", "test_conformance.TsgpuKernelTests.test_history"],
    { cwd: join(ROOT, "test", "kernel"), env: userEnv(home), encoding: "utf8", timeout: 180000 });
  expect(r.stderr).toMatch(/^OK$/m);
  expect(r.status).toBe(0);
  expect(readFileSync(history, "utf8").split("\n").filter(Boolean)).toHaveLength(2);
  expect(changes(before, snapshot(userFolders({ HOME: home })))).toEqual([]);
}, 200000);

test("a kernel started by a test keeps its history in the run's folder", async () => {
  const runDir = process.env[ISOLATED_VAR];
  expect(runDir).toBeTruthy();
  expect(process.env.TSGPU_HISTORY_FILE!.startsWith(runDir!)).toBe(true);
  expect(process.env.TSGPU_CACHE_DIR!.startsWith(runDir!)).toBe(true);
  const k = await startKernel({ env: process.env });
  const marker = `"isolation ${process.pid} ${Date.now()}"`;
  try {
    expect((await k.execute(marker)).reply.content.status).toBe("ok");
  } finally {
    await k.shutdown();
  }
  expect(readFileSync(process.env.TSGPU_HISTORY_FILE!, "utf8")).toContain(marker.replace(/"/g, '\\"'));
}, 60000);

test("snapshots of the user's folders show every added, changed and removed file", () => {
  const { home, history } = usedHome();
  const folders = userFolders({ HOME: home });
  expect(folders).toEqual([join(home, ".local", "share", "tsgpu"), join(home, ".cache", "tsgpu")]);
  const before = snapshot(folders);
  expect(before.size).toBe(2);
  writeFileSync(history, "changed\n");
  writeFileSync(join(home, ".local", "share", "tsgpu", "new.jsonl"), "x");
  require("fs").rmSync(join(home, ".cache", "tsgpu", "old.v8cache"));
  const diff = changes(before, snapshot(folders));
  expect(diff).toHaveLength(3);
  expect(diff[0]).toMatch(/^added .*new\.jsonl \(1 bytes/);
  expect(diff[1]).toMatch(/^changed .*history\.jsonl \(was \d+ bytes, sha1 [0-9a-f]{40}, now 8 bytes/);
  expect(diff[2]).toMatch(/^removed .*old\.v8cache$/);
});
