#!/usr/bin/python3
"""SMPI tests: leancast at process counts real MPI cannot reach on this machine.

1. Every algorithm delivers every byte at P = 33 and P = 64 on the hornet model (a
   broadcast larger than P chunks and one smaller than P, so some chunks are empty), with
   one simulated host per node (MPI_Comm_split_type sees 24-rank nodes: node-aware
   broadcasts have two or three nodes) and, at P = 33, one host per core.
1b. leancast finds the nodes SMPI simulates: its verbose log names 3 nodes of up to 24
   ranks at P = 64 with node hosts, 64 nodes of one rank with core hosts.
2. Bad options are refused with a message (unknown platform, too many ranks per node,
   an SMPI or leancast algorithm that does not exist), and a simulation that ends without
   a result (SMPI's ompi_split_bintree deadlocks at one rank per node, yet smpirun exits 0)
   fails with the smpirun command and SMPI's own words.
3. Simulations are deterministic: two identical leancast-sim runs give identical times.
4. leancast's scatter-ring sends exactly MPICH's messages: its simulated time equals that
   of SMPI's built-in scatter_LR_allgather (MPICH's scatter + ring). Simulated time is
   computed, not measured, so it can be compared exactly.
Usage: sim_test.py LEANCAST_SIM BCAST_CHECK
"""
import json
import os
import subprocess
import sys
import tempfile

# Every algorithm, some with a parameter, auto, and SMPI's own MPI_Bcast.
ALGORITHMS = ["linear", "binomial", "hypercube", "scatter-doubling", "scatter-ring",
              "scatter-ring-tuned", "pipeline-chain", "pipeline-chain:8K",
              "pipeline-binary-tree", "two-tree", "knomial", "knomial:3", "circulant",
              "circulant:9", "node-aware", "node-aware:pipeline-chain:8K/binomial",
              "node-aware:circulant/scatter-ring-tuned", "auto", "mpi"]


def check_data(sim, bcast_check, procs, size, layout=()):
    done = subprocess.run([sim, "--platform", "hornet", "--procs", str(procs), *layout, "--run",
                           bcast_check, str(size)] + ALGORITHMS,
                          capture_output=True, text=True, timeout=300)
    rows = [line.split() for line in done.stdout.splitlines()[1:] if line.strip()]
    ok = [row[0] for row in rows if len(row) >= 3 and row[2] == "ok"]
    if done.returncode != 0 or ok != ALGORITHMS:
        sys.exit(f"FAILED: P={procs} {size} bytes {' '.join(layout)}: {done.stdout}{done.stderr}")
    print(f"P={procs:3} {size:8} bytes {' '.join(layout)}: every byte right with {', '.join(ok)}")


def check_nodes(sim, bcast_check, layout, expected):
    env = dict(os.environ, LEANCAST_VERBOSE="1")
    done = subprocess.run([sim, "--platform", "hornet", "--procs", "64", *layout, "--run",
                           bcast_check, "5000", "node-aware"],
                          capture_output=True, text=True, timeout=300, env=env)
    if done.returncode != 0 or expected not in done.stderr:
        sys.exit(f"FAILED: {' '.join(layout) or 'node hosts'}: expected '{expected}' in the "
                 f"verbose log:\n{done.stdout}{done.stderr}")
    print(f"{' '.join(layout) or 'node hosts'}: leancast sees {expected}")


def simulate(sim, out):
    command = [sim, "--platform", "hornet", "--procs", "33", "--algorithms",
               "scatter-ring,scatter-ring-tuned,smpi:scatter_LR_allgather",
               "--sizes", "12288,524287", "--iterations", "2", "--json", out]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}\n{done.stdout}{done.stderr}")
    with open(out) as f:
        run = json.load(f)
    return {(c["algorithm"], c["bytes"]): [r["seconds_per_bcast"] for r in c["reps"]]
            for c in run["results"]}


def check_refused(sim, args, expected):
    done = subprocess.run([sim] + args, capture_output=True, text=True, timeout=120)
    if done.returncode == 0 or expected not in done.stdout + done.stderr:
        sys.exit(f"FAILED: leancast-sim {' '.join(args)} should fail with '{expected}':\n"
                 f"{done.stdout}{done.stderr}")
    print(f"refused as expected: {' '.join(args)}")


def main(sim, bcast_check):
    check_refused(sim, ["--platform", "cray", "--procs", "4"], "no platform 'cray'")
    check_refused(sim, ["--platform", "hornet", "--procs", "4", "--ranks-per-node", "25"],
                  "nodes have 24 cores")
    check_refused(sim, ["--platform", "hornet", "--procs", "4", "--algorithms", "smpi:nonsense"],
                  "has no algorithm 'nonsense'")
    check_refused(sim, ["--platform", "hornet", "--procs", "4", "--algorithms", "ring"],
                  "unknown algorithm 'ring'")
    check_refused(sim, ["--platform", "hornet", "--procs", "8", "--ranks-per-node", "1",
                        "--algorithms", "smpi:ompi_split_bintree", "--sizes", "1M"],
                  "smpirun failed")
    for procs in (33, 64):
        for size in (1000003, procs - 7):
            check_data(sim, bcast_check, procs, size)
    check_data(sim, bcast_check, 33, 1000003, ("--core-hosts",))
    check_nodes(sim, bcast_check, (), "on 3 node(s), up to 24 ranks each")
    check_nodes(sim, bcast_check, ("--core-hosts",), "on 64 node(s), up to 1 ranks each")
    with tempfile.TemporaryDirectory() as tmp:
        first = simulate(sim, os.path.join(tmp, "first.json"))
        second = simulate(sim, os.path.join(tmp, "second.json"))
    if first != second:
        sys.exit(f"FAILED: two identical simulations differ:\n{first}\n{second}")
    print(f"deterministic: two runs gave the same {len(first)} cells")
    for size in (12288, 524287):
        ours = first[("scatter-ring", size)][0]
        smpi = first[("smpi:scatter_LR_allgather", size)][0]
        if abs(ours - smpi) > 1e-6 * smpi:  # SimGrid solves to 1e-9 s precision
            sys.exit(f"FAILED: {size} bytes: scatter-ring {ours} s, SMPI's {smpi} s")
        print(f"{size} bytes: scatter-ring = smpi:scatter_LR_allgather = {ours:.6g} s (simulated)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
