"""Replays an allocation trace through PyTorch's CUDA caching allocator.

    python3 bench/alloc_torch_replay.py TRACE [DEVICE]

Allocates torch.empty(bytes, dtype=uint8) for every "a" event and drops it
for every "f" event, in the trace's order, then prints one JSON line with
the same keys as bench/alloc_trace (peak_allocated, peak_reserved, ratio,
num_device_alloc, ns per alloc/free, cached alloc+free latency).
"""
import gzip
import json
import statistics
import sys
import time

import torch


def read_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def main():
    trace = read_trace(sys.argv[1])
    device = torch.device(sys.argv[2] if len(sys.argv) > 2 else "cuda:0")
    torch.cuda.set_device(device)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    before = torch.cuda.memory_stats(device)
    live = {}
    alloc_ns = free_ns = 0
    allocs = frees = 0
    for kind, ident, size in trace["events"]:
        if kind == "a":
            t0 = time.perf_counter_ns()
            live[ident] = torch.empty(size, dtype=torch.uint8, device=device)
            alloc_ns += time.perf_counter_ns() - t0
            allocs += 1
        elif ident in live:
            t0 = time.perf_counter_ns()
            del live[ident]
            free_ns += time.perf_counter_ns() - t0
            frees += 1
    stats = torch.cuda.memory_stats(device)
    live.clear()
    samples = []
    x = torch.empty(4096, dtype=torch.uint8, device=device)
    del x
    for _ in range(7):
        n = 20000
        t0 = time.perf_counter_ns()
        for _ in range(n):
            x = torch.empty(4096, dtype=torch.uint8, device=device)
            del x
        samples.append((time.perf_counter_ns() - t0) / n)
    out = {
        "impl": "pytorch " + torch.__version__,
        "peak_allocated": stats["allocated_bytes.all.peak"],
        "peak_reserved": stats["reserved_bytes.all.peak"],
        "ratio": stats["reserved_bytes.all.peak"] / stats["allocated_bytes.all.peak"],
        "num_device_alloc": stats.get("num_device_alloc", 0) - before.get("num_device_alloc", 0),
        "num_device_free": stats.get("num_device_free", 0) - before.get("num_device_free", 0),
        "ns_per_alloc": alloc_ns / max(allocs, 1),
        "ns_per_free": free_ns / max(frees, 1),
        "cached_alloc_free_ns": statistics.median(samples),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
