"""PyTorch's side of the op benchmark (bench/ops_bench.ts), run in the same run.

    python3 bench/ops_torch.py DEVICE THREADS

Reads one JSON request per line on stdin and answers one JSON line:
  {"cmd": "info"}                 -> versions, device name, thread count, BLAS
  {"cmd": "setup", "case": {...}} -> builds the inputs of a case (bench/ops_cases.ts)
  {"cmd": "round"}                -> {"s": seconds per op, "cpu_s": CPU seconds per op} over case.iters ops
  {"cmd": "drop"}                 -> frees the case's inputs
so that tsgpu's and PyTorch's rounds can alternate.
"""
import json
import sys
import time

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def make_input(kind, shape, device, dt):
    """One input of a case, made as its kind says (OpCase.inputs in ops_cases.ts)."""
    if kind == "rand":
        return torch.rand(shape, device=device, dtype=dt)
    if kind == "mask":
        return torch.randn(shape, device=device, dtype=dt) > 0
    if kind.startswith("index:"):
        return torch.randint(0, int(kind[6:]), shape, device=device, dtype=torch.int64)
    return torch.randn(shape, device=device, dtype=dt)


def make_op(case, device):
    """The inputs of a case and a function that runs its op once (result dropped, as eager code does)."""
    dt = DTYPES[case["dtype"]]
    shapes = case["shapes"]
    op = case["op"]
    if op == "randn":
        n = shapes[0]
        return lambda: torch.randn(n, device=device, dtype=dt)
    kinds = case.get("inputs") or []
    xs = [make_input(kinds[i] if i < len(kinds) else "randn", s, device, dt) for i, s in enumerate(shapes)]
    if device.startswith("cuda") and op == "matmul" and dt == torch.float32:
        torch.backends.cuda.matmul.allow_tf32 = bool(case.get("tf32"))
    a = xs[0]
    b = xs[1] if len(xs) > 1 else None
    table = {
        "matmul": lambda: torch.matmul(a, b),
        "bmm": lambda: torch.bmm(a, b),
        "add": lambda: torch.add(a, b),
        "mul": lambda: torch.mul(a, b),
        "copy": lambda: a.clone(),
        "cast_bf16": lambda: a.to(torch.bfloat16),
        "sum": lambda: a.sum(),
        "softmax": lambda: torch.softmax(a, -1),
        "gelu": lambda: F.gelu(a),
        "layerNorm": lambda: F.layer_norm(a, [a.shape[-1]]),
        "transpose_contiguous": lambda: a.transpose(0, 1).contiguous(),
        # The ops of newOpCpuCases (ops_cases.ts).
        "erf": lambda: torch.erf(a),
        "tan": lambda: torch.tan(a),
        "atan2": lambda: torch.atan2(a, b),
        "hypot": lambda: torch.hypot(a, b),
        "clip": lambda: torch.clip(a, -0.5, 0.5),
        "isnan": lambda: torch.isnan(a),
        "logit": lambda: torch.logit(a),
        "exp": lambda: torch.exp(a),
        "tanh": lambda: torch.tanh(a),
        "sigmoid": lambda: torch.sigmoid(a),
        "log": lambda: torch.log(a),
        "leakyRelu": lambda: F.leaky_relu(a, 0.01),
        "cumsum": lambda: torch.cumsum(a, 1),
        "cumprod": lambda: torch.cumprod(a, 1),
        "logcumsumexp": lambda: torch.logcumsumexp(a, 1),
        "median": lambda: torch.median(a, -1),
        "topk": lambda: torch.topk(a, 8, -1),
        "sort": lambda: torch.sort(a, -1),
        "unique": lambda: torch.unique(a),
        "flip": lambda: torch.flip(a, [0]),
        "roll": lambda: torch.roll(a, 17, 1),
        "maskedSelect": lambda: torch.masked_select(a, b),
        "take": lambda: torch.take(a, b),
        "dot": lambda: torch.dot(a, b),
        "einsum": lambda: torch.einsum("bij,bjk->bik", a, b),
        "cdist": lambda: torch.cdist(a, b),
        "bernoulli": lambda: torch.bernoulli(a),
        "normal": lambda: torch.normal(0.0, 1.0, size=tuple(a.shape), device=device, dtype=dt),
        "multinomial": lambda: torch.multinomial(a, 16),
        "pad_reflect": lambda: F.pad(a, [2, 2, 2, 2], "reflect"),
        "groupNorm": lambda: F.group_norm(a, 8),
        "oneHot": lambda: F.one_hot(a, 100),
        "cosineSimilarity": lambda: F.cosine_similarity(a, b, 1),
    }
    return table[op]


def main():
    device, threads = sys.argv[1], int(sys.argv[2])
    torch.set_num_threads(threads)
    cuda = device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    case, run = None, None
    for line in sys.stdin:
        req = json.loads(line)
        cmd = req["cmd"]
        try:
            if cmd == "info":
                info = {"torch": torch.__version__, "threads": torch.get_num_threads()}
                if cuda:
                    info["device"] = torch.cuda.get_device_name(device)
                else:
                    info["config"] = torch.__config__.show().splitlines()[1:6]
                out = info
            elif cmd == "setup":
                case = req["case"]
                run = make_op(case, device)
                run()
                sync()
                out = {"ok": True}
            elif cmd == "round":
                iters = case["iters"]
                sync()
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(iters):
                    run()
                sync()
                out = {"s": (time.perf_counter() - t0) / iters, "cpu_s": (time.process_time() - c0) / iters}
            elif cmd == "drop":
                case, run = None, None
                if cuda:
                    torch.cuda.empty_cache()
                out = {"ok": True}
            else:
                out = {"error": f"unknown command {cmd}"}
        except Exception as e:  # report and keep serving
            out = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
