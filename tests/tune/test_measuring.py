"""leancast-tune's measuring modules (tools/tune/leancast_tune/measuring.py, planner.py and
library.py) without MPI: the commands it launches, a stand-in leancast-bench run through
them (fixed runs, --site within a budget, the library's algorithms forced one launch each),
progress and time limits, message counts from a stand-in leancast-plan, and the --site
planner's estimates on synthetic measurements.

Usage: test_measuring.py
"""
import contextlib
import io
import math
import os
import tempfile
import time
import unittest
from unittest import mock

from tune_package import K, M, bench_run, options, write_script

from leancast_tune import common, library, measuring, planner  # noqa: E402

# A stand-in leancast-bench: times from the size (linear 2x slower), the process count from
# --procs or FAKE_PROCS, progress lines, and the library's forced algorithm from the
# environment (Open MPI's 9 fails, 1 is 4x faster).
FAKE_BENCH = r'''
import json, os, sys
args = sys.argv[1:]
value = lambda flag, default=None: args[args.index(flag) + 1] if flag in args else default
forced = os.environ.get("OMPI_MCA_coll_tuned_bcast_algorithm", "")
if forced == "9":
    sys.exit("forced algorithm 9 failed")
algorithms, sizes = value("--algorithms").split(","), [int(s) for s in value("--sizes").split(",")]
procs = int(value("--procs", os.environ.get("FAKE_PROCS", "1")))
results = []
for n, size in enumerate(sizes):
    for a in algorithms:
        t = (1e-6 + size * 1e-9) * (2 if a == "linear" else 1) / (4 if forced == "1" else 1)
        results.append({"algorithm": a, "bytes": size, "data_ok": True, "reps": [],
                        "summary": {"seconds_per_bcast": {"median": t, "min": t, "max": t}}})
    print(f"cell {n + 1}/{len(sizes)}", flush=True)
with open(value("--json"), "w") as f:
    json.dump({"tool": "leancast-bench", "method": value("--method"), "wall_seconds": 0.01,
               "options": {"algorithms": algorithms, "sizes": sizes,
                           "iterations": int(value("--iterations", "10")),
                           "reps": int(value("--reps", "5")), "command_line": args},
               "environment": {"procs": procs, "nodes": 1, "ranks_per_node": procs,
                               "mpi_library": "Fixture MPI 1.0", "forced": forced},
               "results": results}, f)
'''


class Commands(unittest.TestCase):
    def test_through_a_launcher(self):
        given = options(launcher="mpirun --x -n {procs}", sim=None, bench="/b/leancast-bench",
                        candidates=["mpi", "linear"])
        self.assertEqual(measuring.bench_command(given, 4, "osu", [K, M], "/o.json", 5, None, 1),
                         ["mpirun", "--x", "-n", "4", "/b/leancast-bench", "--algorithms",
                          "mpi,linear", "--sizes", "1024,1048576", "--method", "osu",
                          "--baseline", "mpi", "--json", "/o.json", "--no-memory-bound",
                          "--iterations", "5", "--warmup", "1"])
        command = measuring.bench_command(given, 2, "paper", [K], "/o.json", candidates=["mpi"])
        self.assertEqual(command[4:7], ["/b/leancast-bench", "--algorithms", "mpi"])
        self.assertNotIn("--iterations", command)
        self.assertNotIn("--rotate-above", command)
        given.rotate_above = "4M"
        self.assertEqual(measuring.bench_command(given, 2, "osu", [K], "/o.json")[-2:],
                         ["--rotate-above", "4M"])

    def test_simulated(self):
        given = options(sim="hornet", leancast_sim="/b/leancast-sim", ranks_per_node=24,
                        shared_buffer=True, candidates=["mpi", "smpi:mpich"])
        self.assertEqual(measuring.bench_command(given, 48, "paper", [8], "/o.json"),
                         ["/b/leancast-sim", "--platform", "hornet", "--procs", "48",
                          "--iterations", "1", "--reps", "1", "--algorithms", "mpi,smpi:mpich",
                          "--sizes", "8", "--method", "paper", "--baseline", "mpi", "--json",
                          "/o.json", "--ranks-per-node", "24", "--shared-buffer"])

    def test_tools_beside_the_script_else_on_the_path(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(common, "TOOL_DIR", tmp), \
                mock.patch.dict(os.environ, {"PATH": tmp}):
            given = options(launcher="{procs}", sim=None, bench=None, candidates=["mpi"])
            with self.assertRaises(SystemExit) as stop:
                measuring.bench_command(given, 2, "paper", [K], "/o.json")
            self.assertIn("no leancast-bench", str(stop.exception))
            bench = write_script(os.path.join(tmp, "leancast-bench"), "")
            self.assertEqual(measuring.bench_command(given, 2, "paper", [K], "/o")[1], bench)
            self.assertEqual(common.find_tool("leancast-bench", "/given"), "/given")

    def test_records_name_no_machine_paths(self):
        tmp = tempfile.gettempdir()
        with tempfile.TemporaryDirectory() as made:
            self.assertEqual(common.shown(os.path.join(made, "p2.json")),
                             f"$TMPDIR/{os.path.basename(made)}/p2.json")
            self.assertEqual(common.shown(f"--json={made}/p2.json"),
                             f"--json=$TMPDIR/{os.path.basename(made)}/p2.json")
            # Inside the current directory: relative to it; beside it: with ..; a program
            # (an executable file) by its name.
            checkout = os.path.join(made, "checkout")
            os.makedirs(os.path.join(checkout, "build"))
            program = write_script(os.path.join(checkout, "build", "leancast-bench"), "")
            here = os.getcwd()
            try:
                os.chdir(os.path.join(checkout, "build"))
                self.assertEqual(common.shown(f"{checkout}/build/x.rules"), "x.rules")
                self.assertEqual(common.shown(f"LEANCAST_CONFIG={checkout}/data/a.rules"),
                                 "LEANCAST_CONFIG=../data/a.rules")
                self.assertEqual(common.shown_args(["/usr/bin/env", "A=1", program, "--json",
                                                    f"{checkout}/build/o.json"]),
                                 ["env", "A=1", "leancast-bench", "--json", "o.json"])
            finally:
                os.chdir(here)
        self.assertEqual(common.shown(f"{tmp}/leancast-tune-x/p2.json"),
                         "$TMPDIR/leancast-tune-x/p2.json")
        # System paths as they are (a different top folder than the current directory's).
        top = os.getcwd().split(os.sep)[1]
        for system in ("/usr/lib/x86_64-linux-gnu/libmpi.so", "/dev/shm/leancast-1"):
            if system.split(os.sep)[1] != top:
                self.assertEqual(common.shown(system), system)


class Running(unittest.TestCase):
    def test_progress_and_exit_status(self):
        shares = []
        status, tail = measuring.run_command(
            ["sh", "-c", "echo cell 1/4; echo cell 2/4; echo done; exit 3"], 30, shares.append)
        self.assertEqual(status, 3)
        self.assertIn("done", tail)
        self.assertIn(0.5, shares)

    def test_stopped_at_the_time_limit(self):
        # The whole process group is stopped, the shell's child too. No wall-clock bound is
        # asserted (a busy machine could break one); a kill that never lands hangs until
        # CTest's timeout.
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = os.path.join(tmp, "pid")
            status, _ = measuring.run_command(
                ["sh", "-c", f"sleep 300 & echo $! > {pid_file}; wait"], 0.5)
            self.assertEqual(status, 124)
            child = None
            if os.path.exists(pid_file):  # else stopped before it started the child
                with open(pid_file) as f:
                    child = int(f.read() or 0) or None
        while child is not None:
            try:
                with open(f"/proc/{child}/stat") as f:
                    if f.read().rsplit(")", 1)[-1].split()[0] == "Z":
                        break  # killed, not yet reaped
            except FileNotFoundError:
                break
            time.sleep(0.05)

    def test_progress_line(self):
        # A clock of the test's own: what is shown depends on no machine's speed.
        now = [100.0]
        progress = measuring.Progress(10, 100.0, clock=lambda: now[0])
        progress.done = 4
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            progress.show("P=2, paper", 1, force=True)
            now[0] += measuring.Progress.LOG_EVERY / 2
            progress.show("P=2, paper", 2)  # within LOG_EVERY of the last: not shown
        self.assertRegex(err.getvalue(), r"^leancast-tune: P=2, paper: cells 5/10, 0s elapsed, "
                                         r"about 0s left\n$")

    def test_progress_in_a_log_a_terminal_and_quiet(self):
        class Terminal(io.StringIO):
            def isatty(self):
                return True

        for stream, quiet in ((io.StringIO(), False), (Terminal(), False), (io.StringIO(), True)):
            now = [0.0]
            progress = measuring.Progress(100, 0.0, quiet=quiet, stream=stream,
                                          clock=lambda: now[0])
            progress.show("P=2, paper", force=True)
            for _ in range(60):  # a minute, a step every second
                now[0] += 1.0
                progress.done += 1
                progress.show("P=2, paper")
            progress.end()
            text = stream.getvalue()
            if quiet:
                self.assertEqual(text, "")
            elif isinstance(stream, Terminal):
                self.assertEqual(text.count("\r"), 61)  # one live line, rewritten each second
                self.assertEqual(text.count("\n"), 1)
            else:
                self.assertNotIn("\r", text)
                self.assertEqual(len(text.splitlines()), 7)  # at 0 s, then every 10 s
                self.assertIn("cells 60/100", text.splitlines()[-1])


class Launches(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bench = write_script(os.path.join(self.tmp.name, "bench"), FAKE_BENCH)
        self.quiet = contextlib.redirect_stderr(io.StringIO())
        self.quiet.__enter__()

    def tearDown(self):
        self.quiet.__exit__(None, None, None)
        self.tmp.cleanup()

    def given(self, **more):
        values = dict(launcher="env FAKE_PROCS={procs}", sim=None, bench=self.bench,
                      candidates=["mpi", "binomial", "linear"], procs=[2, 4], sizes=[K, 64 * K],
                      methods=["paper", "osu"], iterations=3, reps=2, candidates_given=True)
        values.update(more)
        return options(**values)

    def test_one_run_per_count_and_method(self):
        runs, extra = measuring.measure_fixed(self.given(), self.tmp.name, time.monotonic())
        self.assertEqual(extra, {})
        self.assertEqual([(r["environment"]["procs"], r["method"]) for r in runs],
                         [(2, "paper"), (2, "osu"), (4, "paper"), (4, "osu")])
        self.assertEqual(runs[0]["options"]["iterations"], 3)
        self.assertEqual(runs[0]["tune_command"][:3], ["env", "FAKE_PROCS=2", "bench"])
        self.assertGreater(runs[0]["tune_wall_seconds"], 0)
        self.assertEqual(len(runs[3]["results"]), 6)

    def test_a_failed_launch_ends_the_tuning(self):
        given = self.given(launcher="env OMPI_MCA_coll_tuned_bcast_algorithm=9 FAKE_PROCS={procs}")
        with self.assertRaises(SystemExit) as stop:
            measuring.measure_fixed(given, self.tmp.name, time.monotonic())
        self.assertIn("failed (exit 1)", str(stop.exception))

    def test_site_within_a_budget_of_cells(self):
        given = self.given(site=True, budget_minutes=None, budget_cells=8, iterations=None,
                           reps=None, candidates=["mpi", "binomial", "node-aware:binomial/linear"],
                           candidates_given=False)
        runs, extra = measuring.measure_site(given, self.tmp.name, time.monotonic())
        # One node: node-aware candidates dropped unless asked for by name.
        self.assertEqual(extra["candidates"], ["mpi", "binomial"])
        self.assertEqual(extra["calibration"]["environment"]["procs"], 4)  # the largest count
        self.assertEqual(extra["calibration"]["options"]["iterations"], 1)
        self.assertEqual(extra["calibration"]["options"]["reps"], measuring.CALIBRATION_REPS)
        self.assertEqual(extra["not_measured"], {})
        measured = {(r["environment"]["procs"], r["method"], s) for r in runs
                    for s in r["options"]["sizes"]}
        self.assertEqual(measured, {(p, m, s) for p in (2, 4) for m in ("paper", "osu")
                                    for s in (K, 64 * K)})
        for plan in extra["plans"]:
            self.assertEqual(plan["reps"], planner.CELLS_REPS)
            self.assertEqual(plan["target_seconds"], planner.CELLS_TARGET)
            self.assertTrue(1 <= plan["iterations"] <= planner.MAX_ITERATIONS)

    def test_fewer_cells_leave_the_largest_size_out_at_the_largest_count_first(self):
        # 8 cells (2 counts x 2 sizes x 2 methods); 6 leave out 64K at P = 4 (both methods),
        # 5 64K at P = 2 too (4 cells left): a size under every method or none.
        for cells, left_out in ((6, {"4": [64 * K]}), (5, {"2": [64 * K], "4": [64 * K]})):
            given = self.given(site=True, budget_minutes=None, budget_cells=cells,
                               iterations=None, reps=None)
            runs, extra = measuring.measure_site(given, self.tmp.name, time.monotonic())
            self.assertEqual(extra["not_measured"], left_out, cells)
            measured = {(r["environment"]["procs"], r["method"], s) for r in runs
                        for s in r["options"]["sizes"]}
            self.assertEqual(len(measured), 6 if cells == 6 else 4, measured)
            self.assertTrue(all(s == K for p, _, s in measured if str(p) in left_out))

    def test_the_library_forced_one_launch_each(self):
        given = self.given(candidates=["mpi", "ompi:1", "ompi:9"], procs=[2], methods=["osu"])
        runs, extra = measuring.measure_library(given, self.tmp.name, time.monotonic())
        self.assertEqual(extra, {"library_failed": ["P=2 osu ompi:9"]})
        [run] = runs
        self.assertEqual(run["options"]["algorithms"], ["mpi", "ompi:1", "ompi:9"])
        times = {(r["algorithm"], r["bytes"]): r["summary"]["seconds_per_bcast"]["median"]
                 for r in run["results"]}
        self.assertEqual(set(times), {(a, s) for a in ("mpi", "ompi:1") for s in (K, 64 * K)})
        self.assertAlmostEqual(times[("mpi", K)] / times[("ompi:1", K)], 4)
        self.assertEqual(run["library_commands"]["ompi:1"][:3],
                         ["OMPI_MCA_coll_tuned_use_dynamic_rules=1",
                          "OMPI_MCA_coll_tuned_bcast_algorithm=1",
                          "OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize=0"])
        self.assertEqual(run["library_commands"]["mpi"][0], "env")

    def test_messages_from_leancast_plan(self):
        log = os.path.join(self.tmp.name, "asked")
        plan = write_script(os.path.join(self.tmp.name, "plan"), f'''
import json, sys
with open({log!r}, "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
if "bad" in sys.argv:
    print("not json")
else:
    print(json.dumps({{"busiest_rank": {{"messages": len(sys.argv)}}}}))
''')
        messages = measuring.Messages(plan)
        self.assertEqual(messages("binomial", 8, K, {"nodes": 1}), 9)  # len(argv)
        self.assertEqual(messages("binomial", 8, K, {"nodes": 1}), 9)  # cached
        self.assertEqual(messages("linear", 8, K, {"nodes": 2, "ranks_per_node": 4}), 11)
        with open(log) as f:
            self.assertEqual(f.read().splitlines(), [
                "--algorithm binomial --procs 8 --bytes 1024 --json --no-steps",
                "--algorithm linear --procs 8 --bytes 1024 --json --no-steps "
                "--ranks-per-node 4"])
        self.assertFalse(messages.missing)
        self.assertIsNone(messages("bad", 8, K, {}))
        self.assertTrue(messages.missing)
        missing = measuring.Messages(None)
        self.assertIsNone(missing("linear", 2, K, {}))
        self.assertTrue(missing.missing)


class Planning(unittest.TestCase):
    def planner_with(self, times_by_procs, sizes=(K, M), candidates=("mpi", "linear")):
        p = planner.Planner(options(sizes=list(sizes)), list(candidates))
        for procs, times in times_by_procs.items():
            p.learn(bench_run(procs, "paper", times))
        return p

    def test_estimates_scale_with_p_minus_1(self):
        p = self.planner_with({2: {("mpi", K): 1.0, ("linear", K): 2.0},
                               8: {("mpi", K): 7.0, ("linear", K): 20.0, ("mpi", M): 70.0}})
        self.assertAlmostEqual(p.seconds(4, "mpi", K), 3.0)  # between: geometric in P - 1
        self.assertAlmostEqual(p.seconds(16, "mpi", K), 15.0)  # beyond: times (P - 1) ratio
        self.assertAlmostEqual(p.seconds(2, "linear", K), 2.0)
        # Not measured at the size: the slowest at that size, else the slowest of all.
        self.assertAlmostEqual(p.seconds(8, "linear", M), 70.0)
        self.assertAlmostEqual(p.seconds(2, "linear", M), 2.0)
        self.assertEqual(p.sums(8, K), (27.0, 20.0))

    def test_the_slower_method_counts(self):
        p = self.planner_with({2: {("mpi", K): 1.0}})
        p.learn(bench_run(2, "osu", {("mpi", K): 3.0}))
        p.learn(bench_run(2, "paper", {("mpi", K): 2.0}))
        self.assertEqual(p.seconds(2, "mpi", K), 3.0)

    def test_a_launch_replaces_the_calibration(self):
        p = planner.Planner(options(sizes=[K]), ["mpi"])
        run = bench_run(2, "paper", {("mpi", K): 5e-3})  # an outlier
        run["wall_seconds"] = 0.5
        p.calibrate(run, 3.0)
        self.assertEqual(p.seconds(2, "mpi", K), 5e-3)
        p.learn(bench_run(2, "paper", {("mpi", K): 1e-5}))  # replaces it
        self.assertEqual(p.seconds(2, "mpi", K), 1e-5)
        p.learn(bench_run(2, "osu", {("mpi", K): 2e-5}))  # the slower method counts
        p.learn(bench_run(2, "paper", {("mpi", K): 1e-6}))
        self.assertEqual(p.seconds(2, "mpi", K), 2e-5)

    def test_the_correction_jumps_up_and_creeps_down(self):
        p = self.planner_with({2: {("mpi", K): 1e-6}})
        self.assertEqual(p.correction, 2.0)
        p.observe(1.0, 8.0)
        self.assertEqual(p.correction, 8.0)
        p.observe(1.0, 2.0)
        self.assertAlmostEqual(p.correction, 4.0)
        p.observe(1.0, 1000.0)
        self.assertEqual(p.correction, 20.0)

    def test_calibration(self):
        p = planner.Planner(options(sizes=[K]), ["mpi"])
        run = bench_run(4, "paper", {("mpi", K): 1e-3})
        run["wall_seconds"] = 0.5
        p.calibrate(run, 3.0)
        self.assertAlmostEqual(p.overhead, 2.5)
        self.assertEqual(p.per_byte, 1e-8)  # (0.5 - 0.002) s over 2 KiB, at most 1e-8
        self.assertIn(4, p.known)

    def test_launch_cost(self):
        p = self.planner_with({2: {("mpi", K): 1e-3, ("linear", K): 3e-3}})
        p.overhead, p.per_byte, p.correction = 1.0, 0.0, 2.0
        # (warm-up + check: 2 x 4 ms) + 5 reps x 10 iterations x 4 ms + 2 cells x 5 ms.
        cost = 2 * 4e-3 + 5 * 10 * 4e-3 + 2 * 5e-3
        self.assertAlmostEqual(p.launch_seconds(2, "paper", [K], 10, 5, False), 1.0 + cost)
        self.assertAlmostEqual(p.launch_seconds(2, "paper", [K], 10, 5), 1.0 + 2 * cost)
        barrier = 5 * 10 * 2 * 1e-3  # osu: a barrier per broadcast, as the smallest mpi
        self.assertAlmostEqual(p.launch_seconds(2, "osu", [K], 10, 5, False),
                               1.0 + cost + barrier)
        self.assertAlmostEqual(p.launch_seconds(2, "fresh", [K], 10, 5, False),
                               1.0 + cost + barrier)
        p.per_byte = 1e-8  # fresh: also the root's data rewritten before each broadcast
        rewrite = 5 * 10 * 2 * K * 1e-8
        self.assertAlmostEqual(p.launch_seconds(2, "fresh", [K], 10, 5, False)
                               - p.launch_seconds(2, "osu", [K], 10, 5, False), rewrite)

    def test_groups_keep_each_size_near_its_count(self):
        # Counts 1000, 625, 125, 25, 5 and 1 (target 0.1 s): the two within 4x of each other
        # share a launch at the smaller count; the others, 5x apart, go one launch each
        # although that is more than GROUPS.
        sizes = [K, 4 * K, 16 * K, 64 * K, 256 * K, M]
        counts = dict(zip(sizes, (1000, 625, 125, 25, 5, 1)))
        p = self.planner_with({2: {(a, s): 0.0999 / c for a in ("mpi", "linear")
                                   for s, c in counts.items()}}, sizes=sizes)
        self.assertEqual(p.groups(2, "paper", sizes, 0.1, 9),
                         [([K, 4 * K], 625), ([16 * K], 125), ([64 * K], 25), ([256 * K], 5),
                          ([M], 1)])

    def test_plans_fit_the_time_left(self):
        sizes = [K, 4 * K, 16 * K, 64 * K, 256 * K]
        times = {(a, s): 1e-6 * (1 + s / K) for a in ("mpi", "linear") for s in sizes}
        p = self.planner_with({2: times, 4: times}, sizes=sizes)
        pending = [[q, m, list(sizes)] for q in (2, 4) for m in ("paper", "osu")]
        target, reps = p.plan(pending, 3600)
        self.assertEqual((target, reps), (planner.MAX_TARGET, 9))  # ample time: finish early
        groups = p.groups(2, "paper", sizes, target, reps)
        self.assertLessEqual(len(groups), planner.GROUPS)
        self.assertEqual(sorted(s for g, _ in groups for s in g), sizes)
        for group, iterations in groups:
            slowest = max(p.sums(2, s)[1] for s in group)
            self.assertEqual(iterations, max(1, min(planner.MAX_ITERATIONS,
                                                    int(target / slowest))))
        # Little time: fewer repetitions, a smaller target, within the time.
        left = p.total(pending, 0.0, 5) * 1.05
        target, reps = p.plan(pending, left)
        self.assertEqual(reps, 5)
        self.assertLessEqual(p.total(pending, target, reps), left)
        self.assertLess(target, planner.GOOD_TARGET)
        self.assertEqual(p.dropped, set())
        # Less than one iteration of everything: the largest size left goes, at the largest
        # count first, until the rest fits.
        left = p.total(pending, 0.0, 3) * 0.9
        target, reps = p.plan(pending, left)
        self.assertLessEqual(p.total(pending, target, reps), left)
        order = sorted(((q, s) for q in (2, 4) for s in sizes), key=lambda c: (c[1], c[0]),
                       reverse=True)
        self.assertEqual(p.dropped, set(order[:len(p.dropped)]))
        self.assertIn((4, 256 * K), p.dropped)
        self.assertIn((2, K), set(order) - p.dropped)
        self.assertIsNone(p.plan(pending, 0.1))  # not even the overheads fit
        self.assertTrue(math.isfinite(p.correction))


class LibrarySettings(unittest.TestCase):
    def test_names(self):
        self.assertEqual(library.library_setting("ompi:3:8K"), ("openmpi", 3, 8192))
        self.assertEqual(library.library_setting("ompi:6"), ("openmpi", 6, 0))
        self.assertEqual(library.library_setting("mpich:smp"), ("mpich", "smp", None))
        for bad in ("ompi:0", "ompi:10", "ompi:3:8K:1", "ompi:3:4G", "mpich:ring", "linear"):
            with self.assertRaises(ValueError, msg=bad):
                library.library_setting(bad)

    def test_environment(self):
        self.assertEqual(library.library_environment("mpi"), {})
        self.assertEqual(library.library_environment("mpich:nb"),
                         {"MPIR_CVAR_BCAST_INTRA_ALGORITHM": "nb",
                          "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE": "0"})
        self.assertEqual(library.library_environment("ompi:2:8K")
                         ["OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize"], "8192")


if __name__ == "__main__":
    unittest.main()
