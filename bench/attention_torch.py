"""PyTorch's side of the attention benchmark (bench/attention_bench.ts), the same shapes, in the same run.

    python3 bench/attention_torch.py '{"device": "cuda", "cases": [{"B": 8, "H": 12, "L": 1024, "E": 64,
                                       "dtype": "bfloat16", "causal": true}], "iters": 20}'

Prints one JSON line: for each case, the milliseconds of scaled_dot_product_attention's forward and of its
backward (median of `iters`), the peak bytes allocated by a forward and backward beyond the inputs, and the
backward node's name (which kernel SDPA picked).
"""
import json
import statistics
import sys

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def timed(fn, iters, sync):
    times = []
    for _ in range(iters):
        sync()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        sync()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def run_case(case, device, iters):
    dt = DTYPES[case["dtype"]]
    shape = (case["B"], case["H"], case["L"], case["E"])
    q, k, v = (torch.randn(shape, device=device, dtype=dt, requires_grad=True) for _ in range(3))
    g = torch.randn(shape, device=device, dtype=dt)
    causal = case["causal"]
    sync = torch.cuda.synchronize

    def fwd():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    for _ in range(3):
        fwd().backward(g)
    q.grad = k.grad = v.grad = None
    with torch.no_grad():
        f_ms = timed(fwd, iters, sync)
    out = fwd()
    node = out.grad_fn.name()
    b_ms = timed(lambda: out.backward(g, retain_graph=True), iters, sync)
    del out
    q.grad = k.grad = v.grad = None
    sync()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fwd().backward(g)
    sync()
    peak = torch.cuda.max_memory_allocated() - base
    q.grad = k.grad = v.grad = None
    return {"forward_ms": f_ms, "backward_ms": b_ms, "peak_bytes": peak, "node": node}


def main():
    req = json.loads(sys.argv[1])
    device = req["device"]
    results = [run_case(c, device, req.get("iters", 20)) for c in req["cases"]]
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "results": results}))


if __name__ == "__main__":
    main()
