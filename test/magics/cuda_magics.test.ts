/**
 * The memory magics on a CUDA device (an H200 in the GPU run). Without a
 * usable GPU each test skips and says why.
 */
import { KernelClient } from "../../kernel/transport/client";
import { startKernel } from "../helpers";
import { bundle, holders, ok } from "./magic_helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(120000);

// eslint-disable-next-line @typescript-eslint/no-var-requires
const torch = require("../../native/index");
const reason = torch.cuda.isAvailable() ? "" : `needs a CUDA GPU: ${torch.cuda.unavailableReason()}`;
const gpuTest = (name: string, fn: () => Promise<void>) => reason ? test.skip(`${name} (skipped: ${reason})`, () => undefined) : test(name, fn);
const MiB = 2 ** 20;

describe("memory magics on cuda:0", () => {
  let k: KernelClient;
  beforeAll(async () => { if (!reason) k = await startKernel(); });
  afterAll(async () => { if (k) await k.shutdown(); });

  gpuTest("%memory cuda:0 shows the allocator's numbers and NVML's context and other processes", async () => {
    await ok(k, 'const g = torch.zeros([64 * MiBf], { device: "cuda:0" });'.replace("MiBf", String(MiB / 4)));
    const dev = bundle(await ok(k, "%memory cuda:0"))[magicMime("memory")].devices[0];
    expect(dev.device).toBe("cuda:0");
    expect(dev.allocated).toBe(64 * MiB);
    expect(dev.stats["allocated_bytes.all.current"]).toBe(64 * MiB);
    expect(dev.total).toBeGreaterThan(100 * 2 ** 30);
    if (dev.cuda_context !== null) expect(dev.cuda_context).toBeGreaterThan(0);
  });

  gpuTest("%memory --processes lists the GPU's processes from NVML", async () => {
    const json = bundle(await ok(k, "%memory --processes"))[magicMime("memory")];
    expect(json.available).toBe(true);
    expect(json.devices[0].total).toBeGreaterThan(100 * 2 ** 30);
    expect(json.devices[0].processes.length).toBeGreaterThan(0);
  });

  gpuTest("a CUDA tensor in the output history is named, and %reset -f frees it with every variable's", async () => {
    const n = (await k.execute('torch.ones([1024 * 1024], { device: "cuda:0" })')).reply.content.execution_count;
    const h = await holders(k);
    expect(h.holders.find((g) => g.label === `Out[${n}]`)).toMatchObject({ bytes: 4 * MiB });
    const json = bundle(await ok(k, "%reset -f"))[magicMime("reset")];
    expect(json.devices.find((d: any) => d.device === "cuda:0").after).toBe(0); // g of the first test went too
    const empty = bundle(await ok(k, "%empty_cache cuda:0"))[magicMime("empty_cache")].devices[0];
    expect(empty.allocated).toBe(0);
    expect(empty.reserved_after).toBeLessThanOrEqual(empty.reserved_before);
  });

  gpuTest("%timeit synchronizes the device around each batch", async () => {
    await ok(k, 'const a = torch.randn([2048, 2048], { device: "cuda:0" });');
    const t = bundle(await ok(k, "%timeit -n 5 -r 3 a.matmul(a).dispose()"))[magicMime("timeit")];
    expect(t).toMatchObject({ loops: 5, repeat: 3 });
    expect(t.mean_s).toBeGreaterThan(0);
  });
});
