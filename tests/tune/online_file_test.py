"""LEANCAST_TUNE_FILE on real MPI, with online_file_job (leancast's default choice at a few
sizes, every byte checked, every rank's tuned_algorithm compared):

- round trip: a job with LEANCAST_TUNE=online writes the file at MPI_Finalize (rank 0): the
  mark line, one rule per size class (procs=, ppn=, library=, bytes=LOW-HIGH, the winner the
  job's ranks agreed on) with its evidence; no temporary file left beside it. A second job
  with the same file makes no trials for those classes: its verbose log says "auto, by FILE
  line N" with the rule's algorithm, and tunes only a new class, whose rule is added after the kept
  ones;
- a corrupt file (the mark, then a rule that does not parse): one warning naming the file and
  line, its rules ignored (the job tunes), the file rewritten with what the job learned;
  LEANCAST_TUNE_CANDIDATES=a,b: exactly mpi, a and b are tried;
- a foreign file (a LEANCAST_CONFIG rules file, no mark): one warning, its rule never
  followed, the job tunes, and the file is left byte for byte as it was;
- an empty file (as mktemp leaves it) is written, without a warning;
- a file in a directory that does not exist: the job ends normally with a message.

Usage: online_file_test.py JOB FLAVOR PROCS MPIEXEC [MPIEXEC_FLAGS...]
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

JOB, FLAVOR, PROCS, *LAUNCHER = sys.argv[1:]
del sys.argv[1:]
PROCS = int(PROCS)
K, M = 1 << 10, 1 << 20
MARK = "# leancast online tuning"
RULE = re.compile(r"^procs=(\d+) ppn=(\d+) library=(\w+) bytes=(\d+)-(\d+) : (\S+)  # online "
                  r"\d{4}-\d\d-\d\d on .+: P=(\d+) ppn=\d+, (\d+) B, slowest rank's median of "
                  r"(\d+) calls: (.*)$")
TUNED = re.compile(r"^tuned (\d+): (\S+)$", re.M)
REPORT = re.compile(r"^leancast: online tuning P=(\d+) ppn=\d+ bytes (\d+)-(\d+): (.*) -> (\S+) "
                    r"\(\S+x mpi\)$", re.M)


def job(tune_file, sizes, calls=12, **settings):
    """Runs the job; returns its output (stdout and stderr), checked for correct data."""
    env = dict(os.environ, LEANCAST_TUNE="online", LEANCAST_TUNE_FILE=tune_file,
               LEANCAST_VERBOSE="1", LEANCAST_TUNE_WARMUP="0", LEANCAST_TUNE_TRIALS="2")
    env.update(settings)
    command = ["timeout", "60", *LAUNCHER, "-n", str(PROCS), JOB, str(calls), *map(str, sizes)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=90)
    output = result.stdout + result.stderr
    if result.returncode != 0 or "all data correct" not in output:
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n{output}")
    return output


def text_of(path):
    with open(path) as f:
        return f.read()


def rules_of(path):
    """The file's rule lines, each parsed (failing on one that is not as online tuning writes)."""
    lines = text_of(path).splitlines()
    assert lines[0].startswith(MARK), f"first line {lines[0]!r}"
    rules = []
    for number, line in enumerate(lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        match = RULE.match(line)
        assert match, f"line {number} is no learned rule: {line!r}"
        rules.append((number, match, line))
    return rules


def class_of(size):
    low = 1 << (size.bit_length() - 1)
    return low, 2 * low - 1


class TuneFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="leancast-tune-file-")
        self.path = os.path.join(self.dir.name, "learned.rules")

    def tearDown(self):
        self.dir.cleanup()

    def assert_no_temporary(self):
        left = [name for name in os.listdir(self.dir.name) if ".tmp." in name]
        self.assertEqual(left, [], "a temporary file was left beside the tune file")

    def check_learned(self, output, sizes, rules):
        """The job tuned `sizes` (one report each, all ranks the same winner) and the rules
        record what it learned."""
        tuned = dict((int(b), name) for b, name in TUNED.findall(output))
        reports = REPORT.findall(output)
        self.assertEqual(len(reports), len(sizes), output)
        by_class = {(int(m.group(4)), int(m.group(5))): m for _, m, _ in rules}
        for size in sizes:
            self.assertNotEqual(tuned[size], "untuned", f"{size} bytes\n{output}")
            low, high = class_of(size)
            self.assertIn((low, high), by_class, f"no rule for {size} bytes")
            rule = by_class[(low, high)]
            procs, ppn, library, _, _, winner, p, first, trials, times = rule.groups()
            self.assertEqual((int(procs), int(p), library), (PROCS, PROCS, FLAVOR), rule.group(0))
            self.assertEqual(int(ppn), PROCS)  # one node
            self.assertEqual(winner, tuned[size], f"{size} bytes: the file says {winner}, "
                             f"the ranks agreed on {tuned[size]}")
            self.assertEqual((int(first), trials), (size, "2"))
            self.assertIn("mpi ", times)
            self.assertIn(f"{winner} ", times.replace(" (won)", " "))

    def test_round_trip(self):
        first_sizes = [1 * K, 64 * K, 1 * M]
        output = job(self.path, first_sizes)
        self.assertIn("(auto, by online tuning, on trial)", output)
        self.assert_no_temporary()
        rules = rules_of(self.path)
        self.assertEqual(len(rules), 3, text_of(self.path))
        self.check_learned(output, first_sizes, rules)
        # The second job follows the file for those classes (96 KiB shares 64 KiB's) and tunes
        # only 4 KiB; the kept rules stay as they were, the new one comes after them.
        second = job(self.path, [1 * K, 96 * K, 1 * M, 4 * K])
        self.assert_no_temporary()
        for number, rule, _ in rules:
            low = int(rule.group(4))
            size = 96 * K if low == 64 * K else low
            self.assertRegex(second, rf"leancast: P={PROCS} bytes={size}: {re.escape(rule.group(6))} "
                             rf"\(auto, by {re.escape(self.path)} line {number}\)")
        self.assertNotRegex(second, rf"bytes=({K}|{96 * K}|{M}): \S+ \(auto, by online tuning")
        tuned = dict(TUNED.findall(second))
        self.assertEqual([tuned[str(s)] for s in (K, 96 * K, M)], ["untuned"] * 3, second)
        self.assertNotEqual(tuned[str(4 * K)], "untuned")
        self.assertEqual(len(REPORT.findall(second)), 1, second)
        again = rules_of(self.path)
        self.assertEqual([line for _, _, line in again[:3]], [line for _, _, line in rules])
        self.assertEqual(len(again), 4)
        self.assertEqual((int(again[3][1].group(4)), again[3][1].group(6)), (4 * K, tuned[str(4 * K)]))
        # A third job with only known sizes: no trials at all, nothing to write.
        before = text_of(self.path)
        third = job(self.path, [1 * K, 4 * K])
        self.assertNotIn("on trial", third)
        self.assertNotIn("online tuning P=", third)
        self.assertEqual(text_of(self.path), before)

    def test_corrupt_file_is_ignored_and_rewritten(self):
        with open(self.path, "w") as f:
            f.write(f"{MARK}\nprocs={PROCS} bytes=1024-2047 : fastest-ever\n"
                    f"procs={PROCS} bytes=65536-131071 : linear\n")
        output = job(self.path, [1 * K, 64 * K], LEANCAST_TUNE_CANDIDATES="linear,knomial:3")
        warnings = re.findall(r"^leancast: LEANCAST_TUNE_FILE: .*$", output, re.M)
        self.assertEqual(len(warnings), 1, output)
        self.assertIn(f"{self.path} line 2", warnings[0])
        self.assertIn("ignored and rewritten", warnings[0])
        self.assertNotIn(f"(by {self.path}", output)  # the good rule is ignored too
        for _, low, high, times, _ in REPORT.findall(output):
            names = [part.split(" ")[0] for part in times.split(", ")]
            self.assertEqual(names, ["mpi", "linear", "knomial:3"], f"bytes {low}-{high}")
        self.assert_no_temporary()
        rules = rules_of(self.path)
        self.assertNotIn("fastest-ever", text_of(self.path))
        self.assertEqual(len(rules), 2, text_of(self.path))
        self.check_learned(output, [1 * K, 64 * K], rules)

    def test_foreign_file_is_ignored_and_left_alone(self):
        foreign = "# a site's rules for LEANCAST_CONFIG\nprocs=1- * : linear\n"
        with open(self.path, "w") as f:
            f.write(foreign)
        output = job(self.path, [1 * K, 64 * K])
        warnings = re.findall(r"^leancast: LEANCAST_TUNE_FILE=.*$", output, re.M)
        self.assertEqual(len(warnings), 2, output)  # ignored when read, not written at the end
        self.assertIn(f"{self.path}: not a leancast tuning file", warnings[0])
        self.assertIn("not rewritten", warnings[0])
        self.assertIn("is not leancast's; what this job learned (2 rules) is not written", warnings[1])
        self.assertNotIn(f"(by {self.path}", output)
        self.assertEqual(len(REPORT.findall(output)), 2, output)
        self.assertEqual(text_of(self.path), foreign)
        self.assert_no_temporary()

    def test_empty_file_is_written(self):
        open(self.path, "w").close()  # as mktemp leaves it
        output = job(self.path, [64 * K])
        self.assertNotIn("LEANCAST_TUNE_FILE", output)
        self.assertEqual(len(rules_of(self.path)), 1, text_of(self.path))
        self.assert_no_temporary()

    def test_unwritable_place(self):
        path = os.path.join(self.dir.name, "no-such-directory", "learned.rules")
        output = job(path, [1 * K])
        self.assertRegex(output, r"leancast: LEANCAST_TUNE_FILE: cannot write .*no-such-directory")
        self.assertFalse(os.path.exists(os.path.dirname(path)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
