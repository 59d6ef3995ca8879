/**
 * The out-of-memory storm on a real CUDA device (an H200 in the GPU run):
 * 200 cells in a row that each ask cuda:0 for more than its capacity get
 * OutOfMemoryError; afterwards allocated memory is back to its starting
 * value and a normal cell runs. Without a usable GPU it skips and says why.
 */
import { KernelClient } from "../../../kernel/transport/client";
import { ofType, startKernel } from "../../helpers";
import { oomStorm, value } from "./oom_storm";
import { recordResults } from "../reliability_results";
import { cudaTest, cudaUnavailable } from "../../skip";

jest.setTimeout(600_000);


describe("out of memory storm on cuda:0", () => {
  let k: KernelClient;
  beforeAll(async () => { if (!cudaUnavailable()) k = await startKernel({ env: { ...process.env, TSGPU_HISTORY_FILE: "none" } }); });
  afterAll(async () => { if (k) await k.shutdown(); });

  cudaTest("200 cells in a row that ask for more than the device's capacity each get OutOfMemoryError; memory comes back; a normal cell runs", async () => {
    await k.execute('const kept = torch.ones([64 * 1024 * 1024], { device: "cuda:0" }); // 256 MiB');
    const [, capacity] = await value(k, 'torch.cuda.memGetInfo("cuda:0")');
    expect(capacity).toBeGreaterThan(2 ** 30);
    const start = await value(k, 'torch.memory.allocated("cuda:0")');
    const enames = await oomStorm(k, { device: "cuda:0", capacityBytes: capacity, smallElements: 16 * 1024 * 1024, cells: 200, seed: 13 });
    expect([...enames]).toEqual([["OutOfMemoryError", 200]]);
    const after = await value(k, '({ allocated: torch.memory.allocated("cuda:0"), ooms: torch.memory.stats("cuda:0").num_ooms, sum: kept.sum().item() })');
    expect(after).toEqual({ allocated: start, ooms: 200, sum: 64 * 1024 * 1024 });
    const { reply, outputs } = await k.execute('const t = torch.ones([1024], { device: "cuda:0" }); t.sum().item()');
    expect(reply.content.status).toBe("ok");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("1024");
    recordResults("oom_storm_cuda", { cells: 200, device: "cuda:0", capacity_bytes: capacity, all_out_of_memory: true,
      allocated_before: start, allocated_after: after.allocated, num_ooms: after.ooms });
  });
});
