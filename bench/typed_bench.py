"""Round trips of typed TypeScript cells and of completion, for several
kernelspecs side by side, through the jupyter_client calls a notebook server
makes (the harness behind `npm run bench:typed`).

usage: /usr/bin/python3 bench/typed_bench.py --kernels tsgpu-check-on,tsgpu-check-off,deno,tslab
           --cell ../shared/bench/typed_cell.ts [--cells 510] [--out J] [--md M]
           [--versions JSON] [--unavailable JSON] [--notes JSON]

For each kernelspec, in one session after a warm-up (a few cells, then
--settle seconds so background work such as a type checker's start is over):
  typed_ms        median execute_request -> idle of the typed cell, cells 11..210
                  (execute_interactive; the same cell each time, so every run
                  declares its names again);
  cell10_ms /     medians of cells 5..15 and 495..505 of that series, and their
  cell500_ms      ratio (cost growth with the notebook's length);
  fresh_ms        median round trip of the typed cell with a different first
                  line (a comment) each time, cells 11..60: a cell not seen
                  before (tsgpu answers a cell run again unchanged, with nothing
                  declared in between, from what it found the last time);
  one_ms          median round trip of `1+1` over 200 cells (after 10);
  complete_ms     median complete_request -> reply for `v0.na` (a member of an
                  interface the typed cell declared) over 100 requests, with
                  whether `name` was among the matches.
A kernelspec that is missing or fails is reported with its error.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import time

from jupyter_client.manager import start_new_kernel

from bench_common import machine, median_window, run_cells, SeriesError, series_stats, write_results



def stderr_of(kc, code):
    """Runs code once and returns what it wrote on stderr (type warnings, for instance)."""
    text = []
    kc.execute_interactive(code, timeout=60, output_hook=lambda m: text.append(m["content"].get("text", ""))
                           if m["header"]["msg_type"] == "stream" and m["content"].get("name") == "stderr" else None)
    return "".join(text)


def complete_times(kc, code, n, want):
    times, found = [], True
    for _ in range(n):
        t0 = time.perf_counter()
        msg_id = kc.complete(code, len(code))
        while True:
            reply = kc.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        times.append((time.perf_counter() - t0) * 1e3)
        found = found and want in reply["content"].get("matches", [])
    return times, found


def measure(name, typed_cell, cells, settle):
    km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
    try:
        run_cells(kc, "1+1", 3)
        run_cells(kc, typed_cell, 1)
        time.sleep(settle)
        warnings = stderr_of(kc, typed_cell)
        typed = run_cells(kc, typed_cell, cells)
        # The same cell with a new first line each time: a cell the kernel has never seen.
        fresh = [run_cells(kc, f"// edit {i}\n{typed_cell}", 1)[0] for i in range(60)]
        one = run_cells(kc, "1+1", 210)
        complete, found = complete_times(kc, "v0.na", 100, "name")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    r3 = lambda v: round(v, 3) if v is not None else None
    return {
        **series_stats(typed, "typed"),
        "fresh_ms": r3(statistics.median(fresh[10:])),
        "one_ms": r3(statistics.median(one[10:])),
        "complete_ms": r3(statistics.median(complete)),
        "complete_found": found,
        "typed_cell_stderr": warnings[:500],
    }



def fmt(v):
    return "—" if v is None else f"{v:.2f}"


def markdown(res):
    lines = [
        f"Typed cells, {res['date']} on {res['machine']['cpu']} ({res['machine']['cores']} cores), "
        f"jupyter_client {res['jupyter_client']}; the cell is `{res['cell_file']}` ({res['cell_lines']} lines), "
        f"run {res['cells']} times in one session.",
        "",
        "| kernel | type checking | typed cell RTT (ms, median) | p90 | cell 10 | cell 500 | 500 / 10 | typed cell, new text each run | `1+1` RTT | completion RTT | completion found `name` |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, r in res["kernels"].items():
        checking = res["notes"].get(name, "")
        if "error" in r:
            partial = (f"{fmt(r['partial_typed_ms'])} (cells 11..{min(210, r['cells_done'])}; then {r['error']})"
                       if r.get("partial_typed_ms") is not None else f"not measured: {r['error']}")
            lines.append(f"| {name} | {checking} | {partial} | | {fmt(r.get('partial_cell10_ms'))} | | | | | | |")
            continue
        lines.append(f"| {name} | {checking} | {fmt(r['typed_ms'])} | {fmt(r['typed_p90_ms'])} | {fmt(r['cell10_ms'])} | "
                     f"{fmt(r['cell500_ms'])} | {fmt(r['growth_500_vs_10'])} | {fmt(r['fresh_ms'])} | {fmt(r['one_ms'])} | {fmt(r['complete_ms'])} | "
                     f"{'yes' if r['complete_found'] else 'no'} |")
    lines += ["", "Goals (tsgpu): typed cell ≤ 3 ms with checking off, ≤ 25 ms with checking on; completion ≤ 25 ms; "
              "cell 500 ≤ 1.2 × cell 10.", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--cell", required=True)
    ap.add_argument("--cells", type=int, default=510)
    ap.add_argument("--settle", type=float, default=5.0)
    ap.add_argument("--out")
    ap.add_argument("--md")
    ap.add_argument("--versions", default="{}")
    ap.add_argument("--unavailable", default="{}")
    ap.add_argument("--notes", default="{}")
    a = ap.parse_args()
    with open(a.cell) as f:
        typed_cell = f.read()
    unavailable = json.loads(a.unavailable)
    import jupyter_client
    res = {
        "date": datetime.date.today().isoformat(), "machine": machine(), "jupyter_client": jupyter_client.__version__,
        "cell_file": os.path.basename(a.cell), "cell_lines": len(typed_cell.rstrip("\n").split("\n")), "cells": a.cells,
        "versions": json.loads(a.versions), "notes": json.loads(a.notes), "kernels": {},
    }
    for name in a.kernels.split(","):
        if name in unavailable:
            res["kernels"][name] = {"error": unavailable[name]}
            continue
        print(f"measuring {name} ...", flush=True)
        try:
            res["kernels"][name] = measure(name, typed_cell, a.cells, a.settle)
        except SeriesError as e:
            # What was measured before the kernel stopped answering is still worth showing.
            done = e.done
            res["kernels"][name] = {"error": f"{e}"[:300], "cells_done": len(done),
                                    "partial_typed_ms": round(statistics.median(done[10:210]), 3) if len(done) > 20 else None,
                                    "partial_cell10_ms": round(median_window(done, 10), 3) if len(done) > 15 else None}
        except Exception as e:
            res["kernels"][name] = {"error": f"{type(e).__name__}: {e}"[:300]}
        print(f"  {name}: {json.dumps(res['kernels'][name])}", flush=True)
    write_results(res, a.out, a.md, markdown)


if __name__ == "__main__":
    main()
