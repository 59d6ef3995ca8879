"""What the kernel benchmarks' harnesses share: the machine they ran on, windowed medians, a series of cells."""
import json
import os
import platform
import statistics
import time


def median_window(values, center, half=5):
    """Median of values[center-half .. center+half] (1-based cell numbers)."""
    window = values[max(0, center - 1 - half):center + half]
    return statistics.median(window) if window else None


def machine():
    """CPU model, core count, OS and Python version of this machine."""
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "os": platform.platform(), "python": platform.python_version()}


class SeriesError(RuntimeError):
    """A series that stopped part way; keeps the round trips measured before."""
    def __init__(self, message, done):
        super().__init__(message)
        self.done = done


def run_cells(kc, code, n, timeout=60):
    """Round trips (ms) of n cells of code, one after another (execute_interactive, until idle)."""
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        try:
            reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda m: None)
        except Exception as e:
            raise SeriesError(f"cell {i + 1}: {type(e).__name__}: {e}", out) from e
        out.append((time.perf_counter() - t0) * 1e3)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"cell {i + 1} answered {reply['content'].get('status')}: "
                               f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}")
    return out


def write_results(results, out, md, markdown):
    """Writes the results as JSON to out and as a markdown table to md (each if given); prints the table."""
    if out:
        with open(out, "w") as f:
            f.write(json.dumps(results, indent=2) + "\n")
    table = markdown(results)
    if md:
        with open(md, "w") as f:
            f.write(table)
    print(table)


def series_stats(ms, prefix):
    """Figures of one session's round trips (ms): median and p90 of cells 11..210 as PREFIX_ms and
    PREFIX_p90_ms, medians around cells 10 and 500 (cell10_ms, cell500_ms; None when the series is
    shorter than 505), and their ratio growth_500_vs_10."""
    steady = ms[10:210]
    c10 = median_window(ms, 10)
    c500 = median_window(ms, 500) if len(ms) >= 505 else None
    return {
        f"{prefix}_ms": round(statistics.median(steady), 3),
        f"{prefix}_p90_ms": round(sorted(steady)[int(0.9 * len(steady))], 3),
        "cell10_ms": round(c10, 3),
        "cell500_ms": round(c500, 3) if c500 is not None else None,
        "growth_500_vs_10": round(c500 / c10, 2) if c500 is not None else None,
    }
