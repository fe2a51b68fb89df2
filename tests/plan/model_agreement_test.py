"""The model against the simulation: scripts/model-vs-sim.py's count on crafted simulations
whose answer is known, its tables from the evidence, and what leancast-plan --compare says
beside its ranking.

Usage: model_agreement_test.py LEANCAST_PLAN REPOSITORY_ROOT
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import plan_calls  # noqa: E402

PLAN = sys.argv.pop(1)
ROOT = sys.argv.pop(1)
SCRIPT = os.path.join(ROOT, "scripts", "model-vs-sim.py")
CHECK_LINE = "model vs simulation"


def plan(*args):
    return plan_calls.run(PLAN, *args)


def plan_json(*args):
    return plan_calls.run_json(PLAN, *args)


def sim_run(method, procs, times):
    """A leancast-sim (leancast-bench) run: one cell per algorithm at 1 MiB."""
    cell = lambda name, seconds: {"algorithm": name, "bytes": 1 << 20, "data_ok": True,
                                  "summary": {"seconds_per_bcast": {"median": seconds}}}
    return {"method": method,
            "environment": {"procs": procs, "ranks_per_node": 24,
                            "platform": "hornet (SimGrid SMPI model, one host per core)"},
            "simulation": {"platform": "hornet"},
            "results": [cell(name, seconds) for name, seconds in times.items()]}


class Agreement(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def write(self, name, data):
        with open(self.path(name), "w", encoding="utf-8") as f:
            json.dump(data, f)
        return self.path(name)

    def script(self, *args):
        result = subprocess.run([sys.executable, SCRIPT, "--plan", PLAN, *args],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def test_known_answer(self):
        # The model's order of four algorithms at P = 48, 1 MiB on hornet: m1 < m2 < m3 < m4.
        names = ["binomial", "linear", "pipeline-chain:16K", "scatter-ring-tuned"]
        report = plan_json("--compare", "--platform", "hornet", "-p", "48", "-b", "1M",
                           "--candidates", ",".join(names))
        model = {row["candidate"]: row["model_seconds"] for row in report["algorithms"]}
        m1, m2, m3, m4 = sorted(names, key=model.get)
        self.assertLess(model[m3], model[m4])
        # Simulated: m3 faster than m2 by 25 % (the one disagreement); m4 1 % faster than m2
        # (a near-tie: agrees with either order); every other pair as the model has it.
        osu = {m1: 1.0, m2: 2.0, m3: 1.5, m4: 1.98,
               # not in the model: SMPI's own broadcasts, and other executors
               "mpi": 0.1, "smpi:ompi": 0.1, f"{m1}@dataflow:0": 9.0}
        paper = {m1: 4.0, m2: 3.0, m3: 2.0, m4: 1.0}  # every pair reversed
        tune = self.write("tune.json", {"runs": [sim_run("paper", 48, paper), sim_run("osu", 48, osu)]})
        self.script(tune, "--out", self.path("summary.json"), "--pairs", self.path("pairs.jsonl"))
        with open(self.path("summary.json")) as f:
            point, = json.load(f)["points"]
        self.assertEqual((point["platform"], point["ranks_per_node"], point["procs"], point["bytes"]),
                         ("hornet", 24, 48, 1 << 20))
        self.assertEqual((point["method"], point["algorithms"], point["pairs"]), ("osu", 4, 6))
        self.assertEqual((point["agree"], point["simulated_ties"]), (5, 1))
        with open(self.path("pairs.jsonl")) as f:
            pair_point, = map(json.loads, f)
        miss, = pair_point["disagreements"]
        self.assertEqual((miss["faster"], miss["slower"]), (m3, m2))
        self.assertAlmostEqual(miss["simulated_ratio"], 0.75)
        self.assertAlmostEqual(miss["model_ratio"], model[m3] / model[m2])
        self.assertGreater(miss["model_ratio"], 1)
        # The other method: every pair the model orders one way, the simulation the other.
        self.script(tune, "--method", "paper", "--out", self.path("paper.json"))
        with open(self.path("paper.json")) as f:
            point, = json.load(f)["points"]
        self.assertEqual((point["method"], point["agree"], point["pairs"]), ("paper", 0, 6))
        # A leancast-sim file, and compact evidence (JSON Lines, gzip): the same point; the
        # tables printed.
        single = self.write("sim.json", sim_run("osu", 48, osu))
        compact = self.path("sim.jsonl.gz")
        with gzip.open(compact, "wt") as f:
            f.write(json.dumps({"tuning": 1, "name": "crafted"}) + "\n")
            f.write(json.dumps({"tuning": 1, "run": sim_run("osu", 48, osu)}) + "\n")
        for source in (single, compact):
            text = self.script(source).stdout
            self.assertIn("| 48 | 5/6 (83*) | 83 % |", text)
        self.script(compact, "--pairs", self.path("compact.jsonl"))
        with open(self.path("compact.jsonl")) as f:
            self.assertEqual(json.loads(f.readline())["file"], compact + "#crafted")

    def test_tables_from_the_evidence(self):
        # The page's tables from data/model-agreement.json and evidence/model-agreement.jsonl,
        # without leancast-plan; the two must count the same points.
        result = subprocess.run([sys.executable, SCRIPT, "--tables", "all"], capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("pairs agree", result.stdout)

    def agreement_file(self):
        point = lambda procs, agree: {"platform": "hornet", "ranks_per_node": 24, "procs": procs,
                                      "bytes": 1 << 20, "method": "osu", "algorithms": 5,
                                      "pairs": 20, "agree": agree, "simulated_ties": 0,
                                      "percent": agree * 5.0}
        return self.write("agreement.json", {"points": [point(256, 19), point(1024, 10)]})

    def check(self, *args):
        given = ("--compare", "-b", "1M", "--candidates", "binomial,two-tree", *args)
        text = plan(*given)
        self.assertEqual(text.returncode, 0, text.stderr)
        return text.stdout, plan_json(*given).get("simulation_check")

    def test_plan_states_the_check_at_large_procs(self):
        data = self.agreement_file()
        text, check = self.check("-p", "181", "--platform", "hornet", "--agreement", data)
        self.assertNotIn(CHECK_LINE, text)
        self.assertIsNone(check)
        text, check = self.check("-p", "300", "--platform", "hornet", "--agreement", data)
        self.assertIn("95 % of 20 pairs agree: ranking validated", text)
        self.assertIn("at P = 256-1024", text)
        self.assertEqual((check["verdict"], check["extrapolated"], check["nearest"]["procs"]),
                         ("validated", False, 256))
        self.assertEqual((check["agree"], check["pairs"]), (29, 40))
        text, check = self.check("-p", "800", "--platform", "hornet", "--agreement", data)
        self.assertIn("50 % of 20 pairs agree: ranking unvalidated here", text)
        self.assertEqual(check["verdict"], "unvalidated")
        text, check = self.check("-p", "2048", "--platform", "hornet", "--agreement", data)
        self.assertIn("beyond the largest simulated P = 1024: extrapolated", text)
        self.assertTrue(check["extrapolated"])
        # Parameters no simulation checked: unvalidated, whatever the data says.
        for args in (("--ranks-per-node", "8"), ("--alpha", "1e-6"), ()):
            platform = ("--platform", "hornet") if args else ()
            text, check = self.check("-p", "300", *platform, *args, "--agreement", data)
            self.assertIn("ranking unvalidated here", text, args)
            self.assertEqual(check["verdict"], "unvalidated", args)
        self.assertIn("only with 24", self.check("-p", "300", "--platform", "hornet",
                                                  "--ranks-per-node", "8", "--agreement", data)[0])
        bad = plan("--compare", "-p", "300", "-b", "1", "--agreement", self.write("bad.json", {}))
        self.assertEqual(bad.returncode, 2)
        self.assertIn("model-vs-sim.py", bad.stderr)

    def test_built_in_data_is_the_repository_file(self):
        with open(os.path.join(ROOT, "data", "model-agreement.json")) as f:
            points = [p for p in json.load(f)["points"]
                      if (p["platform"], p["ranks_per_node"]) == ("hornet", 24)]
        text, check = self.check("-p", "4096", "--platform", "hornet")
        if not points:
            self.assertIn("not simulated with 24 ranks per node", text)
            return
        pairs, agree = sum(p["pairs"] for p in points), sum(p["agree"] for p in points)
        self.assertEqual((check["pairs"], check["agree"]), (pairs, agree))
        self.assertIn(f"{100 * agree / pairs:.0f} % of {pairs} ordered pairs agree", text)
        nearest = max((p for p in points if p["bytes"] == check["nearest"]["bytes"]),
                      key=lambda p: p["procs"])
        self.assertEqual(check["verdict"],
                         "validated" if nearest["percent"] >= 90 else "unvalidated")

    def test_platform_parameters_are_the_platform_files(self):
        def figures(name):
            with open(os.path.join(ROOT, "tools", "sim", "platforms", name + ".cpp")) as f:
                text = f.read()
            # Fields (core_latency = 0.2e-6) and constants (kLinkLatency = 0.13e-6, as
            # link_latency).
            snake = lambda name: re.sub(r"(?<!^)([A-Z])", r"_\1", re.sub(r"^k(?=[A-Z])", "", name)).lower()
            return {snake(k): float(v) for k, v in
                    re.findall(r"(\w+)\s*=\s*([0-9.]+e-?[0-9]+)", text)}
        for name, hops in (("hornet", 3), ("laki", 2)):
            f = figures(name)
            overhead = f["send_overhead"] + f["receive_overhead"]
            model = plan_json("--compare", "--platform", name, "-p", "2", "-b", "1")["model"]
            self.assertAlmostEqual(model["alpha"], 2 * f["core_latency"] + overhead, delta=1e-12)
            self.assertAlmostEqual(model["alpha_inter"],
                                   2 * f["core_latency"] + 2 * f["nic_latency"] +
                                   hops * f["link_latency"] + overhead, delta=1e-12)
            self.assertAlmostEqual(model["beta"], 1 / min(f["core_bandwidth"], f["send_bandwidth"]))
            self.assertAlmostEqual(model["beta_inter"],
                                   1 / min(f["core_bandwidth"], f["send_bandwidth"],
                                           f["nic_bandwidth"], f["link_bandwidth"]))
            self.assertAlmostEqual(model["beta_node"], 1 / f["nic_bandwidth"])
            self.assertAlmostEqual(model["send_overhead"], f["send_overhead"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
