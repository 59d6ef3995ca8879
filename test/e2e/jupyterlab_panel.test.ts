/**
 * The memory panel (labextension/) in a real JupyterLab 4 and Chromium, as a
 * user meets it: `jupyter lab` from the reference environment with the
 * kernelspec and the extension that `tsgpu install --prefix` put on its
 * JUPYTER_PATH; a notebook with the tsgpu kernel; the panel opened from its
 * command. Cells allocate and free, and the panel's numbers (allocated,
 * reserved, peak of the cpu device, and the holders by variable) follow;
 * the Empty cache button makes reserved drop; Reset asks first, then drops
 * the variables. A live `%memory --watch` view says it stopped after Restart
 * Kernel from the menu, and the panel reconnects to the new kernel; a
 * collapsed panel has no comm open; for a
 * Python kernel it says it is not tsgpu. Screenshots in test-artifacts/, in
 * the light and the dark theme, with the contrast of the panel's text
 * measured against its background.
 */
import { writeFileSync } from "fs";
import { join } from "path";
import { ARTIFACTS, CHROMIUM, FLAGS, loadPlaywright, startLab, unavailable, waitForServer, worstContrast } from "./lab_helpers";

// What the page functions below see in the browser (they run there, not in Node).
declare const window: any;
declare const document: any;
declare function getComputedStyle(e: unknown): any;

const MiB = 2 ** 20;

const cell = (source: string) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source });

/** The notebook's cells, run one at a time by the test. */
const CELLS = [
  'const weights = torch.zeros([1024 * 1024], { device: "cpu" }); // 4 MiB',
  'const big = torch.ones([4 * 1024 * 1024], { device: "cpu" }); // 16 MiB',
  "big.dispose(); weights.dispose(); // back to the allocator's cache: reserved stays",
  'const kept = torch.zeros([1024 * 1024], { device: "cpu" });',
  "%memory --watch on",
];

function writeNotebook(dir: string): void {
  const nb = {
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" } },
    cells: CELLS.map((c, i) => ({ ...cell(c), id: `cell-${i}` })),
  };
  writeFileSync(join(dir, "panel.ipynb"), JSON.stringify(nb, null, 1));
}

/** What the panel shows: its state, status line, each device's numbers and sample count, the holders, the result line. */
function panelState(): any {
  const p = document.querySelector("#tsgpu-memory-panel");
  if (!p) return null;
  return {
    state: p.dataset.state, visible: p.offsetParent !== null,
    status: p.querySelector(".tsgpu-panel-status")?.textContent ?? "",
    devices: [...p.querySelectorAll(".tsgpu-panel-device")].map((d: any) => ({
      device: d.dataset.device, allocated: Number(d.dataset.allocated), reserved: Number(d.dataset.reserved), peak: Number(d.dataset.peak),
      shown: [...d.querySelectorAll(".tsgpu-panel-numbers tr")].map((tr: any) => [...tr.querySelectorAll("td")].map((td: any) => td.textContent.trim())),
      points: d.querySelector("polyline[data-series=allocated]")?.getAttribute("points").split(" ").length ?? 0,
    })),
    holders: [...p.querySelectorAll(".tsgpu-panel-holder")].map((tr: any) => [tr.dataset.label, Number(tr.dataset.bytes)]),
    empty: p.querySelector(".tsgpu-panel-empty")?.textContent ?? "",
    result: p.querySelector(".tsgpu-panel-result")?.textContent ?? "",
    confirm: Boolean(p.querySelector(".tsgpu-panel-confirm")),
    buttonsEnabled: [...p.querySelectorAll(".tsgpu-panel-actions button")].map((b: any) => !b.disabled),
  };
}

/** The panel's texts, for worstContrast. */
const PANEL_TEXTS = { selector: "#tsgpu-memory-panel td, #tsgpu-memory-panel div, #tsgpu-memory-panel svg text", ownText: true };

let cleanup: (() => Promise<void>) | undefined;
afterAll(async () => { await cleanup?.(); });

const why = unavailable();
(why ? test.skip : test)(`JupyterLab 4's memory panel follows a tsgpu notebook's memory and runs its remedies, in the light and dark themes${why ? ` (skipped: ${why})` : ""}`, async () => {
  const { chromium } = loadPlaywright();
  const lab = await startLab("tsgpu-panel-", writeNotebook);
  const { profile, base, token, server } = lab;
  let context: any;
  cleanup = async () => {
    cleanup = undefined;
    await lab.stop(context);
  };
  let page: any;
  let at = "starting jupyter lab";
  const step = (name: string) => { at = name; };
  try {
    await waitForServer(`${base}/api/status?token=${token}`, server, lab.log);
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 1000 } });
    page = context.pages()[0] ?? await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e: Error) => pageErrors.push(e.message));
    await page.route("**/*", (route: any) => route.request().url().startsWith(`${base}/`) ? route.continue() : route.abort());
    step("opening the notebook");
    await page.goto(`${base}/lab/tree/panel.ipynb?token=${token}`);
    await page.waitForFunction(() => {
      const panel = (window as any).jupyterapp?.shell?.currentWidget;
      const kernel = panel?.sessionContext?.session?.kernel;
      return Boolean(kernel) && kernel.status === "idle" && panel.content?.widgets?.length > 0;
    }, undefined, { timeout: 90000, polling: 250 });
    const command = (id: string, args: object = {}) => page.evaluate(([i, a]: [string, object]) => (window as any).jupyterapp.commands.execute(i, a), [id, args]);
    const panel = () => page.evaluate(panelState);
    /** Waits until `cond(panelState())` holds in the page. */
    const until = async (what: string, cond: string, timeout = 30000) => {
      try {
        await page.waitForFunction(`(() => { const s = (${panelState.toString()})(); return Boolean(s) && (${cond}); })()`, undefined, { timeout, polling: 100 });
      } catch (e) {
        throw new Error(`the panel did not show ${what}: ${JSON.stringify(await panel())} (${(e as Error).message.split("\n")[0]})`);
      }
    };
    const runCell = async (i: number) => {
      await page.evaluate((n: number) => { (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex = n; }, i);
      await command("notebook:run-cell");
      await page.waitForFunction(() => (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === "idle", undefined, { timeout: 60000 });
    };

    step("opening the panel");
    // The extension's command, as the command palette runs it; the panel is in the right side bar.
    expect(await page.evaluate(() => (window as any).jupyterapp.commands.hasCommand("tsgpu-memory:show"))).toBe(true);
    await command("tsgpu-memory:show");
    await until("a connected panel", "s.visible && s.state === 'connected'");
    expect((await panel()).status).toMatch(/No tensors yet/);

    step("allocating");
    await runCell(0);
    await until("weights' 4 MiB", "s.devices.length === 1 && s.devices[0].allocated === 4 * 1048576 && s.holders.length === 1");
    let s = await panel();
    expect(s.devices[0].device).toBe("cpu");
    expect(s.devices[0].shown[0]).toEqual(["allocated", "4.00 MiB"]);
    expect(s.holders).toEqual([["weights", 4 * MiB]]);
    await runCell(1);
    await until("big's 16 MiB", "s.devices[0].allocated === 20 * 1048576 && s.holders.length === 2");
    s = await panel();
    expect(s.holders).toEqual([["big", 16 * MiB], ["weights", 4 * MiB]]);
    expect(s.devices[0].peak).toBeGreaterThanOrEqual(20 * MiB);
    expect(s.devices[0].reserved).toBeGreaterThanOrEqual(20 * MiB);
    expect(s.devices[0].points).toBeGreaterThanOrEqual(2);
    await runCell(2);
    await until("both freed into the cache", "s.devices[0].allocated === 0 && s.holders.length === 0");
    s = await panel();
    const reservedBefore = s.devices[0].reserved;
    expect(reservedBefore).toBeGreaterThanOrEqual(20 * MiB);
    expect(s.devices[0].shown.map((r: string[]) => r[0])).toEqual(["allocated", "reserved", "peak"]);
    const light = await page.evaluate(worstContrast, PANEL_TEXTS);
    expect(light.count).toBeGreaterThan(10);
    expect([light.min >= 4.5, light.where]).toEqual([true, light.where]);
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-panel-light.png") });

    step("emptying the cache");
    await page.click("#tsgpu-memory-panel .tsgpu-panel-empty-cache");
    await until("reserved dropping", `s.devices[0].reserved < ${reservedBefore} && /released/.test(s.result)`);
    s = await panel();
    expect(s.devices[0].allocated).toBe(0);
    expect(s.devices[0].reserved).toBeLessThanOrEqual(reservedBefore - 20 * MiB);

    step("switching to the dark theme");
    await command("apputils:change-theme", { theme: "JupyterLab Dark" });
    await page.waitForFunction(() => document.body.dataset.jpThemeLight === "false", undefined, { timeout: 30000 });
    await page.waitForTimeout(500);
    const dark = await page.evaluate(worstContrast, PANEL_TEXTS);
    expect([dark.min >= 4.5, dark.where]).toEqual([true, dark.where]);
    const panelBg = await page.evaluate(() => getComputedStyle(document.querySelector("#tsgpu-memory-panel")).backgroundColor);
    expect(panelBg).not.toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-panel-dark.png") });

    step("resetting");
    await runCell(3);
    await until("kept's 4 MiB", "s.devices[0].allocated === 4 * 1048576 && s.holders.length === 1");
    // Reset asks first: Cancel does nothing; Reset drops the variables.
    await page.click("#tsgpu-memory-panel .tsgpu-panel-reset");
    await until("the confirmation", "s.confirm");
    await page.click("#tsgpu-memory-panel .tsgpu-panel-confirm-cancel");
    await until("the confirmation gone", "!s.confirm");
    expect((await panel()).holders).toEqual([["kept", 4 * MiB]]);
    await page.click("#tsgpu-memory-panel .tsgpu-panel-reset");
    await until("the confirmation", "s.confirm");
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-panel-confirm-dark.png") });
    await page.click("#tsgpu-memory-panel .tsgpu-panel-confirm-reset");
    await until("the variables dropped", "s.devices[0].allocated === 0 && s.holders.length === 0 && /Dropped 3 variables/.test(s.result)");
    expect((await panel()).empty).toBe("No live tensors.");

    step("restarting with a live watch view");
    await runCell(4);
    const watch = () => page.evaluate(() => {
      const p = document.querySelectorAll(".jp-Notebook .jp-CodeCell")[4].querySelector(".tsgpu-watch-status");
      return { state: p?.dataset.state, text: p?.textContent ?? "" };
    });
    expect((await watch()).state).toBe("live");
    const restart = command("kernelmenu:restart");
    await page.click(".jp-Dialog .jp-mod-accept", { timeout: 15000 });
    await restart;
    // The view says it stopped (JupyterLab drops the old kernel's own last update), and the panel is back on the new kernel.
    await page.waitForFunction(() => document.querySelectorAll(".jp-Notebook .jp-CodeCell")[4].querySelector(".tsgpu-watch-status")?.dataset.state === "stopped", undefined, { timeout: 30000 });
    expect((await watch()).text).toMatch(/^Memory watch stopped \(the kernel restarted\) at \d\d:\d\d:\d\d; the numbers are those after cell In\[5\]\.$/);
    await until("the new kernel", "s.state === 'connected' && /No tensors yet/.test(s.status)", 60000);
    await runCell(0);
    await until("weights again", "s.devices.length === 1 && s.devices[0].allocated === 4 * 1048576 && s.holders.length === 1");
    await page.screenshot({ path: join(ARTIFACTS, "jupyterlab-panel-restarted-dark.png") });

    step("closing the panel");
    // A collapsed panel closes its comm: the kernel then has none open to the target, and sends nothing.
    const panelComms = () => page.evaluate(async () => {
      const kernel = (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel;
      return Object.keys((await kernel.requestCommInfo({ target_name: "tsgpu.memory" })).content.comms).length;
    });
    expect(await panelComms()).toBe(1);
    await page.evaluate(() => (window as any).jupyterapp.shell.collapseRight());
    await until("a hidden panel", "!s.visible");
    expect(await panelComms()).toBe(0);
    await command("tsgpu-memory:show");
    await until("the panel back", "s.visible && s.state === 'connected' && s.holders.length === 1");
    expect(await panelComms()).toBe(1);

    step("another kernel");
    await page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.sessionContext.changeKernel({ name: "python3" }));
    await until("that the kernel is not tsgpu", "s.state === 'not-tsgpu'", 60000);
    s = await panel();
    expect(s.status).toMatch(/^The kernel of this notebook \(python3\) is not tsgpu/);
    expect(s.devices).toEqual([]);
    expect(s.buttonsEnabled).toEqual([false, false]);

    await command("apputils:change-theme", { theme: "JupyterLab Light" });
    expect(pageErrors.filter((m) => m !== "No active debugger session")).toEqual([]);
    expect(lab.log()).not.toMatch(/Traceback|\[E /);
  } catch (e) {
    await page?.screenshot({ path: join(ARTIFACTS, "jupyterlab-panel-failure.png") }).catch(() => undefined);
    throw new Error(`while ${at} (screenshot in test-artifacts/jupyterlab-panel-failure.png): ${(e as Error).message}\n--- jupyter lab's log ---\n${lab.log().slice(-4000)}`);
  } finally {
    await cleanup?.();
  }
}, 300000);
