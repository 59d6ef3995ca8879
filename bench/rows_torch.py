"""PyTorch's side of the row and optimizer benchmark (bench/rows_bench.ts).

    python3 bench/rows_torch.py DEVICE   < {"cases": [...], "shapes": [...]}

Times each case of bench/rows_cases.ts as tsgpu's side does (median of 5
rounds of case.iters runs after a warm-up round) and prints one JSON line:
{"info": {...}, "times": {name: seconds per run}}.
"""
import json
import sys
import time

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def sync(device):
    if device != "cpu":
        torch.cuda.synchronize()


def prepare(case, device, shapes):
    if case["kind"] == "optimizer":
        torch.manual_seed(1)
        ps = [(torch.randn(s, device=device) * 0.02).requires_grad_() for s in shapes]
        for p in ps:
            p.grad = torch.randn(p.shape, device=device) * 1e-3
        impl = {"single": {"foreach": False}, "fused": {"fused": True}, "foreach": {"foreach": True}}[case["impl"]]
        if case["optimizer"] == "AdamW":
            opt = torch.optim.AdamW(ps, lr=1e-4, **impl)
        else:
            opt = torch.optim.SGD(ps, lr=1e-3, momentum=0.9, **impl)
        opt.step()
        return opt.step
    torch.manual_seed(2)
    dt = DTYPES[case["dtype"]]
    x = torch.randn(case["rows"], case["len"], device=device).to(dt)
    target = torch.randint(0, case["len"], (case["rows"],), device=device)
    grad = None if case["kind"] == "crossEntropy" else torch.randn(case["rows"], case["len"], device=device).to(dt)
    kind = case["kind"]

    def forward(xx):
        if kind == "crossEntropy":
            return F.cross_entropy(xx, target)
        return xx.softmax(-1) if kind == "softmax" else xx.log_softmax(-1)

    if case["pass"] == "fwd":
        def run():
            with torch.no_grad():
                forward(x)
        return run

    def run():
        xx = x.detach().requires_grad_()
        y = forward(xx)
        torch.autograd.grad(y, [xx], grad_outputs=None if grad is None else [grad])
    return run


def timed(case, device, shapes):
    run = prepare(case, device, shapes)
    rounds = []
    for r in range(6):
        sync(device)
        t0 = time.perf_counter()
        for _ in range(case["iters"]):
            run()
        sync(device)
        if r > 0:
            rounds.append((time.perf_counter() - t0) / case["iters"])
    rounds.sort()
    return rounds[len(rounds) // 2]


def main():
    device = sys.argv[1]
    req = json.loads(sys.stdin.read())
    times = {}
    for case in req["cases"]:
        times[case["name"]] = timed(case, device, req["shapes"])
        if device != "cpu":
            torch.cuda.empty_cache()
        print(f"torch {case['name']}: {times[case['name']] * 1e3:.3f} ms", file=sys.stderr)
    name = torch.cuda.get_device_name(0) if device != "cpu" else "cpu"
    print(json.dumps({"info": {"torch": torch.__version__, "device": name}, "times": times}))


main()
