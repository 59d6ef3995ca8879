/**
 * CUDA kernels against the CPU reference: every case of the PyTorch
 * differential tests of the kernels (op_cases/*) that succeeds on cpu runs again with its
 * inputs copied to cuda:0, and the results must agree within a tolerance a
 * little wider than PyTorch's (transcendentals and reduction orders differ
 * by a few ulps). Skipped, with the reason printed, where CUDA is unavailable.
 */
import * as torch from '../../native/index';
import { apiCases } from './op_cases/api';
import { indexCases } from './op_cases/index';
import { mathCases } from './op_cases/math';
import { nnCases } from './op_cases/nn';
import { reduceCases } from './op_cases/reduce';
import { RefCase, TOLERANCE, worstExcess } from './torch_reference';

const available = torch.cuda.isAvailable();
const cudaTest = available ? test : test.skip;

if (!available) {
  // eslint-disable-next-line no-console
  console.log(`CUDA op tests skipped: ${torch.cuda.unavailableReason()}`);
}

function outputsOf(r: torch.Tensor | torch.Tensor[] | string): torch.Tensor[] {
  if (typeof r === 'string') throw new Error('text results are not compared on cuda');
  return Array.isArray(r) ? r : [r];
}

function values(t: torch.Tensor): number[] {
  const c = t.device === 'cpu' ? t : t.cpu();
  return Array.from(c.toArray() as ArrayLike<number | bigint>, (v) => Number(v));
}

function compareOnCuda(c: RefCase): void {
  const cpuResult = c.run(c.inputs);
  const onCuda = Object.fromEntries(Object.entries(c.inputs).map(([k, v]) => [k, v.cuda()]));
  const gpuResult = c.run(onCuda);
  if (typeof cpuResult === 'string') {
    expect(gpuResult).toBe(cpuResult);  // text made from the values (tolist), not from the device
    return;
  }
  const cpu = outputsOf(cpuResult);
  const gpu = outputsOf(gpuResult);
  expect(gpu.length).toBe(cpu.length);
  for (let i = 0; i < cpu.length; i++) {
    expect(gpu[i].device).toBe('cuda:0');
    expect(gpu[i].dtype).toBe(cpu[i].dtype);
    expect(gpu[i].shape).toEqual(cpu[i].shape);
    const [rtol, atol] = TOLERANCE[cpu[i].dtype] ?? [0, 0];
    const { excess, at } = worstExcess(values(gpu[i]), values(cpu[i]), rtol * 4 + (c.rtol ?? 0), atol * 4 + (c.atol ?? 0));
    if (excess > 0) throw new Error(`${c.name}: output ${i} differs from cpu at element ${at} (excess ${excess})`);
  }
}

for (const [group, cases] of Object.entries({ ...mathCases, ...reduceCases, ...indexCases, ...nnCases, ...apiCases })) {
  describe(`cuda vs cpu: ${group}`, () => {
    for (const c of cases) {
      if (c.error) continue;  // refusals are checked on cpu (and are device independent)
      if (Object.keys(c.inputs).length === 0) continue;  // nothing to move: the case makes cpu tensors itself
      if (group === 'printing') continue;  // the text names the device
      cudaTest(c.name, () => compareOnCuda(c));
    }
  });
}
