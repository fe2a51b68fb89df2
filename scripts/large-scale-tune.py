#!/usr/bin/env python3
"""auto's evidence from 182 to 4096 ranks (scripts/auto-table.sh's section `large`): one
`leancast-tune --sim hornet --methods sync` run per process count and size group, on the
hornet model with 24 ranks per node, each writing out/tuning/large/pP[-GROUP].json and
adding its runs to auto's evidence, evidence/auto-large.jsonl.gz (a tuning named pP[-GROUP],
each a part of one measurement: tools/tune/leancast_tune/evidence.py); a group the evidence
holds is not measured again (take its lines out to redo it). Then the rules from every
count, together, for the sizes whose groups are all measured (ruled_counts), from the
evidence: what scripts/auto-table.sh puts in data/auto.rules's section `large`.

Candidates: the registry's (leancast-tune's default: every flat algorithm's and node-aware
pair's tuned specs), under leancast's default executor, at P = 256 and 512, and at the
small sizes under its other executors too (EXECUTORS). Beyond, a candidate is simulated at a
size only where it came within PRUNE of the fastest leancast candidate at that size at the
process count before, under any executor for the executors group (the simulation's cost
grows as P^2 per message; a candidate left out cannot win, it does not change what wins
among those simulated).

The library's broadcast, at P = 256 and 512 all of: SMPI's default (mpi, its binomial
tree), its copies of Open MPI's and MPICH's selections (smpi:ompi, smpi:mpich) and what
MPICH runs by size (smpi:binomial_tree below 12 KiB, smpi:scatter_rdb_allgather to 512 KiB
on even P, smpi:scatter_LR_allgather beyond). Beyond, mpi everywhere and each of the others
at a size only where it came within REFERENCE_PRUNE of the fastest of them at the count
before: MPICH's ring (P^2 messages) and Open MPI's flat-tree pipeline (the root sends every
8 KiB segment to every rank) cost hours to simulate at 4096 ranks, where at half as many
ranks they were several times slower than the tree (docs/benchmarks.md#beyond-181-ranks). Leaving out a
reference that slow cannot let a slower leancast candidate through: it must still beat the
rest. Beyond 2048 ranks smpi:ompi gives way to what stands for it (ompi_in_place). From
2048 ranks leancast's flat rings must come within the tie margin instead (FLAT_RINGS).

  python3 scripts/large-scale-tune.py [--build build/smpi] [--only P[,P...]]
                                      [--groups G[,G...]] [--rules | --complete]
                                      [--tune LEANCAST_TUNE] [--out RULES]
  python3 scripts/large-scale-tune.py --forget JSON
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "tune"))
from leancast_tune import evidence  # noqa: E402

OUT = "out/tuning/large"
EVIDENCE = "evidence/auto-large.jsonl.gz"
RULES = "out/tuning/large.rules"
# leancast-sim's cache, in the tree: a group of the largest counts takes hours of simulation
# here, more than a session may have; each smpirun it finished is kept (commit it) and
# survives commits that leave the bench's code alone (leancast-sim's bench_digest), so a
# group stopped part-way goes on where it stopped. A group's JSON, once written, holds its
# runs: their cells are then forgotten.
CELLS = "out/tuning/large/cells"
PER_NODE = 24
PRUNE = 1.5
REFERENCE_PRUNE = 3.0
TIE = "0.1"
# Ties broken within half the margin: a rule claims counts down to 182 from one measured at
# 256, and smpi.auto_table replays it there with the full margin. At 256 ranks and 64 KiB a
# tie-break within 10 % took pipeline-binary-tree:16K@dataflow:0, 6 % behind the node-aware
# two-tree under dataflow:0, and at 182 ranks 11.6 % behind.
TIE_BREAK = "0.05"
# The rules claim from halfway (geometrically) between the nodes section's largest count and
# 256 to halfway beyond the largest count measured, as the other sections do.
COVER_FROM = 182
# The ranks per node the rules claim: the 24 simulated, as the nodes section claims. Claimed
# as 12-48 before: at 12 and 17 a node MPICH's ring beat auto's two-tree at 16 MiB (0.78-0.92x
# at P = 129 and 256; evidence/large-scale.jsonl.gz, layouts/), and hornet's nodes have 24 cores.
PPN = "24-24"
# MPICH's own algorithms, in leancast: they win ties, never veto (auto-table.sh's mpich_smp).
EMULATED = ("binomial,scatter-doubling,scatter-ring,node-aware:binomial/binomial,"
            "node-aware:scatter-doubling/binomial,node-aware:scatter-ring/scatter-ring")
LIBRARY = ["smpi:ompi", "smpi:mpich", "smpi:binomial_tree", "smpi:scatter_rdb_allgather",
           "smpi:scatter_LR_allgather"]
SMALL = ["1K", "12288", "64K"]
LARGE = ["256K", "1M", "4M", "16M", "64M"]
# MPICH's ring, SMPI's copy (a reference) and leancast's (an emulated one): P^2 messages,
# hours at 1024 ranks over four sizes. At P = 1024 they are simulated in a group of their
# own, at the sizes where SMPI's ring was the fastest of the library's broadcasts at 512 (4
# and 16 MiB; elsewhere it was 1.1-69x slower than the tree, which it cannot veto); beyond,
# SMPI's ring joins its size's group and leancast's rings are pruned as FLAT_RINGS says.
MPICH_RINGS = ["scatter-ring", "smpi:scatter_LR_allgather"]
# SMPI's mpich selector runs its SMP binomial tree, which with one simulated host per core
# is SMPI's binomial tree: at every size simulated at P = 256-1024 the three took the same
# time (to 1e-15). Beyond P = 1024 only mpi and smpi:binomial_tree are simulated: the
# selector's set-up alone (two ring allgathers over all ranks) takes half an hour there.
SAME_AS_TREE = ["smpi:mpich"]
# (procs, [(group, sizes, rings)]): what each count measures. A run per group, with the
# candidates and references its sizes kept: small sizes apart from large ones, so that a
# ring kept for its bandwidth is not simulated where its P^2 start-ups had already lost; and
# few groups, since SMPI's copies of the libraries' selections set up node communicators
# (two ring allgathers over all ranks) in every run, seven minutes of wall time at P = 1024.
# rings: None (everything), "without" (all but MPICH_RINGS), "only" (MPICH_RINGS alone),
# "executors" (the leancast candidates but MPICH_RINGS, each under every one of EXECUTORS).
# executors: the leancast candidates (MPICH's emulated ones aside) under leancast's other
# executors, at the small sizes, where simulating is cheap and where the executor decides
# most: at 12 and 64 KiB `binomial` under the default took 1.2-1.6x the time of SMPI's
# binomial tree, the same tree posted round by round (docs/benchmarks.md#beyond-181-ranks).
PLAN = [
    (256, [("", SMALL + LARGE, None), ("executors", SMALL, "executors")]),
    (512, [("", SMALL + LARGE, None), ("executors", SMALL, "executors")]),
    (1024, [("1K", ["1K"], None), ("small", SMALL[1:], None), ("large", LARGE[:-1], "without"),
            ("rings", ["4M", "16M"], "only"), ("executors", SMALL, "executors")]),
    (2048, [("small", ["1K", "64K"], "without"), ("large", ["1M"], "without"),
            ("16M", ["16M"], None), ("executors", ["1K", "64K"], "executors")]),
    (4096, [("small", ["1K", "64K"], "without"), ("executors", ["1K", "64K"], "executors"),
            ("large", ["1M"], "without")]),
]
EXECUTORS = ["dataflow", "dataflow:0"]
# leancast's flat rings, P - 1 steps of every rank at once: at 2048 ranks and 16 MiB one
# size of one of them did not finish in 74 (scatter-ring-tuned) and 36 (scatter-ring)
# CPU-minutes here, and SMPI's ring took 107 minutes of wall time beside other runs
# (the evidence's p2048-16M). Beyond 1024 ranks they
# are simulated at a size only where they came within the tie margin of the fastest
# leancast candidate at the count before: their P - 1 step floor grows as P, a tree's depth
# as log P, so a ring further behind cannot catch up by doubling P (at 1024 ranks and
# 16 MiB both took 1.21x two-tree:16K's time). SMPI's ring, a reference, is not pruned so.
FLAT_RINGS = ["scatter-ring", "scatter-ring-tuned"]
FLAT_RINGS_FROM = 2048
RING_PRUNE = 1 + float(TIE)
# Beyond 2048 ranks smpi:ompi is not simulated: its set-up of node communicators took 3946 s
# of wall time at 2048. What it runs there is: below 256 KiB (but 8-16 KiB from 4096 ranks)
# MVAPICH2's 4-nomial tree, for which leancast's knomial:4 posted round by round stands in
# (leancast-tune --stand-in; it took smpi:ompi's time within 0.01 % at all 11 points at
# 256-2048 ranks, scripts/large-scale.sh ompi), and from 256 KiB smpi:scatter_rdb_allgather,
# itself.
OMPI = "smpi:ompi"
OMPI_STAND_IN = "knomial:4@dataflow:0"
OMPI_SIMULATED_UP_TO = 2048


def ompi_in_place(procs, sizes):
    """What stands for smpi:ompi at `procs` ranks and these sizes: itself up to
    OMPI_SIMULATED_UP_TO ranks, else its stand-in or SMPI's scatter_rdb_allgather."""
    if procs <= OMPI_SIMULATED_UP_TO:
        return OMPI
    below = [byte_size(s) < 256 << 10 for s in sizes]
    if all(below):
        if procs >= 4096 and any(8 << 10 <= byte_size(s) < 16 << 10 for s in sizes):
            sys.exit("large-scale-tune: smpi:ompi runs its binary tree at 8-16 KiB from 4096 "
                     "ranks: no stand-in for it there")
        return OMPI_STAND_IN
    if any(below):
        sys.exit("large-scale-tune: beyond 2048 ranks a group's sizes must lie all below "
                 "256 KiB or all above, where different algorithms stand for smpi:ompi")
    return "smpi:scatter_rdb_allgather"


def byte_size(text):
    return int(text[:-1]) << {"K": 10, "M": 20}[text[-1]] if text[-1] in "KM" else int(text)


def path(procs, group, ext):
    return os.path.join(OUT, f"p{procs}{'-' + group if group else ''}.{ext}")


def registry_candidates(build):
    sys.path.insert(0, os.path.join(ROOT, "tools", "tune"))
    from leancast_tune.candidates import Candidates, read_registry
    return Candidates(read_registry(os.path.join(build, "leancast-plan"))).default


def in_evidence():
    """{tuning name (pP[-GROUP]): its runs} of auto's large evidence."""
    if not os.path.exists(os.path.join(ROOT, EVIDENCE)):
        return {}
    tunings, _ = evidence.tunings_and_bench(os.path.join(ROOT, EVIDENCE))
    return {t["name"].split("/")[-1]: t["runs"] for t in tunings}


def name(procs, group):
    return f"p{procs}{'-' + group if group else ''}"


def measured(procs):
    """{bytes: {algorithm: seconds}} of every run at `procs` (sync)."""
    times = {}
    for tuning, runs in sorted(in_evidence().items()):
        if not (tuning == f"p{procs}" or tuning.startswith(f"p{procs}-")):
            continue
        for run in runs:
            for cell in run["results"]:
                times.setdefault(cell["bytes"], {})[cell["algorithm"]] = \
                    cell["summary"]["seconds_per_bcast"]["median"]
    return times


def pruned(previous, sizes, everything, within, any_executor=False):
    """Those of `everything` within `within` of the fastest of them at any of `sizes` at the
    count before (with any_executor, each at its fastest under any executor measured)."""
    times = measured(previous)
    keep = set()
    for size in map(byte_size, sizes):
        mine = {}
        for a, t in times.get(size, {}).items():
            base = a.split("@")[0] if any_executor else a
            if base in everything:
                mine[base] = min(t, mine.get(base, t))
        if not mine:
            sys.exit(f"large-scale-tune: P={previous} has no {size} B to prune by: measure it")
        best = min(mine.values())
        keep |= {a for a, t in mine.items() if t <= within * best}
    return list(dict.fromkeys(a for a in everything if a in keep))


def tune(build, procs, group, sizes, candidates, emulated, references):
    json_path = path(procs, group, "json")
    stand_in = ["--stand-in", f"{OMPI_STAND_IN}={OMPI}"] if OMPI_STAND_IN in references else []
    references = [r for r in references if r != OMPI_STAND_IN]
    command = [os.path.join(build, "leancast-tune"), "--sim", "hornet", "--ranks-per-node",
               str(PER_NODE), "--procs", str(procs), "--methods", "sync",
               "--candidates", ",".join(candidates + references), "--reference", ",".join(emulated),
               *stand_in,
               "--sizes", ",".join(sizes), "--tie", TIE, "--tie-break", TIE_BREAK,
               "--out", path(procs, group, "rules"),
               "--json", json_path]
    print("+", " ".join(command), flush=True)
    with open(path(procs, group, "log"), "w") as log:
        done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"large-scale-tune: failed, see {path(procs, group, 'log')}")
    forget_cells(json_path)
    subprocess.run([sys.executable, evidence.__file__, "--add", "--parts", EVIDENCE,
                    f"{name(procs, group)}={json_path}"], check=True, cwd=ROOT)


def cells_dir():
    """leancast-sim's cache these runs use: CELLS unless LEANCAST_SIM_CACHE names another."""
    return os.environ.get("LEANCAST_SIM_CACHE") or os.path.join(ROOT, CELLS)


def forget_cells(json_path):
    """Removes from the cache (cells_dir()) the runs that a JSON now holds (leancast-tune's,
    or leancast-sim's own)."""
    with open(json_path) as f:
        data = json.load(f)
    keys = [record["key"] for run in data.get("runs", [data])
            for record in run.get("simulation", {}).get("runs", []) if "key" in record]
    for key in keys:
        cell = os.path.join(cells_dir(), key[:2], key + ".json")
        if os.path.exists(cell):
            os.remove(cell)
            if not os.listdir(os.path.dirname(cell)):
                os.rmdir(os.path.dirname(cell))


def ruled_counts():
    """{procs: its measured groups} of the counts whose measured sizes are each measured by
    every group that lists them. A size with a group missing would rest on part of the
    references (16 MiB at 1024 ranks without the rings group: without SMPI's ring, the
    library's fastest there; 64 KiB with only the executors group: against mpi alone); a size no
    group measured has no rule at that count, so auto runs mpi there."""
    ruled, have = {}, in_evidence()
    for procs, groups in PLAN:
        found = [(group, sizes) for group, sizes, _ in groups if name(procs, group) in have]
        measured = {s for _, sizes in found for s in sizes}
        if found and all(name(procs, group) in have
                         for group, sizes, _ in groups if measured & set(sizes)):
            ruled[procs] = [group for group, _ in found]
    return ruled


def complete_counts():
    """The counts whose every group of PLAN is measured: those scripts/large-scale.sh checks."""
    ruled = ruled_counts()
    return [procs for procs, groups in PLAN if len(ruled.get(procs, [])) == len(groups)]


def rules(tune, out):
    """The rules from ruled_counts(), from the evidence, into `out`."""
    ruled = ruled_counts()
    for procs, groups in PLAN:
        missing = [group for group, _, _ in groups if group not in ruled.get(procs, [])]
        if missing:
            ruling = (f"rules for the sizes of groups {', '.join(ruled[procs])}"
                      if procs in ruled else "no rules")
            print(f"large-scale-tune: P = {procs}: {ruling} (groups still to measure: "
                  f"{', '.join(missing)})")
    if set(in_evidence()) != {name(procs, group) for procs, groups in ruled.items()
                              for group in groups}:
        sys.exit(f"large-scale-tune: {EVIDENCE} holds groups of counts with groups still to "
                 "measure, which it would read too: measure them first")
    cover = f"{COVER_FROM}-{round(max(ruled) * 2 ** 0.5)}"
    command = [tune, "--from-json", EVIDENCE,
               "--procs-cover", cover, "--ppn", PPN, "--tie", TIE, "--tie-break", TIE_BREAK,
               "--library", "any",
               "--reference", EMULATED, "--out", out]
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build/smpi")
    parser.add_argument("--only", help="process counts to measure (default: all of PLAN)")
    parser.add_argument("--groups", help="of those, only these size groups (small, large, ...; "
                        "'' for a count's only group): two runs of this script can then "
                        "measure a count's groups at once")
    parser.add_argument("--rules", action="store_true", help="no measuring: the rules only")
    parser.add_argument("--tune", help="the leancast-tune that derives the rules (default: "
                        "--build's)")
    parser.add_argument("--out", default=RULES, help=f"the rules (default {RULES})")
    parser.add_argument("--complete", action="store_true",
                        help="no measuring: print the counts whose groups are all measured")
    parser.add_argument("--forget", metavar="JSON",
                        help="no measuring: remove from the cache (CELLS, or "
                             "$LEANCAST_SIM_CACHE) the runs this JSON holds "
                             "(scripts/large-scale.sh, after each of its runs)")
    args = parser.parse_args()
    os.chdir(ROOT)  # records name paths relative to the repository
    if args.complete:
        print(" ".join(map(str, complete_counts())))
        return
    if args.forget:
        forget_cells(args.forget)
        return
    os.makedirs(OUT, exist_ok=True)
    os.environ["LEANCAST_SIM_CACHE"] = cells_dir()
    if not args.rules:
        only = {int(p) for p in args.only.split(",")} if args.only else None
        chosen = set(args.groups.split(",")) if args.groups is not None else None
        everything = registry_candidates(args.build)
        emulated = EMULATED.split(",")
        previous = None
        for procs, groups in PLAN:
            for group, sizes, rings in groups:
                wanted = (only is None or procs in only) and (chosen is None or group in chosen)
                if wanted and name(procs, group) not in in_evidence():
                    if procs <= 512:
                        candidates, kept, references = everything, emulated, LIBRARY
                    else:
                        kept = pruned(previous, sizes, everything + emulated, PRUNE,
                                      any_executor=rings == "executors")
                        if procs >= FLAT_RINGS_FROM:
                            close = pruned(previous, sizes, everything + emulated, RING_PRUNE,
                                           any_executor=rings == "executors")
                            kept = [a for a in kept if a not in FLAT_RINGS or a in close]
                        candidates = [a for a in kept if a not in emulated]
                        kept = [a for a in kept if a in emulated]
                        references = pruned(previous, sizes, ["mpi"] + LIBRARY, REFERENCE_PRUNE)
                        references = [r for r in references if r != "mpi"
                                      and not (procs > 1024 and r in SAME_AS_TREE)]
                        references = list(dict.fromkeys(
                            ompi_in_place(procs, sizes) if r == OMPI else r
                            for r in references))
                    if rings == "executors":
                        candidates = [f"{a}@{e}" for e in EXECUTORS for a in candidates
                                      if a not in MPICH_RINGS]
                        kept, references = [], []
                    elif rings:
                        keep = (lambda a: a in MPICH_RINGS) if rings == "only" else \
                            (lambda a: a not in MPICH_RINGS)
                        candidates, kept, references = ([a for a in names if keep(a)]
                                                        for names in (candidates, kept, references))
                    tune(args.build, procs, group, sizes, candidates, kept, references)
            previous = procs
    rules(args.tune or os.path.join(args.build, "leancast-tune"), args.out)


if __name__ == "__main__":
    main()
