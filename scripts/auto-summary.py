#!/usr/bin/python3
"""auto beside the MPI library's MPI_Bcast, from the runs of `scripts/auto-table.sh vs-mpi`
(evidence/auto-vs-mpi.jsonl.gz): per run and size what auto ran and auto / MPI_Bcast, the
time of mpi over the time of auto (> 1: auto is faster), as the median of the
per-repetition ratios with their range; for simulations also
against SMPI's copies of Open MPI's and MPICH's selections (ratios of medians; a simulation
repeats exactly). A point counts as slower only where every repetition was slower by more
than 0.5 % (a simulation's own rounding stays below that).

Usage: auto-summary.py EVIDENCE   (prints the table; docs/auto.md holds it)
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools",
                                "tune"))
from leancast_tune import evidence  # noqa: E402

SLOWER = 0.995  # every repetition below this: auto slower than MPI_Bcast there


def label(run):
    env = run["environment"]
    if env.get("platform"):
        return env["platform"].split(" ")[0] + (f", {env['ranks_per_node']} per node"
                                                 if env.get("nodes", 1) > 1 else ", one node")
    library = env["mpi_library"].split(",")[0].removeprefix("MPICH Version:").strip()
    return library if library.startswith("Open MPI") else f"MPICH {library}"


def speedup(cells, baseline, size):
    """mpi's time over auto's in each repetition (interleaved, so paired): median and range."""
    ratios = [b["seconds_per_bcast"] / a["seconds_per_bcast"]
              for a, b in zip(cells[("auto", size)]["reps"], cells[(baseline, size)]["reps"])]
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}


def rows(run):
    cells = {(c["algorithm"], c["bytes"]): c for c in run["results"] if c["data_ok"]}
    median = {key: c["summary"]["seconds_per_bcast"]["median"] for key, c in cells.items()}
    chosen = {p["bytes"]: p["selected_algorithm"] for p in run.get("algorithm_parameters", [])
              if p["algorithm"] == "auto"}
    for size in run["options"]["sizes"]:
        ratio = speedup(cells, run["baseline"], size)
        others = [f"{median[(name, size)] / median[('auto', size)]:.2f}"
                  if (name, size) in median else "" for name in ("smpi:ompi", "smpi:mpich")]
        yield (label(run), run["environment"]["procs"], run["method"], size, chosen[size],
               ratio, others)


def main(path):
    found = [row for run in evidence.runs(path) for row in rows(run)]
    found.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    lines = ["| run | P | method | bytes | auto runs | auto / MPI_Bcast (reps' range) "
             "| SMPI ompi / auto | SMPI mpich / auto |", "|---|---:|---|---:|---|---|---:|---:|"]
    slower = []
    for name, procs, method, size, chosen, ratio, others in found:
        lines.append(f"| {name} | {procs} | {method} | {size} | `{chosen}` | {ratio['median']:.2f} "
                     f"({ratio['min']:.2f}–{ratio['max']:.2f}) | {others[0]} | {others[1]} |")
        if ratio["max"] < SLOWER:
            slower.append(f"{name} P={procs} {method} {size}: {ratio['median']:.2f}")
    lines += ["", f"{len(found)} points; auto more than 0.5 % slower than MPI_Bcast in every repetition at "
                  f"{len(slower)}" + (": " + "; ".join(slower) if slower else ".")]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
