"""leancast-tune --library-algorithms: the MPI library's own broadcasts measured and its own
tuning file written. From synthetic measurements (--from-json): Open MPI's coll_tuned dynamic
rules file and MPICH's selection JSON, number by number and branch by branch. On the real
library: the file is loaded and takes effect. Open MPI: a shim (LD_PRELOAD) before libmpi's
broadcast algorithms names the one coll_tuned called. MPICH: a broadcast whose receivers
expect half the bytes fails, and MPICH's error stack names the algorithm that ran.

Usage: library_test.py TUNE FLAVOR LIBRARY_BCAST SPY|- MPIEXEC [MPIEXEC_FLAGS...]
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from rule_ranges import covers  # noqa: E402
from tune_package import K, M, bench_run  # noqa: E402 (the synthetic runs tune tests share)
from leancast_tune.library import LIBRARY_DEFAULTS, schedule_analogue  # noqa: E402

TUNE, FLAVOR, PROGRAM, SPY, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]


def tune(*args, timeout=120):
    return subprocess.run(["timeout", str(timeout), TUNE, *args], capture_output=True,
                          text=True, timeout=timeout + 30)


def saved(directory, name, runs, candidates):
    path = os.path.join(directory, name + ".json")
    with open(path, "w") as f:
        json.dump({"command": ["fixture"], "library_algorithms": True,
                   "methods": ["paper", "osu"], "candidates": candidates, "runs": runs}, f)
    return path


# Open MPI: at P = 2 the pipeline of 1 KiB segments is 2x faster from 64 KiB, 1 KiB ties
# (the default stays); at P = 4 linear wins 1 KiB, 64 KiB ties, the chain of 8 KiB segments
# wins 1 MiB.
OMPI_CANDIDATES = ["mpi", "ompi:1", "ompi:3:1K", "ompi:2:8K"]
OMPI_TIMES = {
    2: {("mpi", K): 1e-6, ("ompi:1", K): 1.005e-6, ("ompi:3:1K", K): 3e-6, ("ompi:2:8K", K): 2e-6,
        ("mpi", 64 * K): 2e-5, ("ompi:1", 64 * K): 2e-5, ("ompi:3:1K", 64 * K): 1e-5,
        ("ompi:2:8K", 64 * K): 3e-5,
        ("mpi", M): 4e-4, ("ompi:1", M): 4e-4, ("ompi:3:1K", M): 2e-4, ("ompi:2:8K", M): 5e-4},
    4: {("mpi", K): 2e-6, ("ompi:1", K): 1e-6, ("ompi:3:1K", K): 5e-6, ("ompi:2:8K", K): 4e-6,
        ("mpi", 64 * K): 3e-5, ("ompi:1", 64 * K): 3e-5, ("ompi:3:1K", 64 * K): 3.01e-5,
        ("ompi:2:8K", 64 * K): 4e-5,
        ("mpi", M): 8e-4, ("ompi:1", M): 9e-4, ("ompi:3:1K", M): 9e-4, ("ompi:2:8K", M): 4e-4},
}
# What the file must say: 1 collective, bcast (7), 2 communicator sizes; from 1 process:
# 2 message sizes, from 0 bytes algorithm 0 (the fixed decision), from 8192 (halfway to
# 64 KiB) the pipeline (3) with 1 KiB segments; from 3 processes: linear (1) from 0,
# the default from 8192, the chain (2, 4 chains) of 8 KiB segments from 262144.
OMPI_NUMBERS = [1, 7, 2,
                1, 2, 0, 0, 0, 0, 8192, 3, 0, 1024,
                3, 3, 0, 1, 0, 0, 8192, 0, 0, 0, 262144, 2, 4, 8192]

# MPICH: at P = 2 the scatter-ring broadcast wins from 64 KiB; at P = 4 smp wins 1 KiB.
MPICH_CANDIDATES = ["mpi", "mpich:binomial", "mpich:scatter_ring_allgather", "mpich:smp"]
MPICH_TIMES = {
    2: {("mpi", K): 1e-6, ("mpich:binomial", K): 1e-6, ("mpich:scatter_ring_allgather", K): 2e-6,
        ("mpich:smp", K): 1.5e-6,
        ("mpi", 64 * K): 2e-5, ("mpich:binomial", 64 * K): 2e-5,
        ("mpich:scatter_ring_allgather", 64 * K): 1e-5, ("mpich:smp", 64 * K): 2e-5},
    4: {("mpi", K): 2e-6, ("mpich:binomial", K): 2e-6, ("mpich:scatter_ring_allgather", K): 3e-6,
        ("mpich:smp", K): 1e-6,
        ("mpi", 64 * K): 3e-5, ("mpich:binomial", 64 * K): 3e-5,
        ("mpich:scatter_ring_allgather", 64 * K): 3e-5, ("mpich:smp", 64 * K): 3e-5},
}
BASE_INTRA = {"comm_size<8": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
              "comm_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}
BASE = {"collective=bcast": {"comm_type=intra": BASE_INTRA, "comm_type=inter": {
            "algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
        "collective=allreduce": {"comm_type=intra": {
            "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}}


def numbers(path):
    """The numbers coll_tuned reads: '#' starts a comment to the end of the line."""
    with open(path) as f:
        return [int(word) for line in f for word in line.split("#")[0].split()]


class FromJson(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()

    def ompi_rules(self, name="ompi"):
        runs = [bench_run(p, m, OMPI_TIMES[p]) for p in (2, 4) for m in ("paper", "osu")]
        out = os.path.join(self.dir, name + ".rules")
        done = tune("--library-algorithms", "--from-json",
                    saved(self.dir, name, runs, OMPI_CANDIDATES), "--out-ompi-rules", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        return out, done.stdout

    def test_ompi_rules_file(self):
        out, text = self.ompi_rules()
        self.assertEqual(numbers(out), OMPI_NUMBERS, text)
        self.assertRegex(text, r"8192 3 0 1024  # bytes 8K-: ompi:3:1K pipeline; 64K: 2\.00x "
                               r"over the default")
        self.assertIn("coll_tuned_dynamic_rules_filename", text)

    def test_mpich_json(self):
        runs = [bench_run(p, m, MPICH_TIMES[p]) for p in (2, 4) for m in ("paper", "osu")]
        base = os.path.join(self.dir, "base.json")
        with open(base, "w") as f:
            json.dump(BASE, f)
        out = os.path.join(self.dir, "mpich.json")
        done = tune("--library-algorithms", "--from-json",
                    saved(self.dir, "mpich", runs, MPICH_CANDIDATES), "--out-mpich-json", out,
                    "--mpich-base", base)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out) as f:
            tree = json.load(f)
        self.assertEqual(list(tree), list(BASE))  # every collective, in the base's order
        self.assertEqual(tree["collective=allreduce"], BASE["collective=allreduce"])
        bcast = tree["collective=bcast"]
        self.assertEqual(bcast["comm_type=inter"], BASE["collective=bcast"]["comm_type=inter"])
        self.assertEqual(json.dumps(bcast["comm_type=intra"]), json.dumps({
            "comm_size<=2": {"avg_msg_size<=8191": BASE_INTRA,
                             "avg_msg_size=any": {
                                 "algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}},
            "comm_size=any": {"avg_msg_size<=8191": {
                                  "comm_hierarchy=parent": {
                                      "algorithm=MPIR_Bcast_intra_smp": {}},
                                  "comm_hierarchy=any": BASE_INTRA},
                              "avg_msg_size=any": BASE_INTRA}}))
        self.assertIn("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", done.stdout)

    def test_refusals(self):
        runs = [bench_run(2, m, {("mpi", K): 1e-6, ("ompi:1", K): 5e-7},
                          mpi_library="MPICH 4.0.2") for m in ("paper", "osu")]
        path = saved(self.dir, "wrong", runs, ["mpi", "ompi:1"])
        out = os.path.join(self.dir, "x")
        for args, message in (
            (["--from-json", path, "--out-ompi-rules", out], "not the library"),
            (["--from-json", path, "--out-ompi-rules", out, "--out-mpich-json", out],
             "one library's file"),
            (["--from-json", path, "--out-ompi-rules", out, "--out", out], "not leancast rules"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--candidates", "binomial",
              "--out-ompi-rules", out], "not a ompi:"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--candidates", "ompi:12",
              "--out-ompi-rules", out], "N in 1..9"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--candidates", "mpich:tree",
              "--out-mpich-json", out], "mpich:NAME"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--predict",
              "--out-ompi-rules", out], "--predict measures --budget-cells N"),
        ):
            done = tune("--library-algorithms", *args, timeout=60)
            self.assertNotEqual(done.returncode, 0, args)
            self.assertIn(message, done.stderr, args)
        done = tune("--launcher", "mpirun -n {procs}", "--procs", "2", "--out", out,
                    "--out-ompi-rules", out, timeout=60)
        self.assertIn("go with --library-algorithms", done.stderr)



def scatter_ring_times(procs, name, noise=None):
    """The default a binomial tree, `name` a scatter-ring broadcast, 2 us a message and
    0.1 ns a byte (noise: the ring's factor per (procs, bytes)), at 1 KiB, 64 KiB, 1 MiB."""
    depth = math.log2(procs)
    times = {}
    for size in (K, 64 * K, M):
        times[("mpi", size)] = 2e-6 * depth + size * depth * 1e-10
        ring = 2e-6 * (depth + procs - 1) + 2 * size * 1e-10 * (procs - 1) / procs
        times[(name, size)] = ring * (noise or {}).get((procs, size), 1.0)
    return times


def evidence_by_count(lines):
    """{communicator size claimed from: [evidence of each size]} of the file's rule lines
    (Open MPI's: "BYTES ALG FAN SEG  # bytes RANGE: NAME; EVIDENCE | ...", MPICH's printed
    "  procs=RANGE bytes=RANGE: NAME  # EVIDENCE | ...")."""
    out, count = {}, None
    for line in lines:
        claimed = re.search(r"# communicator size: (\d+)|^  procs=(\d+)", line)
        count = int(claimed.group(1) or claimed.group(2)) if claimed else count
        rule = re.match(r"^\d+ \d+ \d+ \d+  # bytes [^;]*; (.*)$|^  procs=.*?  # (.*)$", line)
        if rule:
            out.setdefault(count, []).extend((rule.group(1) or rule.group(2)).split(" | "))
    return out


class Predicted(unittest.TestCase):
    """--predict: cells measured at P = 2 and 8 of the grid 2, 4, 8; P = 4 predicted from
    the schedules (leancast-plan of this build), every size of the file said measured or
    predicted, and a prediction within its validation error left to the default."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()

    def predicted(self, kind, name, noise=None):
        runs = [bench_run(p, m, scatter_ring_times(p, name, noise), spread=0,
                          mpi_library={"ompi": "Open MPI v4.1.4", "mpich": "MPICH 4.0.2"}[kind])
                for p in (2, 8) for m in ("paper", "osu")]
        path = saved(self.dir, f"{kind}-{bool(noise)}", runs, ["mpi", name])
        out = os.path.join(self.dir, f"{kind}-{bool(noise)}.out")
        flag = "--out-ompi-rules" if kind == "ompi" else "--out-mpich-json"
        done = tune("--library-algorithms", "--predict", "--from-json", path, "--procs",
                    "2,4,8", "--sizes", "1K,64K,1M", flag, out)
        self.assertEqual(done.returncode, 0, done.stderr)
        if kind == "mpich":
            lines = done.stdout.splitlines()
        else:
            with open(out) as f:
                lines = f.read().splitlines()
        said = evidence_by_count(lines)
        for count, parts in said.items():
            self.assertEqual([p.split(":")[0] for p in parts], ["1K", "64K", "1M"], said)
            kinds = {re.match(r"\S+: (measured|predicted)[ ,]", p).group(1) for p in parts}
            self.assertEqual(kinds, {"predicted"} if count == 3 else {"measured"}, parts)
        return out, lines, said

    def test_ompi_rules_predicted_where_not_measured(self):
        out, lines, said = self.predicted("ompi", "ompi:9")
        self.assertIn("3 predicted", "\n".join(lines))
        # The ring's lead at 4 ranks, 1 MiB follows from its schedule: the file gives it 1M.
        self.assertRegex(said[3][-1], r"^1M: predicted ompi:9 lead [\d.]+% over mpi")
        values = numbers(out)
        self.assertEqual(values[:3], [1, 7, 3])
        self.assertIn([262144, 9, 0, 0], [values[i:i + 4] for i in range(len(values))])

    def test_mpich_json_predicted_where_not_measured(self):
        out, lines, said = self.predicted("mpich", "mpich:scatter_ring_allgather")
        with open(out) as f:
            intra = json.load(f)["collective=bcast"]["comm_type=intra"]
        self.assertEqual(list(intra), ["comm_size<=2", "comm_size<=5", "comm_size=any"])
        self.assertRegex(said[3][-1], r"^1M: predicted mpich:scatter_ring_allgather lead")
        self.assertEqual(intra["comm_size<=5"]["avg_msg_size=any"],
                         {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}})

    def test_every_analogue_is_a_schedule_of_this_build(self):
        plan = os.path.join(os.path.dirname(TUNE), "leancast-plan")
        for name in LIBRARY_DEFAULTS["openmpi"] + LIBRARY_DEFAULTS["mpich"]:
            analogue = schedule_analogue(name, 64 * K)
            if analogue:
                done = subprocess.run([plan, "-a", analogue, "-p", "6", "-b", "64K",
                                       "--ranks-per-node", "3", "--json", "--no-steps"],
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 0, (name, analogue, done.stderr))
        self.assertEqual(schedule_analogue("ompi:3", 5000), "pipeline-chain:5000")
        self.assertEqual(schedule_analogue("ompi:5:8K", M), "pipeline-binary-tree:8192")
        self.assertIsNone(schedule_analogue("ompi:6:8K", M))

    def test_within_the_validation_error_the_default_stays(self):
        noise = {(2, K): 1.0, (2, 64 * K): 0.6, (2, M): 1.4, (8, K): 0.7, (8, 64 * K): 1.3,
                 (8, M): 0.8}  # the ring's times off its schedule by up to 40 %
        out, lines, said = self.predicted("ompi", "ompi:9", noise)
        fallbacks = [p for p in said[3] if p.endswith("within it, so mpi")]
        self.assertTrue(fallbacks, said[3])
        at = lines.index("3  # communicator size: 3-5 processes (decided at 4)")
        self.assertEqual(lines[at + 1], "1  # message sizes")  # every size: the fixed decision
        self.assertTrue(lines[at + 2].startswith("0 0 0 0  # bytes *: "), lines[at + 2])


def launch(procs, args, env=None, timeout=60):
    command = ["timeout", str(timeout), *LAUNCHER, "-n", str(procs), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30,
                          env=dict(os.environ, **(env or {})))


def measured_predicted(test, flag, candidates, procs):
    """--library-algorithms --predict --budget-cells 2 on this machine: at most 2 cells
    (count, size) measured, every size of the grid said measured or predicted. Returns the
    file's path, the printed lines and the cells measured."""
    directory = tempfile.mkdtemp()
    out, record = os.path.join(directory, "predicted"), os.path.join(directory, "saved.json")
    done = tune("--library-algorithms", "--predict", "--budget-cells", "2", "--launcher",
                " ".join(LAUNCHER) + " -n {procs}", "--procs", procs, "--sizes", "1K,64K",
                "--candidates", candidates, "--methods", "paper", "--iterations", "20",
                "--reps", "3", flag, out, "--json", record, timeout=300)
    test.assertEqual(done.returncode, 0, done.stderr)
    with open(record) as f:
        saved_run = json.load(f)
    cells = {(run["environment"]["procs"], r["bytes"]) for run in saved_run["runs"]
             for r in run["results"]}
    test.assertLessEqual(len(cells), 2, cells)
    test.assertEqual(sorted(cells), sorted(map(tuple, saved_run["predict"]["measured_order"])))
    lines = done.stdout.splitlines()
    if flag == "--out-ompi-rules":
        with open(out) as f:
            lines = f.read().splitlines()
    for parts in evidence_by_count(lines).values():
        test.assertEqual([p.split(":")[0] for p in parts], ["1K", "64K"], lines)
        for part in parts:
            test.assertRegex(part, r"^\S+: (measured|predicted)[ ,]")
    return out, done.stdout, cells


@unittest.skipUnless(FLAVOR == "openmpi", "Open MPI's coll_tuned")
class OpenMpi(unittest.TestCase):
    """The rules file is read by coll_tuned and decides: the shim names what ran."""

    def spied(self, procs, size, rules=None):
        """The set of (function, segsize) the ranks' MPI_Bcast of `size` bytes called."""
        args = ["-x", f"LD_PRELOAD={SPY}"]
        if rules:
            args += ["--mca", "coll_tuned_use_dynamic_rules", "1",
                     "--mca", "coll_tuned_dynamic_rules_filename", rules]
        done = launch(procs, args + [PROGRAM, str(size)])
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("WRONG", done.stdout)
        calls = re.findall(rf"spy: ompi_coll_base_bcast_intra_(\w+) count={size} "
                           r"segsize=(\d+)", done.stderr)
        self.assertEqual(len(calls), procs, done.stderr)  # every rank, once
        return set(calls)

    def test_synthetic_file_takes_effect(self):
        rules, _ = self.write_synthetic()
        self.assertEqual(self.spied(2, 64 * K, rules), {("pipeline", "1024")})
        self.assertEqual(self.spied(4, M, rules), {("chain", "8192")})
        self.assertEqual(self.spied(4, K, rules), {("basic_linear", "0")})
        # Without the file Open MPI decides otherwise at these points, and where the file
        # says 0 it decides as without the file.
        self.assertNotEqual(self.spied(2, 64 * K), {("pipeline", "1024")})
        self.assertNotEqual(self.spied(4, M), {("chain", "8192")})
        self.assertEqual(self.spied(2, K, rules), self.spied(2, K))

    def write_synthetic(self):
        directory = tempfile.mkdtemp()
        runs = [bench_run(p, m, OMPI_TIMES[p], mpi_library="Open MPI v4.1.4")
                for p in (2, 4) for m in ("paper", "osu")]
        out = os.path.join(directory, "synthetic.rules")
        done = tune("--library-algorithms", "--from-json",
                    saved(directory, "synthetic", runs, OMPI_CANDIDATES), "--out-ompi-rules", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(numbers(out), OMPI_NUMBERS)
        return out, done.stdout

    def test_measured_file(self):
        directory = tempfile.mkdtemp()
        out = os.path.join(directory, "measured.rules")
        launcher = " ".join(LAUNCHER) + " -n {procs}"
        done = tune("--library-algorithms", "--launcher", launcher, "--procs", "2",
                    "--sizes", "1K,64K", "--candidates", "ompi:1,ompi:3:1K", "--methods",
                    "paper", "--iterations", "20", "--reps", "3", "--out-ompi-rules", out,
                    "--json", os.path.join(directory, "measured.json"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("OMPI_MCA_coll_tuned_bcast_algorithm=3 "
                      "OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize=1024", done.stdout)
        values = numbers(out)
        self.assertEqual(values[:4], [1, 7, 1, 1])  # bcast, one communicator size from 1
        rules = [values[5 + 4 * i:9 + 4 * i] for i in range(values[4])]
        self.assertEqual(rules[0][0], 0)
        for size in (K, 64 * K):
            rule = [r for r in rules if r[0] <= size][-1]
            expected = {0: None, 1: {("basic_linear", "0")}, 3: {("pipeline", "1024")}}[rule[1]]
            spied = self.spied(2, size, out)
            self.assertEqual(spied, expected or self.spied(2, size), (size, rule))

    def test_predicted_measured_file(self):
        """At 3 ranks, measured or not, coll_tuned runs what the file says for 1 KiB."""
        out, _, _ = measured_predicted(self, "--out-ompi-rules", "ompi:1,ompi:9", "2,3,4")
        values = numbers(out)
        at = 3 + 2 + 4 * values[4]  # the second communicator size: from 3 processes
        self.assertEqual(values[at], 3, values)
        rules = [values[at + 2 + 4 * i:at + 6 + 4 * i] for i in range(values[at + 1])]
        rule = [r for r in rules if r[0] <= K][-1]
        expected = {0: None, 1: {("basic_linear", "0")},
                    9: {("scatter_allgather_ring", "0")}}[rule[1]]
        self.assertEqual(self.spied(3, K, out), expected or self.spied(3, K), rules)


@unittest.skipUnless(FLAVOR == "mpich", "MPICH's selection JSON")
class Mpich(unittest.TestCase):
    """The JSON is read by MPICH and decides: its error stack names what ran."""

    def algorithm(self, size, json_file=None, procs=2):
        env = {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": json_file} if json_file else {}
        done = launch(procs, [PROGRAM, str(size), "truncate"], env)
        self.assertIn("MPI_Bcast failed", done.stdout, done.stderr)  # the truncation
        found = set(re.findall(r"(MPIR_Bcast_(?:intra_\w+|allcomm_nb))\(\d+\)", done.stdout))
        self.assertEqual(len(found), 1, done.stdout + done.stderr)
        self.assertNotIn("Assertion failed", done.stderr)  # the allreduce found its branch
        return found.pop()

    def test_synthetic_file_takes_effect(self):
        directory = tempfile.mkdtemp()
        runs = [bench_run(p, m, MPICH_TIMES[p], mpi_library="MPICH Version: 4.0.2")
                for p in (2, 4) for m in ("paper", "osu")]
        out = os.path.join(directory, "synthetic.json")
        done = tune("--library-algorithms", "--from-json",
                    saved(directory, "synthetic", runs, MPICH_CANDIDATES), "--out-mpich-json",
                    out)  # the base: the tree built into libmpich
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.algorithm(64 * K, out), "MPIR_Bcast_intra_scatter_ring_allgather")
        self.assertEqual(self.algorithm(64 * K), "MPIR_Bcast_intra_binomial")  # no file
        self.assertEqual(self.algorithm(1000, out), self.algorithm(1000))  # the default branch
        good = launch(2, [PROGRAM, str(64 * K)],
                      {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": out})
        self.assertEqual(good.returncode, 0, good.stderr)
        self.assertEqual(good.stdout.count("bytes ok"), 2, good.stdout)

    def test_measured_file(self):
        directory = tempfile.mkdtemp()
        out = os.path.join(directory, "measured.json")
        launcher = " ".join(LAUNCHER) + " -n {procs}"
        done = tune("--library-algorithms", "--launcher", launcher, "--procs", "2",
                    "--sizes", "1K,64K", "--candidates",
                    "mpich:binomial,mpich:scatter_ring_allgather", "--methods", "paper",
                    "--iterations", "20", "--reps", "3", "--out-mpich-json", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather "
                      "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0", done.stdout)
        chosen = dict(re.findall(r"procs=\S+ bytes=(\S+): (\S+)", done.stdout))
        for size in (K, 64 * K):
            ranges = [(r, a) for r, a in chosen.items() if covers(r, size)]
            self.assertEqual(len(ranges), 1, (size, done.stdout))
            name = ranges[0][1]
            expected = self.algorithm(size) if name == "the" else name
            self.assertEqual(self.algorithm(size, out), expected, (size, done.stdout))

    def test_predicted_measured_file(self):
        """At 3 ranks, measured or not, MPICH runs what the file says for 1 KiB."""
        out, text, _ = measured_predicted(self, "--out-mpich-json",
                                          "mpich:binomial,mpich:scatter_ring_allgather", "2,3")
        rules = dict(re.findall(r"procs=3- bytes=(\S+): (\S+)", text))
        self.assertTrue(rules, text)
        name = [a for r, a in rules.items() if covers(r, K)][0]
        expected = self.algorithm(K, procs=3) if name == "the" else name
        self.assertEqual(self.algorithm(K, out, procs=3), expected, text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
