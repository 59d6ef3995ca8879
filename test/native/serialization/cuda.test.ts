/**
 * torch.save / torch.load with CUDA tensors: saving copies a CUDA tensor
 * (a view too) to the host, byte for byte what the same tensor on cpu
 * writes; `torch.load(f, { device: 'cuda' })` puts every tensor on the
 * device, allocating exactly them there and nothing on the host, and a
 * corrupt file allocates nothing on either. Skipped, saying so, where CUDA
 * cannot be used (save_load.test.ts checks the device is refused there).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as torch from '../../../native/index';
import { errorOf } from '../helpers';
import { settleAllocator } from '../own_memory';
import { rawBytes, tempDir } from './python';

const withCuda = torch.cuda.isAvailable();
const cudaTest = withCuda ? test : test.skip;
if (!withCuda) {
  // eslint-disable-next-line no-console
  console.log(`serialization cuda tests skipped: CUDA cannot be used here (${torch.cuda.unavailableReason()})`);
}

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.remove());
const file = (name: string): string => path.join(tmp.dir, name);

describe('CUDA tensors', () => {
  cudaTest('saving CUDA tensors and views writes the same file as their cpu copies', () => {
    torch.manualSeed(3);
    const base = torch.randn([64, 48], { device: 'cuda' });
    const sd: Record<string, torch.Tensor> = {
      w: base,
      wT: base.transpose(0, 1), // not contiguous: copied on the device, then to the host
      rows: base.narrow(0, 8, 4),
      bf16: torch.randn([5, 7], { device: 'cuda', dtype: 'bfloat16' }),
      ids: torch.randint(0, 1000, [33], { device: 'cuda' }),
      flag: torch.rand([9], { device: 'cuda' }).gt(0.5),
      empty: torch.empty([0, 4], { device: 'cuda' }),
    };
    const onCpu: Record<string, torch.Tensor> = {};
    for (const [k, t] of Object.entries(sd)) onCpu[k] = t.to('cpu');
    try {
      torch.save(sd, file('cuda.safetensors'));
      torch.save(onCpu, file('cpu.safetensors'));
      expect(fs.readFileSync(file('cuda.safetensors'))).toEqual(fs.readFileSync(file('cpu.safetensors')));
    } finally {
      Object.values(sd).forEach((t) => t.dispose());
      Object.values(onCpu).forEach((t) => t.dispose());
    }
  });

  cudaTest("torch.load(f, { device: 'cuda' }) puts every tensor on the device, allocating exactly them and nothing on the host", async () => {
    await settleAllocator(); // what earlier tests dropped is freed before this one measures, and nothing more is pending
    const sd = { a: torch.randn([1000, 300]), b: torch.arange(77), c: torch.tensor(2.5, { dtype: 'float16' }) };
    torch.save({ model: sd, step: 12 }, file('to_cuda.safetensors'));
    const count = (d: string) => torch.memory.stats(d)['allocation.all.allocated'] ?? 0;
    const cpu0 = count('cpu');
    const cuda0 = count('cuda:0');
    const allocated0 = torch.cuda.memoryAllocated(0);
    const back = torch.load(file('to_cuda.safetensors'), { device: 'cuda' });
    try {
      expect(count('cpu')).toBe(cpu0);
      expect(count('cuda:0') - cuda0).toBe(3);
      const rounded = (n: number) => Math.ceil(n / 512) * 512;
      expect(torch.cuda.memoryAllocated(0) - allocated0).toBe(rounded(1000 * 300 * 4) + rounded(77 * 8) + rounded(2));
      expect(back.step).toBe(12);
      for (const k of ['a', 'b', 'c'] as const) {
        expect(back.model[k].device).toBe('cuda:0');
        expect(rawBytes(back.model[k])).toEqual(rawBytes(sd[k]));
      }
      const viaMapLocation = torch.safetensors.loadFile(file('to_cuda.safetensors'), { device: 0 });
      expect(viaMapLocation['model.a'].device).toBe('cuda:0');
      Object.values(viaMapLocation).forEach((t) => t.dispose());
    } finally {
      Object.values(sd).forEach((t) => t.dispose());
      for (const t of Object.values(back.model as Record<string, torch.Tensor>)) t.dispose();
    }
    expect(torch.cuda.memoryAllocated(0)).toBe(allocated0);
  });

  cudaTest('a corrupt file loaded to the device allocates nothing there', () => {
    const a = torch.randn([256, 256]);
    torch.save({ a, b: a }, file('corrupt.safetensors'));
    a.dispose();
    fs.truncateSync(file('corrupt.safetensors'), fs.statSync(file('corrupt.safetensors')).size - 1);
    const before = torch.memory.stats('cuda:0')['allocation.all.allocated'] ?? 0;
    const err = errorOf(() => torch.load(file('corrupt.safetensors'), { device: 'cuda' }));
    expect(err.code).toBe('TSGPU_SAFETENSORS');
    expect(err.message).toMatch(/truncated/);
    expect(torch.memory.stats('cuda:0')['allocation.all.allocated'] ?? 0).toBe(before);
  });
});
