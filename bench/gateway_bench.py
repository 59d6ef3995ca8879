"""Time from POST /api/kernels to the reply of a first cell, through one real
Jupyter Enterprise Gateway (DistributedProcessProxy on localhost), for tsgpu
(`tsgpu launch`) and for ipykernel behind EG's own launch_ipykernel.py.
Goal: tsgpu's median <= 0.6 x ipykernel's.

    TSGPU_EG_SOURCE=… TSGPU_JUPYTER_CLIENT_SOURCE=… /usr/bin/python3 bench/gateway_bench.py [--rounds N]

EG from its source on Debian's packages, as in test/kernel/eg_driver.py.
Kernels start in turns (tsgpu, ipykernel, then the other way round), one at a
time; each is deleted, and its process gone, before the next starts. The
kernels share one code cache folder, prepared as `tsgpu install` prepares a
machine (it builds the type checker's startup snapshot there); a third
kernelspec, "tsgpu-thread", runs tsgpu with TSGPU_CHECKER_SNAPSHOT=0 (the
checker on a thread, as on a machine where the snapshot is not built yet).
Both the execute_reply and the idle status after it are timed: tsgpu sends
the reply once the cell's type warnings are written. Writes
bench/results/gateway.json and gateway.md.
"""

import argparse
import asyncio
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "kernel"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_common import machine, write_results  # noqa: E402
from eg_driver import (Gateway, check_modules, ipykernel_spec, kernel_processes, sources,  # noqa: E402
                       time_to_first_cell, tsgpu_spec)

KERNELS = {"tsgpu": "1 + 1", "ipykernel": "1 + 1", "tsgpu-thread": "1 + 1"}
GOAL = 0.6


async def one(gw, name):
    times, kid = await time_to_first_cell(gw, name, KERNELS[name])
    await gw.request("DELETE", f"/api/kernels/{kid}")
    deadline = time.time() + 30
    while kernel_processes(kid) and time.time() < deadline:
        await asyncio.sleep(0.05)
    return times


def markdown(r):
    rows = [f"Enterprise Gateway {r['enterprise_gateway']} (DistributedProcessProxy, localhost), jupyter_client "
            f"{r['jupyter_client']}, {r['date']} on {r['machine']['cpu']} ({r['machine']['cores']} cores): "
            f"POST /api/kernels → first cell's execute_reply (`1 + 1`), {r['rounds']} kernels each, in turns. "
            f"EG answers a POST no sooner than its poll interval after the launch: here "
            f"EG_POLL_INTERVAL={r['eg_poll_interval_s']} s.", "",
            "tsgpu's type checker starts from the startup snapshot that `tsgpu install` built; tsgpu-thread is tsgpu "
            "with TSGPU_CHECKER_SNAPSHOT=0 (the checker parses the libraries on a thread, as before the snapshot "
            "is built). Each tsgpu reply comes after the cell's type warnings.", "",
            "| kernel | execute_reply: median (s) | min (s) | max (s) | idle: median (s) | POST answered: median (s) |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for k in KERNELS:
        s = r["kernels"][k]
        rows.append(f"| {k} | {s['median_s']:.3f} | {s['min_s']:.3f} | {s['max_s']:.3f} | {s['idle_median_s']:.3f} "
                    f"| {s['post_median_s']:.3f} |")
    rows += ["", f"tsgpu / ipykernel (medians of the execute_reply): {r['ratio']:.2f} (goal ≤ {GOAL}); "
             f"of the idle: {r['idle_ratio']:.2f}; tsgpu-thread / ipykernel: {r['thread_ratio']:.2f}", ""]
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--poll-interval", type=float, default=None,
                    help="EG_POLL_INTERVAL for the gateway (s); EG's default is 0.5")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "gateway.json"))
    ap.add_argument("--md", default=str(ROOT / "bench" / "results" / "gateway.md"))
    a = ap.parse_args()
    src, why = sources()
    if src is None:
        print(f"bench:gateway not run: {why}")
        return 2
    eg, jc = src
    jc_version = check_modules(eg, jc)
    # One code cache folder for every kernel; the gateway's set-up builds the checker's snapshot in it, as
    # `tsgpu install` does on a host.
    cache = tempfile.mkdtemp(prefix="tsgpu-bench-cache-")
    os.environ["TSGPU_CACHE_DIR"] = cache
    thread_spec = tsgpu_spec(["--remote-hosts", "localhost"], "tsgpu-thread")
    thread_spec["env"] = {**thread_spec.get("env", {}), "TSGPU_CHECKER_SNAPSHOT": "0"}
    eg_version = {}
    exec((eg / "enterprise_gateway" / "_version.py").read_text(), eg_version)
    gw = Gateway(eg, jc, {"tsgpu": tsgpu_spec(["--remote-hosts", "localhost"], "tsgpu"),
                          "ipykernel": ipykernel_spec(eg), "tsgpu-thread": thread_spec},
                 env={} if a.poll_interval is None else {"EG_POLL_INTERVAL": str(a.poll_interval)})
    times = {k: [] for k in KERNELS}
    try:
        for k in KERNELS:  # warm-up, not counted: the first start of each reads its files from disk
            asyncio.run(one(gw, k))
        for i in range(a.rounds):
            for k in (list(KERNELS) if i % 2 == 0 else list(KERNELS)[::-1]):
                times[k].append(asyncio.run(one(gw, k)))
                print(f"round {i + 1} {k}: first cell {times[k][-1]['first_cell_s']:.3f} s "
                      f"(POST answered {times[k][-1]['post_s']:.3f} s)", flush=True)
    finally:
        gw.close()
        shutil.rmtree(cache, ignore_errors=True)
    stats = {}
    for k, v in times.items():
        first = [t["first_cell_s"] for t in v]
        post = [t["post_s"] for t in v]
        idle = [t["idle_s"] for t in v]
        stats[k] = {"median_s": round(statistics.median(first), 4), "min_s": round(min(first), 4),
                    "max_s": round(max(first), 4), "idle_median_s": round(statistics.median(idle), 4),
                    "idle_all_s": [round(x, 4) for x in idle], "post_median_s": round(statistics.median(post), 4),
                    "all_s": [round(x, 4) for x in first], "post_all_s": [round(x, 4) for x in post]}
    results = {"date": datetime.date.today().isoformat(), "machine": machine(),
               "enterprise_gateway": eg_version["__version__"], "jupyter_client": jc_version, "rounds": a.rounds,
               "process_proxy": "DistributedProcessProxy (localhost)", "kernels": stats,
               "eg_poll_interval_s": 0.5 if a.poll_interval is None else a.poll_interval,
               "ratio": round(stats["tsgpu"]["median_s"] / stats["ipykernel"]["median_s"], 3),
               "idle_ratio": round(stats["tsgpu"]["idle_median_s"] / stats["ipykernel"]["idle_median_s"], 3),
               "thread_ratio": round(stats["tsgpu-thread"]["median_s"] / stats["ipykernel"]["median_s"], 3),
               "goal_ratio": GOAL}
    write_results(results, a.out, a.md, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
