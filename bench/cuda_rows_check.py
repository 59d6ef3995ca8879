"""The runtime's CUDA row kernels and multi-tensor Adam against PyTorch, in one process.

    python3 bench/cuda_rows_check.py [OUT_JSON]

For a GPU machine without Node.js: builds bench/cuda_rows_ext.cu (the
kernels of native/src/ops/cuda/loss_ops.cu, optim_ops.cu and
softmax_stream.cuh) as a PyTorch extension, checks each against PyTorch's op
on the same tensors (crossEntropy forward and backward, softmax /
logSoftmax forward and backward, float32 and bfloat16; Adam's update over
GPT-2 small's parameters against torch.optim.AdamW's single-tensor update),
and times both (CUDA events, median of 5 rounds after a warm-up). Prints a
table and writes the figures as JSON.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
LENGTHS = [1024, 4096, 16384, 50257, 65536, 262144]
TOTAL = 64 * 1024 * 1024


def build():
    return load(
        name="tsgpu_rows_ext",
        sources=[os.path.join(ROOT, "bench", "cuda_rows_ext.cu")],
        extra_include_paths=[os.path.join(ROOT, "native", "src")],
        extra_cuda_cflags=["-O3", "-std=c++17", "-gencode=arch=compute_90,code=sm_90"],
        extra_cflags=["-O3", "-std=c++17"],
        verbose=False,
    )


def timed(fn, iters=20):
    """Median milliseconds per call over 5 rounds of `iters` calls, after a warm-up round."""
    rounds = []
    for r in range(6):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        torch.cuda.synchronize()
        if r:
            rounds.append(start.elapsed_time(end) / iters)
    rounds.sort()
    return rounds[len(rounds) // 2]


def worst(a, b):
    a, b = a.double(), b.double()
    return ((a - b).abs() / b.abs().clamp(min=1)).max().item()


def rows_cases(ext, results):
    for dtype in [torch.float32, torch.bfloat16]:
        tol = 3e-5 if dtype == torch.float32 else 1.6e-2
        for n in LENGTHS:
            rows = TOTAL // n
            torch.manual_seed(n)
            x = (torch.randn(rows, n, device="cuda") * 3).to(dtype)
            t = torch.randint(0, n, (rows,), device="cuda")
            t[::7] = -100
            g = torch.randn(rows, n, device="cuda").to(dtype)
            tag = f"{n}_{str(dtype).split('.')[-1]}"

            # crossEntropy, reduction='none', smoothing 0.1: loss and the logits' gradient.
            loss, lse = ext.ce_forward(x, t, None, -100, 0.1)
            xx = x.detach().requires_grad_()
            ref = F.cross_entropy(xx, t, reduction="none", label_smoothing=0.1)
            gl = torch.rand(rows, device="cuda")
            (ref_grad,) = torch.autograd.grad(ref, [xx], grad_outputs=[gl.to(ref.dtype)])
            grad = ext.ce_backward(gl, x, t, lse, None, -100, 0.1)
            err_f = worst(loss, ref.float())
            err_b = worst(grad, ref_grad)

            def ours_ce():
                lo, ls = ext.ce_forward(x, t, None, -100, 0.0)
                ext.ce_backward(torch.ones_like(lo), x, t, ls, None, -100, 0.0)

            def theirs_ce():
                xx = x.detach().requires_grad_()
                torch.autograd.grad(F.cross_entropy(xx, t, reduction="sum"), [xx])

            results.append(dict(case=f"crossEntropy_fwdbwd_{tag}", ours_ms=timed(ours_ce), torch_ms=timed(theirs_ce),
                                err_forward=err_f, err_backward=err_b, ok=err_f <= 4 * tol and err_b <= tol))

            for log in [False, True]:
                name = "logSoftmax" if log else "softmax"
                y = ext.softmax_forward(x, log)
                ref_y = x.log_softmax(-1) if log else x.softmax(-1)
                gx = ext.softmax_backward(g, ref_y, log)
                xx = x.detach().requires_grad_()
                yy = xx.log_softmax(-1) if log else xx.softmax(-1)
                (ref_gx,) = torch.autograd.grad(yy, [xx], grad_outputs=[g])
                err_f, err_b = worst(y, ref_y), worst(gx, ref_gx)
                results.append(dict(case=f"{name}_fwd_{tag}", ours_ms=timed(lambda: ext.softmax_forward(x, log)),
                                    torch_ms=timed(lambda: x.log_softmax(-1) if log else x.softmax(-1)), err_forward=err_f, ok=err_f <= tol))
                bwd = torch._log_softmax_backward_data if log else torch._softmax_backward_data
                results.append(dict(case=f"{name}_bwd_{tag}", ours_ms=timed(lambda: ext.softmax_backward(g, ref_y, log)),
                                    torch_ms=timed(lambda: bwd(g, ref_y, -1, dtype)), err_backward=err_b, ok=err_b <= 2 * tol))
            del x, t, g
            torch.cuda.empty_cache()


def gpt2_shapes():
    d = 768
    shapes = [[50257, d], [1024, d]]
    for _ in range(12):
        shapes += [[d], [d], [d, 3 * d], [3 * d], [d, d], [d], [d], [d], [d, 4 * d], [4 * d], [4 * d, d], [d]]
    return shapes + [[d], [d]]


def adam_cases(ext, results):
    torch.manual_seed(0)
    shapes = gpt2_shapes()
    ps = [torch.randn(s, device="cuda") * 0.02 for s in shapes]
    grads = [[torch.randn(s, device="cuda") * 1e-3 for s in shapes] for _ in range(5)]
    ref = [p.clone().requires_grad_() for p in ps]
    opt = torch.optim.AdamW(ref, lr=1e-3, weight_decay=0.1, foreach=False)
    own = [p.clone() for p in ps]
    m = [torch.zeros_like(p) for p in ps]
    v = [torch.zeros_like(p) for p in ps]
    for s in range(5):
        for p, gr in zip(ref, grads[s]):
            p.grad = gr
        opt.step()
        ext.adam_step([own, grads[s], m, v], 1e-3, 0.9, 0.999, 1e-8, 0.1, float(s + 1), False, False, True)
    err = max(worst(a, b.detach()) for a, b in zip(own, ref))
    err_m = max(worst(a, opt.state[b]["exp_avg"]) for a, b in zip(m, ref))
    err_v = max(worst(a, opt.state[b]["exp_avg_sq"]) for a, b in zip(v, ref))
    step = [6.0]

    def ours():
        ext.adam_step([own, grads[0], m, v], 1e-3, 0.9, 0.999, 1e-8, 0.1, step[0], False, False, True)
        step[0] += 1

    times = {}
    for impl in ["foreach", "fused"]:
        o = torch.optim.AdamW(ref, lr=1e-3, weight_decay=0.1, **{impl: True})
        for p, gr in zip(ref, grads[0]):
            p.grad = gr
        o.step()
        times[impl] = timed(o.step, iters=10)
    results.append(dict(case="AdamW_step_gpt2_124M", ours_ms=timed(ours, iters=10), torch_ms=times["foreach"], torch_fused_ms=times["fused"],
                        err_param=err, err_exp_avg=err_m, err_exp_avg_sq=err_v, ok=max(err, err_m, err_v) <= 1e-5))


def main():
    ext = build()
    results = []
    rows_cases(ext, results)
    adam_cases(ext, results)
    for r in results:
        r["ratio"] = r["torch_ms"] / r["ours_ms"]
        errs = " ".join(f"{k}={v:.1e}" for k, v in r.items() if k.startswith("err"))
        print(f"{r['case']:34s} ours {r['ours_ms']:8.3f} ms  torch {r['torch_ms']:8.3f} ms  ratio {r['ratio']:5.2f}  {errs}  {'ok' if r['ok'] else 'MISMATCH'}")
    info = dict(torch=torch.__version__, device=torch.cuda.get_device_name(0))
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(dict(info=info, results=results), f, indent=1)


main()
