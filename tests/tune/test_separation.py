"""The exhaustive grids that scripts/site-tuning-eval.py judges leancast-tune --predict
against never reach the tuner: the evaluation runs the budgeted tuner first and names none
of the exhaustive run's files in its command, and the tuner, run with an exhaustive file
beside its own input, opens only what it was given (every file it opens recorded by a
Python audit hook). --replay, which measures from the exhaustive run, measures as many
cells as each budget allows and predicts the rest.

Usage: test_separation.py LEANCAST_PLAN
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

from tune_package import K, bench_run

PLAN = sys.argv.pop(1) if len(sys.argv) > 1 else None
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOOLS = os.path.join(ROOT, "tools", "tune")
EVAL = os.path.join(ROOT, "scripts", "site-tuning-eval.py")

# Runs leancast-tune's main with an audit hook that writes every path opened to argv[1].
DRIVER = """
import os, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0]))
                 if event == "open" and isinstance(args[0], (str, bytes)) else None)
sys.path.insert(0, sys.argv[2])
from leancast_tune import cli
try:
    status = cli.main(sys.argv[3:])
finally:
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("\\n".join(opened))
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])
sys.exit(status)
"""


def evaluation():
    spec = importlib.util.spec_from_file_location("site_tuning_eval", EVAL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Evaluation(unittest.TestCase):
    def test_the_budgeted_tuner_runs_first_and_names_no_exhaustive_file(self):
        module = evaluation()
        args = types.SimpleNamespace(tune="leancast-tune", candidates="binomial,linear",
                                     sizes="1K,64K", procs="2,3,4", methods="paper,osu",
                                     iterations=5, reps=3, fraction=0.5,
                                     launcher="mpirun -n {procs}")
        commands = module.tuner_commands(args, "/nowhere")
        self.assertEqual([role for role, _, _ in commands], ["budgeted", "exhaustive"])
        exhaustive_files = set(commands[1][2])
        budgeted = commands[0][1]
        self.assertFalse(exhaustive_files & set(budgeted))
        self.assertFalse(any("exhaustive" in word for word in budgeted), budgeted)
        self.assertIn("--predict", budgeted)
        self.assertEqual(budgeted[budgeted.index("--budget-cells") + 1], "6")  # 3 of 6, x2


@unittest.skipIf(not PLAN, "needs leancast-plan (the build's), as its argument")
class Tuner(unittest.TestCase):
    def test_the_tuner_opens_its_input_and_not_the_exhaustive_grid(self):
        directory = tempfile.mkdtemp()
        saved = os.path.join(directory, "budgeted.json")
        exhaustive = os.path.join(directory, "exhaustive.json")
        times = {("mpi", K): 4e-6, ("binomial", K): 2e-6, ("linear", K): 6e-6}
        for path, procs in ((saved, (2,)), (exhaustive, (2, 3, 4))):
            runs = [bench_run(p, m, times) for p in procs for m in ("paper", "osu")]
            with open(path, "w") as f:
                json.dump({"command": ["test"], "candidates": ["mpi", "binomial", "linear"],
                           "runs": runs}, f)
        record = os.path.join(tempfile.mkdtemp(), "opened.txt")  # not in the folder watched
        done = subprocess.run([sys.executable, "-c", DRIVER, record, TOOLS, "--from-json", saved,
                               "--predict", "--procs", "2,3,4", "--sizes", "1K",
                               "--plan", PLAN, "--out", os.path.join(directory, "out.rules")],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(record) as f:
            opened = {os.path.realpath(p) for p in f.read().splitlines()}
        self.assertIn(os.path.realpath(saved), opened)
        self.assertNotIn(os.path.realpath(exhaustive), opened)
        # The tuner read nothing else of that folder but its input and wrote its rules.
        mine = {p for p in opened if p.startswith(os.path.realpath(directory))}
        self.assertEqual(mine, {os.path.realpath(saved),
                                os.path.realpath(os.path.join(directory, "out.rules"))})



@unittest.skipIf(not PLAN, "needs leancast-plan (the build's), as its argument")
class Replay(unittest.TestCase):
    def test_each_budget_measures_its_cells_and_predicts_the_rest(self):
        sys.path.insert(0, TOOLS)
        from leancast_tune import evidence
        directory = tempfile.mkdtemp()
        procs, sizes, methods = (2, 3, 4), (K, 64 * K), ("paper", "osu")
        times = {(a, s): f * s * 1e-9 + g * 1e-6 for s in sizes
                 for a, f, g in (("mpi", 2.0, 3.0), ("binomial", 1.0, 2.0), ("linear", 3.0, 1.0))}
        exhaustive = [bench_run(p, m, times) for p in procs for m in methods]
        command = ["leancast-tune", "--sim", "hornet", "--ranks-per-node", "2", "--predict",
                   "--budget-cells", "4", "--procs", "2,3,4", "--sizes", "1K,64K", "--methods",
                   "paper,osu", "--candidates", "binomial,linear", "--plan", PLAN, "--out",
                   "budgeted.rules", "--json", "budgeted.json"]
        header = {"candidates": ["mpi", "binomial", "linear"], "methods": list(methods),
                  "tie": 0.001, "predict": {"grid": {"procs": list(procs),
                                                     "sizes": list(sizes)}}}
        files = {"budgeted": dict(header, command=command, runs=exhaustive[:2]),
                 "exhaustive": dict(header, command=["leancast-tune"], runs=exhaustive)}
        for name, record in files.items():
            with open(os.path.join(directory, f"{name}.json"), "w") as f:
                json.dump(record, f)
        rules = os.path.join(directory, "budgeted.rules")
        with open(rules, "w") as f:
            f.write("procs=* ppn=* *   : mpi   # 1K: measured\n")
        study = os.path.join(directory, "study.jsonl.gz")
        evidence.main([study] + [f"{n}={os.path.join(directory, n + '.json')}" for n in files]
                      + [f"budgeted.rules={rules}"])
        done = subprocess.run([sys.executable, EVAL, "--replay", study, "--budget-cells", "4,12",
                               "--tune", os.path.join(TOOLS, "leancast-tune"), "--plan", PLAN],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 2, done.stdout)
        self.assertRegex(lines[0], r"^4 cells: predicted cells 4, to the best median [\d.]+ "
                                   r"worst [\d.]+, worst to the library [\d.]+$")
        self.assertEqual(lines[1], "12 cells: predicted cells 0")  # 6 cells, 2 methods

if __name__ == "__main__":
    unittest.main(verbosity=2)
