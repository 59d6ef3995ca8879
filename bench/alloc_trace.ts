/**
 * Allocation trace replay:
 *   node dist/bench/alloc_trace.js --trace FILE [--device cpu|cuda:0|policy] [--settings STR] [--out FILE]
 * Replays the trace through tsgpu's caching allocator and prints, as its
 * last line, one JSON object with peak_allocated, peak_reserved, ratio,
 * num_device_alloc, the time per alloc/free, and PyTorch's numbers from the
 * trace file. Writes the same object to bench/results/alloc_<device>.json.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { native } from '../native/addon';
import { cachedAllocFreeNs, parseArgs, readTrace, replayDevice, replayPolicy } from './alloc_trace_lib';

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  if (!args.trace) {
    console.error('usage: alloc_trace --trace FILE [--device cpu|cuda:0|policy] [--settings STR] [--out FILE]');
    process.exit(2);
  }
  const device = args.device ?? 'policy';
  const trace = readTrace(args.trace);
  const settings = args.settings ?? '';
  let numbers;
  let latency: number | null = null;
  if (device === 'policy') {
    numbers = replayPolicy(trace, settings || undefined);
  } else {
    const canonical = native.canonicalDevice(device);
    if (settings) native.setAllocatorSettings(settings);
    numbers = replayDevice(trace, canonical);
    latency = cachedAllocFreeNs(canonical, 4096);
  }
  // On a CUDA device, replay the same trace through PyTorch in the same run when it is installed.
  let pytorch: unknown = null;
  if (device.startsWith('cuda') && args.torch !== 'no') {
    const script = path.join(__dirname, '..', '..', 'bench', 'alloc_torch_replay.py');
    const r = spawnSync(args.python ?? 'python3', [script, args.trace, native.canonicalDevice(device)], { encoding: 'utf8' });
    const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
    try {
      pytorch = JSON.parse(last);
    } catch {
      pytorch = { error: (r.stderr ?? '').trim().split('\n').slice(-3).join(' ') || 'PyTorch replay failed' };
    }
  }
  const torchPeakAllocated = trace.torch_peak_allocated ?? null;
  const torchPeakReserved = trace.torch_peak_reserved ?? null;
  const result = {
    trace: trace.name ?? path.basename(args.trace),
    device,
    settings,
    events: trace.events.length,
    ...numbers,
    cached_alloc_free_ns: latency,
    torch_peak_allocated: torchPeakAllocated,
    torch_peak_reserved: torchPeakReserved,
    torch_ratio: torchPeakAllocated && torchPeakReserved ? torchPeakReserved / torchPeakAllocated : null,
    pytorch_same_run: pytorch,
  };
  const out = args.out ?? path.join(__dirname, '..', '..', 'bench', 'results', `alloc_${device.replace(/[^a-z0-9]+/gi, '_')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result));
}

main();
