/**
 * %memory and %memory --tensors name training memory by kind, through a real
 * kernel on the CPU device: parameters (by module path), gradients, optimizer
 * state, tensors saved for backward — the four kinds a user must tell apart
 * when a model no longer fits.
 */
import { KernelClient } from "../../kernel/transport/client";
import { startKernel } from "../helpers";
import { bundle, holders, ok } from "./magic_helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(90000);

describe("training memory in %memory", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("parameters, saved activations, gradients and Adam's state each get their row and their labels", async () => {
    await ok(k, `
      torch.manualSeed(0);
      const model = new torch.nn.Sequential(new torch.nn.Linear(256, 512), new torch.nn.Tanh(), new torch.nn.Linear(512, 10));
      const opt = new torch.optim.Adam(model.parameters(), { lr: 1e-3 });
      const x = torch.randn([128, 256]);
      const y = torch.randint(0, 10, [128]);
      const loss = torch.tidy(() => torch.crossEntropy(model.forward(x), y));`);
    const paramBytes = (256 * 512 + 512 + 512 * 10 + 10) * 4;
    let cpu = bundle(await ok(k, "%memory cpu"))[magicMime("memory")].devices[0];
    expect(cpu.training.parameter).toBe(paramBytes);
    // Tanh saved its output (128 × 512 floats); the graph holds it until backward.
    expect(cpu.training.saved).toBeGreaterThanOrEqual(128 * 512 * 4);
    expect(cpu.training.gradient).toBe(0);
    await ok(k, "loss.backward(); opt.step();");
    cpu = bundle(await ok(k, "%memory cpu"))[magicMime("memory")].devices[0];
    expect(cpu.training.saved).toBe(0);
    expect(cpu.training.gradient).toBe(paramBytes);
    expect(cpu.training.optimizer).toBe(2 * paramBytes); // exp_avg and exp_avg_sq per parameter
    const text: string = bundle(await ok(k, "%memory cpu"))["text/plain"];
    for (const row of ["parameters", "gradients", "optimizer state"]) expect(text).toMatch(new RegExp(`^\\s+${row}\\s`, "m"));
    const h = await holders(k);
    const labels = h.holders.map((x) => `${x.kind}: ${x.label}`);
    expect(labels).toEqual(expect.arrayContaining([
      expect.stringMatching(/^parameter: parameter 0\.weight$/),
      expect.stringMatching(/^gradient: gradient of 0\.weight$/),
      expect.stringMatching(/^optimizer: exp_avg of 0\.weight$/),
    ]));
    await ok(k, "opt.zeroGrad();");
    cpu = bundle(await ok(k, "%memory cpu"))[magicMime("memory")].devices[0];
    expect(cpu.training.gradient).toBe(0);
  });
});
