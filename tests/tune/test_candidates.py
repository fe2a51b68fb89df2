"""leancast-tune's candidates and options modules (tools/tune/leancast_tune/candidates.py,
options.py): the default candidates come from leancast's registry as leancast-plan prints
it (--json --list-algorithms), so a throwaway row added to the registry is measured without
another edit: by the derivation, by the options, and by the leancast-tune a build holds.
The registry is read only where the candidates are needed: --candidates, --from-json and
--help work without leancast-plan.

Usage: test_candidates.py LEANCAST_PLAN LEANCAST_TUNE
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from tune_package import K, bench_run, write_script

from leancast_tune import candidates, options  # noqa: E402
from leancast_tune.library import LIBRARY_DEFAULTS  # noqa: E402

PLAN, TUNE = sys.argv[1:3]
del sys.argv[1:3]

# Rows as leancast-plan prints them, cut to what the derivation reads.
ROWS = [
    {"name": "auto", "flat": False, "shared_memory": False, "parameter": "none", "tuned": []},
    {"name": "linear", "flat": True, "shared_memory": False, "parameter": "none",
     "tuned": ["linear"]},
    {"name": "hypercube", "flat": True, "shared_memory": False, "parameter": "none",
     "tuned": []},
    {"name": "scatter-ring", "alias": "native", "flat": True, "shared_memory": False,
     "parameter": "none", "tuned": []},
    {"name": "pipeline-chain", "flat": True, "shared_memory": False,
     "parameter": "segment_bytes", "tuned": ["pipeline-chain:16K", "pipeline-chain:64K"]},
    {"name": "shm", "flat": True, "shared_memory": True, "parameter": "segment_bytes",
     "tuned": ["shm:16K", "shm:64K"]},
    {"name": "node-aware", "flat": False, "shared_memory": False, "parameter": "levels",
     "tuned": ["node-aware:linear/pipeline-chain:16K", "node-aware:linear/shm:64K",
               "node-aware:native/linear"]},
    {"name": "mpi", "flat": False, "shared_memory": False, "parameter": "none", "tuned": []},
]
# The throwaway rows: a flat algorithm, one through shared memory, and node-aware pairs
# with them, the row after node-aware (where the C++ tests once assumed none would be).
THROWAWAY = [{"name": "throwaway", "flat": True, "shared_memory": False,
              "parameter": "segment_bytes", "tuned": ["throwaway:4K", "throwaway"]},
             {"name": "throwaway-shm", "flat": True, "shared_memory": True,
              "parameter": "segment_bytes", "tuned": ["throwaway-shm:8K"]}]
THROWAWAY_PAIRS = ["node-aware:throwaway:4K/linear", "node-aware:binomial/throwaway-shm:8K"]


def real_rows():
    done = subprocess.run([PLAN, "--json", "--list-algorithms"], capture_output=True,
                          text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def with_throwaway(rows):
    rows = [dict(row) for row in rows]
    for row in rows:
        if row.get("parameter") == "levels":
            row["tuned"] = row["tuned"] + THROWAWAY_PAIRS
    return rows + THROWAWAY


def fake_plan(directory, rows, name="leancast-plan"):
    """A leancast-plan that prints `rows` for exactly --json --list-algorithms (the order
    leancast-plan needs), nothing for anything else (message counts: unknown)."""
    path = os.path.join(directory, "rows.json")
    with open(path, "w") as f:
        json.dump(rows, f)
    return write_script(os.path.join(directory, name), f'''
import sys
if sys.argv[1:] == ["--json", "--list-algorithms"]:
    print(open({path!r}).read())
elif "--list-algorithms" in sys.argv:
    print("auto\\nlinear")  # names only: --json came too late
else:
    sys.exit(1)
''')


class Derivation(unittest.TestCase):
    def test_lists_from_rows(self):
        found = candidates.Candidates(ROWS)
        self.assertEqual(found.default, ["linear", "pipeline-chain:16K", "pipeline-chain:64K",
                                         "node-aware:linear/pipeline-chain:16K",
                                         "node-aware:native/linear"])
        self.assertEqual(found.site_flat, ["linear", "pipeline-chain:16K",
                                           "pipeline-chain:64K", "shm:16K", "shm:64K"])
        self.assertEqual(found.site_node_aware, ROWS[6]["tuned"])
        self.assertTrue(found.uses_shared_memory("shm:64K@dataflow"))
        self.assertTrue(found.uses_shared_memory("node-aware:linear/shm"))
        self.assertFalse(found.uses_shared_memory("node-aware:shm/linear"))  # between nodes
        self.assertFalse(found.uses_shared_memory("native"))
        self.assertFalse(found.uses_shared_memory("unknown:3"))

    def test_a_throwaway_row_is_measured(self):
        for rows in (ROWS, real_rows()):
            before = candidates.Candidates(rows)
            found = candidates.Candidates(with_throwaway(rows))
            self.assertEqual(found.default, [c for c in before.default
                                             if not c.startswith("node-aware")]
                             + ["throwaway:4K", "throwaway"]
                             + [c for c in before.default if c.startswith("node-aware")]
                             + ["node-aware:throwaway:4K/linear"])
            self.assertEqual(found.site_flat, before.site_flat + ["throwaway:4K", "throwaway",
                                                                  "throwaway-shm:8K"])
            self.assertEqual(found.site_node_aware, before.site_node_aware + THROWAWAY_PAIRS)

    def test_levels(self):
        self.assertEqual(candidates.levels("node-aware:pipeline-chain:16K/shm:64K"),
                         ("pipeline-chain:16K", "shm:64K"))
        self.assertIsNone(candidates.levels("node-aware"))
        self.assertIsNone(candidates.levels("binomial"))

    def test_the_real_registry(self):
        rows = candidates.read_registry(PLAN)
        self.assertEqual(rows, real_rows())
        found = candidates.Candidates(rows)
        self.assertTrue(found.default and found.site_node_aware)
        self.assertTrue(any(found.uses_shared_memory(c) for c in found.site_flat))
        self.assertFalse(any(found.uses_shared_memory(c) for c in found.default))
        # Every derived name is one leancast-plan accepts (node-aware: on 2 nodes).
        for spec in dict.fromkeys(found.site_flat + found.site_node_aware):
            per_node = "2" if candidates.levels(spec) else "4"
            done = subprocess.run([PLAN, "--algorithm", spec, "--procs", "4", "--bytes", "1K",
                                   "--ranks-per-node", per_node, "--json", "--no-steps"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, (spec, done.stderr))

    def test_unreadable_registries(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(candidates.read_registry(fake_plan(tmp, ROWS)), ROWS)
            for body in ("import sys; sys.exit(3)", "print('auto')", "print('[1, 2]')",
                         "print('[{\"name\": \"x\", \"tuned\": \"x\"}]')"):
                plan = write_script(os.path.join(tmp, "bad"), body)
                with self.assertRaises(candidates.RegistryError, msg=body):
                    candidates.read_registry(plan)
            for plan in (None, os.path.join(tmp, "missing")):
                with self.assertRaises(candidates.RegistryError):
                    candidates.read_registry(plan)


class Options(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.plan = fake_plan(self.tmp.name, with_throwaway(ROWS))
        self.out = os.path.join(self.tmp.name, "out.rules")

    def tearDown(self):
        self.tmp.cleanup()

    def parse(self, *args, out=True):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                return options.parse_args(["--out", self.out] * out + list(args)), err.getvalue()
            except SystemExit as stop:
                return stop.code, err.getvalue()

    def test_defaults_come_from_the_registry(self):
        found = candidates.Candidates(with_throwaway(ROWS))
        given, _ = self.parse("--sim", "hornet", "--procs", "4", "--plan", self.plan)
        self.assertEqual(given.candidates, ["mpi"] + found.default)
        self.assertIn("throwaway:4K", given.candidates)
        given, _ = self.parse("--site", "--procs", "2", "--plan", self.plan)
        self.assertEqual(given.candidates, ["mpi"] + found.site_flat)  # may not span nodes
        given, _ = self.parse("--site", "--launcher", "srun -n {procs}", "--procs", "2",
                              "--plan", self.plan, "--executors", "rounds")
        base = ["mpi"] + found.site_flat + found.site_node_aware
        self.assertEqual(given.candidates, base + [c + "@rounds" for c in base[1:]])

    def test_the_registry_is_read_only_where_needed(self):
        missing = os.path.join(self.tmp.name, "no-plan")
        code, err = self.parse("--sim", "hornet", "--procs", "4", "--plan", missing)
        self.assertEqual(code, 2)
        self.assertIn("the default candidates come from leancast's registry", err)
        given, _ = self.parse("--sim", "hornet", "--procs", "4", "--plan", missing,
                              "--candidates", "linear,throwaway")
        self.assertEqual(given.candidates, ["mpi", "linear", "throwaway"])
        saved = os.path.join(self.tmp.name, "saved.json")
        with open(saved, "w") as f:
            json.dump({"command": ["x"], "runs": [bench_run(2, "osu", {("mpi", K): 1e-6,
                                                                      ("linear", K): 1e-6})]}, f)
        given, _ = self.parse("--from-json", saved, "--plan", missing)
        self.assertEqual(given.candidates, ["mpi", "linear"])
        given, _ = self.parse("--launcher", "x {procs}", "--procs", "2", "--plan", missing,
                              "--library-algorithms", "--out-ompi-rules", self.out, out=False)
        self.assertEqual(given.candidates, ["mpi"] + LIBRARY_DEFAULTS["openmpi"])

    def test_help_counts_the_registry(self):
        found = candidates.Candidates(with_throwaway(ROWS))
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as stop:
            options.parse_args(["--plan", self.plan, "--help"])
        self.assertEqual(stop.exception.code, 0)
        text = " ".join(out.getvalue().split())
        self.assertIn(f"(default: the registry's {len(found.default)} tuned specs, --site: "
                      f"its {len(found.site_flat)} flat ones)", text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit):
            options.parse_args(["--plan", os.path.join(self.tmp.name, "none"), "--help"])
        self.assertIn("(default: the registry's tuned specs, from",
                      " ".join(out.getvalue().split()))


class Tool(unittest.TestCase):
    """The leancast-tune of the build: its package beside it, the throwaway row measured."""

    def test_a_throwaway_row_reaches_the_measurements(self):
        with tempfile.TemporaryDirectory() as tmp:
            plan = fake_plan(tmp, with_throwaway(real_rows()))
            log = os.path.join(tmp, "algorithms")
            bench = write_script(os.path.join(tmp, "bench"), f'''
import json, sys
args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
algorithms = value("--algorithms").split(",")
open({log!r}, "a").write(" ".join(algorithms) + "\\n")
results = [{{"algorithm": a, "bytes": int(s), "data_ok": True, "reps": [],
             "summary": {{"seconds_per_bcast": {{"median": 1e-6, "min": 1e-6, "max": 1e-6}}}}}}
           for s in value("--sizes").split(",") for a in algorithms]
json.dump({{"method": value("--method"), "options": {{"algorithms": algorithms,
           "sizes": [1024], "iterations": 1, "reps": 1}}, "results": results,
           "environment": {{"procs": 2, "nodes": 1, "ranks_per_node": 2}}}},
          open(value("--json"), "w"))
''')
            record = os.path.join(tmp, "out.json")
            done = subprocess.run([TUNE, "--launcher", "env P={procs}", "--bench", bench, "--plan",
                                   plan, "--procs", "2", "--sizes", "1K", "--methods", "osu",
                                   "--out", os.path.join(tmp, "out.rules"), "--json", record],
                                  capture_output=True, text=True, timeout=120,
                                  env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(log) as f:
                measured = f.read().split()
            with open(record) as f:
                saved = json.load(f)
        found = candidates.Candidates(with_throwaway(real_rows()))
        self.assertEqual(measured, ["mpi"] + found.default)
        self.assertEqual(saved["candidates"], measured)
        self.assertIn("throwaway:4K", measured)
        self.assertIn("node-aware:throwaway:4K/linear", measured)
        self.assertNotIn("throwaway-shm:8K", measured)

    def test_help_without_leancast_plan(self):
        # PYTHONSAFEPATH (Python 3.11): the script's folder is not on sys.path unless the
        # script puts it there, as it must to find its package.
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([TUNE, "--plan", os.path.join(tmp, "none"), "--help"],
                                  capture_output=True, text=True, timeout=60,
                                  env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                                           PYTHONSAFEPATH="1"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("--library-algorithms", done.stdout)


if __name__ == "__main__":
    unittest.main()
