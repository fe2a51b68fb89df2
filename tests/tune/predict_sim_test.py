"""leancast-tune --sim --predict end to end on hornet (4 ranks a node, P = 4, 8, 16, two
sizes): within --budget-cells it simulates 3 of the 6 cells under both methods, and its
rules give every size of every count, each said measured or predicted, the counts that
span nodes with the ranks a node the rules claim; --from-json of its record derives the same
rules (scripts/auto-table.sh derives the predicted sections so).

Usage: predict_sim_test.py TUNE
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

TUNE = sys.argv.pop(1)
RULE = re.compile(r"^procs=(?P<procs>\S+) ppn=(?P<ppn>\S+) (?:library=\S+ )?\S+\s+: \S+\s+"
                  r"# (?P<evidence>.*)$")


class Simulated(unittest.TestCase):
    def test_budgeted_cells_and_every_rule_said_measured_or_predicted(self):
        directory = tempfile.mkdtemp()
        rules_path = os.path.join(directory, "sim.rules")
        json_path = os.path.join(directory, "sim.json")
        done = subprocess.run(["timeout", "500", TUNE, "--sim", "hornet", "--predict",
                               "--ranks-per-node", "4", "--procs", "4,8,16", "--sizes", "16K,1M",
                               "--candidates", "binomial,scatter-ring", "--budget-cells", "6",
                               "--out", rules_path, "--json", json_path, "--quiet"],
                              capture_output=True, text=True, timeout=530)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(json_path) as f:
            data = json.load(f)
        self.assertEqual(len(data["predict"]["measured_order"]), 3)
        cells = {(r["environment"]["procs"], c["bytes"], r["method"])
                 for r in data["runs"] for c in r["results"]}
        self.assertEqual(len(cells), 6)
        with open(rules_path) as f:
            rules = [RULE.match(line) for line in f if line.startswith("procs=")]
        self.assertTrue(rules and all(rules))
        parts = [p for r in rules for p in r.group("evidence").split(" | ")]
        self.assertEqual(len(parts), 6)
        for part in parts:
            self.assertRegex(part, r"^\S+: (measured|predicted)[ ,]")
        self.assertEqual(sum(": measured," in p for p in parts), 3)
        self.assertEqual({r.group("ppn") for r in rules if r.group("procs") != "1-5"}, {"4"})
        again = os.path.join(directory, "again.rules")
        done = subprocess.run(["timeout", "120", TUNE, "--from-json", json_path, "--predict",
                               "--out", again], capture_output=True, text=True, timeout=150)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(rules_path) as f, open(again) as g:
            self.assertEqual([line for line in f if line.startswith("procs=")],
                             [line for line in g if line.startswith("procs=")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
