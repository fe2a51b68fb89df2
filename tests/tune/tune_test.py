"""leancast-tune from the outside. From small synthetic measurements (--from-json): a
candidate no faster than mpi beyond the margin gives an mpi rule, ties between leancast
candidates go to fewer messages at the busiest rank, and a candidate must win under every
timing method. On real MPI: --site at P = 2 writes a table the library reads
(LEANCAST_CONFIG), and a --launcher run at P = 2, 3 claims the process counts halfway.

Usage: tune_test.py TUNE BCAST_CHECK MPIEXEC [MPIEXEC_FLAGS...]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from rule_ranges import covers  # noqa: E402

TUNE, BCAST_CHECK, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]
RULE = re.compile(r"^procs=(?P<procs>\S+) ppn=(?P<ppn>\S+) (?:library=(?P<library>\S+) )?"
                  r"(?P<bytes>\S+)\s+: (?P<algorithm>\S+)\s+# (?P<evidence>.*)$")


def tune(*args, timeout=300):
    command = ["timeout", str(timeout), TUNE, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30)


def read_rules(path):
    """[(line number, match)] of the rules in a file (comments and blank lines skipped)."""
    with open(path) as f:
        lines = f.read().splitlines()
    return [(i + 1, RULE.match(line)) for i, line in enumerate(lines)
            if line.strip() and not line.startswith("#")]


def rule_for(rules, size, procs=None):
    for number_, rule in rules:
        if covers(rule.group("bytes"), size) and (procs is None or
                                                   covers(rule.group("procs"), procs)):
            return number_, rule
    return None, None


def bench_run(procs, method, times, spread=0.02, reps=None):
    """leancast-bench's JSON as leancast-tune reads it; times: {(algorithm, bytes): seconds};
    reps: each cell's repetitions as factors of its time (else only min and max are given,
    the time -+ spread / 2)."""
    algorithms = list(dict.fromkeys(a for a, _ in times))
    results = []
    for (a, size), t in times.items():
        low, high = (min(reps), max(reps)) if reps else (1 - spread / 2, 1 + spread / 2)
        results.append({"algorithm": a, "bytes": size, "data_ok": True,
                        "reps": [{"seconds_per_bcast": t * f} for f in reps or []],
                        "summary": {"seconds_per_bcast": {"median": t, "min": t * low,
                                                          "max": t * high}}})
    return {"tool": "leancast-bench", "method": method, "baseline": "mpi",
            "options": {"algorithms": algorithms, "sizes": sorted({s for _, s in times}),
                        "iterations": 10, "reps": 5, "command_line": ["leancast-bench"]},
            "environment": {"procs": procs, "nodes": 1, "ranks_per_node": procs,
                            "mpi_library": "Fixture MPI 1.0", "date": "2026-01-02T03:04:05Z",
                            "cpu_model": "Fixture CPU", "cores": 8, "hosts": ["fixture"]},
            "results": results}


class FromJson(unittest.TestCase):
    """Rules from synthetic measurements: the decision rules, without timing noise."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()

    def rules_from(self, name, runs, methods=("paper", "osu")):
        path = os.path.join(self.dir, name + ".json")
        with open(path, "w") as f:
            json.dump({"command": ["fixture"], "methods": list(methods), "runs": runs}, f)
        out = os.path.join(self.dir, name + ".rules")
        done = tune("--from-json", path, "--out", out, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return read_rules(out), done.stdout

    def winner(self, rules, size):
        _, rule = rule_for(rules, size)
        self.assertIsNotNone(rule, (size, rules))
        return rule.group("algorithm")

    def test_slower_or_tied_with_mpi_gives_mpi(self):
        # binomial: slower at 1K, 1 % faster at 64K (inside the 2 % spread), 2x at 1M.
        times = {("mpi", 1024): 1e-6, ("binomial", 1024): 1.5e-6,
                 ("mpi", 65536): 1e-5, ("binomial", 65536): 0.99e-5,
                 ("mpi", 1 << 20): 1e-3, ("binomial", 1 << 20): 0.5e-3}
        rules, text = self.rules_from("mpi", [bench_run(4, m, times) for m in ("paper", "osu")])
        self.assertEqual(self.winner(rules, 1024), "mpi")
        self.assertEqual(self.winner(rules, 65536), "mpi")
        self.assertEqual(self.winner(rules, 1 << 20), "binomial")
        for _, rule in rules:  # one count: all counts; ppn as measured; no library it knows
            self.assertEqual((rule.group("procs"), rule.group("ppn"), rule.group("library")),
                             ("*", "4", None), text)
        _, fast = rule_for(rules, 1 << 20)
        self.assertRegex(fast.group("evidence"),
                         r"1M: 2\.00x over mpi \(paper 2\.00x margin 2\.0%, osu 2\.00x "
                         r"margin 2\.0%\); next mpi 1\.00x")
        _, tied = rule_for(rules, 65536)
        self.assertRegex(tied.group("evidence"), r"64K: best leancast binomial 1\.01x")
        self.assertIn("# machine: Fixture CPU, 8 cores", text)
        self.assertIn("Fixture MPI 1.0", text)

    def test_tied_candidates_go_to_fewer_messages_at_the_busiest_rank(self):
        # At 1K linear (root: 7 sends) and binomial (3 messages at most) tie within the
        # margin; linear is listed first and has the shorter name, binomial sends less.
        # At 4K linear is clearly faster and wins.
        times = {("mpi", 1024): 10e-6, ("linear", 1024): 5.0e-6, ("binomial", 1024): 5.05e-6,
                 ("pipeline-chain:16K", 1024): 8e-6,
                 ("mpi", 4096): 10e-6, ("linear", 4096): 3e-6, ("binomial", 4096): 6e-6,
                 ("pipeline-chain:16K", 4096): 8e-6}
        rules, _ = self.rules_from("ties", [bench_run(8, m, times) for m in ("paper", "osu")])
        self.assertEqual(self.winner(rules, 1024), "binomial")
        self.assertEqual(self.winner(rules, 4096), "linear")
        _, rule = rule_for(rules, 1024)
        self.assertIn("tied, messages at the busiest rank 3 against linear 7",
                      rule.group("evidence"))

    def test_a_candidate_must_win_under_every_method(self):
        # The chain is 2x faster back-to-back (paper) but slower with a barrier before each
        # broadcast (osu); scatter-doubling is 1.25x faster under both.
        paper = {("mpi", 65536): 1e-5, ("pipeline-chain:16K", 65536): 0.5e-5,
                 ("scatter-doubling", 65536): 0.8e-5,
                 ("mpi", 262144): 4e-5, ("pipeline-chain:16K", 262144): 2e-5,
                 ("scatter-doubling", 262144): 4.4e-5}
        osu = dict(paper)
        osu[("pipeline-chain:16K", 65536)] = 1.3e-5
        osu[("pipeline-chain:16K", 262144)] = 5e-5
        runs = [bench_run(4, "paper", paper), bench_run(4, "osu", osu)]
        rules, _ = self.rules_from("methods", runs)
        self.assertEqual(self.winner(rules, 65536), "scatter-doubling")
        self.assertEqual(self.winner(rules, 262144), "mpi")
        _, rule = rule_for(rules, 65536)
        self.assertRegex(rule.group("evidence"),
                         r"1\.25x over mpi \(paper 1\.25x margin 2\.0%, osu 1\.25x "
                         r"margin 2\.0%\); next mpi 1\.00x")
        # The paper runs alone would have chosen the chain: the osu runs decide.
        rules, _ = self.rules_from("paper-only", runs[:1], methods=("paper",))
        self.assertEqual(self.winner(rules, 65536), "pipeline-chain:16K")
        self.assertEqual(self.winner(rules, 262144), "pipeline-chain:16K")

    def test_one_slow_repetition_does_not_make_everything_a_tie(self):
        # 9 repetitions within 1 %, one of them 5x slower (the scheduler): the margin comes
        # from the quartiles (1 %), so binomial's 10 % wins; max - min would make it 400 %.
        reps = [0.995, 1.0, 1.005, 0.998, 1.002, 5.0, 1.0, 0.999, 1.001]
        times = {("mpi", 1024): 1e-6, ("binomial", 1024): 0.9e-6}
        rules, _ = self.rules_from("outlier", [bench_run(2, m, times, reps=reps)
                                               for m in ("paper", "osu")])
        self.assertEqual(self.winner(rules, 1024), "binomial")

    def test_several_files_give_the_rules_of_their_runs_together(self):
        # One file per process count (as scripts/large-scale-tune.py writes them): the same
        # rules as one file of all runs, and every file's command in the header.
        fast = lambda procs: {("mpi", 1024): 1e-6, ("binomial", 1024): 2e-6,
                              ("mpi", 1 << 20): 1e-3,
                              ("binomial", 1 << 20): (0.5e-3 if procs == 4 else 2e-3)}
        runs = {procs: [bench_run(procs, m, fast(procs)) for m in ("paper", "osu")]
                for procs in (4, 16)}
        together, _ = self.rules_from("together", runs[4] + runs[16])
        paths = []
        for procs, mine in runs.items():
            paths.append(os.path.join(self.dir, f"apart-{procs}.json"))
            with open(paths[-1], "w") as f:
                json.dump({"command": ["fixture", str(procs)], "methods": ["paper", "osu"],
                           "runs": mine}, f)
        out = os.path.join(self.dir, "apart.rules")
        done = tune("--from-json", ",".join(paths), "--out", out, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual([r.group(0) for _, r in read_rules(out)],
                         [r.group(0) for _, r in together])
        self.assertIn("#   measured by: fixture 4", done.stdout)
        self.assertIn("#   measured by: fixture 16", done.stdout)

    def test_a_stand_in_vetoes_as_the_library_it_stands_in_for(self):
        # knomial:4@dataflow:0 simulated in place of smpi:ompi (--stand-in, recorded in the
        # file): a reference, so binomial's 1.25x over mpi is not a win where the stand-in is
        # as fast, and the stand-in itself is never chosen; without the record it would be.
        times = {("mpi", 1024): 1e-6, ("knomial:4@dataflow:0", 1024): 0.5e-6,
                 ("binomial", 1024): 0.8e-6,
                 ("mpi", 1 << 20): 1e-3, ("knomial:4@dataflow:0", 1 << 20): 2e-3,
                 ("binomial", 1 << 20): 0.5e-3}
        runs = [bench_run(64, m, times) for m in ("paper", "osu")]
        path = os.path.join(self.dir, "stand-in.json")
        with open(path, "w") as f:
            json.dump({"command": ["fixture"], "methods": ["paper", "osu"], "runs": runs,
                       "stand_ins": {"knomial:4@dataflow:0": "smpi:ompi"}}, f)
        out = os.path.join(self.dir, "stand-in.rules")
        done = tune("--from-json", path, "--out", out, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        rules = read_rules(out)
        self.assertEqual(self.winner(rules, 1024), "mpi")
        self.assertEqual(self.winner(rules, 1 << 20), "binomial")
        _, rule = rule_for(rules, 1 << 20)
        self.assertIn("2.00x over mpi", rule.group("evidence"))
        self.assertIn("knomial:4@dataflow:0 for smpi:ompi", done.stdout)
        without, _ = self.rules_from("no-stand-in", runs)
        self.assertEqual(self.winner(without, 1024), "knomial:4@dataflow:0")
        # smpi:ompi itself measured at another count (large-scale-tune.py's files together).
        fewer = os.path.join(self.dir, "ompi-itself.json")
        with open(fewer, "w") as f:
            json.dump({"command": ["fixture"], "methods": ["paper", "osu"],
                       "runs": [bench_run(16, m, {("mpi", 1024): 1e-6, ("smpi:ompi", 1024): 2e-6,
                                                  ("binomial", 1024): 0.8e-6})
                                for m in ("paper", "osu")]}, f)
        done = tune("--from-json", f"{fewer},{path}", "--out", out, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.winner(read_rules(out), 1024), "binomial")  # P = 16 comes first
        self.assertEqual([r.group("algorithm") for _, r in read_rules(out)
                          if r.group("procs") != "1-31"], ["mpi", "binomial"])

    def test_sync_is_a_simulated_method(self):
        done = tune("--launcher", "mpirun -n {procs}", "--procs", "2", "--methods", "sync",
                    "--out", os.path.join(self.dir, "x"), timeout=60)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("goes with --sim", done.stderr)

    def test_runs_without_mpi_are_refused(self):
        path = os.path.join(self.dir, "old.json")
        with open(path, "w") as f:
            json.dump({"command": ["fixture"], "runs": [
                bench_run(4, "paper", {("binomial", 1024): 1e-6, ("linear", 1024): 2e-6})]}, f)
        done = tune("--from-json", path, "--out", os.path.join(self.dir, "old.rules"), timeout=60)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no reference measured", done.stderr)


def backed_by_measurements(test, rules, data):
    """Every rule naming a leancast algorithm: that algorithm beat mpi (median) under every
    measured method at every measured size in the rule's range and process counts."""
    for _, rule in rules:
        algorithm = rule.group("algorithm")
        if algorithm == "mpi":
            continue
        for run in data["runs"]:
            if not covers(rule.group("procs"), run["environment"]["procs"]):
                continue
            median = {(c["algorithm"], c["bytes"]): c["summary"]["seconds_per_bcast"]["median"]
                      for c in run["results"]}
            for size in run["options"]["sizes"]:
                if covers(rule.group("bytes"), size):
                    test.assertLess(median[(algorithm, size)], median[("mpi", size)],
                                    (rule.group(0), run["method"], size))


class Site(unittest.TestCase):
    """--site on real MPI at P = 2 with a tiny grid and a budget in cells (both sizes under
    both methods: 4), which no machine's speed changes."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.rules_path = os.path.join(cls.dir, "site.rules")
        cls.json_path = os.path.join(cls.dir, "site.json")
        launcher = " ".join(LAUNCHER) + " -n {procs}"
        cls.result = tune("--site", "--launcher", launcher, "--procs", "2",
                          "--sizes", "1K,64K", "--candidates", "binomial,linear",
                          "--budget-cells", "4", "--out", cls.rules_path,
                          "--json", cls.json_path)
        cls.rules, cls.text, cls.data = [], "", {"runs": []}
        if cls.result.returncode == 0:  # else every test fails on the exit status
            cls.rules = read_rules(cls.rules_path)
            with open(cls.rules_path) as f:
                cls.text = f.read()
            with open(cls.json_path) as f:
                cls.data = json.load(f)

    def setUp(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def test_rules_with_evidence(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertTrue(self.rules and all(r for _, r in self.rules), self.text)
        for _, rule in self.rules:
            self.assertEqual((rule.group("procs"), rule.group("ppn")), ("1-2", "1-2"))  # one node
            self.assertIn(rule.group("algorithm"), {"mpi", "binomial", "linear"})
            self.assertRegex(rule.group("evidence"),
                             r"(over mpi|best leancast) .*paper .*margin .*osu .*margin")
            library = self.data["runs"][0]["environment"]["mpi_library"]
            self.assertEqual(rule.group("library"),
                             "openmpi" if library.startswith("Open MPI") else "mpich")
        for size in (1024, 65536):
            self.assertIsNotNone(rule_for(self.rules, size)[1], size)
        self.assertRegex(self.text, r"# machine: .+, \d+ cores")
        self.assertIn(self.data["runs"][0]["environment"]["mpi_library"], self.text)
        self.assertRegex(self.text, r"#   P=2 osu: .*leancast-bench .*--method osu")
        backed_by_measurements(self, self.rules, self.data)

    def test_measures_both_methods_with_the_machine(self):
        self.assertEqual({r["method"] for r in self.data["runs"]}, {"paper", "osu"})
        for run in self.data["runs"]:
            self.assertIn("mpi", run["options"]["algorithms"])
            env = run["environment"]
            self.assertTrue(env["cpu_model"])
            self.assertGreaterEqual(env["cores"], 1)
        self.assertIn("calibration", self.data)

    def test_prints_progress(self):
        self.assertRegex(self.result.stderr, r"leancast-tune: P=2 \(1 of 1\), (paper|osu), "
                                             r"\S+: cells \d+/\d+, \S+ elapsed, about \S+ left")

    def test_the_library_follows_the_table(self):
        env = dict(os.environ, LEANCAST_CONFIG=self.rules_path, LEANCAST_VERBOSE="1")
        line, rule = rule_for(self.rules, 1024, procs=2)
        self.assertIsNotNone(rule, self.text)
        done = subprocess.run(["timeout", "120", *LAUNCHER, "-n", "2", BCAST_CHECK, "1024", "-"],
                              capture_output=True, text=True, env=env, timeout=150)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        algorithm = rule.group("algorithm")
        self.assertIn(f"P=2 bytes=1024: {algorithm} (by {self.rules_path} line {line})",
                      done.stderr)
        self.assertNotIn("is ignored", done.stderr)


class Launcher(unittest.TestCase):
    """--launcher at P = 2 and 3: process counts split halfway, ppn as measured."""

    def test_process_counts_and_evidence(self):
        directory = tempfile.mkdtemp()
        rules_path = os.path.join(directory, "p23.rules")
        json_path = os.path.join(directory, "p23.json")
        launcher = " ".join(LAUNCHER) + " -n {procs}"
        done = tune("--launcher", launcher, "--procs", "2,3", "--sizes", "1K,300000",
                    "--candidates", "binomial,node-aware:linear/scatter-ring", "--methods",
                    "paper", "--iterations", "3", "--reps", "2", "--out", rules_path,
                    "--json", json_path)
        self.assertEqual(done.returncode, 0, done.stderr)
        rules = read_rules(rules_path)
        self.assertTrue(rules and all(r for _, r in rules))
        self.assertEqual({r.group("procs") for _, r in rules}, {"1-2", "3-"})  # halfway is 3
        for _, rule in rules:
            self.assertEqual(rule.group("ppn"), "2" if rule.group("procs") == "1-2" else "3")
        with open(json_path) as f:
            backed_by_measurements(self, rules, json.load(f))


class BadOptions(unittest.TestCase):
    def test_bad_options_are_refused(self):
        for args, message in (
            (["--procs", "2", "--out", "x"], "--launcher"),
            (["--launcher", "mpirun -n 2", "--procs", "2", "--out", "x"], "{procs}"),
            (["--launcher", "mpirun -n {procs}", "--procs", "0", "--out", "x"], "at least 1"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--sizes", "12Q", "--out", "x"],
             "not a size"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2,8", "--procs-cover", "4-6",
              "--out", "x"], "contain every"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--ranks-per-node", "2",
              "--out", "x"], "goes with --sim"),
            (["--site", "--sim", "hornet", "--out", "x"], "not with --sim"),
            (["--site", "--iterations", "5", "--out", "x"], "--budget-minutes"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--budget-minutes", "1",
              "--out", "x"], "goes with --site"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--budget-cells", "4",
              "--out", "x"], "--budget-cells goes with --site"),
            (["--site", "--procs", "2", "--budget-cells", "4", "--budget-minutes", "1",
              "--out", "x"], "not both"),
            (["--site", "--procs", "2", "--budget-cells", "0", "--out", "x"], "at least 1"),
            (["--site", "--procs", "2", "--budget-cells", "1", "--out", "x"], "one cell per method"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--methods", "paper,imb",
              "--out", "x"], "--methods"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--exclude", "mpi",
              "--out", "x"], "references"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--candidates", "smpi:mpich",
              "--out", "x"], "--sim"),
            (["--launcher", "mpirun -n {procs}", "--procs", "2", "--stand-in",
              "knomial:4=smpi:ompi", "--out", "x"], "goes with --sim"),
            (["--sim", "hornet", "--procs", "2", "--stand-in", "knomial:4", "--out", "x"],
             "ALGORITHM=smpi:NAME"),
            (["--sim", "hornet", "--procs", "2", "--stand-in", "smpi:mpich=smpi:ompi",
              "--out", "x"], "ALGORITHM=smpi:NAME"),
            (["--sim", "hornet", "--procs", "2", "--stand-in", "knomial:4=smpi:ompi",
              "--candidates", "binomial,smpi:ompi", "--out", "x"], "measure one"),
        ):
            done = tune(*args, timeout=60)
            self.assertNotEqual(done.returncode, 0, args)
            self.assertIn(message, done.stderr, args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
