"""PyTorch's cached allocation latency, for bench/alloc_latency.ts.

    python3 bench/alloc_latency_torch.py DEVICE NUMEL [NUMEL ...]

For each size, the median (over 9 rounds of 20000) of the mean time of
torch.empty(numel, dtype=float32, device=DEVICE) followed by del, once the
block is cached. Prints one JSON line. Exits with status 3 when torch
cannot be imported.
"""
import json
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print(json.dumps({"error": "torch is not importable"}))
    sys.exit(3)


def median_ns(device, numel, iterations=20000, rounds=9):
    x = torch.empty(numel, dtype=torch.float32, device=device)
    del x
    samples = []
    for _ in range(rounds + 1):
        t0 = time.perf_counter_ns()
        for _ in range(iterations):
            x = torch.empty(numel, dtype=torch.float32, device=device)
            del x
        samples.append((time.perf_counter_ns() - t0) / iterations)
    return statistics.median(samples[1:])


def main():
    device = torch.device(sys.argv[1])
    if device.type == "cuda":
        torch.cuda.set_device(device)
    sizes = [int(a) for a in sys.argv[2:]]
    rows = [{"numel": n, "bytes": 4 * n, "empty_del_ns": median_ns(device, n)} for n in sizes]
    print(json.dumps({"impl": "pytorch " + torch.__version__, "sizes": rows}))


if __name__ == "__main__":
    main()
