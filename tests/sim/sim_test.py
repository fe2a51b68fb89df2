#!/usr/bin/python3
"""SMPI tests: leancast at process counts real MPI cannot reach on this machine.

1. Every algorithm delivers every byte at P = 33 and P = 64 on the hornet model (a
   broadcast larger than P chunks and one smaller than P, so some chunks are empty), with
   one simulated host per core (the default: leancast-sim tells leancast the 24-rank
   nodes through LEANCAST_RANKS_PER_NODE, so node-aware broadcasts have two or three
   nodes) and, at P = 33, one host per node (--node-hosts: MPI_Comm_split_type sees them).
1b. leancast finds the nodes SMPI simulates: its verbose log names 3 nodes of up to 24
   ranks at P = 64 in both layouts (from LEANCAST_RANKS_PER_NODE with core hosts, from
   MPI_Comm_split_type with node hosts), 8 nodes with --ranks-per-node 8, and 4 nodes
   when the caller sets LEANCAST_RANKS_PER_NODE=16 itself (the caller's value wins).
2. Bad options are refused with a message (unknown platform, too many ranks per node,
   an SMPI or leancast algorithm that does not exist, both layouts at once), and a
   simulation that ends without a result (SMPI's ompi_split_bintree deadlocks at one rank
   per node, yet smpirun exits 0) fails with the smpirun command and SMPI's own words.
3. Simulations are deterministic: two identical leancast-sim runs give identical times
   (--no-cache: simulated both times). A third identical run comes from the cache, the same
   times (also with the cache named by LEANCAST_SIM_CACHE), and a changed option is
   simulated again. The cache knows the bench by a digest that a commit alone does not
   change (its revision and build-id left out) and any other byte does;
   scripts/large-scale-tune.py --forget takes a run's entries out of it. leancast-sim's one smpirun per algorithm
   gives the times one smpirun of all of them gives (--method sync: each broadcast starts
   from the same idle instant, whatever ran before it).
4. leancast's scatter-ring sends exactly MPICH's messages: run round by round
   (scatter-ring@rounds, LEANCAST_EXECUTOR=rounds) its simulated time equals that
   of SMPI's built-in scatter_LR_allgather (MPICH's scatter + ring; the dataflow executor
   overlaps the ring's steps, so its time differs). Simulated time is
   computed, not measured, so it can be compared exactly. This runs without the model's
   per-message costs: SMPI moves even an eager message only once its receive is posted,
   and MPICH's ring (MPI_Sendrecv) pays the send cost before it posts its receive, while
   leancast posts its receives first, so with the send cost the same messages take 23 %
   longer in MPICH's code at 12288 bytes (docs/benchmarks.md#the-one-node-model-against-the-real-node).
5. One node ranks the algorithms as the real 16-core node does (docs/benchmarks.md#the-one-node-model-against-the-real-node):
   at P = 16, 1 MiB, linear (the root's 15 messages share its send port) is slower than
   binomial, two-tree and pipeline-chain, and the JSON records the layout.
6. --method sync times a broadcast without the barrier's skew: SMPI's binomial tree of 1 KiB
   at P = 64 takes the same time behind SMPI's linear barrier and behind a tree barrier,
   while --method osu (a barrier before each broadcast) gives them different times.
Usage: sim_test.py LEANCAST_SIM BCAST_CHECK
"""
import concurrent.futures
import importlib.machinery
import json
import os
import struct
import subprocess
import sys
import tempfile
import types

# Some algorithms with a parameter; every_algorithm() adds every name of the registry.
WITH_PARAMETERS = ["pipeline-chain:8K", "knomial:3", "circulant:9",
                   "node-aware:pipeline-chain:8K/binomial",
                   "node-aware:circulant/scatter-ring-tuned"]


def registry(sim):
    """leancast's registry as leancast-plan beside leancast-sim lists it (JSON rows)."""
    plan = os.path.join(os.path.dirname(os.path.abspath(sim)), "leancast-plan")
    listed = subprocess.run([plan, "--json", "--list-algorithms"], capture_output=True,
                            text=True, check=True, timeout=60)
    return json.loads(listed.stdout)


def within_node(rows):
    """The within-node levels among registry rows (shm, cma, ...): copies through one node's
    memory, which SMPI does not simulate."""
    return sorted(row["name"] for row in rows if row.get("shared_memory"))


def every_algorithm(sim):
    """Every name in leancast's registry (auto and SMPI's own MPI_Bcast, mpi, too) but the
    within-node levels, which check_shm tests are refused, and WITH_PARAMETERS."""
    rows = registry(sim)
    levels = within_node(rows)
    return [row["name"] for row in rows if row["name"] not in levels] + WITH_PARAMETERS


def check_shm(sim, bcast_check):
    """The within-node levels are not simulated (SMPI would neither time their copies nor
    switch to the rank a waiting rank spins for): each, named, is refused with a message
    naming the cause, and auto, were its table to choose one, would fall back to SMPI's
    MPI_Bcast."""
    for level in within_node(registry(sim)):
        done = subprocess.run([sim, "--platform", "hornet", "--procs", "4", "--node-hosts",
                               "--run", bcast_check, "1000", level],
                              capture_output=True, text=True, timeout=300)
        expected = "shm, cma, cma-split: not under SMPI"
        if done.returncode == 0 or expected not in done.stdout + done.stderr:
            sys.exit(f"FAILED: {level} under SMPI: expected an error with '{expected}':\n"
                     f"{done.stdout}{done.stderr}")
        print(f"{level} under SMPI: refused, naming the cause")


def check_data(sim, bcast_check, procs, size, layout=()):
    algorithms = every_algorithm(sim)
    done = subprocess.run([sim, "--platform", "hornet", "--procs", str(procs), *layout, "--run",
                           bcast_check, str(size)] + algorithms,
                          capture_output=True, text=True, timeout=300)
    rows = [line.split() for line in done.stdout.splitlines()[1:] if line.strip()]
    ok = [row[0] for row in rows if len(row) >= 3 and row[2] == "ok"]
    if done.returncode != 0 or ok != algorithms:
        sys.exit(f"FAILED: P={procs} {size} bytes {' '.join(layout)}: {done.stdout}{done.stderr}")
    print(f"P={procs:3} {size:8} bytes {' '.join(layout)}: every byte right with {', '.join(ok)}")


def check_nodes(sim, bcast_check, layout, expected, ranks_per_node=None):
    """`ranks_per_node`: the caller's own LEANCAST_RANKS_PER_NODE (None: unset)."""
    env = dict(os.environ, LEANCAST_VERBOSE="1")
    env.pop("LEANCAST_RANKS_PER_NODE", None)
    if ranks_per_node is not None:
        env["LEANCAST_RANKS_PER_NODE"] = str(ranks_per_node)
    done = subprocess.run([sim, "--platform", "hornet", "--procs", "64", *layout, "--run",
                           bcast_check, "5000", "node-aware"],
                          capture_output=True, text=True, timeout=300, env=env)
    name = " ".join(layout) or "default layout"
    if ranks_per_node is not None:
        name += f", LEANCAST_RANKS_PER_NODE={ranks_per_node}"
    if done.returncode != 0 or expected not in done.stderr:
        sys.exit(f"FAILED: {name}: expected '{expected}' in the verbose log:\n"
                 f"{done.stdout}{done.stderr}")
    print(f"{name}: leancast sees {expected}")


# SMPI's per-message costs (smpi/ois, smpi/os, smpi/or) switched off.
NO_MESSAGE_COSTS = [a for key in ("ois", "os", "or")
                    for a in ("--smpi-config", f"smpi/{key}:0:0:0")]


def simulate(sim, out, algorithms, extra=(), cache=("--no-cache",), env=None):
    """{(algorithm, bytes): per-repetition seconds} of a run at P = 33, and which of its
    smpiruns came from the cache."""
    command = [sim, "--platform", "hornet", "--procs", "33", "--algorithms", algorithms,
               "--sizes", "12288,524287", "--iterations", "2", "--json", out, *cache, *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}\n{done.stdout}{done.stderr}")
    with open(out) as f:
        run = json.load(f)
    times = {(c["algorithm"], c["bytes"]): [r["seconds_per_bcast"] for r in c["reps"]]
             for c in run["results"]}
    return times, [r["cached"] for r in run["simulation"]["runs"]]


def check_bench_digest(sim):
    """The cache knows the bench by a digest that leaves out the revision it reports and the
    linker's build-id (so cached runs outlive a commit that changes no code), and nothing
    else: the revision lies in the bench as one string (not in code, where the digest could
    not leave it out), a copy differing there and in the build-id has the same digest, and a
    copy with one other byte changed has another."""
    loader = importlib.machinery.SourceFileLoader("leancast_sim", sim)
    module = types.ModuleType(loader.name)
    loader.exec_module(module)
    with open(module.BENCH, "rb") as f:
        bench = f.read()
    revision = module.REVISION.encode()
    note = struct.pack("<III", 4, 20, 3) + b"GNU\0"
    counts = (bench.count(revision + b"\0"), bench.count(note))
    if counts != (1, 1):
        sys.exit(f"FAILED: the bench holds its revision {revision} as a string {counts[0]} "
                 f"times, a build-id {counts[1]} times")
    other_revision = "x" * len(revision)  # what a build at another commit reports
    other = bench.replace(revision + b"\0", other_revision.encode() + b"\0")
    at = other.find(note) + len(note)
    other = other[:at] + bytes(reversed(other[at:at + 20])) + other[at + 20:]
    middle = len(bench) // 2
    changed = bench[:middle] + bytes([bench[middle] ^ 1]) + bench[middle + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        digests = []
        own_revision = module.REVISION
        for name, content, reported in (("same", bench, own_revision),
                                        ("other", other, other_revision),
                                        ("changed", changed, own_revision)):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(content)
            module.REVISION = reported  # as leancast-sim configured at that commit says
            digests.append(module.bench_digest(os.path.join(tmp, name)))
    if digests[0] != digests[1] or digests[0] == digests[2] or other == bench:
        sys.exit(f"FAILED: bench digests {digests} (same, another revision and build-id, "
                 "a byte changed)")
    print("bench digest: a revision and a build-id apart, the same; a byte apart, another")


def check_cache_and_runs(sim, tmp, simulated):
    """Test 3's cache and the one smpirun per algorithm: `simulated` are times simulated
    without the cache."""
    cache = ("--cache", os.path.join(tmp, "cache"))
    algorithms = "scatter-ring,scatter-ring-tuned,smpi:scatter_LR_allgather"
    first, fresh = simulate(sim, os.path.join(tmp, "c1.json"), algorithms, cache=cache)
    again, cached = simulate(sim, os.path.join(tmp, "c2.json"), algorithms, cache=cache)
    _, changed = simulate(sim, os.path.join(tmp, "c3.json"), algorithms, ("--iterations", "1"),
                          cache=cache)
    # The folder named by the environment instead: where the cache lies is not an input.
    _, by_env = simulate(sim, os.path.join(tmp, "c4.json"), algorithms, cache=(),
                         env={"LEANCAST_SIM_CACHE": cache[1]})
    if (first, again) != (simulated, simulated) or any(fresh) or not all(cached) or any(changed) \
            or not all(by_env):
        sys.exit(f"FAILED: cache: simulated {fresh}, then cached {cached}, other options "
                 f"cached {changed}, through LEANCAST_SIM_CACHE {by_env}; times {first} "
                 f"{again} against {simulated}")
    print(f"cache: an identical run read back ({len(cached)} smpiruns; also through "
          "LEANCAST_SIM_CACHE), another simulated")
    # scripts/large-scale-tune.py --forget: the runs a JSON holds leave the cache.
    forget = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "scripts", "large-scale-tune.py")
    subprocess.run([sys.executable, forget, "--forget", os.path.join(tmp, "c1.json")],
                   check=True, timeout=60, env=dict(os.environ, LEANCAST_SIM_CACHE=cache[1]))
    _, after = simulate(sim, os.path.join(tmp, "c5.json"), algorithms, cache=cache)
    if any(after):
        sys.exit(f"FAILED: large-scale-tune.py --forget left cached runs: {after}")
    print("cache: large-scale-tune.py --forget took a run's smpiruns out of it")
    check_bench_digest(sim)
    # The same broadcasts in one smpirun of leancast-bench, through --run.
    out = os.path.join(tmp, "together.json")
    done = subprocess.run([sim, "--platform", "hornet", "--procs", "33", "--run",
                           os.path.join(os.path.dirname(os.path.abspath(sim)), "leancast-bench-sim"),
                           "--algorithms", "scatter-ring,scatter-ring-tuned", "--sizes",
                           "12288,524287", "--iterations", "2", "--warmup", "0", "--reps", "1",
                           "--method", "sync", "--json", out, "--quiet"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"FAILED: one smpirun of both: {done.stdout}{done.stderr}")
    with open(out) as f:
        together = {(c["algorithm"], c["bytes"]): [r["seconds_per_bcast"] for r in c["reps"]]
                    for c in json.load(f)["results"]}
    alone = {k: v for k, v in simulated.items() if k in together}
    # Equal to SimGrid's precision (1e-9 s): the clock at which a cell starts differs.
    close = len(together) == 4 and all(
        len(together[k]) == len(alone[k]) and
        all(abs(a - b) <= 1e-9 for a, b in zip(together[k], alone[k])) for k in together)
    if not close:
        sys.exit(f"FAILED: one smpirun of both {together}, one each {alone}")
    print("one smpirun per algorithm: the same times as one smpirun of both")


def check_sync(sim, tmp):
    """Test 6."""
    times = {}
    for method in ("sync", "osu"):
        for barrier in ("ompi_basic_linear", "ompi_tree"):
            out = os.path.join(tmp, f"{method}-{barrier}.json")
            command = [sim, "--platform", "hornet", "--procs", "64", "--algorithms",
                       "smpi:binomial_tree", "--sizes", "1K", "--method", method, "--no-cache",
                       "--smpi-config", f"smpi/barrier:{barrier}", "--json", out]
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                sys.exit(f"FAILED: {' '.join(command)}\n{done.stdout}{done.stderr}")
            with open(out) as f:
                times[(method, barrier)] = json.load(f)["results"][0]["summary"][
                    "seconds_per_bcast"]["median"]
    sync_same = times[("sync", "ompi_basic_linear")] == times[("sync", "ompi_tree")]
    osu_differs = times[("osu", "ompi_basic_linear")] != times[("osu", "ompi_tree")]
    if not (sync_same and osu_differs):
        sys.exit(f"FAILED: sync should not depend on the barrier, osu should: {times}")
    print(f"sync: {times[('sync', 'ompi_tree')] * 1e6:.2f} us behind either barrier; osu: "
          f"{times[('osu', 'ompi_basic_linear')] * 1e6:.2f} us (linear barrier), "
          f"{times[('osu', 'ompi_tree')] * 1e6:.2f} us (tree)")


def check_one_node(sim, out):
    """Test 5: at P = 16 on one node linear is slower than the trees and the chain."""
    others = ["binomial", "two-tree", "pipeline-chain"]
    command = [sim, "--platform", "hornet", "--procs", "16", "--algorithms",
               ",".join(["linear"] + others), "--sizes", "1M", "--iterations", "2",
               "--json", out]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}\n{done.stdout}{done.stderr}")
    with open(out) as f:
        run = json.load(f)
    seconds = {c["algorithm"]: c["summary"]["seconds_per_bcast"]["median"]
               for c in run["results"]}
    faster = [a for a in others if seconds[a] < seconds["linear"]]
    layout = (run["simulation"]["host_per"], run["simulation"]["leancast_ranks_per_node"])
    if faster != others or layout != ("core", "24"):
        sys.exit(f"FAILED: P=16, 1 MiB: linear {seconds['linear']:.6g} s should be slower than "
                 f"{', '.join(others)} ({seconds}); layout {layout} should be core hosts, "
                 "LEANCAST_RANKS_PER_NODE=24")
    print(f"P=16, 1 MiB, one node: linear {seconds['linear']:.6g} s, slower than "
          + ", ".join(f"{a} {seconds[a]:.6g} s" for a in others))


def check_refused(sim, args, expected):
    done = subprocess.run([sim] + args, capture_output=True, text=True, timeout=120)
    if done.returncode == 0 or expected not in done.stdout + done.stderr:
        sys.exit(f"FAILED: leancast-sim {' '.join(args)} should fail with '{expected}':\n"
                 f"{done.stdout}{done.stderr}")
    print(f"refused as expected: {' '.join(args)}")


def main(sim, bcast_check):
    checks = [
        (check_refused, sim, ["--platform", "cray", "--procs", "4"], "no platform 'cray'"),
        (check_refused, sim, ["--platform", "hornet", "--procs", "4", "--ranks-per-node", "25"],
         "nodes have 24 cores"),
        (check_refused, sim, ["--platform", "hornet", "--procs", "4", "--algorithms",
                              "smpi:nonsense"], "has no algorithm 'nonsense'"),
        (check_refused, sim, ["--platform", "hornet", "--procs", "4", "--algorithms", "ring"],
         "unknown algorithm 'ring'"),
        (check_refused, sim, ["--platform", "hornet", "--procs", "4", "--core-hosts",
                              "--node-hosts"], "not allowed with argument"),
        (check_refused, sim, ["--platform", "hornet", "--procs", "8", "--ranks-per-node", "1",
                              "--algorithms", "smpi:ompi_split_bintree", "--sizes", "1M"],
         "smpirun failed"),
        *[(check_data, sim, bcast_check, procs, size)
          for procs in (33, 64) for size in (1000003, procs - 7)],
        (check_data, sim, bcast_check, 33, 1000003, ("--node-hosts",)),
        (check_shm, sim, bcast_check),
        (check_nodes, sim, bcast_check, (), "on 3 node(s), up to 24 ranks each"),
        (check_nodes, sim, bcast_check, ("--core-hosts",), "on 3 node(s), up to 24 ranks each"),
        (check_nodes, sim, bcast_check, ("--node-hosts",), "on 3 node(s), up to 24 ranks each"),
        (check_nodes, sim, bcast_check, ("--ranks-per-node", "8"),
         "on 8 node(s), up to 8 ranks each"),
        (check_nodes, sim, bcast_check, (), "on 4 node(s), up to 16 ranks each", 16),
    ]
    # Each is one smpirun, a process on one core: two at a time. A failing one's SystemExit
    # comes out of result(), and the checks not started are dropped.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        try:
            for future in [pool.submit(*check) for check in checks]:
                future.result()
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    with tempfile.TemporaryDirectory() as tmp:
        algorithms = "scatter-ring,scatter-ring-tuned,smpi:scatter_LR_allgather"
        first, _ = simulate(sim, os.path.join(tmp, "first.json"), algorithms)
        second, _ = simulate(sim, os.path.join(tmp, "second.json"), algorithms)
        check_cache_and_runs(sim, tmp, first)
        without_costs, _ = simulate(sim, os.path.join(tmp, "no-costs.json"),
                                    "scatter-ring@rounds,smpi:scatter_LR_allgather",
                                    NO_MESSAGE_COSTS)
        check_one_node(sim, os.path.join(tmp, "one-node.json"))
        check_sync(sim, tmp)
    if first != second:
        sys.exit(f"FAILED: two identical simulations differ:\n{first}\n{second}")
    print(f"deterministic: two runs gave the same {len(first)} cells")
    for size in (12288, 524287):
        ours = without_costs[("scatter-ring@rounds", size)][0]
        smpi = without_costs[("smpi:scatter_LR_allgather", size)][0]
        if abs(ours - smpi) > 1e-6 * smpi:  # SimGrid solves to 1e-9 s precision
            sys.exit(f"FAILED: {size} bytes: scatter-ring@rounds {ours} s, SMPI's {smpi} s")
        print(f"{size} bytes: scatter-ring@rounds = smpi:scatter_LR_allgather = {ours:.6g} s "
              "(simulated)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
