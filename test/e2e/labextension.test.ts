/**
 * The JupyterLab extension (labextension/): the committed build in
 * labextension/prebuilt/tsgpu-memory is the build of the sources in the tree
 * (the hash `npm run build:labextension` records), complete (the files its
 * package.json names exist), and `tsgpu install` puts it beside the
 * kernelspec, where JupyterLab finds it.
 */
import { spawnSync } from "child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { CLI, ROOT } from "../helpers";

const sources = require(join(ROOT, "labextension", "sources.js")) as {
  PREBUILT: string; RECORD: string; sourceFiles(): string[]; sourcesHash(): string;
};

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
/** A fresh temporary folder, removed after the tests. */
function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

function install(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [CLI, "install", ...args], { encoding: "utf8", env });
}

/** Every file under `dir`, relative to it, sorted. */
function tree(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tree(dir, join(rel, e.name)) : [join(rel, e.name)]).sort();
}

test("the committed build is the build of the sources in the tree (else: npm run build:labextension)", () => {
  const record = JSON.parse(readFileSync(sources.RECORD, "utf8"));
  expect(record.files).toEqual(sources.sourceFiles());
  expect(record.sha256).toBe(sources.sourcesHash());
});

test("the build is complete: its package.json, the remote entry and the style it names", () => {
  const pkg = JSON.parse(readFileSync(join(sources.PREBUILT, "package.json"), "utf8"));
  expect(pkg.name).toBe("tsgpu-memory");
  const build = pkg.jupyterlab._build;
  expect(build.load).toMatch(/^static\/remoteEntry\.[0-9a-f]+\.js$/);
  expect(existsSync(join(sources.PREBUILT, build.load))).toBe(true);
  expect(build.extension).toBe("./extension");
  // Only one remote entry: a build replaces the previous one's files.
  expect(readdirSync(join(sources.PREBUILT, "static")).filter((f) => f.startsWith("remoteEntry."))).toEqual([build.load.slice("static/".length)]);
  // The shared packages are JupyterLab's own (singletons), not bundled copies.
  const entry = readFileSync(join(sources.PREBUILT, build.load), "utf8");
  for (const p of ["@jupyterlab/application", "@jupyterlab/notebook", "@lumino/widgets"]) expect(entry).toContain(p);
});

test("tsgpu install --prefix copies the build into PREFIX/share/jupyter/labextensions/tsgpu-memory", () => {
  const prefix = tempDir("tsgpu-labext-");
  const r = install(["--prefix", prefix]);
  expect(r.status).toBe(0);
  const dir = join(prefix, "share", "jupyter", "labextensions", "tsgpu-memory");
  expect(r.stdout).toContain(`Installed the JupyterLab extension (the memory panel) in ${dir}\n`);
  expect(tree(dir)).toEqual(tree(sources.PREBUILT));
  for (const f of tree(dir)) expect(readFileSync(join(dir, f)).equals(readFileSync(join(sources.PREBUILT, f)))).toBe(true);
  // Installing again replaces the folder: a file of an older build does not stay.
  writeFileSync(join(dir, "static", "remoteEntry.0000.js"), "old");
  expect(install(["--prefix", prefix]).status).toBe(0);
  expect(tree(dir)).toEqual(tree(sources.PREBUILT));
});

test("--user installs it into the user's Jupyter data folder, --sys-prefix into the environment's", () => {
  const data = tempDir("tsgpu-data-");
  expect(install(["--user"], { ...process.env, JUPYTER_DATA_DIR: data }).status).toBe(0);
  expect(tree(join(data, "labextensions", "tsgpu-memory"))).toEqual(tree(sources.PREBUILT));
  const venv = tempDir("tsgpu-venv-");
  expect(install(["--sys-prefix"], { ...process.env, VIRTUAL_ENV: venv, CONDA_PREFIX: "" }).status).toBe(0);
  expect(tree(join(venv, "share", "jupyter", "labextensions", "tsgpu-memory"))).toEqual(tree(sources.PREBUILT));
});

test("an Enterprise Gateway kernelspec comes without it (no JupyterLab runs on the gateway's hosts)", () => {
  const prefix = tempDir("tsgpu-labext-eg-");
  const r = install(["--prefix", prefix, "--gateway", "distributed"]);
  expect(r.status).toBe(0);
  expect(existsSync(join(prefix, "share", "jupyter", "labextensions"))).toBe(false);
});

const LABEXT = join(process.env.TSGPU_PYTHON ? dirname(process.env.TSGPU_PYTHON) : join(ROOT, "build", "pyref", "bin"), "jupyter-labextension");
const noLab = existsSync(LABEXT) ? null : `${LABEXT} missing (JupyterLab 4 in the reference environment: node scripts/pyref.js)`;
if (noLab && process.env.CI === "true") throw new Error(noLab);
(noLab ? test.skip : test)(`JupyterLab lists the installed extension as enabled and OK${noLab ? ` (skipped: ${noLab})` : ""}`, () => {
  const prefix = tempDir("tsgpu-labext-list-");
  expect(install(["--prefix", prefix]).status).toBe(0);
  const home = tempDir("tsgpu-labext-home-");
  const r = spawnSync(LABEXT, ["list"], { encoding: "utf8", env: { ...process.env, JUPYTER_PATH: join(prefix, "share", "jupyter"), JUPYTER_CONFIG_DIR: join(home, "config"), JUPYTER_DATA_DIR: join(home, "data") } });
  expect(r.status).toBe(0);
  // Without the colour codes it prints on a terminal.
  expect((r.stdout + r.stderr).replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/tsgpu-memory v0\.1\.0 enabled OK/);
}, 60000);
