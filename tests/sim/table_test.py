#!/usr/bin/python3
"""auto's table still wins where it was simulated (issue 26): SMPI is deterministic, so a
sample of the table's decisions is replayed on the current code. At each sampled point
(P = 8 and 16 on one node, P = 48 and 64 on hornet with 24 ranks per node; three sizes
each) leancast-sim runs auto beside the library's broadcasts (mpi, SMPI's default; its
copies of Open MPI's and MPICH's selections, smpi:ompi and smpi:mpich) and beside the
leancast candidates the table's rule names there (its algorithm and, from the rule's
evidence at that size, the runner-up). The test fails where auto is slower than mpi, or
slower than any other of them by more than the table's margin (10 %, the simulated
sections' tie margin), under each timing method the section was measured with. So a
change to an executor, an algorithm or the model that makes the table stale shows up here,
not as a silently wrong table.

The large-scale section (P = 182 to 5793, measured at 256 to 4096 with --method sync,
docs/benchmarks.md#beyond-181-ranks) is replayed at the smallest P its rules claim, where simulating is
cheapest: P = 182 (the rules measured at 256) and P = 363 (at 512), at sizes that fall
under different rules (at 363 only 2 KiB, the one rule there that P = 182's do not name),
with MPICH's own ring among the library's (SMPI's
scatter_LR_allgather, what MPICH runs from 12 KiB at these counts, which are not powers of
two; below, MPICH's binomial tree is what smpi:mpich runs, to the nanosecond, so it is not
simulated twice, and MPICH runs scatter + recursive doubling only at powers of two). The
sections of 12 and 17 ranks a node are replayed at P = 182 with 12 a node.

Usage: table_test.py LEANCAST_SIM AUTO_RULES
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from rule_ranges import covers, number  # noqa: E402

SIM, RULES = sys.argv[1:3]
MARGIN = 0.10
LIBRARY = ["mpi", "smpi:ompi", "smpi:mpich"]
MPICH_OWN = ["smpi:scatter_LR_allgather"]
# (procs, ranks per node, sizes, methods, the library's broadcasts): measured and
# in-between process counts, sizes from the table's grid, chosen to fall under different
# rules.
OLD = (("paper", "osu"), LIBRARY)
LARGE = (("sync",), LIBRARY + MPICH_OWN)
POINTS = [(8, 8, [4096, 150000, 2097152], *OLD),
          (16, 16, [30000, 524288, 16777216], *OLD),
          (48, 24, [12288, 1000000, 2097152], *OLD),
          # 2 MiB, not 16: the same rule (two-tree from 1.4 MB), an eighth of the simulation
          (64, 24, [65536, 524288, 2097152], *OLD),
          # 8 MiB at 182 ranks, not 16: the same rule (8-32 MiB), a cheaper simulation
          (182, 24, [65536, 262144, 1048576, 8388608], *LARGE),
          # node-aware:knomial:8/binomial (1K-3547), the one rule of 363-724 ranks that
          # P = 182's do not name; below 12 KiB MPICH runs its binomial tree, so no ring.
          # 12, 256 and 1024 KiB there took 129 s of simulation (the library's broadcasts at
          # 363 ranks most of it, whatever the size), the test 138 s on the 2-core VM
          (363, 24, [2048], ("sync",), LIBRARY),
          # 12 ranks a node (large-ppn12): the node-aware two-tree, then two-tree:16K
          (182, 12, [262144, 1048576], *LARGE)]
RULE = re.compile(r"^procs=(\S+) ppn=(\S+)(?: library=(\S+))? (\S+)\s+: (\S+)\s+# (.*)$")


def rules():
    """The rules that apply under SMPI: (procs, ppn, bytes ranges, algorithm, evidence);
    those of the real sections (library=openmpi, mpich) never do."""
    with open(RULES) as f:
        matched = [m.groups() for m in map(RULE.match, f) if m]
    return [(p, n, b, a, e) for p, n, lib, b, a, e in matched if lib in (None, "smpi", "any")]


def rule_at(table, procs, ppn, size):
    """The first rule that applies, as auto's table is read (library= rules of the real
    sections never apply under SMPI)."""
    for procs_range, ppn_range, bytes_range, algorithm, evidence in table:
        if covers(procs_range, procs) and covers(ppn_range, ppn) and covers(bytes_range, size):
            return algorithm, evidence
    return "mpi", ""


def size_label(size):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


def runner_up(evidence, size):
    """The next-best leancast candidate the rule's evidence names at `size` (measured
    there, else at the nearest measured size)."""
    entries = {}
    for part in evidence.split(" | "):
        label, _, text = part.partition(":")
        found = re.search(r"next (\S+) [\d.]+x|best leancast (\S+) [\d.]+x", text)
        if found:
            entries[number(label.strip())] = found.group(1) or found.group(2)
    if not entries:
        return None
    nearest = min(entries, key=lambda s: abs(s - size))
    return entries[nearest]


def simulate(procs, ppn, sizes, algorithms, method):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        command = [SIM, "--platform", "hornet", "--procs", str(procs), "--ranks-per-node",
                   str(ppn), "--algorithms", ",".join(algorithms), "--sizes",
                   ",".join(str(s) for s in sizes), "--method", method, "--jobs", "1",
                   "--iterations", "1" if method == "sync" else "3", "--shared-buffer",
                   "--json", out]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        print(f"simulated P={procs} {method} {len(algorithms)} algorithms x {len(sizes)} sizes "
              f"in {time.monotonic() - started:.0f} s", flush=True)
        if done.returncode != 0:
            sys.exit(f"FAILED: {' '.join(command)}\n{done.stdout}{done.stderr}")
        with open(out) as f:
            data = json.load(f)
    return {(r["algorithm"], r["bytes"]): r["summary"]["seconds_per_bcast"]["median"]
            for r in data["results"]}


def main():
    table = rules()
    if not table:
        sys.exit(f"FAILED: no rule in {RULES}")
    failures = []
    # Each point and method is one simulation; they run two at a time (SMPI uses one core).
    jobs = []
    for procs, ppn, sizes, methods, library in POINTS:
        chosen = {s: rule_at(table, procs, ppn, s) for s in sizes}
        leancast = set()
        for size, (algorithm, evidence) in chosen.items():
            if algorithm != "mpi":
                leancast.add(algorithm)
            if (other := runner_up(evidence, size)) and other not in ["mpi"] + library:
                leancast.add(other)
        algorithms = ["auto"] + library + sorted(leancast)
        for method in methods:
            jobs.append((procs, ppn, sizes, chosen, algorithms, method))
    # The largest counts first, so that the two workers finish together: P = 363 alone takes
    # a third of the test.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        started = {pool.submit(simulate, j[0], j[1], j[2], j[4], j[5]): i
                   for i, j in sorted(enumerate(jobs), key=lambda e: -e[1][0])}
        results = [None] * len(jobs)
        try:
            for future, i in started.items():
                results[i] = future.result()
        except BaseException:  # a failed simulation: drop those not started
            pool.shutdown(cancel_futures=True)
            raise
    for (procs, ppn, sizes, chosen, algorithms, method), times in zip(jobs, results):
        for size in sizes:
            auto = times[("auto", size)]
            others = {a: times[(a, size)] for a in algorithms if a != "auto"}
            rule = chosen[size][0]
            row = (f"P={procs} ppn={ppn} {method} {size_label(size)}: auto ({rule}) "
                   f"{auto * 1e6:.1f} us; " +
                   ", ".join(f"{a} {t * 1e6:.1f}" for a, t in sorted(others.items())))
            print(row, flush=True)
            if auto > others["mpi"] * 1.001:
                failures.append(f"{row}: auto is slower than mpi")
            best = min(others, key=others.get)
            if auto > others[best] * (1 + MARGIN):
                failures.append(f"{row}: auto is {auto / others[best]:.2f}x the time of "
                                f"{best}, beyond the {MARGIN:.0%} margin")
    for failure in failures:
        print("FAILED:", failure)
    if failures:
        sys.exit(1)
    print(f"checked: auto's table at {sum(len(p[2]) for p in POINTS)} points, each under the "
          "methods its section was measured with")


if __name__ == "__main__":
    main()
