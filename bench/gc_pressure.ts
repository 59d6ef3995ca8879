/**
 * Tensors dropped without dispose(): a loop of 1000 temporaries of 4 MiB
 * (`x.add(1)` on a float32 tensor of 1M elements, the result dropped), on a
 * device (default cpu):
 *   node dist/bench/gc_pressure.js [--device cpu|cuda:0] [--iterations 1000]
 * Reports the peak of allocated memory, the allocator's retries and OOMs,
 * the collections the runtime asked for and the time they took, and the
 * loop's time; the same loop with dispose() for comparison. Prints one JSON
 * line and writes it to bench/results/gc_pressure_<device>.json.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as torch from '../native/index';
import { native } from '../native/addon';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

function loop(device: string, iterations: number, dispose: boolean) {
  torch.memory.collectGarbage(); // nothing left over from an earlier loop
  const x = torch.ones([1 << 20], { device });
  torch.memory.resetPeakStats(device);
  const before = native.externalMemory();
  const statsBefore = torch.memory.stats(device);
  const t0 = process.hrtime.bigint();
  let peak = 0;
  for (let i = 0; i < iterations; i++) {
    const y = x.add(1);
    peak = Math.max(peak, torch.memory.allocated(device));
    if (dispose) y.dispose();
  }
  if (device !== 'cpu') torch.cuda.synchronize(device);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = native.externalMemory();
  const stats = torch.memory.stats(device);
  x.dispose();
  return {
    dispose,
    iterations,
    tensor_bytes: 4 << 20,
    peak_allocated_bytes: peak,
    max_allocated_bytes: stats['allocated_bytes.all.peak'],
    alloc_retries: stats.num_alloc_retries - statsBefore.num_alloc_retries,
    ooms: stats.num_ooms - statsBefore.num_ooms,
    forced_collections: after.forcedCollections - before.forcedCollections,
    forced_collection_seconds: after.forcedCollectionSeconds - before.forcedCollectionSeconds,
    loop_seconds: seconds,
  };
}

function main(): void {
  const device = arg('device', 'cpu');
  const iterations = Number(arg('iterations', '1000'));
  const result = {
    bench: 'gc_pressure',
    date: new Date().toISOString(),
    host: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}`,
    device,
    dropped: loop(device, iterations, false),
    disposed: loop(device, iterations, true),
  };
  const line = JSON.stringify(result);
  console.log(line);
  const out = path.resolve(__dirname, '..', '..', 'bench', 'results', `gc_pressure_${device.replace(':', '_')}.json`);
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}

main();
