"""leancast-bench and leancast-report from the outside, under a real MPI launcher.

Usage: bench_test.py PROCS BENCH REPORT MPIEXEC [MPIEXEC_FLAGS...]
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

PROCS, BENCH, REPORT, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]
ALGORITHMS = ["linear", "binomial", "hypercube", "scatter-doubling", "scatter-ring",
              "scatter-ring-tuned", "knomial:3", "pipeline-chain:4K", "pipeline-binary-tree",
              "circulant:3", "node-aware:pipeline-chain:4K/binomial", "auto", "mpi"]


# What does not depend on the process count (option parsing, the report, where rotation
# starts) is checked in the P = 2 run only.
once = unittest.skipUnless(PROCS == "2", "independent of the process count: checked at P = 2")
# The last-level cache the runs assume (--cache), where the node's own would make the memory
# bound's copies and the rotation slow (508 MiB on one VM here: 4.5 of a launch's 5.5 s) or
# the message above it too big for a test.
CACHE_BYTES = 8 << 20
CACHE = ["--cache", f"{CACHE_BYTES >> 20}M"]
# The rotated run's: fewer buffers, since a warm-up visits each (4096 of 4 KiB at 8 MiB took
# MPICH's busy-polling P = 3 over a minute).
ROTATED_CACHE_BYTES = 1 << 20


def bench(*args, procs=PROCS, timeout=240, env=None):
    command = ["timeout", str(timeout), *LAUNCHER, "-n", str(procs), BENCH, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30, env=env)


def bench_beside_others(*args, timeout=240):
    """bench() while other launches run: Open MPI's launchers share a session directory
    under /tmp, which one that ends removes while another is creating its own in it
    ("A call to mkdir was unable to create the desired directory"); each gets its own."""
    with tempfile.TemporaryDirectory() as session:
        return bench(*args, timeout=timeout,
                     env={**os.environ, "OMPI_MCA_orte_tmpdir_base": session})


class Bench(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.json_path = os.path.join(cls.dir, f"p{PROCS}.json")
        cls.csv_path = os.path.join(cls.dir, f"p{PROCS}.csv")
        cls.result = bench("--algorithms", ",".join(ALGORITHMS), "--sizes", "1,4K,100003",
                           "--iterations", "3", "--warmup", "1", "--reps", "2", "--check",
                           *CACHE, "--json", cls.json_path, "--csv", cls.csv_path)
        with open(cls.json_path) as f:
            cls.data = json.load(f)
        # Rotation forced on at small sizes, where auto would not rotate.
        cls.rotated_path = os.path.join(cls.dir, "rotated.json")
        cls.rotated_result = bench("--rotate-buffers", "on", "--cache", f"{ROTATED_CACHE_BYTES >> 20}M",
                                   "--algorithms", "scatter-ring,mpi",
                                   "--sizes", "4K,100003", "--iterations", "5", "--warmup", "1",
                                   "--reps", "2", "--check", "--json", cls.rotated_path)
        with open(cls.rotated_path) as f:
            cls.rotated = json.load(f)

    def test_runs_and_prints_a_table(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertIn("speedup", self.result.stdout)
        for algorithm in ALGORITHMS:
            self.assertIn(algorithm, self.result.stdout)

    def test_json_has_the_documented_fields(self):
        run = self.data
        for field in ("tool", "method", "baseline", "options", "environment",
                      "algorithm_parameters", "wall_seconds", "results"):
            self.assertIn(field, run)
        env = run["environment"]
        for field in ("mpi_library", "mpi_standard", "procs", "nodes", "ranks_per_node", "hosts",
                      "settings", "leancast_version", "git_revision", "date"):
            self.assertIn(field, env)
        self.assertEqual(env["procs"], int(PROCS))
        # What changes the library's broadcast is recorded (the suite sets Open MPI's pml
        # and vader's single copy).
        for name, value in os.environ.items():
            if name.startswith(("OMPI_MCA_coll", "OMPI_MCA_btl", "OMPI_MCA_pml", "MPIR_CVAR_")):
                self.assertEqual(env["settings"].get(name), value, name)
        self.assertEqual(run["options"]["algorithms"], ALGORITHMS)
        self.assertEqual(run["options"]["sizes"], [1, 4096, 100003])
        self.assertEqual(len(run["results"]), len(ALGORITHMS) * 3)
        for cell in run["results"]:
            self.assertTrue(cell["data_ok"], cell["algorithm"])
            self.assertEqual(len(cell["reps"]), 2)
            for rep in cell["reps"]:
                self.assertGreater(rep["seconds_per_bcast"], 0)
            summary = cell["summary"]
            for key in ("seconds_per_bcast", "bandwidth_mib_s", "throughput_bcast_s",
                        "speedup_vs_baseline"):
                spread = summary[key]
                self.assertLessEqual(spread["min"], spread["median"])
                self.assertLessEqual(spread["median"], spread["max"])
            if cell["algorithm"] == run["baseline"]:
                self.assertEqual(summary["speedup_vs_baseline"]["median"], 1.0)
        chosen = {(p["algorithm"], p["bytes"]): p["selected_algorithm"] for p in run["algorithm_parameters"]}
        # Every rank here shares one node: auto's choice is the table's for P ranks on one node.
        plan = os.path.join(os.path.dirname(BENCH), "leancast-plan")
        for size in (1, 4096, 100003):
            expected = json.loads(subprocess.run(
                [plan, "-a", "auto", "-p", PROCS, "-b", str(size), "--ranks-per-node", PROCS, "--json"],
                capture_output=True, text=True, check=True).stdout)["selected_algorithm"]
            self.assertEqual(chosen[("auto", size)], expected, size)
        self.assertEqual(chosen[("pipeline-binary-tree", 1)], "pipeline-binary-tree:64K")

    @once
    def test_auto_as_the_run_resolved_it_where_the_library_is_configured(self):
        """With a variable of the library's own that configures its broadcast, auto runs the
        library's (docs/auto.md), and the JSON says so where the table would name leancast."""
        plan = os.path.join(os.path.dirname(BENCH), "leancast-plan")
        table = json.loads(subprocess.run(
            [plan, "-a", "auto", "-p", "2", "-b", "1024", "--ranks-per-node", "2", "--json"],
            capture_output=True, text=True, check=True).stdout)["selected_algorithm"]
        self.assertNotEqual(table, "mpi")  # else this test could not fail
        path = os.path.join(self.dir, "configured.json")
        configured = dict(os.environ, OMPI_MCA_coll_tuned_priority="30",
                          MPIR_CVAR_BCAST_MIN_PROCS="8")  # each library's default value
        command = ["timeout", "120", *LAUNCHER, "-n", "2", BENCH, "--algorithms", "auto,mpi",
                   "--sizes", "1K", "--iterations", "3", "--reps", "1", "--no-memory-bound",
                   "--json", path]
        done = subprocess.run(command, capture_output=True, text=True, timeout=150, env=configured)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(path) as f:
            run = json.load(f)
        chosen = {(p["algorithm"], p["bytes"]): p["selected_algorithm"] for p in run["algorithm_parameters"]}
        self.assertEqual(chosen[("auto", 1024)], "mpi")

    def check_memory_bound(self, run):
        """Every cell's bound from the run's copy rates, and the median time over it."""
        one = run["memory_copy_one_core_bytes_per_second"]
        every = run["memory_copy_all_cores_bytes_per_second"]
        self.assertGreater(one, 0)
        self.assertGreater(every, 0)
        self.assertEqual(run["memory_copy_ranks"], int(PROCS))  # one node: every rank
        for cell in run["results"]:
            n, procs = cell["bytes"], int(PROCS)
            bound = cell["memory_bound_seconds"]
            self.assertGreater(bound, 0)
            self.assertAlmostEqual(bound, (procs - 1) * n / every, delta=bound * 1e-9)
            ratio = cell["time_over_memory_bound"]
            self.assertGreater(ratio, 0)
            median = cell["summary"]["seconds_per_bcast"]["median"]
            self.assertAlmostEqual(ratio, median / bound, delta=ratio * 1e-9)

    def test_auto_rotates_no_buffers_below_the_cache_and_the_bound_is_there(self):
        self.assertEqual(self.data["options"]["rotate_buffers"], "auto")
        self.assertGreater(self.data["last_level_cache_bytes"], 100003)
        for cell in self.data["results"]:
            self.assertFalse(cell["buffers_rotated"], cell["bytes"])
            self.assertEqual(cell["buffer_count"], 1)
            self.assertEqual(cell["warmup_broadcasts"], 1)
        self.assertIs(self.data["options"]["memory_bound"], True)
        self.check_memory_bound(self.data)
        self.assertRegex(self.result.stdout, r"memory: best of 5.*memcpy: one core .* GiB/s.*"
                                             r"cross-memory attach.*all at once .* GiB/s")
        self.assertGreaterEqual(self.data["memory_cross_copy_all_cores_bytes_per_second"], 0)
        self.assertIs(self.data["options"]["huge_pages"], False)
        self.assertIn("bound us", self.result.stdout)

    def test_rotated_buffers_forced_on_with_the_memory_bound(self):
        self.assertEqual(self.rotated_result.returncode, 0, self.rotated_result.stderr)
        self.assertIn("time/bound", self.rotated_result.stdout)
        self.assertIn("rotated: 4096 B x ", self.rotated_result.stdout)
        run = self.rotated
        self.assertEqual(run["options"]["rotate_buffers"], "on")
        self.assertEqual((run["last_level_cache_bytes"], run["last_level_cache_source"]),
                         (ROTATED_CACHE_BYTES, "--cache"))
        llc, cap = run["last_level_cache_bytes"], run["rotation_cap_bytes"]
        self.assertEqual(len(run["results"]), 4)
        for cell in run["results"]:
            self.assertTrue(cell["data_ok"], cell)
            self.assertTrue(cell["buffers_rotated"], cell)
            count, stride = cell["buffer_count"], -(-cell["bytes"] // 64) * 64
            self.assertGreater(count, 1)
            self.assertGreaterEqual(count * stride, min(2 * llc, cap // stride * stride))
            self.assertLessEqual(count * stride, cap)
            # A warm-up of 1 asked, one into each rotated buffer given.
            self.assertEqual(cell["warmup_broadcasts"], count)
        self.check_memory_bound(run)

    def test_auto_rotates_above_the_cache(self):
        llc = CACHE_BYTES
        path = os.path.join(self.dir, "above.json")
        result = bench("--algorithms", "mpi", "--sizes", f"4K,{llc + 64}", "--iterations", "2",
                       "--warmup", "1", "--reps", "1", *CACHE, "--no-memory-bound",
                       "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(path) as f:
            cells = {c["bytes"]: c for c in json.load(f)["results"]}
        self.assertEqual((cells[4096]["buffers_rotated"], cells[4096]["buffer_count"]), (False, 1))
        self.assertEqual((cells[llc + 64]["buffers_rotated"], cells[llc + 64]["buffer_count"]),
                         (True, 2))

    @once
    def test_huge_pages_put_the_buffers_and_the_bound_s_copies_on_huge_pages(self):
        """--huge-pages: the data still arrives whole, the run says so, and where the kernel
        has transparent huge pages at all (not "never"), rank 0 holds some."""
        path = os.path.join(self.dir, "huge.json")
        result = bench("--algorithms", "scatter-ring,mpi", "--sizes", "100003", "--huge-pages",
                       "--rotate-buffers", "on", "--iterations", "3", "--warmup", "1", "--reps", "1",
                       "--check", *CACHE, "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("pages: --huge-pages (madvise MADV_HUGEPAGE)", result.stdout)
        with open(path) as f:
            run = json.load(f)
        self.assertIs(run["options"]["huge_pages"], True)
        self.assertTrue(all(cell["data_ok"] for cell in run["results"]))
        self.check_memory_bound(run)
        try:
            with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
                enabled = "[never]" not in f.read()
        except OSError:
            enabled = False
        if enabled:
            self.assertGreater(run["huge_page_bytes"], 0)

    @once
    def test_rotate_above_moves_auto_s_threshold(self):
        path = os.path.join(self.dir, "rotate-above.json")
        result = bench("--algorithms", "mpi", "--sizes", "1K,8K", "--rotate-above", "4K",
                       "--iterations", "2", "--warmup", "1", "--reps", "1", "--no-memory-bound",
                       *CACHE, "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(path) as f:
            run = json.load(f)
        self.assertEqual(run["options"]["rotate_above"], 4096)
        rotated = {c["bytes"]: c["buffers_rotated"] for c in run["results"]}
        self.assertEqual(rotated, {1024: False, 8192: True})

    @once
    def test_small_sizes_are_timed_small_iterations_times(self):
        path = os.path.join(self.dir, "small-iterations.json")
        result = bench("--algorithms", "mpi", "--sizes", "1K,8K", "--iterations", "2",
                       "--small-iterations", "7", "--small-below", "4K", "--warmup", "0",
                       "--reps", "1", "--no-memory-bound", *CACHE, "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(path) as f:
            run = json.load(f)
        self.assertEqual((run["options"]["small_iterations"], run["options"]["small_below"]),
                         (7, 4096))
        for cell in run["results"]:
            expected = 7 if cell["bytes"] < 4096 else 2
            self.assertEqual(cell["iterations"], expected, cell["bytes"])
            # The time per broadcast is the cell's time over the broadcasts it timed.
            rep = cell["reps"][0]
            self.assertEqual(round(rep["total_seconds"] / rep["seconds_per_bcast"]), expected)

    @once
    def test_report_plots_time_over_the_memory_bound_where_the_json_has_it(self):
        out = os.path.join(self.dir, "report-bound")
        result = subprocess.run([REPORT, self.rotated_path, "--out-dir", out], capture_output=True,
                                text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "rotated-memory-bound.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(out, "summary.md")) as f:
            rows = [line for line in f.read().splitlines() if line.startswith("| ")]
        self.assertIn("time/bound", rows[0])
        cell = self.rotated["results"][0]
        self.assertTrue(any(f"{cell['time_over_memory_bound']:.2f} (rotated)" in r for r in rows))
        # Older JSON, without the bound: no such figure, no such column.
        old = os.path.join(self.dir, "old.json")
        cells = [{k: v for k, v in c.items() if "memory_bound" not in k}
                 for c in self.rotated["results"]]
        with open(old, "w") as f:
            json.dump(dict(self.rotated, results=cells), f)
        result = subprocess.run([REPORT, old, "--out-dir", out], capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "old-memory-bound.png")))
        self.assertNotIn("time/bound", result.stdout)

    def test_each_repetition_runs_every_algorithm_once_in_a_shuffled_order(self):
        for rep in range(2):
            positions = sorted(c["reps"][rep]["position"] for c in self.data["results"] if c["bytes"] == 1)
            self.assertEqual(positions, list(range(len(ALGORITHMS))))

    def test_csv_has_a_row_per_repetition_and_cell(self):
        with open(self.csv_path) as f:
            rows = f.read().strip().splitlines()
        self.assertTrue(rows[0].startswith("method,procs,algorithm,bytes,rep"))
        self.assertEqual(len(rows) - 1, len(ALGORITHMS) * 3 * 2)

    @once
    def test_report_writes_pngs(self):
        out = os.path.join(self.dir, "report")
        result = subprocess.run([REPORT, self.json_path, "--out-dir", out], capture_output=True,
                                text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in (f"p{PROCS}-bandwidth.png", f"p{PROCS}-speedup.png", "summary.md"):
            path = os.path.join(out, name)
            self.assertTrue(os.path.getsize(path) > 0, name)
        with open(os.path.join(out, f"p{PROCS}-bandwidth.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    @once
    def test_report_names_every_run_of_a_tune_file_apart(self):
        # A leancast-tune --json file: runs of one count under two methods, one twice.
        with open(self.json_path) as f:
            run = json.load(f)
        osu = dict(run, method="osu")
        tune = os.path.join(self.dir, "tune.json")
        with open(tune, "w") as f:
            json.dump({"command": ["leancast-tune"], "runs": [run, osu, osu]}, f)
        out = os.path.join(self.dir, "tune-report")
        result = subprocess.run([REPORT, tune, "--out-dir", out], capture_output=True,
                                text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in (f"tune-p{PROCS}-paper", f"tune-p{PROCS}-osu", f"tune-p{PROCS}-osu-2"):
            self.assertTrue(os.path.exists(os.path.join(out, f"{name}-bandwidth.png")), name)

    @once
    def test_report_matrix_has_a_row_per_algorithm_and_marks_the_fastest(self):
        result = subprocess.run([REPORT, self.json_path, "--matrix", "4K,100003"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| 4 KiB | 100003 B |", result.stdout)
        refused = subprocess.run([REPORT, self.json_path, "--matrix", "4Q"],
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("'4Q' is not a size", refused.stderr)
        rows = [line for line in result.stdout.splitlines() if line.startswith("| `")]
        self.assertEqual([r.split("`")[1] for r in rows], ALGORITHMS)
        for column in (1, 2):  # a fastest per size (ties may mark more)
            marked = [r for r in rows if r.split("|")[column + 1].strip().startswith("**")]
            self.assertGreaterEqual(len(marked), 1)
        mbs = {c["algorithm"]: c["summary"]["bandwidth_mib_s"]["median"]
               for c in self.data["results"] if c["bytes"] == 4096}
        fastest = max(mbs, key=mbs.get)
        self.assertTrue(next(r for r in rows if r.split("`")[1] == fastest).split("|")[2].strip()
                        .startswith("**"))

    def test_osu_method_and_rotating_root_without_the_memory_bound(self):
        path = os.path.join(self.dir, "osu.json")
        result = bench("--method", "osu", "--rotate-root", "--algorithms", "scatter-ring-tuned,mpi",
                       "--sizes", "64K", "--iterations", "4", "--reps", "2", "--check",
                       "--no-memory-bound", "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("latency us", result.stdout)
        with open(path) as f:
            run = json.load(f)
        self.assertEqual(run["method"], "osu")
        self.assertEqual(run["options"]["root"], "rotate")
        self.assertEqual(run["baseline"], "scatter-ring-tuned")  # the default is not in the list
        # Without --cache, the node's own last-level cache.
        self.assertIn(run["last_level_cache_source"], ("sysfs", "sysconf", "default"))
        self.assertGreater(run["last_level_cache_bytes"], 0)
        # No copy rates measured: no bound, in the JSON or the table.
        self.assertIs(run["options"]["memory_bound"], False)
        self.assertNotIn("memory_copy_one_core_bytes_per_second", run)
        for cell in run["results"]:
            self.assertNotIn("memory_bound_seconds", cell)
        self.assertNotIn("memcpy", result.stdout)
        self.assertNotIn("bound us", result.stdout)

    def test_fresh_method_rewrites_the_data_before_each_broadcast(self):
        # --method fresh without --check: the data is still prepared before every timed
        # broadcast; the run says so, and its verified cells hold the root's data.
        path = os.path.join(self.dir, "fresh.json")
        result = bench("--method", "fresh", "--algorithms", "scatter-ring-tuned,mpi", "--sizes", "64K",
                       "--iterations", "3", "--reps", "1", "--no-memory-bound", "--json", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("latency us", result.stdout)
        with open(path) as f:
            run = json.load(f)
        self.assertEqual(run["method"], "fresh")
        self.assertTrue(all(cell["data_ok"] for cell in run["results"]))

    @once
    def test_progress_in_a_log_is_plain_lines_and_none_when_quiet(self):
        # --progress-every 0: a line at every cell and repetition, whatever the machine's
        # speed (the default, 10 s, would print none in a run this short).
        args = ["--algorithms", "binomial,mpi", "--sizes", "1K", "--iterations", "2",
                "--warmup", "0", "--reps", "3", "--no-memory-bound", "--progress-every", "0"]
        for quiet in ([], ["--quiet"]):
            with tempfile.TemporaryFile() as log:
                done = subprocess.run(["timeout", "120", *LAUNCHER, "-n", PROCS, BENCH, *args,
                                       *quiet], stdout=subprocess.DEVNULL, stderr=log,
                                      timeout=150)
                log.seek(0)
                text = log.read().decode(errors="replace")
            self.assertEqual(done.returncode, 0, text)
            self.assertNotIn("\r", text)
            cells = re.findall(r"^leancast-bench: cell (\d+)/6, about \d+ s left$", text, re.M)
            self.assertEqual(cells, [] if quiet else [str(k) for k in range(1, 7)], text)

    @once
    def test_bad_options_fail_on_every_rank_without_hanging(self):
        cases = [
            (["--algorithms", "ring"], "unknown algorithm"),
            (["--algorithms", "knomial:1"], "radix"),
            (["--sizes", "12Q"], "--sizes"),
            (["--root", "99"], "not a rank"),
            (["--iterations", "0"], "iterations"),
            (["--baseline", "linear", "--algorithms", "binomial"], "not among"),
            (["--preset", "fig9"], "preset"),
            (["--json", "/nonexistent/dir/out.json"], "cannot write"),
            (["--root", "0", "--rotate-root"], "excludes"),
            (["--rotate-buffers", "sometimes"], "--rotate-buffers"),
            (["--rotate-above", "lots"], "--rotate-above"),
            (["--small-below", "lots"], "--small-below"),
            (["--cache", "lots"], "--cache"),
        ]
        # Launched four at a time: each is mostly the launcher starting up.
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            results = pool.map(
                lambda args: bench_beside_others(
                    *args, "--no-memory-bound", *([] if "--sizes" in args else ["--sizes", "1K"]),
                    timeout=60),
                [args for args, _ in cases])
        for (args, message), result in zip(cases, results):
            self.assertNotIn(result.returncode, (0, 124), args)
            self.assertIn(message, result.stderr, args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
