/**
 * `npm run bench:typed`: round trips of the 50-line typed cell (with tsgpu's
 * type checking on and off), of `1+1` and of completion, beside Deno's kernel
 * and tslab, measured in one run by one jupyter_client harness
 * (bench/typed_bench.py). Writes bench/results/typed.json and typed.md.
 *
 * Kernelspecs go into a temporary prefix (JUPYTER_PATH), never the user's.
 * The peers are npm packages installed outside the repository:
 *   mkdir -p /tmp/peers && cd /tmp/peers && npm install deno tslab
 * (TSGPU_BENCH_PEERS names another folder). A peer that is not there is
 * reported as not measured, with the reason. The cell is
 * ../shared/bench/typed_cell.ts unless TSGPU_TYPED_CELL names another file.
 * Options go to the harness (--kernels, --cells, --settle).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "fs";
import { join, resolve } from "path";
import { installSpecs, ROOT as root, runHarness, runMain } from "./peers";

const cell = resolve(process.env.TSGPU_TYPED_CELL || join(root, "..", "shared", "bench", "typed_cell.ts"));

/** Writes a kernelspec that runs tsgpu with TSGPU_TYPECHECK=mode. */
function tsgpuVariant(share: string, base: Record<string, unknown>, mode: "on" | "off"): string {
  const name = `tsgpu-check-${mode}`;
  const dir = join(share, "kernels", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "kernel.json"), JSON.stringify({
    ...base, display_name: `tsgpu (type checking ${mode})`, env: { ...(base.env as object ?? {}), TSGPU_TYPECHECK: mode },
  }, null, 2));
  return name;
}

runMain("bench:typed", () => {
  if (!existsSync(cell)) throw new Error(`expected the typed cell at ${cell}; set TSGPU_TYPED_CELL to its path`);
  const specs = installSpecs(["deno", "tslab"]);
  runHarness("typed_bench.py", specs, specs.prefix, () => {
    const notes: Record<string, string> = { deno: "none", tslab: "always on" };
    const base = JSON.parse(readFileSync(join(specs.share, "kernels", "tsgpu", "kernel.json"), "utf8"));
    for (const mode of ["on", "off"] as const) notes[tsgpuVariant(specs.share, base, mode)] = mode === "on" ? "on (warnings)" : "off";
    return ["--kernels", "tsgpu-check-off,tsgpu-check-on,deno,tslab", "--cell", cell,
      "--out", join(root, "bench", "results", "typed.json"), "--md", join(root, "bench", "results", "typed.md"),
      "--notes", JSON.stringify(notes)];
  });
});
