#!/usr/bin/python3
"""The plot the README showed until issue 27, now in docs/benchmarks.md: leancast's
broadcasts against the MPI library's MPI_Bcast, from a real measurement already in the
repository (no simulation):

    docs/benchmarks/executor/sendwindow-openmpi-p4-s4.json

Open MPI 4.1.4, P = 4 on the 2-core VM (oversubscribed), leancast-bench's paper method
(barrier, 30 back-to-back broadcasts, slowest rank's time), 5 interleaved repetitions,
unbounded dataflow executor with LEANCAST_SEND_WINDOW=4 (the default before issue 26).
Bars: the median over repetitions of MPI_Bcast time / leancast time taken within each
repetition (> 1: leancast faster); whiskers: min-max over the repetitions.

Usage: /usr/bin/python3 scripts/readme-plot.py [JSON] [PNG]
   (default: the file above -> docs/figures/readme-speedup.png)
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs/benchmarks/executor/sendwindow-openmpi-p4-s4.json"
TARGET = ROOT / "docs/figures/readme-speedup.png"
# The paper's two rings first, then the pipelines, the round-optimal schedule and MPICH's tree.
SHOWN = ["scatter-ring", "scatter-ring-tuned", "pipeline-chain", "two-tree", "circulant",
         "binomial"]


def size_label(n):
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


def main():
    source = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    target = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else TARGET
    data = json.loads(source.read_text())
    if data.get("baseline") != "mpi":
        sys.exit(f"{source}: speedups are not against mpi (baseline {data.get('baseline')})")
    cells = {}
    for r in data["results"]:
        name = r["algorithm"].removesuffix("@dataflow")
        if name in SHOWN and r["algorithm"].endswith("@dataflow"):
            if not r["data_ok"]:
                sys.exit(f"{source}: {r['algorithm']} at {r['bytes']} B delivered wrong data")
            cells[(name, r["bytes"])] = r["summary"]["speedup_vs_baseline"]
    sizes = sorted({b for _, b in cells})
    env = data["environment"]

    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    width = 0.8 / len(SHOWN)
    for i, name in enumerate(SHOWN):
        xs, meds, lo, hi = [], [], [], []
        for j, b in enumerate(sizes):
            s = cells[(name, b)]
            xs.append(j + (i - (len(SHOWN) - 1) / 2) * width)
            meds.append(s["median"])
            lo.append(s["median"] - s["min"])
            hi.append(s["max"] - s["median"])
        ax.bar(xs, meds, width, yerr=[lo, hi], capsize=2, label=name)
        for x, m in zip(xs, meds):
            ax.text(x, 0.02, f"{m:.2f}", rotation=90, ha="center", va="bottom", fontsize=7,
                    color="white")
    ax.axhline(1.0, color="black", linewidth=1, label="MPI_Bcast (= 1)")
    ax.set_xticks(range(len(sizes)), [size_label(b) for b in sizes])
    ax.set_xlabel("message size")
    ax.set_ylabel("speedup over MPI_Bcast (> 1: leancast faster)")
    library = env["mpi_library"].split(",")[0]
    ax.set_title(f"{library}, P = {env['procs']} on one 2-core VM (oversubscribed), "
                 f"measured {env['date'][:10]}", fontsize=10)
    ax.legend(fontsize=8, ncol=4, loc="upper left")
    ax.set_ylim(0, 1.75)
    fig.tight_layout()
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target)
    print(f"{source.relative_to(ROOT) if source.is_relative_to(ROOT) else source} -> {target}")


if __name__ == "__main__":
    main()
