#!/usr/bin/python3
"""auto against MPICH's choice, SMPI's selectors and SMPI's best built-in broadcast, on the
hornet model, at the paper's grids and beyond; writes docs/auto/pP.json per process count
and docs/auto/summary.md (the table docs/auto.md shows).

Usage: compare-auto.py BUILD_SMPI OUT_DIR [P ...]   (no P: the whole grid; then the summary)
"""
import json
import math
import os
import subprocess
import sys
import time

FIG6 = [524288, 786432, 1048576, 1572864, 2097152, 2621440, 3000000]
FIG7 = [12288, 524287, 1048576]
FIG8 = [12288, 24576, 49152, 98304, 196608, 393216, 786432, 1572864, 2560000]
LONG = [1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20]
GRID = {9: FIG7, 17: FIG7, 33: FIG7, 65: FIG7, 129: sorted(set(FIG7 + FIG8)),
        16: FIG6, 64: FIG6 + [4 << 20, 16 << 20], 256: FIG6 + [4 << 20, 16 << 20],
        1024: [1 << 20, 4 << 20, 16 << 20], 4096: [1 << 20, 4 << 20, 16 << 20]}
# SMPI's broadcasts that deliver the data in reasonable simulation time (leaving out
# arrival_pattern_aware*, NTSB and flattree_pipeline: under 100 MB/s and minutes per run at
# P = 64; mvapich2_inter_node alone does not reach every rank).
BUILTINS = ["binomial_tree", "flattree", "NTSL", "scatter_LR_allgather", "scatter_rdb_allgather",
            "SMP_binary", "SMP_binomial", "SMP_linear", "ompi_pipeline", "ompi_split_bintree",
            "mvapich2_intra_node", "mvapich2_knomial_intra_node", "mvapich2", "impi"]
# At 1024 ranks (on 2 cores, one session) the built-ins that were best or second best at
# P = 64..256 besides the selectors: binomial_tree, the MPICH-style scatter + ring
# (scatter_LR_allgather) and mvapich2 (best at P = 256 below 1 MB).
BUILTINS_1K = ["binomial_tree", "scatter_LR_allgather", "mvapich2"]
# hornet's links (tools/sim/platforms/hornet.cpp): the cheapest start-up is two core links
# (0.4 us, within a node), the fastest byte a core's or NIC's 10 GB/s; a node's ranks share
# a 57 GB/s memory bus.
ALPHA, BETA, BUS, PPN = 0.4e-6, 1e-10, 57e9, 24


def algorithms_for(procs):
    if procs == 4096:  # the rings (P^2 messages) and most built-ins would take hours
        return ["auto", "smpi:ompi", "smpi:mpich", "smpi:binomial_tree"]
    builtins = BUILTINS_1K if procs == 1024 else BUILTINS
    return ["auto", "scatter-ring", "smpi:ompi", "smpi:mpich"] + [f"smpi:{b}" for b in builtins]


def simulate(build, out_dir, procs):
    out = os.path.join(out_dir, f"p{procs}.json")
    command = [os.path.join(build, "leancast-sim"), "--platform", "hornet", "--procs", str(procs),
               "--algorithms", ",".join(algorithms_for(procs)),
               "--sizes", ",".join(str(s) for s in GRID[procs]),
               "--iterations", "1", "--baseline", "auto", "--json", out]
    if procs >= 1024:
        command.append("--shared-buffer")  # P x 16 MiB would not fit in this machine's memory
    start = time.monotonic()
    print(" ".join(command), flush=True)
    subprocess.run(command, check=True)
    print(f"P={procs}: {time.monotonic() - start:.0f} s", flush=True)


def lower_bounds(procs, size):
    """(alpha-beta bound, node memory bound) in seconds."""
    alpha_beta = math.ceil(math.log2(procs)) * ALPHA + size * BETA
    # Each rank but the root takes in the whole message through its node's bus; on the
    # fullest node that is every rank (or all but the root, when there is one node).
    on_node = min(PPN, procs) - (1 if procs <= PPN else 0)
    return alpha_beta, on_node * size / BUS


def summarize(out_dir):
    rows = []
    for procs in sorted(GRID):
        path = os.path.join(out_dir, f"p{procs}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            run = json.load(f)
        time_of = {(c["algorithm"], c["bytes"]): c["summary"]["seconds_per_bcast"]["median"]
                   for c in run["results"] if c["data_ok"]}
        chosen = {p["bytes"]: p["selected_algorithm"] for p in run.get("algorithm_parameters", [])
                  if p["algorithm"] == "auto"}
        for size in GRID[procs]:
            auto = time_of.get(("auto", size))
            if auto is None:
                continue
            builtins = {a: t for (a, s), t in time_of.items()
                        if s == size and a.startswith("smpi:")}
            best = min(builtins, key=builtins.get) if builtins else None
            alpha_beta, memory = lower_bounds(procs, size)
            rows.append({"procs": procs, "bytes": size, "auto": chosen.get(size, "?"),
                         "auto_seconds": auto, "ring_seconds": time_of.get(("scatter-ring", size)),
                         "ompi_seconds": builtins.get("smpi:ompi"),
                         "mpich_seconds": builtins.get("smpi:mpich"),
                         "best_builtin": best, "best_builtin_seconds": builtins.get(best),
                         "alpha_beta_bound_seconds": alpha_beta,
                         "memory_bound_seconds": memory})
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    ratio = lambda other, mine: "-" if other is None else f"{other / mine:.2f}"
    lines = ["| P | bytes | auto runs | auto MB/s | ring / auto | ompi / auto | mpich / auto "
             "| best built-in | best / auto | auto / α-β bound | auto / memory bound |",
             "|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['procs']} | {r['bytes']} | `{r['auto']}` | {r['bytes'] / r['auto_seconds'] / 2**20:.0f} "
            f"| {ratio(r['ring_seconds'], r['auto_seconds'])} "
            f"| {ratio(r['ompi_seconds'], r['auto_seconds'])} "
            f"| {ratio(r['mpich_seconds'], r['auto_seconds'])} "
            f"| {(r['best_builtin'] or '-').removeprefix('smpi:')} "
            f"| {ratio(r['best_builtin_seconds'], r['auto_seconds'])} "
            f"| {r['auto_seconds'] / r['alpha_beta_bound_seconds']:.2f} "
            f"| {r['auto_seconds'] / r['memory_bound_seconds']:.2f} |")
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(build, out_dir, *procs):
    os.makedirs(out_dir, exist_ok=True)
    for p in (map(int, procs) if procs else sorted(GRID)):
        simulate(build, out_dir, p)
    summarize(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
