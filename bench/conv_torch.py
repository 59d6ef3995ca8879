"""PyTorch's side of the conv2d benchmark (bench/conv_bench.ts): the same shapes, dtypes and passes with
torch.backends.cudnn.benchmark = True.

    python3 bench/conv_torch.py '{"device": "cuda:0", "batch": 32, "dtypes": [...], "reps": 10, "rounds": 3, "shapes": [...]}'

Prints one JSON line: PyTorch's version and, per dtype and shape in the order given, each pass's median time in
milliseconds and the workspace it took (peak allocated during the call above the operands and the output).
"""
import json
import sys
import time

import torch
import torch.nn.functional as F


def main():
    cfg = json.loads(sys.argv[1])
    dev, batch = cfg["device"], cfg["batch"]
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = True
    results = []
    for dtype_name in cfg["dtypes"]:
        dtype = getattr(torch, dtype_name)
        for sh in cfg["shapes"]:
            o = (sh["size"] + 2 * sh["padding"] - sh["k"]) // sh["stride"] + 1
            x = torch.randn(batch, sh["cin"], sh["size"], sh["size"], device=dev, dtype=dtype)
            w = torch.randn(sh["cout"], sh["cin"], sh["k"], sh["k"], device=dev, dtype=dtype)
            g = torch.randn(batch, sh["cout"], o, o, device=dev, dtype=dtype)
            s, p = [sh["stride"]] * 2, [sh["padding"]] * 2

            def back(mask):
                return torch.ops.aten.convolution_backward(g, x, w, None, s, p, [1, 1], False, [0, 0], 1, mask)

            passes = {
                "forward": lambda: F.conv2d(x, w, None, stride=s, padding=p),
                "input": lambda: back([True, False, False])[0],
                "weight": lambda: back([False, True, False])[1],
            }
            r = {"shape": sh, "dtype": dtype_name}
            for name, f in passes.items():
                f()
                torch.cuda.synchronize(dev)
                before = torch.cuda.memory_allocated(dev)
                torch.cuda.reset_peak_memory_stats(dev)
                y = f()
                torch.cuda.synchronize(dev)
                workspace = torch.cuda.max_memory_allocated(dev) - before - y.numel() * y.element_size()
                del y
                times = []
                for _ in range(cfg["rounds"]):
                    torch.cuda.synchronize(dev)
                    t0 = time.perf_counter()
                    for _ in range(cfg["reps"]):
                        f()
                    torch.cuda.synchronize(dev)
                    times.append((time.perf_counter() - t0) * 1000 / cfg["reps"])
                times.sort()
                r[name] = {"ms": times[len(times) // 2], "workspace": max(0, workspace)}
            results.append(r)
    print(json.dumps({"version": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
