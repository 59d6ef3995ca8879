"""Kernel start and restart time, tsgpu beside Deno's kernel, in one run
through jupyter_client (run by bench/start_bench.ts, which installs the
kernelspecs):

  start_s    from KernelManager.start_kernel() to the first kernel_info_reply
             (a client asks kernel_info every 50 ms once its channels are up)
  first_cell_s  from KernelManager.start_kernel() to the execute_reply of a
             first cell (`1 + 1`) sent as soon as the kernel answered
  restart_s  from KernelManager.restart_kernel() (a shutdown_request, the old
             process's exit, a new process) to the new kernel's first
             kernel_info_reply, on the same client
  exit_s     from the shutdown_request of a restart to the old process's end,
             as jupyter_client sees it (it polls every 0.1 s)

Starts and restarts of the kernels alternate, so that both see the same
machine load; medians over --rounds rounds.
"""
import argparse
import datetime
import json
import os
import statistics
import time
from queue import Empty

import jupyter_client

from bench_common import machine, write_results
from jupyter_client.manager import KernelManager


def wait_reply(kc, t0, poll=0.05):
    """Seconds from t0 until kc gets a reply to one of the kernel_info requests it sends every `poll` seconds.

    A request sent while the old process is gone can be lost with its connection, so the client asks again
    (waiting a whole second for each would measure the client's patience, not the kernel).
    """
    deadline = t0 + 60
    sent = set()
    while True:
        sent.add(kc.kernel_info())
        try:
            msg = kc.get_shell_msg(timeout=poll)
        except Empty:
            msg = None
        if msg is not None and msg["msg_type"] == "kernel_info_reply" and msg["parent_header"].get("msg_id") in sent:
            return time.perf_counter() - t0
        if time.perf_counter() > deadline:
            raise RuntimeError("no kernel_info_reply within 60 s of the restart")


def first_cell(kc, t0):
    """Seconds from t0 until the execute_reply of a first cell sent now."""
    msg_id = kc.execute("1 + 1")
    while True:
        msg = kc.get_shell_msg(timeout=60)
        if msg["parent_header"].get("msg_id") == msg_id:
            if msg["content"].get("status") != "ok":
                raise RuntimeError(f"the first cell failed: {msg['content']}")
            return time.perf_counter() - t0


class TimedExit(KernelManager):
    """A KernelManager that notes when, during a restart, it sends the shutdown_request and when it finds the process gone."""

    def request_shutdown(self, restart=False):
        self.asked = time.perf_counter()
        super().request_shutdown(restart=restart)

    def finish_shutdown(self, *args, **kwargs):
        super().finish_shutdown(*args, **kwargs)
        self.gone = time.perf_counter()


def one_round(name, restarts):
    t0 = time.perf_counter()
    km = TimedExit(kernel_name=name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    start = wait_reply(kc, t0)
    out = {"start": start, "first_cell": first_cell(kc, t0), "restart": [], "exit": []}
    try:
        for _ in range(restarts):
            time.sleep(1.0)  # let the kernel finish starting (engine, checker thread) as a user's would have
            t0 = time.perf_counter()
            km.restart_kernel(now=False)
            out["restart"].append(wait_reply(kc, t0))
            out["exit"].append(km.gone - km.asked)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    return out


def markdown(r):
    lines = [
        f"# Kernel start and restart ({r['machine']['cpu']}, {r['machine']['cores']} cores, {r['date']})", "",
        f"jupyter_client {r['jupyter_client']}; {r['rounds']} rounds, alternating kernels; medians.", "",
        "| kernel | start → first kernel_info_reply (s) | restart → first kernel_info_reply (s) | start / Deno | restart / Deno "
        "| start → first cell's execute_reply (s) | restart: shutdown_request → process gone (s) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    deno = r["kernels"].get("deno")
    for name, k in r["kernels"].items():
        rs = f"{k['start_s'] / deno['start_s']:.2f}" if deno else "–"
        rr = f"{k['restart_s'] / deno['restart_s']:.2f}" if deno else "–"
        lines.append(f"| {name} ({r['versions'].get(name, '')}) | {k['start_s']:.3f} | {k['restart_s']:.3f} | {rs} | {rr} "
                     f"| {k['first_cell_s']:.3f} | {k['exit_s']:.3f} |")
    for name, why in r["unavailable"].items():
        lines.append(f"| {name} | not measured: {why} | | | | | |")
    lines += ["", f"Load average when the run began: {r['load_before']}; when it ended: {r['load_after']}.", "",
              "Goal: tsgpu's start and restart at most 0.72 × Deno's.", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernels", default="tsgpu,deno,tslab")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--restarts", type=int, default=2, help="restarts per round")
    p.add_argument("--out", default=None)
    p.add_argument("--md", default=None)
    p.add_argument("--versions", default="{}")
    p.add_argument("--unavailable", default="{}")
    a = p.parse_args()
    unavailable = json.loads(a.unavailable)
    names = [n for n in a.kernels.split(",") if n not in unavailable]
    runs = {n: {"start": [], "first_cell": [], "restart": [], "exit": []} for n in names}
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    for _ in range(a.rounds):
        for n in names:
            r = one_round(n, a.restarts)
            runs[n]["start"].append(r["start"])
            runs[n]["first_cell"].append(r["first_cell"])
            runs[n]["restart"] += r["restart"]
            runs[n]["exit"] += r["exit"]
    kernels = {}
    for n, r in runs.items():
        kernels[n] = {}
        for key in ("start", "first_cell", "restart", "exit"):
            kernels[n][f"{key}_s"] = round(statistics.median(r[key]), 3)
            kernels[n][f"{key}_runs_s"] = [round(s, 3) for s in r[key]]
    if "deno" in kernels and "tsgpu" in kernels:
        t, d = kernels["tsgpu"], kernels["deno"]
        kernels["tsgpu"]["vs_deno"] = {"start": round(t["start_s"] / d["start_s"], 3), "restart": round(t["restart_s"] / d["restart_s"], 3)}
    results = {
        "machine": machine(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "jupyter_client": jupyter_client.__version__, "rounds": a.rounds, "restarts_per_round": a.restarts,
        "versions": json.loads(a.versions), "unavailable": unavailable, "kernels": kernels,
        "load_before": load_before, "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    write_results(results, a.out, a.md, markdown)


if __name__ == "__main__":
    main()
