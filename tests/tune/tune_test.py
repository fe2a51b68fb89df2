"""leancast-tune from the outside: it measures on real MPI, writes rules that pick the fastest
measured candidate per size, and the library reads those rules (LEANCAST_CONFIG).

Usage: tune_test.py TUNE BCAST_CHECK MPIEXEC [MPIEXEC_FLAGS...]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

TUNE, BCAST_CHECK, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]
CANDIDATES = ["binomial", "pipeline-chain:4K", "node-aware:linear/scatter-ring"]
SIZES = [1024, 300000]
RULE = re.compile(r"^procs=(\S+) ppn=(\S+) (\S+)\s+: (\S+)\s+# (.*)$")


def tune(*args, timeout=300):
    command = ["timeout", str(timeout), TUNE, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30)


class Tune(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.rules_path = os.path.join(cls.dir, "site.rules")
        cls.json_path = os.path.join(cls.dir, "site.json")
        launcher = " ".join(LAUNCHER) + " -n {procs}"
        cls.result = tune("--launcher", launcher, "--procs", "2,3", "--sizes", "1K,300000",
                          "--candidates", ",".join(CANDIDATES), "--iterations", "3", "--reps", "2",
                          "--out", cls.rules_path, "--json", cls.json_path)
        with open(cls.rules_path) as f:
            cls.rules = f.read()
        with open(cls.json_path) as f:
            cls.data = json.load(f)

    def test_one_rule_per_run_of_winners_with_its_evidence(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        rules = [RULE.match(line) for line in self.rules.splitlines() if not line.startswith("#")]
        self.assertTrue(rules and all(rules), self.rules)
        self.assertEqual({r.group(1) for r in rules}, {"1-2", "3-"})  # halfway is 3 (ceil sqrt 6)
        for run, procs in zip(self.data["runs"], (2, 3)):
            best = {}
            for cell in run["results"]:
                seconds = cell["summary"]["seconds_per_bcast"]["median"]
                if cell["bytes"] not in best or seconds < best[cell["bytes"]][0]:
                    best[cell["bytes"]] = (seconds, cell["algorithm"])
            mine = [r for r in rules if r.group(1) == ("1-2" if procs == 2 else "3-")]
            self.assertTrue(all(r.group(2) == str(procs) for r in mine))  # ppn = P, one node
            named = " ".join(r.group(4) + " " + r.group(5) for r in mine)
            for size in SIZES:
                self.assertIn(best[size][1], named, (procs, size))

    def test_the_library_follows_the_table(self):
        env = dict(os.environ, LEANCAST_CONFIG=self.rules_path, LEANCAST_VERBOSE="1")
        done = subprocess.run(["timeout", "120", *LAUNCHER, "-n", "2", BCAST_CHECK, "300000", "-"],
                              capture_output=True, text=True, env=env, timeout=150)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertRegex(done.stderr, r"P=2 bytes=300000: \S+ \(by " + re.escape(self.rules_path) +
                         r" line \d+\)")
        self.assertNotIn("is ignored", done.stderr)

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
        ):
            done = tune(*args)
            self.assertNotEqual(done.returncode, 0, args)
            self.assertIn(message, done.stderr, args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
