/**
 * Latency of a cached allocation from JavaScript:
 *   node dist/bench/alloc_latency.js [--device cpu|cuda:0] [--out FILE] [--python python3] [--torch no]
 * Measures, per size, the median time of `torch.empty(n)` followed by
 * `dispose()` once the block is cached (and, for scale, the same pair
 * through the addon alone, and `torch.empty(n)` left to the garbage
 * collector). On a CUDA device with PyTorch installed, the same run measures
 * PyTorch's `torch.empty` + `del` (bench/alloc_latency_torch.py). Prints one
 * JSON line and writes it to bench/results/alloc_latency_<device>.json.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as torch from '../native/index';
import { DTYPE_CODES, native, nextStorageId } from '../native/addon';
import { parseArgs } from './alloc_trace_lib';

/** Sizes in float32 elements: 4 KiB, 1 MiB and 64 MiB tensors. */
const SIZES = [1024, 256 * 1024, 16 * 1024 * 1024];
const ROUNDS = 9;

/** Median over ROUNDS of the mean ns per call of `body` run `iterations` times. */
function medianNs(body: (iterations: number) => void, iterations: number): number {
  body(iterations); // warm up: JIT and the allocator's cache
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    body(iterations);
    samples.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[ROUNDS >> 1];
}

function measure(device: string, numel: number) {
  const iterations = 20000;
  const emptyDispose = medianNs((n) => {
    for (let i = 0; i < n; i++) torch.empty(numel, { device }).dispose();
  }, iterations);
  const slot = native.deviceSlot(device);
  const owner = {};
  const nbytes = numel * 4;
  const addonOnly = medianNs((n) => {
    for (let i = 0; i < n; i++) native.free(native.alloc(owner, slot, nbytes, DTYPE_CODES.float32, nextStorageId()));
  }, iterations);
  // Temporaries left to the garbage collector (no dispose), the PyTorch-like way of writing code.
  const gcFreed = medianNs((n) => {
    for (let i = 0; i < n; i++) torch.empty(numel, { device });
  }, iterations);
  torch.memory.collectGarbage();
  return { numel, bytes: nbytes, empty_dispose_ns: emptyDispose, addon_alloc_free_ns: addonOnly, empty_gc_ns: gcFreed };
}

function pytorchSameRun(device: string, args: Record<string, string>): unknown {
  if (args.torch === 'no') return null;
  const script = path.join(__dirname, '..', '..', 'bench', 'alloc_latency_torch.py');
  const r = spawnSync(args.python ?? 'python3', [script, device, ...SIZES.map(String)], { encoding: 'utf8' });
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last);
  } catch {
    return { error: (r.stderr ?? '').trim().split('\n').slice(-8).join(' ') || 'PyTorch run failed' };
  }
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const device = native.canonicalDevice(args.device ?? (torch.cuda.isAvailable() ? 'cuda:0' : 'cpu'));
  const external0 = native.externalMemory();
  const rows = SIZES.map((n) => measure(device, n));
  // Give the device's cached memory back before PyTorch runs in its own process.
  torch.memory.collectGarbage();
  torch.memory.emptyCache(device);
  const result = {
    device,
    device_name: device.startsWith('cuda') ? torch.cuda.getDeviceProperties(device).name : os.cpus()[0]?.model ?? 'cpu',
    node: process.version,
    goal_ns: 1000,
    sizes: rows,
    external_memory_reported: native.externalMemory().reported - external0.reported,
    pytorch_same_run: pytorchSameRun(device, args),
  };
  const out = args.out ?? path.join(__dirname, '..', '..', 'bench', 'results', `alloc_latency_${device.replace(/[^a-z0-9]+/gi, '_')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result));
}

main();
