/**
 * The kernel in a real JupyterLab 4, as a user meets it: `jupyter lab` from
 * the reference virtual environment (build/pyref, made by `npm test` through
 * scripts/pyref.js, or the one TSGPU_PYTHON names) on a free loopback port
 * with a token and the tsgpu kernelspec on its JUPYTER_PATH, opened in
 * Debian's Chromium (headless, fresh profile, nothing fetched from outside)
 * driven by playwright-core. A notebook runs %memory, its timeline, its
 * summary and its live view; the test reads what the page shows — the HTML
 * table, not JupyterLab's JSON tree; the SVG chart; the live view updated by a
 * later cell — then a Tab completion popup, Shift+Tab inspection, the stop button on a busy loop and
 * Restart Kernel from the menu (after which the live view says it stopped), in the light theme and again in the dark one
 * (JupyterLab's theme setting), with screenshots in test-artifacts/ and the
 * contrast of every text of the outputs measured against the page behind it;
 * and the same outputs rendered as JupyterLab renders an untrusted notebook's
 * (sanitized: no <style>, no <svg>) still read as tables.
 */
import { writeFileSync } from "fs";
import { join } from "path";
import { ARTIFACTS, CHROMIUM, FLAGS, loadPlaywright, startLab, unavailable, waitForServer, worstContrast } from "./lab_helpers";

// What the page functions below see in the browser (they run there, not in Node).
declare const window: any;
declare const document: any;
declare function getComputedStyle(e: unknown): any;
declare const SVGElement: any;

const MiB = 2 ** 20;

const cell = (source: string) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source });

function writeNotebook(dir: string): void {
  const nb = {
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" } },
    cells: [
      cell('const weights = torch.zeros([1024 * 1024], { device: "cpu" }); // 4 MiB'),
      cell("%memory cpu"),
      cell("%memory --watch on"),
      cell('const cache = [1, 2].map(() => torch.zeros([512 * 1024], { device: "cpu" })); // 2 × 2 MiB'),
      cell("%memory --timeline"),
      cell("%memory --summary --abbreviated"),
      cell("const typed: number = 'not a number';"),
    ].map((c, i) => ({ ...c, id: `cell-${i}` })),
  };
  writeFileSync(join(dir, "lab.ipynb"), JSON.stringify(nb, null, 1));
}

/** The notebook panel's state, read through the app JupyterLab exposes (expose_app_in_browser). */
function notebookState(): any {
  const panel = (window as any).jupyterapp?.shell?.currentWidget;
  const kernel = panel?.sessionContext?.session?.kernel;
  return {
    ready: Boolean(kernel) && kernel.status === "idle" && panel.content?.widgets?.length > 0,
    status: kernel?.status, counts: panel?.content?.widgets?.map((c: any) => c.model.executionCount ?? null),
  };
}

/** The magics' outputs' texts, for worstContrast. */
const OUTPUT_TEXTS = { selector: ".tsgpu-out td, .tsgpu-out th, .tsgpu-out caption, .tsgpu-out p, .tsgpu-out pre, .tsgpu-out svg text", ownText: false };

/** Ends the server and the browser, also when jest gives up on the test (afterAll). */
let cleanup: (() => Promise<void>) | undefined;
afterAll(async () => { await cleanup?.(); });

const why = unavailable();
(why ? test.skip : test)(`JupyterLab 4 in Chromium shows the magics' HTML (not a JSON tree), the live view, completion, inspection, interrupt and restart, in the light and dark themes${why ? ` (skipped: ${why})` : ""}`, async () => {
  const { chromium } = loadPlaywright();
  const lab = await startLab("tsgpu-lab-", writeNotebook);
  const { profile, base, token, server } = lab;
  let context: any;
  cleanup = async () => {
    cleanup = undefined;
    await lab.stop(context);
  };
  let page: any;
  let at = "starting jupyter lab";
  const t0 = Date.now();
  const step = (name: string) => { at = name; if (process.env.TSGPU_E2E_VERBOSE) console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${name}`); };
  try {
    await waitForServer(`${base}/api/status?token=${token}`, server, lab.log);
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 1400 } });
    page = context.pages()[0] ?? await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e: Error) => pageErrors.push(e.message));
    await page.route("**/*", (route: any) => route.request().url().startsWith(`${base}/`) ? route.continue() : route.abort());
    step("opening the notebook");
    await page.goto(`${base}/lab/tree/lab.ipynb?token=${token}`);
    const state = () => page.evaluate(notebookState);
    // The notebook open, its tsgpu kernel started and idle.
    for (let t = Date.now(); !(await state().catch(() => ({ ready: false }))).ready; await page.waitForTimeout(250)) {
      if (Date.now() - t > 90000) throw new Error(`the notebook's kernel did not start: ${JSON.stringify(await state())}\n${lab.log()}`);
    }
    const command = (id: string, args: object = {}) => page.evaluate(([i, a]: [string, object]) => (window as any).jupyterapp.commands.execute(i, a), [id, args]);

    step("running all cells");
    await command("notebook:run-all-cells");
    await page.waitForFunction(() => {
      const panel = (window as any).jupyterapp.shell.currentWidget;
      return panel.content.widgets.every((c: any) => typeof c.model.executionCount === "number") && panel.sessionContext.session.kernel.status === "idle";
    }, undefined, { timeout: 120000, polling: 250 });
    expect((await state()).counts).toEqual([1, 2, 3, 4, 5, 6, 7]);

    step("reading the outputs");
    // What the page shows, cell by cell.
    const shown = await page.evaluate(() => {
      const cells = [...document.querySelectorAll(".jp-Notebook .jp-CodeCell")];
      const out = (i: number) => cells[i].querySelector(".jp-OutputArea");
      const table = out(1).querySelector("table.tsgpu-memory");
      const rows = table ? [...table.querySelectorAll("tbody tr")].map((tr: any) => [...tr.querySelectorAll("td")].map((td: any) => td.textContent.trim())) : [];
      const bar = table?.querySelector("tbody tr .bar");
      const svg = out(4).querySelector("svg.tsgpu-timeline");
      return {
        jsonTrees: document.querySelectorAll(".jp-Notebook .jp-RenderedJSON").length,
        // What stands in for the bars and the chart where the outputs' <style> is dropped (an untrusted notebook): hidden here.
        fallbacks: [...document.querySelectorAll(".jp-Notebook .tsgpu-unstyled")].map((e: any) => e.getClientRects().length),
        htmlOutputs: [1, 2, 4, 5].map((i) => Boolean(out(i).querySelector(".jp-RenderedHTMLCommon .tsgpu-out"))),
        caption: table?.querySelector("caption")?.textContent, rows,
        barWidth: bar?.getBoundingClientRect().width, fillWidth: bar?.firstElementChild?.getBoundingClientRect().width, percent: Number(bar?.dataset.percent),
        svg: svg ? { width: svg.getBoundingClientRect().width, points: [...svg.querySelectorAll("g.point")].map((g: any) => [Number(g.dataset.cell), Number(g.dataset.allocated)]),
          ticks: [...svg.querySelectorAll("text.y-tick")].map((t: any) => t.textContent) } : null,
        summary: out(5).querySelector(".tsgpu-out pre")?.textContent ?? "",
        watch: { state: out(2).querySelector(".tsgpu-watch-status")?.dataset.state, status: out(2).querySelector(".tsgpu-watch-status")?.textContent,
          rows: [...out(2).querySelectorAll("table.tsgpu-watch tbody tr")].map((tr: any) => [...tr.querySelectorAll("td")].map((td: any) => td.textContent.trim())) },
        warning: out(6).querySelector(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")?.textContent ?? "",
      };
    });
    // The HTML view of every magic, and no JSON tree anywhere.
    expect(shown.jsonTrees).toBe(0);
    expect(shown.htmlOutputs).toEqual([true, true, true, true]);
    expect(shown.fallbacks.length).toBeGreaterThan(2);
    expect(shown.fallbacks.every((n: number) => n === 0)).toBe(true);
    expect(shown.caption).toMatch(/^cpu — \d+\.\d\d GiB$/);
    expect(shown.rows.find((r: string[]) => r[0] === "allocated")!.slice(0, 2)).toEqual(["allocated", "4.00 MiB"]);
    expect(shown.barWidth).toBe(180);
    expect(shown.fillWidth).toBeCloseTo((shown.percent / 100) * 180, 1);
    // The timeline's SVG with the kernel's numbers.
    expect(shown.svg!.width).toBe(640);
    expect(shown.svg!.points).toEqual(expect.arrayContaining([[1, 4 * MiB], [4, 8 * MiB]]));
    expect(shown.svg!.ticks).toEqual(["0 B", "10.00 MiB", "20.00 MiB"]);
    expect(shown.summary).toContain("| Allocated memory      |");
    // The live view shown by cell 3 was updated in place by the cells after it.
    expect(shown.watch.state).toBe("live");
    expect(shown.watch.status).toMatch(/^Memory, live: after cell In\[7\]/);
    expect(shown.watch.rows[0].slice(0, 2)).toEqual(["cpu", "8.00 MiB"]);
    // The type warning says what it is first.
    expect(shown.warning).toMatch(/^warning TS2322 at Cell In\[7\], line 1, column 7: Type 'string' is not assignable to type 'number'\./);

    const shot = async (name: string) => {
      await page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.content.node.scrollTo(0, 0));
      await page.screenshot({ path: join(ARTIFACTS, name) });
    };
    step("measuring the light theme");
    const light = await page.evaluate(worstContrast, OUTPUT_TEXTS);
    expect(light.count).toBeGreaterThan(40);
    expect([light.min >= 4.5, light.where]).toEqual([true, light.where]);
    await shot("jupyterlab-light.png");

    step("switching to the dark theme");
    // The dark theme, as a user picks it (Settings › Theme): every text still reads.
    await command("apputils:change-theme", { theme: "JupyterLab Dark" });
    await page.waitForFunction(() => document.body.dataset.jpThemeLight === "false", undefined, { timeout: 30000 });
    await page.waitForTimeout(500); // the theme's stylesheet applies on the next frames
    const dark = await page.evaluate(worstContrast, OUTPUT_TEXTS);
    expect([dark.min >= 4.5, dark.where]).toEqual([true, dark.where]);
    const darkBody = await page.evaluate(() => getComputedStyle(document.querySelector(".jp-Notebook")).backgroundColor);
    expect(darkBody).not.toBe("rgb(255, 255, 255)");
    await shot("jupyterlab-dark.png");

    step("rendering the outputs as an untrusted notebook shows them");
    // A notebook opened from a file (the committed notebooks/, one shared by a colleague) is untrusted: JupyterLab's
    // sanitizer drops the outputs' <style> and <svg>. The same outputs of %memory and --timeline through JupyterLab's
    // own HTML renderer, untrusted: aligned columns, the bars' shares as text, the chart's numbers as a table and
    // none of its texts run together; readable on the dark theme. The trusted outputs stay on the page, as a cell run
    // in an untrusted notebook does: their <style> elements apply to the whole page and must not undo the fallbacks.
    const untrusted = await page.evaluate(async () => {
      const panel = (window as any).jupyterapp.shell.currentWidget;
      const host = document.createElement("div");
      host.id = "tsgpu-untrusted-copy";
      host.style.cssText = "position:fixed;inset:0;overflow:auto;z-index:10000;padding:12px;background:var(--jp-layout-color0)";
      document.body.appendChild(host);
      for (const i of [1, 4]) {
        const renderer = panel.content.rendermime.createRenderer("text/html");
        await renderer.renderModel({ trusted: false, data: panel.content.widgets[i].model.outputs.get(0).data, metadata: {}, setData() { /* read only */ } });
        host.appendChild(renderer.node);
      }
      const [overview, timeline] = [...host.children] as any[];
      const row = (tr: any) => [...tr.querySelectorAll("td")].map((td: any) => td.textContent.trim());
      const allocated = [...overview.querySelectorAll("tbody tr")].find((tr: any) => tr.cells[0].textContent === "allocated");
      const shown = (e: any) => Boolean(e) && e.getClientRects().length > 0;
      return {
        styles: host.querySelectorAll("style, svg").length,
        align: [...allocated.cells].slice(0, 2).map((td: any) => getComputedStyle(td).textAlign),
        share: allocated.querySelector(".bar").textContent, shareShown: shown(allocated.querySelector(".bar .tsgpu-unstyled")),
        chartShown: shown(timeline.querySelector(".tsgpu-styled")), chartText: timeline.innerText.includes("memory after each cell"),
        table: [...timeline.querySelectorAll(".tsgpu-unstyled tbody tr")].map(row),
      };
    });
    expect(untrusted.styles).toBe(0);
    expect(untrusted.align).toEqual(["left", "right"]);
    expect([untrusted.share, untrusted.shareShown]).toEqual([expect.stringMatching(/^\d+\.\d%$/), true]);
    expect([untrusted.chartShown, untrusted.chartText]).toEqual([false, false]);
    expect(untrusted.table).toEqual(expect.arrayContaining([["1", "4.00 MiB", "20.00 MiB", "4.00 MiB"], ["4", "8.00 MiB", "20.00 MiB", "8.00 MiB"]]));
    const untrustedDark = await page.evaluate(worstContrast, { ...OUTPUT_TEXTS, selector: OUTPUT_TEXTS.selector.split(", ").map((s) => `#tsgpu-untrusted-copy ${s}`).join(", ") });
    expect([untrustedDark.min >= 4.5, untrustedDark.where]).toEqual([true, untrustedDark.where]);
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-untrusted-dark.png") });
    await page.evaluate(() => document.getElementById("tsgpu-untrusted-copy").remove());

    step("completing with Tab");
    // Tab completion in a new cell: the popup lists torch's functions, marked as functions.
    await page.evaluate(() => { const nb = (window as any).jupyterapp.shell.currentWidget.content; nb.activeCellIndex = nb.widgets.length - 1; });
    await command("notebook:insert-cell-below");
    await command("notebook:enter-edit-mode");
    await page.keyboard.type("torch.zer");
    await page.keyboard.press("Tab");
    await page.waitForSelector(".jp-Completer .jp-Completer-item", { timeout: 30000 });
    const completion = await page.evaluate(() => [...document.querySelectorAll(".jp-Completer .jp-Completer-item")].map((li: any) =>
      [li.querySelector(".jp-Completer-match")?.textContent, li.querySelector(".jp-Completer-typeExtended")?.textContent]));
    expect(completion).toEqual(expect.arrayContaining([["zeros", "function"], ["zerosLike", "function"]]));
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-completion-dark.png") });
    // Enter takes the first (selected) item; Shift+Tab after it shows its signature and documentation.
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (window as any).jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.getSource() === "torch.zeros", undefined, { timeout: 10000 });
    step("inspecting with Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    await page.waitForSelector(".jp-Tooltip", { timeout: 30000 });
    // The tooltip's node is there a moment before its rendered text (a slow frame under load).
    await page.waitForFunction(() => /\S/.test(document.querySelector(".jp-Tooltip")?.textContent ?? ""), undefined, { timeout: 10000 });
    const tooltip: string = await page.evaluate(() => document.querySelector(".jp-Tooltip").textContent);
    expect(tooltip).toMatch(/zeros\(/);
    expect(tooltip).toMatch(/A tensor of zeros/);
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-inspection-dark.png") });
    await page.keyboard.press("Escape");

    step("interrupting a busy loop");
    // The stop button on a busy loop: the kernel is idle again and the cell says it was interrupted.
    await page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.setSource("for (;;) {}"));
    // Not awaited: the command resolves when the cell finishes, and this one only ends when stopped.
    await page.evaluate(() => { void (window as any).jupyterapp.commands.execute("notebook:run-cell"); });
    await page.waitForFunction(() => (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === "busy", undefined, { timeout: 30000 });
    await page.waitForTimeout(300);
    await page.click("[data-command='notebook:interrupt-kernel']");
    const stopClicked = Date.now();
    await page.waitForFunction(() => (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === "idle", undefined, { timeout: 10000, polling: 50 });
    const idleAfter = Date.now() - stopClicked;
    const stopped = await page.evaluate(() => {
      const cells = [...document.querySelectorAll(".jp-Notebook .jp-CodeCell")];
      return cells[cells.length - 1].querySelector(".jp-OutputArea")?.textContent ?? "";
    });
    expect(stopped).toMatch(/Interrupt/);
    if (process.env.TSGPU_E2E_VERBOSE) console.log(`idle ${idleAfter} ms after the stop button`);
    // The view of %memory --watch: the old kernel's last update never lands once JupyterLab restarts the kernel
    // itself (KernelConnection.restart() drops its futures and display ids first); the extension, which
    // `tsgpu install` put beside the kernelspec, marks the view stopped instead (labextension/src/watch_stop.ts).
    const watchBefore = await page.evaluate(() => document.querySelectorAll(".jp-Notebook .jp-CodeCell")[2].querySelector(".tsgpu-watch-status")?.textContent ?? "");
    expect(watchBefore).toMatch(/^Memory, live: after cell In\[8\] at \d\d:\d\d:\d\d/);

    step("restarting from the menu");
    // Restart Kernel from the menu (its dialog answered as a user does): a fresh kernel with none of the old names.
    const restart = command("kernelmenu:restart");
    await page.click(".jp-Dialog .jp-mod-accept", { timeout: 15000 });
    await restart;
    await page.waitForFunction(() => (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === "idle", undefined, { timeout: 60000 });
    const watchAfter = await page.evaluate(() => {
      const p = document.querySelectorAll(".jp-Notebook .jp-CodeCell")[2].querySelector(".tsgpu-watch-status");
      return { state: p?.dataset.state, text: p?.textContent ?? "" };
    });
    expect(watchAfter.state).toBe("stopped");
    expect(watchAfter.text).toMatch(/^Memory watch stopped \(the kernel restarted\) at \d\d:\d\d:\d\d; the numbers are those after cell In\[8\]\.$/);
    await page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.setSource('[typeof (globalThis as any).weights, torch.memory.allocated("cpu")]'));
    await command("notebook:run-cell");
    await page.waitForFunction(() => {
      const cells = [...document.querySelectorAll(".jp-Notebook .jp-CodeCell")];
      return /\[ 'undefined', 0 \]/.test(cells[cells.length - 1].querySelector(".jp-OutputArea")?.textContent ?? "");
    }, undefined, { timeout: 60000 });
    expect((await state()).counts!.slice(-1)).toEqual([1]);
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-restarted-dark.png") });

    // Back to the light theme for the next user of this profile; nothing went wrong in the page or the server.
    await command("apputils:change-theme", { theme: "JupyterLab Light" });
    // JupyterLab's debugger extension rejects "No active debugger session" once per executed cell for a kernel
    // whose kernel_info says debugger: false (its variables refresh on execute_request iopub); nothing else may fail.
    expect(pageErrors.filter((m) => m !== "No active debugger session")).toEqual([]);
    expect(lab.log()).not.toMatch(/Traceback|\[E /);
  } catch (e) {
    await page?.screenshot({ path: join(ARTIFACTS, "jupyterlab-failure.png") }).catch(() => undefined);
    throw new Error(`while ${at} (${((Date.now() - t0) / 1000).toFixed(0)} s in; screenshot in test-artifacts/jupyterlab-failure.png): ${(e as Error).message}\n--- jupyter lab's log ---\n${lab.log().slice(-4000)}`);
  } finally {
    await cleanup?.();
  }
}, 480000);
