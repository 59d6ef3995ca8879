/**
 * What the JupyterLab tests share (jupyterlab.test.ts, jupyterlab_panel.test.ts):
 * where the reference environment's `jupyter lab` and Debian's Chromium are,
 * why the tests cannot run (a failure under CI), a free port, starting a
 * `jupyter lab` of its own (startLab) and waiting for it to answer.
 */
import { ChildProcess, spawn } from "child_process";
import { randomBytes } from "crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { createServer } from "net";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { ROOT } from "../helpers";
import { kernelspecEnv } from "../jupyter";

// The page's globals, for the functions that run in it (the tests compile without the DOM library).
declare const document: any;
declare function getComputedStyle(e: unknown): any;
declare const SVGElement: any;

export const CHROMIUM = "/usr/bin/chromium";
const BIN = process.env.TSGPU_PYTHON ? dirname(process.env.TSGPU_PYTHON) : join(ROOT, "build", "pyref", "bin");
/** `jupyter lab` of the reference environment (build/pyref, or the one TSGPU_PYTHON names). */
export const LAB = join(BIN, "jupyter-lab");
/** Chromium's flags: headless on a machine without a GPU, nothing fetched from outside. */
export const FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** Where screenshots are kept. */
export const ARTIFACTS = join(ROOT, "test-artifacts");

/** playwright-core, or null where it is not installed. */
export function loadPlaywright(): any {
  try { return require("playwright-core"); } catch { return null; }
}

/** Why these tests cannot run here, or null. Under CI a missing part is a failure, not a skip. */
export function unavailable(): string | null {
  const missing = [
    !existsSync(CHROMIUM) && `${CHROMIUM} (apt-get install chromium)`,
    !existsSync(LAB) && `${LAB} (JupyterLab 4 in the reference environment: node scripts/pyref.js)`,
    !loadPlaywright() && "playwright-core (npm install)",
  ].filter(Boolean);
  if (!missing.length) return null;
  const why = `missing ${missing.join(", ")}`;
  if (process.env.CI === "true") throw new Error(why);
  return why;
}

/** A TCP port free on loopback now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => { const p = (s.address() as any).port; s.close(() => resolve(p)); });
    s.on("error", reject);
  });
}

/** Waits (up to 60 s) until `url` answers; fails with the server's log when it exits or does not answer. */
export async function waitForServer(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`jupyter lab exited with ${server.exitCode}:\n${log()}`);
    try { if ((await fetch(url)).ok) return; } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`jupyter lab did not answer within 60 s:\n${log()}`);
}

/** A `jupyter lab` of a test's own: its folders, address, log, and how to stop it. */
export interface LabServer {
  /** The server's root folder (the notebooks), with its config, runtime, data, settings and workspaces inside. */
  dir: string;
  /** A Chromium profile folder of its own. */
  profile: string;
  /** http://127.0.0.1:PORT */
  base: string;
  token: string;
  server: ChildProcess;
  /** What the server printed so far. */
  log(): string;
  /** Closes the browser context (when given), stops the server (SIGTERM, then SIGKILL after 5 s) and removes the folders. */
  stop(context?: { close(): Promise<unknown> }): Promise<void>;
}

/**
 * Starts `jupyter lab` on a free port with a token, in a new folder (prefix
 * `name`) that `prepare` fills with notebooks, with the kernelspec (and the
 * memory panel extension) of `kernelspecEnv` on JUPYTER_PATH, nothing fetched
 * from outside (no extension manager, no news). Returns at once; wait for
 * `${base}/api/status?token=${token}` with waitForServer.
 */
export async function startLab(name: string, prepare: (dir: string) => void): Promise<LabServer> {
  const dir = mkdtempSync(join(tmpdir(), name));
  const profile = mkdtempSync(join(tmpdir(), "tsgpu-chromium-"));
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  prepare(dir);
  mkdirSync(ARTIFACTS, { recursive: true });
  // A user who already answered JupyterLab's question about fetching news (No): no toast over the outputs.
  mkdirSync(join(dir, ".settings", "@jupyterlab", "apputils-extension"), { recursive: true });
  writeFileSync(join(dir, ".settings", "@jupyterlab", "apputils-extension", "notification.jupyterlab-settings"), JSON.stringify({ fetchNews: "false" }));
  let log = "";
  // kernelspecEnv runs `tsgpu install --prefix`, which puts the kernelspec and the extension on JUPYTER_PATH.
  const env = {
    ...kernelspecEnv(), JUPYTER_CONFIG_DIR: join(dir, ".config"), JUPYTER_RUNTIME_DIR: join(dir, ".runtime"), JUPYTER_DATA_DIR: join(dir, ".data"),
    JUPYTERLAB_SETTINGS_DIR: join(dir, ".settings"), JUPYTERLAB_WORKSPACES_DIR: join(dir, ".workspaces"),
  };
  const server = spawn(LAB, ["--no-browser", "--ServerApp.ip=127.0.0.1", `--ServerApp.port=${port}`, "--ServerApp.port_retries=0",
    `--IdentityProvider.token=${token}`, `--ServerApp.root_dir=${dir}`, "--LabApp.expose_app_in_browser=True",
    "--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
    ...(process.getuid?.() === 0 ? ["--allow-root"] : [])], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  server.stdout!.on("data", (d) => { log += d; });
  server.stderr!.on("data", (d) => { log += d; });
  const gone = () => server.exitCode !== null || server.signalCode !== null;
  return {
    dir, profile, base: `http://127.0.0.1:${port}`, token, server, log: () => log,
    stop: async (context) => {
      await context?.close().catch(() => undefined);
      if (server.pid) { try { process.kill(-server.pid, "SIGTERM"); } catch { /* gone */ } }
      for (let i = 0; i < 20 && !gone(); i++) await new Promise((r) => setTimeout(r, 250));
      if (server.pid && !gone()) { try { process.kill(-server.pid, "SIGKILL"); } catch { /* gone */ } }
      rmSync(profile, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs in the page (page.evaluate(worstContrast, { selector, ownText })): the
 * lowest contrast ratio (WCAG) of the text of the elements `selector` finds
 * against the background the page paints behind each (the first ancestor with
 * one; an SVG text's is its svg's), with the element whose text it is. With
 * ownText, only elements with text nodes of their own count (not a container
 * of other texts). Self-contained: the page runs its source.
 */
export function worstContrast(arg: { selector: string; ownText: boolean }): { min: number; where: string; count: number } {
  const rgba = (c: string) => { const v = (c.match(/[\d.]+/g) ?? []).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = ([r, g, b]: number[]) => { const f = (v: number) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = (e: any): number[] => {
    for (let n = e; n; n = n.parentElement) {
      const [r, g, b, a] = rgba(getComputedStyle(n).backgroundColor);
      if (a > 0.5) return [r, g, b];
    }
    return [255, 255, 255];
  };
  let min = Infinity, where = "", count = 0;
  for (const e of [...document.querySelectorAll(arg.selector)] as any[]) {
    const hasText = arg.ownText ? [...e.childNodes].some((n: any) => n.nodeType === 3 && n.textContent.trim()) : e.textContent.trim() !== "";
    if (!hasText) continue;
    const svg = e instanceof SVGElement;
    const style = getComputedStyle(e);
    const bg = background(svg ? e.closest("svg") : e);
    const [r, g, b, a] = rgba(svg ? style.fill : style.color);
    const alpha = a * Number(svg ? style.fillOpacity || 1 : 1);
    const mixed = [r, g, b].map((v, i) => v * alpha + bg[i] * (1 - alpha));
    const [l1, l2] = [lum(mixed), lum(bg)];
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    count++;
    if (ratio < min) { min = ratio; where = e.textContent.trim().slice(0, 40); }
  }
  return { min, where, count };
}
