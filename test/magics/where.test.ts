/** %memory --where and --history: live memory grouped by the cell and line that allocated it, through a real kernel. */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel } from "../helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

function display(outputs: any[]): any {
  const d = ofType(outputs, "display_data");
  expect(d).toHaveLength(1);
  return d[0].content.data;
}

describe("%memory --where", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("names the cell and line of each live allocation, as HTML, text and JSON", async () => {
    const on = await k.execute("%memory cpu --history on");
    expect(on.reply.content.status).toBe("ok");
    expect(display(on.outputs)[magicMime("memory")]).toEqual({ history: true, devices: ["cpu"] });
    // Cell 2: two allocations on lines 2 and 3 (the type annotation on line 1 is stripped by the compiler).
    const made = await k.execute('type T = number;\nconst big = torch.empty([1024, 1024], { device: "cpu" });\nconst small = [1, 2, 3].map(() => torch.empty([10], { device: "cpu" }));');
    expect(made.reply.content.status).toBe("ok");
    const cellNo = made.reply.content.execution_count;
    // Cell 3: a temporary that is disposed leaves nothing behind.
    await k.execute('torch.ones([5000], { device: "cpu" }).dispose();');
    const { reply, outputs } = await k.execute("%memory --where");
    expect(reply.content.status).toBe("ok");
    const data = display(outputs);
    const sites = data[magicMime("memory")].where;
    expect(sites).toEqual([
      { device: "cpu", site: `Cell In[${cellNo}], line 2`, cell: `Cell In[${cellNo}]`, cell_number: cellNo, line: 2, allocations: 1, bytes: 4 * 2 ** 20, requested_bytes: 4 * 2 ** 20 },
      { device: "cpu", site: `Cell In[${cellNo}], line 3`, cell: `Cell In[${cellNo}]`, cell_number: cellNo, line: 3, allocations: 3, bytes: 3 * 512, requested_bytes: 120 },
    ]);
    expect(data["text/plain"]).toContain(`Cell In[${cellNo}], line 2`);
    expect(data["text/plain"]).toContain("4.00 MiB");
    expect(data["text/html"]).toContain(`<td style="text-align:left">Cell In[${cellNo}], line 3</td>`);
  });

  test("allocations made while history was off are listed without a stack, with what to do", async () => {
    await k.execute("%memory --history off");
    await k.execute('const late = torch.empty([100], { device: "cpu" });');
    const data = display((await k.execute("%memory --where")).outputs);
    const unknown = data[magicMime("memory")].where.find((s: any) => s.site === "(no stack recorded)");
    expect(unknown).toMatchObject({ allocations: 1, bytes: 512, cell: null, cell_number: null, line: null });
    expect(data["text/plain"]).toContain("%memory --history on");
  });

  test("a bad --history value is a usage error naming it", async () => {
    const { reply, outputs } = await k.execute("%memory --history maybe");
    expect(reply.content.status).toBe("error");
    const err = ofType(outputs, "error")[0].content;
    expect(err.evalue).toContain("expected on or off for --history, got maybe");
  });
});
