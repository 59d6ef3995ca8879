/**
 * The out-of-memory storm shared by the CPU run (stress.test.ts, under
 * TSGPU_CPU_MEMORY_LIMIT) and the CUDA run (stress_cuda.test.ts, against the
 * device's capacity): cells in a row that each ask one device for more than
 * it can give, some after a smaller allocation the cell disposes of.
 */
import { KernelClient } from "../../../kernel/transport/client";
import { stdout } from "../../helpers";
import { rng } from "../fuzz_lib";

/** The JSON value of an expression evaluated in the kernel (no history). */
export async function value(k: KernelClient, expr: string): Promise<any> {
  const { reply, outputs } = await k.execute(`console.log(JSON.stringify(${expr}))`, { store_history: false });
  if (reply.content.status !== "ok") throw new Error(`${expr}: ${reply.content.ename}: ${reply.content.evalue}`);
  return JSON.parse(stdout(outputs).trim());
}

/**
 * Runs `cells` cells that each allocate float32 tensors of one to four times
 * `capacityBytes` on `device` (every third after a `smallElements` tensor the
 * cell disposes of); returns how many cells ended with each error name.
 */
export async function oomStorm(k: KernelClient, o: { device: string; capacityBytes: number; smallElements: number; cells: number; seed: number }): Promise<Map<string, number>> {
  const r = rng(o.seed);
  const enames = new Map<string, number>();
  const dev = JSON.stringify(o.device);
  for (let i = 0; i < o.cells; i++) {
    const elements = Math.floor((o.capacityBytes / 4) * (1 + r() * 3)) + 1;
    const code = i % 3 === 0
      ? `torch.empty([${elements}], { device: ${dev} });`
      : `{ using small = torch.ones([${o.smallElements}], { device: ${dev} }); torch.zeros([${elements}], { device: ${dev} }); }`;
    const { reply } = await k.execute(code);
    enames.set(String(reply.content.ename), (enames.get(String(reply.content.ename)) ?? 0) + 1);
  }
  return enames;
}
