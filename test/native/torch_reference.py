"""Computes test cases with PyTorch for the differential tests of the tensor
runtime (test/native/torch_reference.ts).

Reads a JSON list of cases on stdin. Each case has `inputs` (name ->
{dtype, shape, data: base64 of the raw little-endian elements}) and `expr`, a
Python expression over those names with `torch` in scope. Writes a JSON list
with, per case, either {"outputs": [...]} in the same encoding (a tuple or
list result gives several outputs; a Python number becomes a 0-dim tensor;
a string is sent as {"text": ...}, for printing and for tables such as
promote_types; `json` is in scope too)
or {"error": "<type>: <message>"}.
"""
import base64
import json
import sys

import numpy as np
import torch

NUMPY = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.int16,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "bool": np.bool_,
}


def decode(spec):
    raw = base64.b64decode(spec["data"])
    arr = np.frombuffer(raw, dtype=NUMPY[spec["dtype"]]).copy()
    t = torch.from_numpy(arr)
    if spec["dtype"] == "bfloat16":
        t = t.view(torch.bfloat16)
    return t.reshape(spec["shape"])


def encode(t):
    if isinstance(t, str):
        return {"text": t}
    if not isinstance(t, torch.Tensor):
        t = torch.tensor(t)
    t = t.detach().cpu().contiguous()
    name = str(t.dtype).replace("torch.", "")
    data = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    return {"dtype": name, "shape": list(t.shape), "data": base64.b64encode(data.numpy().tobytes()).decode("ascii")}


def main():
    torch.set_num_threads(1)
    cases = json.load(sys.stdin)
    results = []
    for case in cases:
        scope = {"torch": torch, "json": json}
        scope.update({name: decode(spec) for name, spec in case["inputs"].items()})
        try:
            value = eval(case["expr"], scope)  # noqa: S307 - test expressions written in this repository
            outs = list(value) if isinstance(value, (tuple, list)) and not isinstance(value, str) else [value]
            results.append({"outputs": [encode(o) for o in outs]})
        except Exception as e:  # a case may expect PyTorch to refuse
            results.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
