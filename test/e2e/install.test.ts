/** `tsgpu install` writes a kernelspec Jupyter can find, with no Python involved. */
import { execFileSync, spawnSync } from "child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { isAbsolute, join } from "path";
import { CLI } from "../helpers";
import { jupyterTest } from "../jupyter";

function install(args: string[]) {
  return spawnSync(process.execPath, [CLI, "install", ...args], { encoding: "utf8" });
}

test("--prefix writes kernel.json and the logos", () => {
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-inst-"));
  const r = install(["--prefix", prefix, "--name", "tsgpu-test"]);
  expect(r.status).toBe(0);
  const dir = join(prefix, "share", "jupyter", "kernels", "tsgpu-test");
  const spec = JSON.parse(readFileSync(join(dir, "kernel.json"), "utf8"));
  expect(spec.display_name).toBe("TypeScript (tsgpu)");
  expect(spec.language).toBe("typescript");
  expect(spec.interrupt_mode).toBe("message");
  expect(isAbsolute(spec.argv[0])).toBe(true);
  expect(spec.argv).toContain("{connection_file}");
  expect(existsSync(spec.argv[spec.argv.indexOf("kernel") - 1])).toBe(true);
  expect(spec.metadata).toBeDefined();
  for (const [f, size] of [["logo-32x32.png", 32], ["logo-64x64.png", 64]] as const) {
    const png = readFileSync(join(dir, f));
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(size);
    expect(png.readUInt32BE(20)).toBe(size);
  }
});

test("--user honours JUPYTER_DATA_DIR", () => {
  const data = mkdtempSync(join(tmpdir(), "tsgpu-data-"));
  const r = spawnSync(process.execPath, [CLI, "install", "--user"], { encoding: "utf8", env: { ...process.env, JUPYTER_DATA_DIR: data } });
  expect(r.status).toBe(0);
  expect(existsSync(join(data, "kernels", "tsgpu", "kernel.json"))).toBe(true);
});

test("--help names every option", () => {
  const r = install(["--help"]);
  expect(r.status).toBe(0);
  for (const opt of ["--user", "--sys-prefix", "--prefix DIR", "--name NAME", "--display-name"]) expect(r.stdout).toContain(opt);
});

test("a bad prefix or option is a clear error", () => {
  const file = join(mkdtempSync(join(tmpdir(), "tsgpu-inst-")), "a-file");
  writeFileSync(file, "x");
  const r = install(["--prefix", file]);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(file);
  const bad = install(["--frobnicate"]);
  expect(bad.status).toBe(2);
  expect(bad.stderr).toBe('tsgpu install: unknown option --frobnicate (see "tsgpu install --help")\n');
  const noValue = install(["--prefix"]);
  expect(noValue.status).toBe(2);
  expect(noValue.stderr).toBe('tsgpu install: --prefix needs a value (see "tsgpu install --help")\n');
});

jupyterTest("jupyter kernelspec list finds the installed kernel", async () => {
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-inst-"));
  expect(install(["--prefix", prefix]).status).toBe(0);
  const out = execFileSync("jupyter", ["kernelspec", "list", "--json"], { env: { ...process.env, JUPYTER_PATH: join(prefix, "share", "jupyter") }, encoding: "utf8" });
  const specs = JSON.parse(out).kernelspecs;
  expect(specs.tsgpu.spec.language).toBe("typescript");
});
