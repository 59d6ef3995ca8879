/**
 * What every magic's rich output carries, in a real kernel: its data under
 * the magic's own vendor type (never application/json, which JupyterLab
 * would show as a JSON tree), HTML styled by JupyterLab's theme variables
 * with fallbacks, and a timeline whose axis is sensible when nothing is
 * allocated.
 */
import { KernelClient } from "../../kernel/transport/client";
import { isMagicMime, magicMime } from "../../magics/mime";
import { STYLE } from "../../magics/format";
import { timelineSvg } from "../../magics/timeline_svg";
import { ofType, startKernel } from "../helpers";
import { ok } from "./magic_helpers";

jest.setTimeout(60000);

test("the type of a magic's data is named after the magic and versioned", () => {
  expect(magicMime("memory")).toBe("application/vnd.tsgpu.memory.v1+json");
  expect(magicMime("empty_cache")).toBe("application/vnd.tsgpu.empty_cache.v1+json");
  expect(isMagicMime("application/vnd.tsgpu.reset.v1+json")).toBe(true);
  expect(isMagicMime("application/vnd.tsgpu.reset.v2+json")).toBe(true);
  expect(isMagicMime("application/json")).toBe(false);
  expect(isMagicMime("application/vnd.jupyter.widget-view+json")).toBe(false);
});

test("the styles follow JupyterLab's theme variables, each with a fallback for pages without them", () => {
  for (const v of ["--jp-content-font-color1", "--jp-border-color2", "--jp-layout-color2", "--jp-ui-font-family", "--jp-code-font-family"]) {
    expect(STYLE).toContain(`var(${v},`);
  }
  // Every var() has a fallback (a page with none of these variables still gets colors and fonts).
  expect(STYLE.match(/var\(--[\w-]+\)/g)).toBeNull();
  // VS Code's own variables come next where it has one.
  expect(STYLE).toContain("var(--jp-border-color2,var(--vscode-editorWidget-border,rgba(128,128,128,.35)))");
});

test("a timeline with nothing allocated has an axis up to 1 KiB, and says why it is flat", () => {
  const zero = [1, 2, 3].map((cell) => ({ cell, time: 0, devices: [{ device: "cpu", allocated: 0, reserved: 0, peak: 0 }] }));
  const svg = timelineSvg(zero, "cpu");
  const ticks = [...svg.matchAll(/class="y-tick">([^<]*)</g)].map((m) => m[1]);
  expect(ticks).toEqual(["0 B", "512 B", "1.00 KiB"]);
  expect(svg).toContain("nothing allocated on cpu yet");
  // With memory, the axis goes up to the highest value, as before.
  const some = [{ cell: 1, time: 0, devices: [{ device: "cpu", allocated: 4 * 2 ** 20, reserved: 20 * 2 ** 20, peak: 4 * 2 ** 20 }] }];
  expect([...timelineSvg(some, "cpu").matchAll(/class="y-tick">([^<]*)</g)].map((m) => m[1])).toEqual(["0 B", "10.00 MiB", "20.00 MiB"]);
  expect(timelineSvg(some, "cpu")).not.toContain("nothing allocated");
});

describe("every magic in a kernel", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("puts its data under its own type and never under application/json; display.json keeps application/json", async () => {
    await ok(k, 'const t = torch.zeros([1024], { device: "cpu" });');
    const cases: [string, string][] = [
      ["%memory", "memory"], ["%memory --summary", "memory"], ["%memory --timeline", "memory"], ["%memory --tensors", "memory"],
      ["%memory --where", "memory"], ["%memory --processes", "memory"], ["%memory --history off", "memory"],
      ["%%memory\nconst u = 1;", "memory"], ["%who", "who"], ["%whos", "whos"], ["%timeit -n 1 -r 1 1 + 1", "timeit"], ["%env", "env"],
      ["%typecheck", "typecheck"], ["%lsmagic", "lsmagic"], ["%empty_cache", "empty_cache"], ["%reset_selective -f ^nothing_$", "reset_selective"],
      ["%xdel t", "xdel"], ["%reset -f", "reset"],
    ];
    for (const [code, magic] of cases) {
      const shown = ofType(await ok(k, code), "display_data");
      expect([code, shown.length]).toEqual([code, 1]);
      const types = Object.keys(shown[0].content.data);
      expect([code, types.filter(isMagicMime)]).toEqual([code, [magicMime(magic)]]);
      expect([code, types.includes("application/json")]).toEqual([code, false]);
    }
    const json = ofType(await ok(k, "display.json({ a: 1 })"), "display_data")[0].content.data;
    expect(json["application/json"]).toEqual({ a: 1 });
  });
});
