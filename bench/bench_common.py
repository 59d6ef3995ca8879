"""What the kernel benchmarks' harnesses share: the machine they ran on, windowed medians."""
import os
import platform
import statistics


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
