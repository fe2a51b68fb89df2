"""leancast-overlap-bench from the outside, under a real MPI launcher: it checks every
contender's data before timing, writes the documented JSON (every contender at every size,
one entry per repetition, overlap within 0-100 %), takes --test-calls, and refuses bad
options on every rank without hanging.

Usage: overlap_bench_test.py PROCS BENCH MPIEXEC [MPIEXEC_FLAGS...]
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PROCS, BENCH, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]
CONTENDERS = ["mpi", "auto", "binomial", "pipeline-chain:4K", "scatter-ring-tuned"]


def bench(*args, timeout=240):
    command = ["timeout", str(timeout), *LAUNCHER, "-n", PROCS, BENCH, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30)


class OverlapBench(unittest.TestCase):
    def test_json_has_every_cell_and_sane_numbers(self):
        path = os.path.join(tempfile.mkdtemp(), "overlap.json")
        result = bench("--algorithms", ",".join(CONTENDERS), "--sizes", "1,5000,100003",
                       "--reps", "2", "--max-iterations", "20", "--test-calls", "3",
                       "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("overlap%", result.stdout)
        with open(path) as f:
            run = json.load(f)
        self.assertEqual(run["procs"], int(PROCS))
        self.assertEqual(run["test_calls"], 3)
        cells = {(r["contender"], r["bytes"]) for r in run["results"]}
        self.assertEqual(cells, {(c, b) for c in CONTENDERS for b in (1, 5000, 100003)})
        for r in run["results"]:
            self.assertEqual(len(r["repetitions"]), 2)
            self.assertGreaterEqual(r["overlap_percent"], 0)
            self.assertLessEqual(r["overlap_percent"], 100)
            self.assertGreater(r["blocking_us"], 0)
            self.assertGreater(r["ibcast_us"], 0)
            # What the bench writes, never how fast anything ran.
            for rep in r["repetitions"]:
                self.assertEqual(set(rep) >= {"blocking_us", "ibcast_us", "total_us", "compute_us",
                                              "overlap_percent"}, True, rep)
                self.assertGreater(rep["compute_us"], 0)

    def test_bad_options_fail_without_hanging(self):
        for args, message in ((["--algorithms", "ring"], "unknown"),
                              (["--sizes", "12Q"], "bad size"),
                              (["--test-calls", "-1"], "test-calls")):
            result = bench(*args, timeout=60)
            self.assertNotIn(result.returncode, (0, 124), args)
            self.assertIn(message, result.stderr + result.stdout, args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
