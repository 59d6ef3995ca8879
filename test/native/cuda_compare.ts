/**
 * The CUDA-against-CPU comparison of the op cases (op_cases/*): a case runs
 * on its cpu inputs and again on copies of them on cuda:0; every output must
 * be on cuda:0 with the cpu output's dtype and shape, and agree within a
 * tolerance a little wider than PyTorch's (transcendentals and reduction
 * orders differ by a few ulps), plus the case's own rtol/atol. A case whose
 * result is text (made from the values) must give the same text.
 */
import * as torch from '../../native/index';
import { RefCase, TOLERANCE, worstExcess } from './torch_reference';

/** The elements of a tensor (on any device) as numbers. */
export function values(t: torch.Tensor): number[] {
  const c = t.device === 'cpu' ? t : t.cpu();
  return Array.from(c.toArray() as ArrayLike<number | bigint>, (v) => Number(v));
}

/** Runs case `c` on cpu and on cuda:0 and throws unless the results agree (see the file's note). */
export function compareOnCuda(c: RefCase): void {
  const cpuResult = c.run(c.inputs);
  const gpuResult = c.run(Object.fromEntries(Object.entries(c.inputs).map(([k, v]) => [k, v.cuda()])));
  if (typeof cpuResult === 'string') {
    expect(gpuResult).toBe(cpuResult);  // text made from the values (tolist), not from the device
    return;
  }
  if (typeof gpuResult === 'string') throw new Error(`${c.name}: text on cuda where cpu gave tensors`);
  const cpu = Array.isArray(cpuResult) ? cpuResult : [cpuResult];
  const gpu = Array.isArray(gpuResult) ? gpuResult : [gpuResult];
  expect(gpu.length).toBe(cpu.length);
  cpu.forEach((want, i) => {
    expect({ device: gpu[i].device, dtype: gpu[i].dtype, shape: gpu[i].shape }).toEqual({ device: 'cuda:0', dtype: want.dtype, shape: want.shape });
    const [rtol, atol] = TOLERANCE[want.dtype] ?? [0, 0];
    const { excess, at } = worstExcess(values(gpu[i]), values(want), rtol * 4 + (c.rtol ?? 0), atol * 4 + (c.atol ?? 0));
    if (excess > 0) throw new Error(`${c.name}: output ${i} differs from cpu at element ${at} (excess ${excess})`);
  });
}
