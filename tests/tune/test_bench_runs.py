"""leancast-tune --from-json on leancast-bench files (tools/tune/leancast_tune/bench_runs.py):
each file one run of a --site measurement, runs that did not measure the library's defaults
left out with a line saying why, runs of several MPI libraries refused; and read_saved
taking them beside leancast-tune's own files.

Usage: test_bench_runs.py
"""
import io
import json
import os
import tempfile
import types
import unittest

from tune_package import bench_run

from leancast_tune import bench_runs  # noqa: E402  (tune_package puts it on the path)
from leancast_tune.options import read_saved  # noqa: E402

TIMES = {("mpi", 1024): 2e-6, ("shm", 1024): 1e-6}


def run(method="paper", procs=4, **environment):
    return bench_run(procs, method, TIMES, **environment)


class BenchRuns(unittest.TestCase):
    def test_a_bench_file_is_told_from_a_tune_file(self):
        self.assertTrue(bench_runs.is_bench_run(run()))
        self.assertFalse(bench_runs.is_bench_run({"command": [], "site": True, "runs": [run()]}))

    def test_the_runs_become_one_site_measurement(self):
        saved = bench_runs.as_site_measurement([("a.json", run("paper")), ("b.json", run("osu"))])
        self.assertTrue(saved["site"])
        self.assertEqual([r["method"] for r in saved["runs"]], ["paper", "osu"])
        self.assertEqual(saved["command"], ["leancast-bench:", "a.json", "b.json"])

    def test_runs_that_did_not_measure_the_defaults_are_left_out_and_said(self):
        log = io.StringIO()
        left = {"OMPI_MCA_coll_sm_priority": "100"}
        configured = run(settings=left)
        mpich = run(settings={"MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM": "release_gather"})
        preloaded = run(settings={"LD_PRELOAD": "libleancast_pmpi_openmpi.so"})
        named = run(settings={"LEANCAST_BCAST_ALGORITHM": "shm"})
        kept = run(settings={"MPIR_CVAR_CH4_SHM_POSIX_EAGER": "iqueue"})  # not the broadcast's
        saved = bench_runs.as_site_measurement(
            [("c.json", configured), ("m.json", mpich), ("p.json", preloaded), ("n.json", named),
             ("k.json", kept)], log=log)
        self.assertEqual(saved["runs"], [kept])
        for path in ("c.json", "m.json", "p.json", "n.json"):
            self.assertIn(f"{path} left out", log.getvalue())
        self.assertNotIn("k.json", log.getvalue())

    def test_the_recorded_library_configuration_decides_where_a_file_has_it(self):
        log = io.StringIO()
        # A verbosity setting does not configure the broadcast, in either kind of file.
        verbose = {"OMPI_MCA_coll_base_verbose": "100"}
        old = run(settings=verbose)
        recorded = run(settings=verbose, library_configuration=[])
        # What leancast read decides, whatever the settings recorded beside it.
        configured = run(settings={}, library_configuration=["OMPI_MCA_coll_sm_priority=100"])
        saved = bench_runs.as_site_measurement(
            [("o.json", old), ("r.json", recorded), ("c.json", configured)], log=log)
        self.assertEqual(saved["runs"], [old, recorded])
        self.assertIn("c.json left out: not the defaults ({'OMPI_MCA_coll_sm_priority': '100'})",
                      log.getvalue())

    def test_nothing_left_or_several_libraries_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "none of"):
            bench_runs.as_site_measurement(
                [("c.json", run(settings={"OMPI_MCA_coll_sm_priority": "100"}))],
                log=io.StringIO())
        with self.assertRaisesRegex(ValueError, "several MPI libraries"):
            bench_runs.as_site_measurement([("a.json", run(mpi_library="Open MPI v4.1.4, x")),
                                            ("b.json", run(mpi_library="MPICH Version: 4.0.2"))])

    def test_read_saved_takes_them_beside_its_own_files(self):
        with tempfile.TemporaryDirectory() as folder:
            def write(name, data):
                path = os.path.join(folder, name)
                with open(path, "w") as f:
                    json.dump(data, f)
                return path
            own = write("tune.json", {"command": ["leancast-tune", "--site"], "site": True,
                                      "runs": [run("paper", procs=2)]})
            bench = write("bench.json", run("osu", procs=4))
            options = types.SimpleNamespace(from_json=f"{own},{bench}", procs=None, site=False)
            read_saved(options)
        self.assertEqual(sorted(r["environment"]["procs"] for r in options.saved["runs"]), [2, 4])
        self.assertEqual(options.measured_by, [["leancast-tune", "--site"],
                                               ["leancast-bench:", bench]])
        self.assertEqual(options.procs, "2,4")
        self.assertTrue(options.site)


if __name__ == "__main__":
    unittest.main()
