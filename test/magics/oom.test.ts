/**
 * Out of memory through a real kernel: a cell that asks for more than the
 * device has fails with OutOfMemoryError and PyTorch's numbers, and the
 * kernel, its variables and its tensors survive it.
 */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel } from "../helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

describe("out of memory in a cell", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel({ env: { ...process.env, TSGPU_CPU_MEMORY_LIMIT: "1GiB" } }); });
  afterAll(async () => { await k.shutdown(); });

  test("the error names the request, the device and its memory, and what to try", async () => {
    const keep = await k.execute('const keep = torch.ones([64 * 1024 * 1024], { device: "cpu" }); // 256 MiB\nconst answer = 42;');
    expect(keep.reply.content.status).toBe("ok");
    const { reply, outputs } = await k.execute('const tooBig = torch.empty([256 * 1024 * 1024], { device: "cpu" }); // 1 GiB');
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("OutOfMemoryError");
    const [err] = ofType(outputs, "error");
    const msg: string = err.content.evalue;
    expect(msg).toContain("Tried to allocate 1024.00 MiB."); // PyTorch writes exactly 1 GiB in MiB
    expect(msg).toContain("Device cpu has a total capacity of 1024.00 MiB of which 768.00 MiB is free.");
    expect(msg).toContain("Of the allocated memory 256.00 MiB is allocated by tensors and 0 bytes is reserved but unallocated.");
    expect(msg).toMatch(/%empty_cache, %reset, or dispose\(\)/);
    expect(err.content.traceback.join("\n")).toContain("Cell In[");
  });

  test("the kernel keeps its state: earlier variables and tensors, and it can allocate again", async () => {
    const { reply, outputs } = await k.execute(
      'console.log(JSON.stringify({ answer, sum: keep.sum().item(), disposed: keep.isDisposed, ooms: torch.memory.stats("cpu").num_ooms,\n  more: torch.empty([1024], { device: "cpu" }).numel, allocated: torch.memory.allocated("cpu") >= 256 * 2 ** 20 }))');
    expect(reply.content.status).toBe("ok");
    const text = ofType(outputs, "stream").map((m) => m.content.text).join("");
    expect(JSON.parse(text.trim())).toEqual({ answer: 42, sum: 64 * 1024 * 1024, disposed: false, ooms: 1, more: 1024, allocated: true });
  });

  test("%memory still answers after the failure", async () => {
    const { reply, outputs } = await k.execute("%memory cpu");
    expect(reply.content.status).toBe("ok");
    const mem = ofType(outputs, "display_data")[0].content.data[magicMime("memory")];
    expect(mem.devices[0].stats.num_ooms).toBe(1);
  });
});
