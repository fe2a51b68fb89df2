"""tests/docs/evidence_check.py on temporary trees: a listed, compact evidence folder passes;
an unlisted file, a listed file that is gone, an entry without a field, another format, a
file over 1 MiB not compressed, a folder over 5 MiB and docs/ over 6 MiB each fail.

Usage: evidence_check_test.py
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evidence_check  # noqa: E402

MIB = 1 << 20


def entry(name, **changes):
    e = {"file": name, "backs": ["a claim"], "commit": "abc1234", "executor": "dataflow:1",
         "machine": "the 2-core VM", "mpi_library": "Open MPI 4.1.4",
         "command": "leancast-bench --json out.json", "date": "2026-12-01"}
    e.update(changes)
    return e


class Evidence(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.root = self.dir.name
        self.write("evidence/a.jsonl", '{"run": 1}\n{"run": 2}\n')
        self.write("evidence/b.csv", "procs,bytes,seconds\n2,64,1e-6\n")
        self.write_gzip("evidence/c.jsonl.gz", '{"run": 3}\n')
        self.write("docs/page.md", "# A page\n")
        self.entries = [entry("evidence/a.jsonl"), entry("evidence/b.csv"),
                        entry("evidence/c.jsonl.gz")]
        self.manifest()

    def path(self, name):
        path = os.path.join(self.root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)

    def write_gzip(self, name, text):
        with gzip.open(self.path(name), "wt", encoding="utf-8") as f:
            f.write(text)

    def write_bytes(self, name, size):
        # Incompressible-looking but valid JSON Lines: one object a line.
        line = json.dumps({"x": "0123456789abcdef" * 60}) + "\n"
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(line * (size // len(line) + 1))

    def manifest(self):
        self.write("evidence/manifest.json", json.dumps({"about": "t", "studies": self.entries}))

    def problems(self):
        return evidence_check.check(self.root)

    def assertFails(self, text):
        problems = self.problems()
        self.assertTrue(any(text in p for p in problems), problems)

    def test_compact_listed_evidence_passes(self):
        self.assertEqual(self.problems(), [])
        done = subprocess.run([sys.executable, os.path.join(HERE, "evidence_check.py"), self.root],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertIn("evidence_check: ok", done.stdout)

    def test_unlisted_file_fails(self):
        self.write("evidence/sub/d.jsonl", '{"run": 4}\n')
        self.assertFails("evidence/sub/d.jsonl: not listed")
        done = subprocess.run([sys.executable, os.path.join(HERE, "evidence_check.py"), self.root],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("FAILED", done.stdout)

    def test_listed_file_that_is_gone_fails(self):
        os.remove(self.path("evidence/b.csv"))
        self.assertFails("lists evidence/b.csv, which does not exist")

    def test_entry_without_a_field_fails(self):
        for key in evidence_check.KEYS[1:]:
            with self.subTest(key):
                self.entries[0] = entry("evidence/a.jsonl", **{key: ""})
                self.manifest()
                self.assertFails(f"(evidence/a.jsonl): no {key}")
        self.entries[0] = entry("evidence/a.jsonl")
        self.entries.append(entry("evidence/a.jsonl"))
        self.manifest()
        self.assertFails("listed twice")

    def test_other_formats_fail(self):
        self.write("evidence/raw.json", '{"runs": []}')
        self.entries.append(entry("evidence/raw.json"))
        self.manifest()
        self.assertFails("evidence/raw.json: not .csv")
        os.remove(self.path("evidence/raw.json"))
        self.entries.pop()
        self.write("evidence/a.jsonl", '{"run": 1}\n[1, 2]\n')
        self.assertFails("evidence/a.jsonl: line 2 is not a JSON object")
        self.write("evidence/a.jsonl", '{"run": 1}\nnot json\n')
        self.assertFails("evidence/a.jsonl:")
        self.write("evidence/c.jsonl.gz", '{"run": 3}\n')
        self.assertFails("is named .gz but is not gzip")

    def test_large_uncompressed_file_fails(self):
        self.write_bytes("evidence/a.jsonl", MIB + 1)
        self.assertFails("over 1 MiB and not gzip-compressed")
        self.write_bytes("evidence/a.jsonl", MIB - 4096)
        self.assertEqual(self.problems(), [])

    def test_evidence_over_5_mib_fails(self):
        # gzip of random-looking data: large files, compressed, too many in all.
        for i in range(6):
            name = f"evidence/big{i}.jsonl.gz"
            with gzip.open(self.path(name), "wb", compresslevel=0) as f:
                f.write((json.dumps({"x": os.urandom(MIB // 2).hex()}) + "\n").encode())
            self.entries.append(entry(name))
        self.manifest()
        self.assertFails("evidence/: ")
        self.assertFails("over 5 MiB")

    def test_docs_over_6_mib_fails(self):
        with open(self.path("docs/figures/huge.png"), "wb") as f:
            f.write(os.urandom(6 * MIB + 1))
        self.assertFails("docs/: ")
        self.assertFails("over 6 MiB")


if __name__ == "__main__":
    unittest.main(verbosity=2)
