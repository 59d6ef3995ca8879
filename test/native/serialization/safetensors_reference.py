"""The Python side of the safetensors tests (serialization/python.ts runs it).

Reads a JSON list of requests from stdin and prints the list of answers:
  {"op": "read", "path": P}
      safetensors.torch.load_file(P) and safe_open(P).metadata(): every tensor
      in load_file's order with its dtype, shape and raw bytes (base64).
  {"op": "write", "path": P, "seed": N}
      writes tensors of every dtype (and 0-d, empty, NaN/inf, large int64)
      with safetensors.torch.save_file, then describes them as "read" does.
  {"op": "module", "path": P, "seed": N}
      the state_dict of a small model in GPT-2's layout and names (those of
      its published model.safetensors: wte, wpe, h.0.attn.c_attn with
      Conv1D's [in, out] weights, ln_f) and a PyTorch TransformerEncoderLayer,
      written with save_file; described in state_dict order.
  {"op": "optimizer", "seed": N}
      PyTorch AdamW's state_dict after two steps on a small Linear: the
      state's tensors by "state.<index>.<name>" and the param_groups.
"""
import base64
import json
import sys

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file


def raw(t):
    return base64.b64encode(t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()).decode()


def describe(tensors):
    return [{"key": k, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "data": raw(t)} for k, t in tensors.items()]


def read(path):
    with safe_open(path, framework="pt") as f:
        metadata = f.metadata()
    return {"tensors": describe(load_file(path)), "metadata": metadata}


def every_dtype(seed):
    g = torch.Generator().manual_seed(seed)
    ints = lambda lo, hi, shape, dtype: torch.randint(lo, hi, shape, generator=g, dtype=dtype)
    return {
        "f32": torch.randn(3, 4, generator=g),
        "f64": torch.randn(5, generator=g, dtype=torch.float64),
        "f16": torch.randn(2, 3, generator=g).half(),
        "bf16": torch.randn(4, 2, generator=g).bfloat16(),
        "i64": torch.tensor([-(2**62), 2**53 + 1, -1, 0, 123456789012345, 2**63 - 1], dtype=torch.int64),
        "i32": ints(-(2**31), 2**31 - 1, (3, 2), torch.int32),
        "i16": ints(-(2**15), 2**15 - 1, (6,), torch.int16),
        "i8": ints(-128, 127, (2, 2, 2), torch.int8),
        "u8": ints(0, 255, (9,), torch.uint8),
        "bool": torch.rand(7, generator=g) > 0.5,
        "scalar": torch.tensor(3.5),
        "scalar_i64": torch.tensor(-7),
        "scalar_bf16": torch.tensor(-0.1, dtype=torch.bfloat16),
        "empty": torch.empty(0, 3),
        "empty_bf16": torch.empty(2, 0, dtype=torch.bfloat16),
        "empty_bool": torch.empty(0, dtype=torch.bool),
        "special": torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1e-45]),
        "blocks.0.attn.qkv.weight": torch.randn(6, 2, generator=g),
    }


class Conv1D(torch.nn.Module):
    """GPT-2's linear layer: weight [in, out], as its checkpoints store it."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n_in, n_out) * 0.02)
        self.bias = torch.nn.Parameter(torch.zeros(n_out))


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(d)
        self.attn = torch.nn.ModuleDict({"c_attn": Conv1D(d, 3 * d), "c_proj": Conv1D(d, d)})
        self.ln_2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.ModuleDict({"c_fc": Conv1D(d, 4 * d), "c_proj": Conv1D(4 * d, d)})


def module_state(seed):
    torch.manual_seed(seed)
    d = 8
    model = torch.nn.ModuleDict(
        {
            "wte": torch.nn.Embedding(11, d),
            "wpe": torch.nn.Embedding(16, d),
            "h": torch.nn.ModuleList([Block(d), Block(d)]),
            "ln_f": torch.nn.LayerNorm(d),
            "torch_block": torch.nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True),
        }
    )
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def optimizer_state(seed):
    torch.manual_seed(seed)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(2):
        opt.zero_grad()
        model(torch.randn(4, 3)).square().sum().backward()
        opt.step()
    sd = opt.state_dict()
    tensors = {f"state.{i}.{name}": t for i, s in sd["state"].items() for name, t in s.items()}
    return {"tensors": describe(tensors), "param_groups": sd["param_groups"]}


def answer(req):
    op = req["op"]
    if op == "read":
        return read(req["path"])
    if op == "write":
        tensors = every_dtype(req["seed"])
        save_file(tensors, req["path"], metadata={"format": "pt", "written_by": "safetensors.torch.save_file"})
        return {"tensors": describe(tensors), "file_order": [d["key"] for d in read(req["path"])["tensors"]]}
    if op == "module":
        sd = module_state(req["seed"])
        save_file(sd, req["path"], metadata={"format": "pt"})
        return {"tensors": describe(sd)}
    if op == "optimizer":
        return optimizer_state(req["seed"])
    raise ValueError(f"unknown op {op}")


def main():
    json.dump([answer(req) for req in json.load(sys.stdin)], sys.stdout)


if __name__ == "__main__":
    main()
