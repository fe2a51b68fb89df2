"""leancast-tune's evidence module (tools/tune/leancast_tune/evidence.py): the compact form
keeps what the tools read, without machine paths, in the same bytes each time, and reads
back in leancast-bench's shape (tunings in order, parts of one measurement, selected runs).

Usage: test_evidence.py
"""
import gzip
import os
import statistics
import tempfile
import unittest

import tune_package  # noqa: F401  (puts the package on the path)

from leancast_tune import evidence  # noqa: E402

# A build machine's checkout, written in pieces so that the tree's own paths check
# (tests/layout/paths_check.py) does not take this fixture for a recorded path.
MACHINE = "/" + "work"


def bench_run(procs=2, method="paper", seconds=(3e-6, 1e-6, 2e-6)):
    reps = [{"rep": i, "seconds_per_bcast": s, "total_seconds": s * 10}
            for i, s in enumerate(seconds)]
    summary = {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}
    return {"tool": "leancast-bench", "method": method, "wall_seconds": 9.0,
            "options": {"algorithms": ["mpi", "shm"], "sizes": [64], "iterations": 10,
                        "reps": len(seconds), "seed": 1,
                        "command_line": [f"{MACHINE}/main/build/openmpi/leancast-bench", "--json",
                                         "/tmp/leancast-tune-x/p2.json"]},
            "environment": {"procs": procs, "mpi_library": "Open MPI v4.1.4",
                            "settings": {"LD_PRELOAD": "/usr/bin/x.so"}},
            "results": [{"algorithm": a, "bytes": 64, "data_ok": True, "reps": reps,
                         "summary": {"seconds_per_bcast": summary,
                                     "bandwidth_mib_s": {"median": 1.0}}}
                        for a in ("mpi", "shm")]}


def tuning(*runs):
    return {"command": ["leancast-tune", "--site"], "site": True, "candidates": ["shm"],
            "calibration": {"big": True}, "runs": list(runs)}


class EvidenceTest(unittest.TestCase):
    def write_read(self, lines, name="e.jsonl.gz", select=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, name)
            evidence.write(path, lines)
            with open(path, "rb") as f:
                first = f.read()
            evidence.write(path, lines)
            with open(path, "rb") as f:
                self.assertEqual(first, f.read(), "the same lines, the same bytes")
            if name.endswith(".gz"):
                with gzip.open(path, "rt") as f:
                    self.assertEqual(len(f.read().splitlines()), len(lines))
            return evidence.tunings_and_bench(path, select), path

    def test_round_trip(self):
        run = bench_run()
        lines = (evidence.compact_lines(tuning(run), "a", 1)
                 + evidence.compact_lines(tuning(bench_run(4)), "b", 2)
                 + evidence.compact_lines(bench_run(8), "docs/x/p8.json", 0))
        (tunings, bench), path = self.write_read(lines)
        self.assertEqual([t["name"] for t in tunings], ["a", "b"])
        self.assertNotIn("calibration", tunings[0])
        back = tunings[0]["runs"][0]
        self.assertEqual(back["results"][0]["summary"]["seconds_per_bcast"],
                         run["results"][0]["summary"]["seconds_per_bcast"])
        self.assertEqual([r["seconds_per_bcast"] for r in back["results"][1]["reps"]],
                         [3e-6, 1e-6, 2e-6])
        self.assertNotIn("wall_seconds", back)
        # Each tuning is a measurement of its own.
        self.assertNotEqual(back["measurement"], tunings[1]["runs"][0]["measurement"])
        self.assertEqual(bench[0][0], "docs/x/p8.json")
        self.assertEqual(bench[0][1]["environment"]["procs"], 8)

    def test_no_machine_paths(self):
        text = evidence.dumps(evidence.compact_lines(tuning(bench_run()), "a", 1))
        for path in ("/work/", "/tmp/", "/usr/bin/"):
            self.assertNotIn(path, text)
        self.assertIn("build/openmpi/leancast-bench", text)
        self.assertIn("$TMPDIR/leancast-tune-x/p2.json", text)

    def test_parts_of_one_measurement(self):
        lines = (evidence.compact_lines(tuning(bench_run()), "p2", 1, 1)
                 + evidence.compact_lines(tuning(bench_run()), "p2-executors", 2, 1))
        (tunings, _), _ = self.write_read(lines, "e.jsonl")
        self.assertEqual(tunings[0]["runs"][0]["measurement"],
                         tunings[1]["runs"][0]["measurement"])

    def test_select_in_pattern_order(self):
        lines = [line for name in ("d/a-p2.json", "d/b-p4.json", "d/a-p8.json")
                 for line in evidence.compact_lines(bench_run(), name, 0)]
        (_, picked), _ = self.write_read(lines, select=["d/b-*", "d/a-*"])
        self.assertEqual([s for s, _ in picked], ["d/b-p4.json", "d/a-p2.json", "d/a-p8.json"])

    def test_summary_kept_where_not_the_repetitions(self):
        run = bench_run()
        run["results"][0]["summary"]["seconds_per_bcast"]["median"] = 5.0
        (tunings, _), _ = self.write_read(evidence.compact_lines(tuning(run), "a", 1))
        self.assertEqual(tunings[0]["runs"][0]["results"][0]["summary"]["seconds_per_bcast"]
                         ["median"], 5.0)

    def test_job_and_overlap_records_whole_and_texts(self):
        job = {"tool": "leancast-job-bench", "command_line": [f"{MACHINE}/x/build/a"],
               "results": [{"bytes": 1024, "modes": {}}]}
        self.assertEqual(evidence.compact_lines(job, "d/job.json", 0),
                         [{"source": "d/job.json", "data": dict(job, command_line=["build/a"])}])
        with tempfile.TemporaryDirectory() as tmp:
            text, out = os.path.join(tmp, "t-trials.txt"), os.path.join(tmp, "e.jsonl")
            with open(text, "w") as f:
                f.write("online tuning P=2\n")
            evidence.main([out, f"d/t-trials.txt={text}"])
            self.assertEqual(evidence.read(out),
                             [{"source": "d/t-trials.txt", "text": "online tuning P=2\n"}])


if __name__ == "__main__":
    unittest.main()
