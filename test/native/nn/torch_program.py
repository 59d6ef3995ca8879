"""Runs small PyTorch programs for the nn and optim tests (torch_program.ts).

Reads a JSON list of programs on stdin, each {"code": ..., "inputs": {name:
{dtype, shape, data: base64}}}. Each program is executed with `torch`,
`math`, `inputs` (the tensors by name) and an empty dict `out` in scope; it
puts its results in `out` (tensors, numbers, strings, or lists and dicts of
them). Writes a JSON list with, per program, {"out": ...} (tensors in the
inputs' encoding, under {"tensor": ...}) or {"error": "<type>: <message>"}.
"""
import base64
import json
import math
import sys

import numpy as np
import torch

NUMPY = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.int16,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "bool": np.bool_,
}


def decode(spec):
    arr = np.frombuffer(base64.b64decode(spec["data"]), dtype=NUMPY[spec["dtype"]]).copy()
    t = torch.from_numpy(arr)
    if spec["dtype"] == "bfloat16":
        t = t.view(torch.bfloat16)
    return t.reshape(spec["shape"])


def encode(v):
    if isinstance(v, torch.Tensor):
        t = v.detach().cpu().contiguous()
        name = str(t.dtype).replace("torch.", "")
        data = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
        return {"tensor": {"dtype": name, "shape": list(t.shape), "data": base64.b64encode(data.numpy().tobytes()).decode("ascii")}}
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {str(k): encode(x) for k, x in v.items()}
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": repr(v)}
    return v


def main():
    programs = json.load(sys.stdin)
    results = []
    for p in programs:
        scope = {"torch": torch, "math": math, "inputs": {k: decode(v) for k, v in p["inputs"].items()}, "out": {}}
        try:
            exec(p["code"], scope)
            results.append({"out": encode(scope["out"])})
        except Exception as e:  # the test reports it
            results.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(results, sys.stdout)


main()
