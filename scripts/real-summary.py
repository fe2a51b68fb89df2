#!/usr/bin/python3
"""One table of auto on real MPI from scripts/auto-real.sh's runs: per run and size, what
auto ran and how its median time compares with scatter-ring's (MPICH's choice) and the MPI
library's own MPI_Bcast, each median over the run's repetitions.

Usage: real-summary.py DOCS_AUTO_DIR   (reads real-*.json, writes real-summary.md)
"""
import glob
import json
import os
import sys


def rows_of(path):
    with open(path) as f:
        run = json.load(f)
    env = run["environment"]
    library = env["mpi_library"].split(",")[0].removeprefix("MPICH Version:").strip()
    library = library if library.startswith("Open MPI") else f"MPICH {library}"
    median = {(c["algorithm"], c["bytes"]): c["summary"]["seconds_per_bcast"]["median"]
              for c in run["results"] if c["data_ok"]}
    chosen = {p["bytes"]: p["selected_algorithm"] for p in run["algorithm_parameters"]
              if p["algorithm"] == "auto"}
    for size in run["options"]["sizes"]:
        auto = median[("auto", size)]
        yield (f"| {library} | {env['procs']} | {size} | `{chosen[size]}` "
               f"| {size / auto / 2**20:.0f} | {median[('scatter-ring', size)] / auto:.2f} "
               f"| {median[('mpi', size)] / auto:.2f} |")


def main(directory):
    lines = ["| MPI | P | bytes | auto runs | auto MB/s | ring / auto | MPI_Bcast / auto |",
             "|---|---:|---:|---|---:|---:|---:|"]
    for path in sorted(glob.glob(os.path.join(directory, "real-*.json"))):
        lines += rows_of(path)
    with open(os.path.join(directory, "real-summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
