/** Reading allocation traces and replaying them through tsgpu's allocator. */
import * as fs from 'fs';
import * as zlib from 'zlib';
import { DTYPE_CODES, native, nextStorageId, StorageHandle } from '../native/addon';

/** A trace in the format of the shared traces folder. */
export interface AllocTrace {
  name?: string;
  events: [string, number, number][];
  torch_peak_allocated?: number;
  torch_peak_reserved?: number;
}

/** Reads a gzipped or plain JSON trace. */
export function readTrace(file: string): AllocTrace {
  let buf = fs.readFileSync(file);
  if (buf.length > 2 && buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
  const trace = JSON.parse(buf.toString('utf8')) as AllocTrace;
  if (!Array.isArray(trace.events)) throw new Error(`${file}: no "events" array`);
  return trace;
}

/** Events packed as [kind (1 = alloc, 0 = free), id, bytes] triples. */
export function packEvents(trace: AllocTrace): Float64Array {
  const out = new Float64Array(trace.events.length * 3);
  trace.events.forEach(([kind, id, bytes], i) => {
    out[3 * i] = kind === 'a' ? 1 : 0;
    out[3 * i + 1] = id;
    out[3 * i + 2] = bytes;
  });
  return out;
}

/** Replay result, as printed by the benchmark. */
export interface ReplayNumbers {
  peak_allocated: number;
  peak_reserved: number;
  ratio: number;
  num_device_alloc: number;
  num_device_free: number;
  ns_per_alloc: number;
  ns_per_free: number;
}

/** Replays through the allocator core over the address-range backend (in C++). */
export function replayPolicy(trace: AllocTrace, settings?: string): ReplayNumbers {
  const r = native.policyReplay(packEvents(trace), settings);
  return {
    peak_allocated: r.peak_allocated,
    peak_reserved: r.peak_reserved,
    ratio: r.peak_reserved / r.peak_allocated,
    num_device_alloc: r.num_device_alloc,
    num_device_free: r.num_device_free,
    ns_per_alloc: r.ns_per_alloc,
    ns_per_free: r.ns_per_free,
  };
}

/** Replays through a real device from JavaScript (one storage per allocation). */
export function replayDevice(trace: AllocTrace, device: string): ReplayNumbers {
  native.emptyCache(device);
  native.resetPeakStats(device);
  const before = native.memoryStats(device);
  const slot = native.deviceSlot(device);
  const owner = {}; // keeps every storage of the replay alive until it is freed
  const live = new Map<number, StorageHandle>();
  let allocNs = 0n;
  let freeNs = 0n;
  let allocs = 0;
  let frees = 0;
  for (const [kind, id, bytes] of trace.events) {
    if (kind === 'a') {
      const t0 = process.hrtime.bigint();
      const h = native.alloc(owner, slot, bytes, DTYPE_CODES.uint8, nextStorageId());
      allocNs += process.hrtime.bigint() - t0;
      allocs++;
      live.set(id, h);
    } else {
      const h = live.get(id);
      if (!h) continue;
      const t0 = process.hrtime.bigint();
      native.free(h);
      freeNs += process.hrtime.bigint() - t0;
      frees++;
      live.delete(id);
    }
  }
  const s = native.memoryStats(device);
  for (const h of live.values()) native.free(h);
  return {
    peak_allocated: s['allocated_bytes.all.peak'],
    peak_reserved: s['reserved_bytes.all.peak'],
    ratio: s['reserved_bytes.all.peak'] / s['allocated_bytes.all.peak'],
    num_device_alloc: s.num_device_alloc - before.num_device_alloc,
    num_device_free: s.num_device_free - before.num_device_free,
    ns_per_alloc: allocs ? Number(allocNs) / allocs : 0,
    ns_per_free: frees ? Number(freeNs) / frees : 0,
  };
}

/** Median ns of a cached alloc + free pair through the addon (no Tensor object). */
export function cachedAllocFreeNs(device: string, bytes: number, iterations = 20000): number {
  const slot = native.deviceSlot(device);
  const owner = {};
  const u8 = DTYPE_CODES.uint8;
  native.free(native.alloc(owner, slot, bytes, u8, nextStorageId())); // warm the cache
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) native.free(native.alloc(owner, slot, bytes, u8, nextStorageId()));
    samples.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[3];
}

/** `--key value` / `--key=value` options of the allocator benchmarks. */
export function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument '${a}'`);
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else out[a.slice(2)] = argv[++i] ?? '';
  }
  return out;
}
