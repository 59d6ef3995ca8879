/**
 * `%memory --tensors` names the cell and line that made each tensor without
 * `%memory --history on`: large tensors record their line, small ones only
 * their cell (they capture no stack), through a real kernel.
 */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel } from "../helpers";
import { bundle, ok } from "./magic_helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

const MiB = 2 ** 20;

async function value(k: KernelClient, code: string): Promise<any> {
  const out = await ok(k, code);
  return JSON.parse(ofType(out, "execute_result")[0].content.data["text/plain"].replace(/^'|'$/g, ""));
}

describe("%memory --tensors: the cell and line that made each tensor", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("a large tensor made on line 3 of cell 2 is reported so, without --history", async () => {
    const first = await k.execute("const captures0 = torch.memory.siteCaptureCount();");
    expect(first.reply.content.execution_count).toBe(1);
    const made = await k.execute('// cell 2\nconst small = torch.zeros([16], { device: "cpu" });\nconst big = torch.zeros([1024, 1024], { device: "cpu" }); // 4 MiB');
    expect(made.reply.content.execution_count).toBe(2);
    const data = bundle(await ok(k, "%memory --tensors"));
    const json = data[magicMime("memory")];
    const big = json.tensors.find((t: any) => t.holders.includes("big"));
    const small = json.tensors.find((t: any) => t.holders.includes("small"));
    expect(big).toMatchObject({ nbytes: 4 * MiB, site: "Cell In[2], line 3", cell: 2, line: 3 });
    expect(big.frames).toBeUndefined();
    // The small one records its cell (a counter) but no line: no stack was captured for it.
    expect(small).toMatchObject({ nbytes: 64, site: "Cell In[2]", cell: 2, line: null });
    expect(json.sites).toEqual(expect.arrayContaining([
      { site: "Cell In[2], line 3", cell: 2, line: 3, tensors: 1, bytes: 4 * MiB, ids: [big.id] },
      { site: "Cell In[2]", cell: 2, line: null, tensors: 1, bytes: 64, ids: [small.id] },
    ]));
    const text: string = data["text/plain"];
    expect(text).toMatch(/^\s+#\d+\s+\[1024, 1024\]\s+float32\s+cpu\s+4\.00 MiB\s+Cell In\[2\], line 3$/m);
    expect(text).toContain("Live tensors by the cell and line that made them:");
    expect(text).toMatch(/^Cell In\[2\], line 3\s+1\s+4\.00 MiB$/m);
    expect(text).toContain("Tensors under 1.00 MiB record the cell that made them but not the line");
    const html: string = data["text/html"];
    expect(html).toMatch(/<table class="tsgpu-tensors">.*<td style="text-align:left">Cell In\[2\], line 3<\/td>/s);
    const num = '<td class="num" style="text-align:right;white-space:nowrap">';
    expect(html).toContain(`<table class="tsgpu-sites">`);
    expect(html.slice(html.indexOf('<table class="tsgpu-sites">'))).toContain(`<td style="text-align:left">Cell In[2], line 3</td>${num}1</td>${num}4.00 MiB</td>`);
  });

  test("small tensors capture no stack; the large one captured one", async () => {
    // Cells 1 and 2 captured one stack between them: the 4 MiB tensor's.
    expect(await value(k, "JSON.stringify(torch.memory.siteCaptureCount() - captures0)")).toBe(1);
    const counts = await value(k, [
      "const c0 = torch.memory.siteCaptureCount();",
      'const many = Array.from({ length: 500 }, () => torch.zeros([256], { device: "cpu" })); // 1 KiB each',
      "const c1 = torch.memory.siteCaptureCount();",
      'const large = torch.empty([torch.memory.kSiteMinBytes / 4], { device: "cpu" });',
      "JSON.stringify([c1 - c0, torch.memory.siteCaptureCount() - c1])",
    ].join("\n"));
    expect(counts).toEqual([0, 1]);
    const json = bundle(await ok(k, "%memory --tensors"))[magicMime("memory")];
    const cell = json.tensors.find((t: any) => t.holders.includes("large")).cell;
    expect(json.sites.find((s: any) => s.site === `Cell In[${cell}], line 4`)).toMatchObject({ tensors: 1, bytes: MiB });
    expect(json.sites.find((s: any) => s.site === `Cell In[${cell}]`)).toMatchObject({ line: null, tensors: 500, bytes: 500 * 1024 });
  });

  test("with --history on every tensor records its line, small ones too", async () => {
    await ok(k, "%memory cpu --history on");
    const made = await k.execute('const a1 = torch.zeros([8], { device: "cpu" });\nconst a2 = torch.zeros([8], { device: "cpu" });');
    const n = made.reply.content.execution_count;
    await ok(k, "%memory cpu --history off");
    const json = bundle(await ok(k, "%memory --tensors"))[magicMime("memory")];
    expect(json.tensors.find((t: any) => t.holders.includes("a1"))).toMatchObject({ site: `Cell In[${n}], line 1`, cell: n, line: 1 });
    expect(json.tensors.find((t: any) => t.holders.includes("a2"))).toMatchObject({ site: `Cell In[${n}], line 2`, cell: n, line: 2 });
  });

  test("a tensor made inside a function of an earlier cell is reported at that function's line", async () => {
    const def = await k.execute("function makeBig() {\n  return torch.ones([512, 1024], { device: \"cpu\" });\n}");
    const defCell = def.reply.content.execution_count;
    const use = await k.execute("const fromFn = makeBig();");
    const json = bundle(await ok(k, "%memory --tensors"))[magicMime("memory")];
    const t = json.tensors.find((x: any) => x.holders.includes("fromFn"));
    expect(use.reply.content.execution_count).toBe(defCell + 1);
    expect(t).toMatchObject({ site: `Cell In[${defCell}], line 2`, cell: defCell, line: 2 });
  });
});
