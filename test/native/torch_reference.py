"""Computes test cases with PyTorch for the differential tests of the tensor
runtime (test/native/torch_reference.ts).

Reads a JSON list of cases on stdin. Each case has `inputs` (name ->
{dtype, shape, data: base64 of the raw little-endian elements}) and `expr`, a
Python expression over those names with `torch` in scope, or several lines of
statements that leave the result in `out` (a program with in-place ops and
nested torch.autograd.grad calls reads better so). Writes a JSON list
with, per case, either {"outputs": [...]} in the same encoding (a tuple or
list result gives several outputs; a Python number becomes a 0-dim tensor;
a string is sent as {"text": ...}, for printing and for tables such as
promote_types; `json` is in scope too; tensors print as PyTorch 2.4 and later
print them, see measure_widths_as_printed)
or {"error": "<type>: <message>"}.
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


def measure_widths_as_printed():
    """Makes an older PyTorch print as PyTorch 2.4 and later do, which the runtime follows.

    PyTorch 2.4 (pull request 126859, "Fix max_width computation in
    _tensor_str._Formatter") decides the notation first -- the print options'
    sci_mode, else by the range of the values -- and then measures the column
    width in that notation. Before, the width was measured in the notation
    chosen by range even when sci_mode forced the other one, so with
    sci_mode=True 1.13 prints tensor([1.0000e+00, -1.0000e+00]) where 2.4
    prints tensor([ 1.0000e+00, -1.0000e+00]). On a PyTorch that still
    measures the old way (found by printing that tensor), the formatter's width
    is measured again after its notation is fixed: the longest nonzero finite
    number as printed, which is 2.4's rule. Nothing else of the printer changes
    (the width also decides how many numbers fit on a line, as in 2.4).
    """
    opts = torch._tensor_str.PRINT_OPTS
    saved = opts.sci_mode
    opts.sci_mode = True
    try:
        if str(torch.tensor([1.0, -1.0])) == "tensor([ 1.0000e+00, -1.0000e+00])":
            return
    finally:
        opts.sci_mode = saved
    formatter = torch._tensor_str._Formatter
    measure = formatter.__init__

    def __init__(self, tensor):
        measure(self, tensor)
        if self.floating_dtype:
            values = [v for v in tensor.reshape(-1).tolist() if math.isfinite(v) and v != 0]
            if values:
                self.max_width = 1
                self.max_width = max(len(self.format(v)) for v in values)

    formatter.__init__ = __init__


def main():
    torch.set_num_threads(1)
    measure_widths_as_printed()
    cases = json.load(sys.stdin)
    results = []
    for case in cases:
        scope = {"torch": torch, "json": json}
        scope.update({name: decode(spec) for name, spec in case["inputs"].items()})
        try:
            expr = case["expr"]
            if "\n" in expr.strip():
                exec(expr, scope)  # noqa: S102 - test programs written in this repository
                value = scope["out"]
            else:
                value = eval(expr, scope)  # noqa: S307 - test expressions written in this repository
            outs = list(value) if isinstance(value, (tuple, list)) and not isinstance(value, str) else [value]
            results.append({"outputs": [encode(o) for o in outs]})
        except Exception as e:  # a case may expect PyTorch to refuse
            results.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
