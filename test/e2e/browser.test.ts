/**
 * The magics seen in a real browser: Debian's classic Notebook server
 * (jupyter-notebook, on a free loopback port with a token) opened in Debian's
 * Chromium (headless, a fresh profile, no network) driven by playwright-core
 * (pointed at that Chromium; it downloads no browser). A notebook runs
 * %memory, %memory --timeline and %memory --tensors; the test reads the
 * rendered tables, bars and chart and their numbers in the page, and saves a
 * screenshot to test-artifacts/. The same outputs must stay readable on
 * JupyterLab's dark colors, and %restart must end in a fresh kernel started by
 * the Notebook server's kernel manager.
 */
import { ChildProcess, spawn } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { createServer } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { randomBytes } from "crypto";
import { ROOT } from "../helpers";
import { kernelspecEnv } from "../jupyter";

// What the page functions below see in the browser (they run there, not in Node).
declare const window: any;
declare const document: any;
declare function getComputedStyle(e: unknown): any;
declare const SVGElement: any;
type HTMLElement = any;

const CHROMIUM = "/usr/bin/chromium";
const NOTEBOOK = "/usr/bin/jupyter-notebook";
const FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const MiB = 2 ** 20;

function loadPlaywright(): any {
  try { return require("playwright-core"); } catch { return null; }
}

/** Why this test cannot run here, or null. Under CI a missing part is a failure, not a skip. */
function unavailable(): string | null {
  const missing = [!existsSync(CHROMIUM) && `${CHROMIUM} (apt-get install chromium)`, !existsSync(NOTEBOOK) && `${NOTEBOOK} (apt-get install jupyter-notebook)`,
    !loadPlaywright() && "playwright-core (npm install)"].filter(Boolean);
  if (!missing.length) return null;
  const why = `missing ${missing.join(", ")}`;
  if (process.env.CI === "true") throw new Error(why);
  return why;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => { const p = (s.address() as any).port; s.close(() => resolve(p)); });
    s.on("error", reject);
  });
}

const cell = (source: string) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source });

function writeNotebook(dir: string): string {
  const nb = {
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" } },
    cells: [
      cell('const weights = torch.zeros([1024 * 1024], { device: "cpu" }); // 4 MiB'),
      cell("%memory cpu"),
      cell('const cache = [1, 2].map(() => torch.zeros([512 * 1024], { device: "cpu" })); // 2 × 2 MiB'),
      cell("%memory --timeline"),
      cell("%memory --tensors"),
    ].map((c, i) => ({ ...c, id: `cell-${i}` })),
  };
  const file = join(dir, "memory.ipynb");
  writeFileSync(file, JSON.stringify(nb, null, 1));
  return file;
}

async function waitForServer(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`jupyter-notebook exited with ${server.exitCode}:\n${log()}`);
    try { if ((await fetch(url)).ok) return; } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`jupyter-notebook did not answer within 60 s:\n${log()}`);
}

const why = unavailable();
(why ? test.skip : test)(`the classic Notebook in Chromium renders %memory's tables, bars and chart with the kernel's numbers${why ? ` (skipped: ${why})` : ""}`, async () => {
  const { chromium } = loadPlaywright();
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-browser-"));
  const profile = mkdtempSync(join(tmpdir(), "tsgpu-chromium-"));
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  writeNotebook(dir);
  let log = "";
  const server = spawn(NOTEBOOK, ["--no-browser", `--ip=127.0.0.1`, `--port=${port}`, "--port-retries=0", `--NotebookApp.token=${token}`,
    `--notebook-dir=${dir}`, "--NotebookApp.open_browser=False",
    ...(process.getuid?.() === 0 ? ["--allow-root"] : [])], { env: { ...kernelspecEnv(), JUPYTER_CONFIG_DIR: join(dir, ".config"), JUPYTER_RUNTIME_DIR: join(dir, ".runtime") }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  server.stdout!.on("data", (d) => { log += d; });
  server.stderr!.on("data", (d) => { log += d; });
  let context: any;
  try {
    await waitForServer(`http://127.0.0.1:${port}/api/status?token=${token}`, server, () => log);
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1200, height: 1800 } });
    const page = context.pages()[0] ?? await context.newPage();
    // Nothing outside the loopback server may be fetched.
    await page.route("**/*", (route: any) => route.request().url().startsWith(`http://127.0.0.1:${port}/`) ? route.continue() : route.abort());
    await page.goto(`http://127.0.0.1:${port}/notebooks/memory.ipynb?token=${token}`);
    await page.waitForFunction(() => (window as any).Jupyter?.notebook?.kernel?.is_connected?.(), undefined, { timeout: 60000 });
    await page.evaluate(() => (window as any).Jupyter.notebook.execute_all_cells());
    await page.waitForFunction(() => {
      const cells = (window as any).Jupyter.notebook.get_cells();
      return cells.every((c: any) => typeof c.input_prompt_number === "number") && !(window as any).Jupyter.notebook.kernel_busy;
    }, undefined, { timeout: 90000 });

    // %memory: the table of cpu, its allocated row, and a bar whose drawn width is its share of the device.
    const overview = await page.evaluate(() => {
      const table = document.querySelector("table.tsgpu-memory")!;
      const rows = [...table.querySelectorAll("tbody tr")].map((tr: any) => [...tr.querySelectorAll("td")].map((td: any) => td.textContent!.trim()));
      const allocatedBar = table.querySelector("tbody tr .bar") as HTMLElement;
      const fill = allocatedBar.firstElementChild as HTMLElement;
      const totalBar = [...table.querySelectorAll("tbody tr")].find((tr: any) => tr.textContent!.startsWith("device total"))!.querySelector(".bar > span") as HTMLElement;
      return { caption: table.querySelector("caption")!.textContent, rows, barWidth: allocatedBar.getBoundingClientRect().width, fillWidth: fill.getBoundingClientRect().width,
        percent: Number(allocatedBar.dataset.percent), totalFill: totalBar.getBoundingClientRect().width, color: getComputedStyle(table).color };
    });
    expect(overview.caption).toMatch(/^cpu — \d+\.\d\d GiB$/);
    expect(overview.rows.find((r: string[]) => r[0] === "allocated")!.slice(0, 2)).toEqual(["allocated", "4.00 MiB"]);
    expect(overview.rows.find((r: string[]) => r[0] === "allocated")![3]).toBe("1 live tensor");
    expect(overview.barWidth).toBe(180);
    expect(overview.totalFill).toBeCloseTo(180, 0);
    expect(overview.fillWidth).toBeCloseTo((overview.percent / 100) * 180, 1);

    // %memory --timeline: one point per cell that ran, the staircase of 4 MiB then 8 MiB, and hover titles naming the cells.
    const chart = await page.evaluate(() => {
      const svg = document.querySelector("svg.tsgpu-timeline")!;
      const points = [...svg.querySelectorAll("g.point")].map((g: any) => ({ cell: Number(g.getAttribute("data-cell")), allocated: Number(g.getAttribute("data-allocated")), title: g.querySelector("title")!.textContent, cy: Number(g.querySelector("circle").getAttribute("cy")) }));
      const grid = [...svg.querySelectorAll("line")].map((l: any) => Number(l.getAttribute("y1")));
      const path = svg.querySelector("path.series-allocated")!.getAttribute("d");
      const box = svg.getBoundingClientRect();
      return { points, path, width: box.width, height: box.height, ticks: [...svg.querySelectorAll("text.y-tick")].map((t: any) => t.textContent),
        bottom: grid[0], plotHeight: grid[0] - grid[2] };
    });
    expect(chart.width).toBe(640);
    const byCell = new Map(chart.points.map((p: any) => [p.cell, p]));
    expect((byCell.get(1) as any).allocated).toBe(4 * MiB);
    expect((byCell.get(3) as any).allocated).toBe(8 * MiB);
    // 4 MiB and two 2 MiB requests share one 20 MiB segment of the large pool.
    expect((byCell.get(3) as any).title).toBe("Cell In[3]: allocated 8.00 MiB, reserved 20.00 MiB, peak 8.00 MiB");
    // The axis goes up to the highest series (reserved), and the drawn points sit at their values.
    expect(chart.ticks).toEqual(["0 B", "10.00 MiB", "20.00 MiB"]);
    const rise = (c: number) => chart.bottom - (byCell.get(c) as any).cy;
    expect(rise(3)).toBeCloseTo(2 * rise(1), 0);
    expect(rise(3)).toBeCloseTo((8 / 20) * chart.plotHeight, 0);
    await page.hover("svg.tsgpu-timeline g.point[data-cell='3'] rect");

    // %memory --tensors: the holders by name, with their bytes, and the cell and line that made each tensor.
    const rowsOf = (selector: string) => page.evaluate((sel: string) => [...document.querySelectorAll(`${sel} tbody tr`)].map((tr: any) => [...tr.querySelectorAll("td")].map((td: any) => td.textContent!.trim())), selector);
    const tensors = await rowsOf("table.tsgpu-tensors");
    const holderRow = (label: string) => tensors.findIndex((r: string[]) => r[0] === label);
    const holder = (label: string) => tensors[holderRow(label)];
    expect(holder("weights")).toEqual(["weights", "1 tensor", "", "", "", "4.00 MiB", "", ""]);
    expect(tensors[holderRow("weights") + 1]).toEqual(["", expect.stringMatching(/^#\d+$/), "[1048576]", "float32", "cpu", "4.00 MiB", "Cell In[1], line 1", ""]);
    expect(holder("cache[0]")![5]).toBe("2.00 MiB");
    expect(holder("cache[1]")![5]).toBe("2.00 MiB");
    expect(tensors[holderRow("cache[1]") + 1][6]).toBe("Cell In[3], line 1");
    expect(await rowsOf("table.tsgpu-sites")).toEqual([
      ["Cell In[1], line 1", "1", "4.00 MiB"],
      ["Cell In[3], line 1", "2", "4.00 MiB"],
    ]);

    mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: join(ROOT, "test-artifacts", "browser-memory.png"), fullPage: true });

    // The same outputs on JupyterLab's dark theme colors: every text keeps a readable contrast.
    const outputs: string[] = await page.evaluate(() => [...document.querySelectorAll(".tsgpu-out")].map((e: any) => e.outerHTML));
    const dark = await context.newPage();
    await dark.setContent(`<html><body style="background:#111111;color:rgba(255,255,255,0.87);font-family:sans-serif">${outputs.join("<hr/>")}</body></html>`);
    const worst = await dark.evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]: number[]) => { const f = (v: number) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
      const bg = lum([17, 17, 17]);
      let min = Infinity, where = "";
      for (const e of [...document.querySelectorAll(".tsgpu-out td, .tsgpu-out th, .tsgpu-out caption, .tsgpu-out p, .tsgpu-out svg text")] as any[]) {
        if (!e.textContent.trim()) continue;
        const style = getComputedStyle(e);
        const [r, g, b, a = 1] = rgb(e instanceof SVGElement ? style.fill : style.color);
        const mixed = [r, g, b].map((v) => v * a + 17 * (1 - a));
        const l = lum(mixed);
        const ratio = (Math.max(l, bg) + 0.05) / (Math.min(l, bg) + 0.05);
        if (ratio < min) { min = ratio; where = e.textContent.trim().slice(0, 40); }
      }
      return { min, where };
    });
    expect(worst.min).toBeGreaterThanOrEqual(4.5);
    await dark.screenshot({ path: join(ROOT, "test-artifacts", "browser-memory-dark.png"), fullPage: true });

    // %restart: the kernel answers, exits, and the Notebook server's kernel manager starts a fresh one.
    await page.evaluate(() => {
      const w = window as any;
      // The server's restarter noticed the exit and is starting a new kernel.
      w.Jupyter.notebook.events.on("kernel_autorestarting.Kernel", () => { w.tsgpuRestarting = true; });
      const c = w.Jupyter.notebook.insert_cell_at_bottom("code");
      c.set_text("%restart");
      c.execute();
    });
    await page.waitForFunction(() => (window as any).tsgpuRestarting === true, undefined, { timeout: 60000 });
    const restartText = await page.evaluate(() => {
      const cells = (window as any).Jupyter.notebook.get_cells();
      return cells[cells.length - 1].output_area.outputs.map((o: any) => o.text ?? "").join("");
    });
    expect(restartText).toContain("Restarting: this kernel releases its device memory and exits");
    await page.evaluate(() => {
      const c = (window as any).Jupyter.notebook.insert_cell_at_bottom("code");
      c.set_text("[typeof (globalThis as any).weights, torch.memory.allocated(\"cpu\")]");
      c.execute();
    });
    await page.waitForFunction(() => {
      const cells = (window as any).Jupyter.notebook.get_cells();
      return cells[cells.length - 1].output_area.outputs.some((o: any) => o.output_type === "execute_result");
    }, undefined, { timeout: 60000 });
    const fresh = await page.evaluate(() => {
      const cells = (window as any).Jupyter.notebook.get_cells();
      const last = cells[cells.length - 1];
      const result = last.output_area.outputs.find((o: any) => o.output_type === "execute_result");
      return { count: last.input_prompt_number, text: result.data["text/plain"] };
    });
    expect(fresh).toEqual({ count: 1, text: "[ 'undefined', 0 ]" });
  } finally {
    await context?.close().catch(() => undefined);
    if (server.pid) { try { process.kill(-server.pid, "SIGTERM"); } catch { /* gone */ } }
    await new Promise((r) => setTimeout(r, 500));
    if (server.pid && server.exitCode === null) { try { process.kill(-server.pid, "SIGKILL"); } catch { /* gone */ } }
    rmSync(profile, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}, 180000);

