"""Plots target delay, actual buffer level and concealment over time from a jitter-sim --timeline CSV.

Usage: python plot_timeline.py TIMELINE.csv OUT.png
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    t = [float(r["time_ms"]) / 1000 for r in rows]
    target = [float(r["target_ms"]) for r in rows]
    level = [float(r["level_ms"]) for r in rows]
    concealed = [r["operation"] == "expand" for r in rows]
    fig, ax = plt.subplots(figsize=(12, 4.5))
    ax.plot(t, level, lw=0.8, color="tab:blue", label="actual delay (buffered audio)")
    ax.plot(t, target, lw=1.5, color="tab:orange", label="target delay")
    top = max(max(level), max(target)) * 1.05
    ax.fill_between(t, 0, top, where=concealed, color="tab:red", alpha=0.3, step="post", label="concealment")
    for op, color in (("accelerate", "tab:green"), ("preemptiveExpand", "tab:purple"), ("fecRecovery", "black")):
        xs = [x for x, r in zip(t, rows) if r["operation"] == op]
        ax.plot(xs, [top * 0.98] * len(xs), "|", color=color, label=op)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("ms")
    ax.set_ylim(0, top)
    ax.set_title(f"Adaptive jitter buffer: {path.rsplit('/', 1)[-1]}")
    ax.legend(loc="upper right", fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
