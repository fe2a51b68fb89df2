"""leancast-plan from the outside: the issue's numbers, the JSON fields, bad options."""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import plan_calls  # noqa: E402

PLAN = sys.argv.pop(1)


def run(*args):
    return plan_calls.run(PLAN, *args)


def plan_json(*args):
    return plan_calls.run_json(PLAN, *args)


def allgather(report):
    return next(p for p in report["phases"] if p["name"] == "allgather")


class PlanCli(unittest.TestCase):
    def test_paper_ring_transfers(self):
        for procs, tuned, native in ((8, 44, 56), (10, 75, 90)):
            t = plan_json("--algorithm", "scatter-ring-tuned", "--procs", str(procs), "--bytes", "1048576")
            n = plan_json("--algorithm", "native", "--procs", str(procs), "--bytes", "1M")
            self.assertEqual(allgather(t)["transfers"], tuned)
            self.assertEqual(allgather(n)["transfers"], native)

    def test_json_fields(self):
        report = plan_json("--algorithm", "opt", "--procs", "10", "--root", "3", "--bytes", "3M")
        for field in ("algorithm", "procs", "root", "bytes", "steps", "transfers", "bytes_moved", "phases"):
            self.assertIn(field, report)
        self.assertEqual((report["procs"], report["root"], report["bytes"]), (10, 3, 3 << 20))
        self.assertEqual([p["name"] for p in report["phases"]], ["scatter", "allgather"])
        self.assertEqual(report["transfers"], sum(p["transfers"] for p in report["phases"]))
        self.assertEqual(report["bytes_moved"], sum(p["bytes_moved"] for p in report["phases"]))
        self.assertEqual(report["steps"], 4 + 9)  # ceil(log2 10) scatter + P - 1 ring steps

    def test_auto_names_its_choice(self):
        # auto names what it runs. A leancast algorithm: running it by name gives the same
        # schedule. mpi (the library's own broadcast, where the table has no evidence that
        # leancast is faster): no schedule, nothing counted, and said so in the text.
        for ppn in ("1", "64"):
            for size in ("8", "100000", "4M"):
                args = ("-p", "64", "-b", size, "--ranks-per-node", ppn)
                report = plan_json("-a", "auto", *args)
                chosen = report["selected_algorithm"]
                self.assertNotIn("auto", chosen)
                if chosen == "mpi":
                    self.assertEqual((report["transfers"], report["phases"]), (0, []))
                    self.assertIn("auto -> mpi", run("-a", "auto", *args).stdout)
                    continue
                named = plan_json("-a", chosen, *args)
                for field in ("steps", "transfers", "bytes_moved", "phases"):
                    self.assertEqual(report[field], named[field], field)

    def test_step_table_shows_figure_4(self):
        out = run("--algorithm", "scatter-ring-tuned", "--procs", "8", "--bytes", "1M").stdout
        self.assertIn("(holds)", out)
        self.assertIn("4-7<p0", out)  # the root's first scatter message: chunks 4..7 to p4
        rows = [line.split() for line in out.splitlines() if " allgather " in line]
        self.assertEqual(len(rows), 7)  # P - 1 ring steps
        self.assertEqual(rows[0][2], ".")  # the root receives nothing

    def test_hundred_thousand_ranks_in_seconds(self):
        start = time.monotonic()
        report = plan_json("--algorithm", "scatter-ring", "--procs", "100000", "--bytes", "16M")
        elapsed = time.monotonic() - start
        self.assertEqual(allgather(report)["transfers"], 100000 * 99999)
        print(f"P=100000 totals in {elapsed:.2f} s", file=sys.stderr)

    def test_parameters_in_names(self):
        chain = plan_json("--algorithm", "pipeline-chain:1K", "--procs", "5", "--bytes", "4K")
        self.assertEqual(chain["algorithm"], "pipeline-chain:1K")
        self.assertEqual((chain["block_bytes"], chain["steps"]), (1024, 5 - 2 + 4))
        default = plan_json("--algorithm", "knomial", "--procs", "16", "--bytes", "1")
        self.assertEqual((default["algorithm"], default["steps"]), ("knomial:4", 2))

    def test_cost_model_fields(self):
        # binomial at P = 8: three rounds of one whole message, alpha + n * beta each.
        report = plan_json("-a", "binomial", "-p", "8", "-b", "1000", "--alpha", "1e-6", "--beta", "1e-9")
        self.assertAlmostEqual(report["model_seconds"], 3 * (1e-6 + 1000e-9), delta=1e-15)
        self.assertAlmostEqual(report["lower_bound_seconds"], 3e-6 + 1000e-9, delta=1e-15)
        self.assertNotIn("model_seconds", plan_json("-a", "binomial", "-p", "8", "-b", "1000"))
        two = plan_json("-a", "binomial", "-p", "4", "-b", "1000", "--alpha", "1e-6", "--beta", "1e-9",
                        "--ranks-per-node", "2", "--alpha-inter", "1e-5", "--beta-inter", "1e-8")
        self.assertAlmostEqual(two["model_seconds"], 1e-5 + 1000e-8 + 1e-6 + 1000e-9, delta=1e-15)
        text = run("-a", "binomial", "-p", "8", "-b", "1000", "--alpha", "1e-6", "--beta", "1e-9").stdout
        self.assertIn("model: 6e-06 s", text)

    def test_compare_ranks_every_algorithm(self):
        report = plan_json("--compare", "--procs", "64", "--bytes", "4M")
        names = [a["algorithm"] for a in report["algorithms"]]
        # Every concrete algorithm of the registry: all listed names but auto and mpi, ranked
        # or (shm, cma: copies through the node's memory, not messages) listed as not modelled.
        listed = run("--list-algorithms").stdout.split()
        self.assertEqual(len(names) + len(report["not_modelled"]), len(listed) - 2)
        rows = json.loads(run("--json", "--list-algorithms").stdout)
        within = [r["name"] for r in rows if r.get("shared_memory")]
        self.assertEqual(sorted(within), ["cma", "cma-split", "shm"])
        self.assertEqual([n.split(":")[0] for n in report["not_modelled"]], within)
        self.assertIn("pipeline-chain:64K", names)
        self.assertIn("circulant", names)
        times = [a["model_seconds"] for a in report["algorithms"]]
        self.assertEqual(times, sorted(times))
        self.assertLessEqual(report["lower_bound_seconds"], times[0])
        self.assertEqual(report["auto_selects"],
                         plan_json("-a", "auto", "-p", "64", "-b", "4M")["selected_algorithm"])
        # Latency-bound: a tree beats the bandwidth algorithms for one byte.
        small = plan_json("--compare", "--procs", "64", "--bytes", "1", "--alpha", "1e-6", "--beta", "1e-9")
        self.assertNotIn(small["algorithms"][0]["algorithm"], ("linear", "pipeline-chain:64K"))
        table = run("--compare", "--procs", "64", "--bytes", "4M").stdout
        self.assertIn("x_bound", table)
        self.assertIn("knomial:4", table)

    def test_circulant_and_node_aware(self):
        circulant = plan_json("-a", "circulant:9", "-p", "20", "-b", "9000")
        self.assertEqual((circulant["steps"], circulant["block_bytes"]), (9 - 1 + 5, 1000))
        composed = plan_json("-a", "node-aware:binomial/pipeline-chain:1K", "-p", "12", "-b", "4K",
                             "--ranks-per-node", "4")
        phases = {p["name"]: p for p in composed["phases"]}
        self.assertEqual(set(phases), {"inter:bcast", "intra:pipeline"})
        self.assertEqual(phases["inter:bcast"]["bytes_moved"], 2 * 4096)  # 3 nodes
        self.assertEqual(phases["intra:pipeline"]["bytes_moved"], 9 * 4096)
        self.assertEqual(composed["bytes_moved"], 11 * 4096)
        levels = plan_json("-a", "node-aware", "-p", "12", "-b", "4K", "--ranks-per-node", "4")
        self.assertNotIn("auto", levels["selected_algorithm"])
        table = run("-a", "node-aware:binomial/binomial", "-p", "6", "-b", "1K", "--ranks-per-node", "3").stdout
        self.assertIn("inter:bcast", table)
        self.assertIn("all<p3", table)  # the second node's leader passes it on within its node

    def test_bad_options_fail_clearly(self):
        for args, message in (
            (("--algorithm", "ring", "--procs", "4", "--bytes", "1"), "unknown algorithm"),
            (("--algorithm", "mpi", "--procs", "4", "--bytes", "1"), "no schedule"),
            (("--algorithm", "opt", "--procs", "4", "--bytes", "12Q"), "not a size"),
            (("--algorithm", "opt", "--procs", "4", "--root", "4", "--bytes", "1"), "not a rank"),
            (("--algorithm", "opt", "--procs", "0", "--bytes", "1"), "procs"),
            (("--algorithm", "opt", "--procs", "100", "--bytes", "1", "--steps"), "at most"),
            (("--procs", "4", "--bytes", "1"), "algorithm"),
            (("--algorithm", "knomial:1", "--procs", "4", "--bytes", "1"), "radix"),
            (("--algorithm", "pipeline-chain:0", "--procs", "4", "--bytes", "1"), "segment"),
            (("--algorithm", "binomial:3", "--procs", "4", "--bytes", "1"), "no parameter"),
            (("--algorithm", "circulant:0", "--procs", "4", "--bytes", "1"), "block count"),
            (("--algorithm", "circulant:4294967296", "--procs", "4", "--bytes", "4K"),
             "circulant: the block count must be an integer from 1 to 1048576 (got 4294967296)"),
            (("--algorithm", "pipeline-chain:2G", "--procs", "4", "--bytes", "1"),
             "from 1 byte to 1G (got 2147483648)"),
            (("--algorithm", "node-aware:mpi/linear", "--procs", "4", "--bytes", "1"), "level"),
            (("--compare", "--algorithm", "opt", "--procs", "4", "--bytes", "1"), "one of them"),
            (("--compare", "--procs", "4", "--bytes", "1", "--alpha-inter", "1"), "--ranks-per-node"),
            (("--compare", "--procs", "4", "--bytes", "1", "--alpha", "-1"), "alpha"),
        ):
            result = run(*args)
            self.assertNotEqual(result.returncode, 0, args)
            self.assertIn(message, result.stderr + result.stdout, args)


    def test_list_algorithms_is_the_registry(self):
        # One name a line, every name the tools accept (auto and mpi too): what scripts use.
        result = run("--list-algorithms")
        self.assertEqual(result.returncode, 0, result.stderr)
        names = result.stdout.split()
        for name in ("auto", "linear", "scatter-ring-tuned", "knomial", "node-aware", "mpi"):
            self.assertIn(name, names)
        self.assertEqual(len(names), len(set(names)))
        help_text = run("--help").stdout
        for name in names:
            self.assertIn(name, help_text)
            if name not in ("mpi", "node-aware", "auto"):
                # Every concrete algorithm plans, by the name the list gives.
                plan = plan_json("-a", name, "-p", "5", "-b", "1000")
                self.assertGreater(plan["transfers"], 0, name)
        self.assertIn("knomial[:RADIX]", help_text)
        self.assertIn("2..1048576, default 4", help_text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
