"""leancast-tune --predict from the outside. From synthetic measurements at P = 2 and 8
(--from-json) with the grid P = 2, 4, 8: every size of every count has a rule whose
evidence says measured or predicted, P = 4 is predicted from the schedules (leancast-plan
of this build), and the library reads the file. On real MPI: --site --predict within
--budget-cells measures no more cells than that, and its rules load in the library at a
measured and at a predicted count.

Usage: predict_test.py TUNE BCAST_CHECK MPIEXEC [MPIEXEC_FLAGS...]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from tune_package import K, bench_run  # the synthetic runs every tune test shares

TUNE, BCAST_CHECK, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]
RULE = re.compile(r"^procs=(?P<procs>\S+) ppn=\S+ (?:library=\S+ )?(?P<bytes>\S+)\s+: "
                  r"(?P<algorithm>\S+)\s+# (?P<evidence>.*)$")


def tune(*args, timeout=300):
    return subprocess.run(["timeout", str(timeout), TUNE, *args], capture_output=True,
                          text=True, timeout=timeout + 30)


def rules_in(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return [(i + 1, RULE.match(line)) for i, line in enumerate(lines)
            if line.strip() and not line.startswith("#")]


def evidence_parts(rule):
    return rule.group("evidence").split(" | ")


def library_choice(test, rules_path, procs, size):
    """The library's choice at (procs, size) under LEANCAST_CONFIG: the line it follows."""
    env = dict(os.environ, LEANCAST_CONFIG=rules_path, LEANCAST_VERBOSE="1")
    done = subprocess.run(["timeout", "120", *LAUNCHER, "-n", str(procs), BCAST_CHECK,
                           str(size), "-"], capture_output=True, text=True, env=env, timeout=150)
    test.assertEqual(done.returncode, 0, done.stdout + done.stderr)
    test.assertNotIn("is ignored", done.stderr)
    return done.stderr


class FromJson(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        runs = []
        for procs in (2, 8):  # binomial 2x faster than mpi at 1K, linear slower everywhere
            times = {("mpi", K): 4e-6, ("binomial", K): 2e-6, ("linear", K): 3e-6 * procs,
                     ("mpi", 64 * K): 40e-6, ("binomial", 64 * K): 45e-6,
                     ("linear", 64 * K): 50e-6 * procs}
            runs += [bench_run(procs, m, times, spread=0) for m in ("paper", "osu")]
        cls.saved = os.path.join(cls.dir, "saved.json")
        with open(cls.saved, "w") as f:
            json.dump({"command": ["test"], "candidates": ["mpi", "binomial", "linear"],
                       "runs": runs}, f)
        cls.rules_path = os.path.join(cls.dir, "predicted.rules")
        cls.done = tune("--from-json", cls.saved, "--predict", "--procs", "2,4,8",
                        "--sizes", "1K,64K", "--out", cls.rules_path)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)

    def test_every_size_of_every_count_says_measured_or_predicted(self):
        rules = rules_in(self.rules_path)
        self.assertTrue(rules and all(r for _, r in rules))
        said = {}
        for _, rule in rules:
            for part in evidence_parts(rule):
                kind = re.match(r"^(\S+): (measured|predicted)[ ,]", part)
                self.assertTrue(kind, part)
                said[(rule.group("procs"), kind.group(1))] = kind.group(2)
        self.assertEqual(said, {("1-2", "1K"): "measured", ("1-2", "64K"): "measured",
                                ("3-5", "1K"): "predicted", ("3-5", "64K"): "predicted",
                                ("6-", "1K"): "measured", ("6-", "64K"): "measured"})
        with open(self.rules_path) as f:
            self.assertRegex(f.read(), r"# --predict: 4 of 6 cells .* 2 predicted")

    def test_the_library_reads_the_predicted_rules(self):
        rules = rules_in(self.rules_path)
        line, rule = next((n, r) for n, r in rules if r.group("procs") == "3-5")
        text = library_choice(self, self.rules_path, 4, K)
        self.assertIn(f"P=4 bytes=1024: {rule.group('algorithm')} (by {self.rules_path} "
                      f"line {line})", text)


class Site(unittest.TestCase):
    """--site --predict at P = 2, 3, 4, two sizes, a budget of 3 cells of 2 methods."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.rules_path = os.path.join(cls.dir, "site.rules")
        cls.json_path = os.path.join(cls.dir, "site.json")
        launcher = " ".join(LAUNCHER) + " -n {procs}"
        cls.done = tune("--site", "--predict", "--launcher", launcher, "--procs", "2,3,4",
                        "--sizes", "1K,64K", "--candidates", "binomial,linear",
                        "--budget-cells", "6", "--iterations", "5", "--reps", "3",
                        "--out", cls.rules_path, "--json", cls.json_path)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)

    def test_measures_within_the_budget_and_predicts_the_rest(self):
        with open(self.json_path) as f:
            data = json.load(f)
        cells = {(r["environment"]["procs"], c["bytes"], r["method"])
                 for r in data["runs"] for c in r["results"]}
        self.assertEqual(len(cells), 6)
        self.assertEqual(len(data["predict"]["measured_order"]), 3)
        parts = [p for _, r in rules_in(self.rules_path) for p in evidence_parts(r)]
        self.assertEqual(len(parts), 6)  # 3 counts x 2 sizes
        self.assertEqual(sum(": measured," in p for p in parts), 3)
        self.assertEqual(sum(": predicted " in p for p in parts), 3)

    def test_the_library_follows_measured_and_predicted_rules(self):
        with open(self.json_path) as f:
            order = [tuple(c) for c in json.load(f)["predict"]["measured_order"]]
        predicted = next((p, s) for p in (2, 3, 4) for s in (K, 64 * K) if (p, s) not in order)
        for procs, size in (order[0], predicted):
            text = library_choice(self, self.rules_path, procs, size)
            self.assertRegex(text, rf"P={procs} bytes={size}: \S+ \(by {re.escape(self.rules_path)}"
                                   r" line \d+\)")


if __name__ == "__main__":
    unittest.main(verbosity=2)
