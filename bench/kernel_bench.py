"""Kernel start time and execute round trip, for several kernelspecs side by
side, through the same jupyter_client calls a notebook server makes.

usage: /usr/bin/python3 bench/kernel_bench.py --kernels floor,tsgpu,python3,deno,tslab
                            [--starts 5] [--cells 510] [--out bench/results/kernel.json]
                            [--code 1+1] [--md bench/results/kernel.md]

For each kernelspec:
  start_s        median over --starts runs: from KernelManager.start_kernel()
                 until the first kernel_info_reply arrives (the client asks
                 again every second until one does, as wait_for_ready does);
  ready_s        median over the same runs of jupyter_client's own
                 start_new_kernel() (wait_for_ready also waits for an iopub
                 message and then for 0.2 s of iopub silence);
  early_ms       median round trip of the first --early cells of CODE sent
                 as soon as each started kernel is ready (wait_for_ready): what
                 a user sees while the kernel still loads in the background;
  rtt_ms         median of execute_request -> idle for CODE over cells 11..210
                 (execute_interactive, store_history=True) of a session that
                 first had --settle seconds after start, the same for every
                 kernel, so the figure is the steady state;
  cell10_ms /    medians of the cells around the 10th (5..15) and the 500th
  cell500_ms     (495..505) of that session, and their ratio (cost growth).
  kernel_cpu_ms_per_cell / harness_cpu_ms_per_cell
                 CPU time per cell over that session, of the kernel's
                 processes (all threads) and of this harness: where a round
                 trip's time goes, and how much of it no kernel can save.
A kernelspec that is missing or fails is reported with its error, not a number.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from queue import Empty

from jupyter_client.manager import KernelManager, start_new_kernel

from bench_common import machine, run_cells, series_stats, write_results



def first_reply(name):
    """Seconds from start_kernel() to the first kernel_info_reply; the manager and a connected client."""
    t0 = time.perf_counter()
    km = KernelManager(kernel_name=name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    deadline = t0 + 60
    while True:
        kc.kernel_info()
        try:
            msg = kc.get_shell_msg(timeout=1)
        except Empty:
            msg = None
        if msg is not None and msg["msg_type"] == "kernel_info_reply":
            return time.perf_counter() - t0, km, kc
        if time.perf_counter() > deadline or not km.is_alive():
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            raise RuntimeError("no kernel_info_reply within 60 s" if km.is_alive() else "the kernel died while starting")


def measure(name, starts, cells, code, early, settle):
    start_times, ready_times, early_ms = [], [], []
    for _ in range(starts):
        s, km, kc = first_reply(name)
        start_times.append(s)
        try:
            # Cells need iopub connected (their idle comes there): wait as jupyter_client does, untimed.
            kc.wait_for_ready(timeout=60)
            early_ms += run_cells(kc, code, early, timeout=30)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    km = kc = None
    for i in range(starts):
        t0 = time.perf_counter()
        km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
        ready_times.append(time.perf_counter() - t0)
        if i < starts - 1:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    try:
        time.sleep(max(0.0, settle - (time.perf_counter() - t0)))
        kernel0, harness0 = kernel_cpu(km), harness_cpu()
        ms = run_cells(kc, code, cells, timeout=30)
        kernel1, harness1 = kernel_cpu(km), harness_cpu()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return {
        "start_s": round(statistics.median(start_times), 3),
        "start_runs_s": [round(s, 3) for s in start_times],
        "ready_s": round(statistics.median(ready_times), 3),
        "early_ms": round(statistics.median(early_ms), 3) if early_ms else None,
        **series_stats(ms, "rtt"),
        # CPU time per cell over the whole session: where a round trip's time goes.
        "kernel_cpu_ms_per_cell": round((kernel1 - kernel0) / len(ms) * 1e3, 3) if kernel0 is not None and kernel1 is not None else None,
        "harness_cpu_ms_per_cell": round((harness1 - harness0) / len(ms) * 1e3, 3),
    }


def harness_cpu():
    """CPU seconds this process (the harness, all its threads) has used."""
    t = os.times()
    return t.user + t.system


def kernel_cpu(km):
    """CPU seconds the kernel's process and its children have used (all threads), or None if unknown."""
    try:
        import psutil
        proc = psutil.Process(km.provisioner.process.pid)
        total = 0.0
        for p in [proc] + proc.children(recursive=True):
            t = p.cpu_times()
            total += t.user + t.system
        return total
    except Exception:  # no psutil, or another provisioner: the figure is left out
        return None


def describe_spec(name):
    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "argv": spec.argv}


def version_of(argv):
    """A version line: given as text, or printed by running argv."""
    if isinstance(argv, str):
        return argv
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except Exception as e:  # the peer's version is informative only
        return f"unknown ({e})"



def markdown(results):
    lines = [
        f"Kernel latency, {results['date']} on {results['machine']['cpu']} ({results['machine']['cores']} cores), "
        f"jupyter_client {results['jupyter_client']}, code `{results['code']}`. Start: median of {results['starts']} starts. "
        f"Round trips: after {results['settle_s']:g} s of settling from start, the same for every kernel; "
        f"'first cells' are the first {results['early']} cells right after each start.",
        "",
        "| kernel | start → first kernel_info_reply (s) | start_new_kernel (s) | `%s` RTT (ms, median of 200) | p90 (ms) | first cells (ms) | cell 10 (ms) | cell 500 (ms) | 500 / 10 | kernel CPU / cell (ms) | harness CPU / cell (ms) |"
        % results["code"],
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in results["kernels"].items():
        if "error" in r:
            lines.append(f"| {name} | not measured: {r['error']} | | | | | | | | | |")
            continue
        cells = " | ".join("—" if r.get(k) is None else f"{r[k]:.2f}" for k in (
            "rtt_ms", "rtt_p90_ms", "early_ms", "cell10_ms", "cell500_ms", "growth_500_vs_10", "kernel_cpu_ms_per_cell", "harness_cpu_ms_per_cell"))
        lines.append(f"| {name} | {r['start_s']:.3f} | {r['ready_s']:.3f} | {cells} |")
    lines += ["", "Goals: start ≤ 0.4 s, RTT ≤ 1.5 ms, cell 500 ≤ 1.2 × cell 10.", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernels", default="floor,tsgpu,python3,deno,tslab")
    p.add_argument("--starts", type=int, default=5)
    p.add_argument("--cells", type=int, default=510)
    p.add_argument("--code", default="1+1")
    p.add_argument("--early", type=int, default=50, help="cells run right after each start")
    p.add_argument("--settle", type=float, default=5.0, help="seconds from start before the measured session's cells")
    p.add_argument("--out", default=None)
    p.add_argument("--md", default=None)
    p.add_argument("--versions", default="{}", help="JSON: kernel name -> version line (or a command argv that prints it)")
    p.add_argument("--unavailable", default="{}", help="JSON: kernel name -> why it could not be installed")
    a = p.parse_args()
    if a.starts < 3 or a.cells < 210:
        p.error("expected --starts >= 3 and --cells >= 210")
    versions = json.loads(a.versions)
    unavailable = json.loads(a.unavailable)
    import jupyter_client
    results = {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "jupyter_client": jupyter_client.__version__,
        "code": a.code,
        "starts": a.starts,
        "early": a.early,
        "settle_s": a.settle,
        "cells": a.cells,
        "kernels": {},
    }
    for name in [k for k in a.kernels.split(",") if k]:
        if name in unavailable:
            results["kernels"][name] = {"error": unavailable[name]}
            continue
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        try:
            entry = describe_spec(name)
        except NoSuchKernel:
            results["kernels"][name] = {"error": "no kernelspec installed"}
            continue
        if name in versions:
            entry["version"] = version_of(versions[name])
        try:
            entry.update(measure(name, a.starts, a.cells, a.code, a.early, a.settle))
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        results["kernels"][name] = entry
        print(f"  {json.dumps({k: v for k, v in entry.items() if k != 'argv'})}", file=sys.stderr, flush=True)
    write_results(results, a.out, a.md, markdown)


if __name__ == "__main__":
    main()
