"""PyTorch's side of the training benchmark (bench/train_bench.ts), the same model, data and optimizer.

    python3 bench/train_torch.py '{"model": "gpt", "device": "cuda", ...}'

Prints one JSON line: tokens (or samples) per second, the time of forward, backward and the optimizer per
step, peak allocated and peak reserved bytes, and the losses of the measured steps.
"""
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, c, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(c)
        self.attn = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)
        self.ln_2 = nn.LayerNorm(c)
        self.fc = nn.Linear(c, 4 * c)
        self.out = nn.Linear(4 * c, c)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg["width"]
        self.wte = nn.Embedding(cfg["vocab"], c)
        self.wpe = nn.Embedding(cfg["seq"], c)
        self.blocks = nn.ModuleList([Block(c, cfg["heads"]) for _ in range(cfg["layers"])])
        self.ln_f = nn.LayerNorm(c)
        self.head = nn.Linear(c, cfg["vocab"], bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        w = cfg["width"]
        self.net = nn.Sequential(nn.Linear(cfg["inputs"], w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, cfg["classes"]))

    def forward(self, x):
        return self.net(x)


def main():
    cfg = json.loads(sys.argv[1])
    dev = torch.device(cfg["device"])
    torch.manual_seed(0)
    if cfg.get("threads"):
        torch.set_num_threads(cfg["threads"])
    if cfg["model"] == "gpt":
        model = GPT(cfg).to(dev)
        x = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device=dev)
        y = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device=dev)
        items = cfg["batch"] * cfg["seq"]
        loss_of = lambda out: F.cross_entropy(out.view(-1, cfg["vocab"]), y.view(-1))
    else:
        model = MLP(cfg).to(dev)
        x = torch.randn(cfg["batch"], cfg["inputs"], device=dev)
        y = torch.randint(0, cfg["classes"], (cfg["batch"],), device=dev)
        items = cfg["batch"]
        loss_of = lambda out: F.cross_entropy(out, y)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.get("lr", 3e-4))
    amp = cfg.get("autocast")
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    def step(times):
        t0 = time.perf_counter()
        if amp:
            with torch.autocast(dev.type, dtype=getattr(torch, amp)):
                loss = loss_of(model(x))
        else:
            loss = loss_of(model(x))
        sync()
        t1 = time.perf_counter()
        loss.backward()
        sync()
        t2 = time.perf_counter()
        opt.step()
        opt.zero_grad(set_to_none=True)
        sync()
        t3 = time.perf_counter()
        if times is not None:
            times.append((t1 - t0, t2 - t1, t3 - t2))
        return loss.item()

    for _ in range(cfg.get("warmup", 2)):
        step(None)
    if cuda:
        torch.cuda.reset_peak_memory_stats(dev)
    times, losses = [], []
    for _ in range(cfg["steps"]):
        losses.append(step(times))
    total = sum(sum(t) for t in times)
    out = {
        "items_per_s": items * len(times) / total,
        "step_s": total / len(times),
        "forward_s": sum(t[0] for t in times) / len(times),
        "backward_s": sum(t[1] for t in times) / len(times),
        "optimizer_s": sum(t[2] for t in times) / len(times),
        "peak_allocated": torch.cuda.max_memory_allocated(dev) if cuda else None,
        "peak_reserved": torch.cuda.max_memory_reserved(dev) if cuda else None,
        "losses": losses,
        "version": torch.__version__,
    }
    print(json.dumps(out))


main()
