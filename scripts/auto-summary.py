#!/usr/bin/python3
"""auto beside the MPI library's MPI_Bcast, from scripts/auto-vs-mpi.sh's runs: per run and
size what auto ran and auto / MPI_Bcast, the time of mpi over the time of auto (> 1: auto is
faster), as the median of the per-repetition ratios with their range; for simulations also
against SMPI's copies of Open MPI's and MPICH's selections (ratios of medians; a simulation
repeats exactly). A point counts as slower only where every repetition was slower by more
than 0.5 % (a simulation's own rounding stays below that).

Usage: auto-summary.py DIR   (reads DIR/*.json, writes DIR/summary.md)
"""
import glob
import json
import os
import sys

SLOWER = 0.995  # every repetition below this: auto slower than MPI_Bcast there


def label(run):
    env = run["environment"]
    if env.get("platform"):
        return env["platform"].split(" ")[0] + (f", {env['ranks_per_node']} per node"
                                                 if env.get("nodes", 1) > 1 else ", one node")
    library = env["mpi_library"].split(",")[0].removeprefix("MPICH Version:").strip()
    return library if library.startswith("Open MPI") else f"MPICH {library}"


def rows(path):
    with open(path) as f:
        run = json.load(f)
    cells = {(c["algorithm"], c["bytes"]): c for c in run["results"] if c["data_ok"]}
    median = {key: c["summary"]["seconds_per_bcast"]["median"] for key, c in cells.items()}
    chosen = {p["bytes"]: p["selected_algorithm"] for p in run["algorithm_parameters"]
              if p["algorithm"] == "auto"}
    for size in run["options"]["sizes"]:
        ratio = cells[("auto", size)]["summary"]["speedup_vs_baseline"]
        others = [f"{median[(name, size)] / median[('auto', size)]:.2f}"
                  if (name, size) in median else "" for name in ("smpi:ompi", "smpi:mpich")]
        yield (label(run), run["environment"]["procs"], run["method"], size, chosen[size],
               ratio, others)


def main(directory):
    found = [row for path in sorted(glob.glob(os.path.join(directory, "*.json")))
             for row in rows(path)]
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
    with open(os.path.join(directory, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
