"""PyTorch's side of the ResNet experiment (bench/resnet_bench.ts): the same model (torchvision's), budget, settings,
batch search and timing, in eager mode with PyTorch's defaults.

    python3 bench/resnet_torch.py '{"device": "cuda:0", "depth": 152, "image": 224, "budget_gib": 16, ...}'

Prints one JSON line: PyTorch's and cuDNN's versions and, per setting, the largest batch, the search's trials, the
step time, images per second and peak allocated and reserved bytes at that batch.
"""
import json
import sys
import time

import torch
import torch.nn.functional as F
import torchvision
from torch.utils.checkpoint import checkpoint


def mode_of(name):
    amp = torch.bfloat16 if "bfloat16" in name else torch.float16 if "float16" in name else None
    return amp, "checkpoint" in name


def forward(net, x, checkpointed):
    if not checkpointed:
        return net(x)
    h = net.maxpool(net.relu(net.bn1(net.conv1(x))))
    for layer in (net.layer1, net.layer2, net.layer3, net.layer4):
        h = checkpoint(layer, h, use_reentrant=False)
    return net.fc(torch.flatten(net.avgpool(h), 1))


def steps(net, cfg, mode, batch, n):
    amp, ckpt = mode_of(mode)
    dev = cfg["device"]
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda", enabled=amp is torch.float16)
    times = []
    try:
        x = torch.randn(batch, 3, cfg["image"], cfg["image"], device=dev)
        y = torch.randint(0, 1000, (batch,), device=dev)
        for i in range(n):
            t0 = time.perf_counter()
            with torch.autocast("cuda", dtype=amp or torch.bfloat16, enabled=amp is not None):
                loss = F.cross_entropy(forward(net, x, ckpt), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize(dev)
            if i > 0:
                times.append(time.perf_counter() - t0)
        return times
    except torch.cuda.OutOfMemoryError:
        return None
    finally:
        x = y = loss = None
        opt.zero_grad(set_to_none=True)
        del opt
        torch.cuda.empty_cache()


def largest(fits, max_batch):
    lo, hi, trials = 0, 16, 0
    while hi <= max_batch:
        trials += 1
        if not fits(hi):
            break
        lo, hi = hi, hi * 2
    if hi > max_batch:
        return lo, trials
    while hi - lo > 16:
        mid = (lo + hi) // 32 * 16
        trials += 1
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo, trials


def main():
    cfg = json.loads(sys.argv[1])
    dev = cfg["device"]
    total = torch.cuda.get_device_properties(dev).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, cfg["budget_gib"] * 2**30 / total), dev)
    torch.manual_seed(0)
    net = getattr(torchvision.models, "resnet%d" % cfg["depth"])().to(dev)
    results = []
    for mode in cfg["modes"]:
        torch.backends.cudnn.benchmark = False
        batch, trials = largest(lambda b: steps(net, cfg, mode, b, 2) is not None, cfg["max_batch"])
        timed = None
        if batch > 0:
            torch.backends.cudnn.benchmark = True
            steps(net, cfg, mode, batch, 2)
            torch.cuda.reset_peak_memory_stats(dev)
            timed = steps(net, cfg, mode, batch, cfg["steps"] + 1)
        s = sum(timed) / len(timed) if timed else None
        r = {
            "mode": mode, "batch": batch, "trials": trials,
            "step_ms": None if s is None else s * 1000,
            "images_per_s": None if s is None else batch / s,
            "peak_allocated": torch.cuda.max_memory_allocated(dev) if timed else None,
            "peak_reserved": torch.cuda.max_memory_reserved(dev) if timed else None,
        }
        results.append(r)
        print("pytorch %s: %s" % (mode, json.dumps(r)), file=sys.stderr)
    print(json.dumps({"version": torch.__version__, "cudnn": torch.backends.cudnn.version(), "results": results}))


if __name__ == "__main__":
    main()
