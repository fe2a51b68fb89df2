#!/usr/bin/env python3
"""paths_check.py fails on each machine path in a small git tree, passes what the rules
allow, and (last) checks the repository it came from.

Usage: paths_check_test.py REPOSITORY_ROOT [BUILD_DIR]
"""
import atexit
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paths_check  # noqa: E402

ROOT, BUILD = (sys.argv[1:] + [None, None])[:2]
del sys.argv[1:]


def tree(files):
    """A git repository holding `files` ({path: text or bytes}), all tracked."""
    root = tempfile.mkdtemp(prefix="paths-")
    atexit.register(shutil.rmtree, root, True)
    for path, content in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if path.endswith(".gz"):
            with gzip.open(full, "wt") as f:
                f.write(content)
        else:
            with open(full, "wb") as f:
                f.write(content if isinstance(content, bytes) else content.encode())
            if content[:2] in ("#!", b"#!"):
                os.chmod(full, 0o755)
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "add", "-A"], check=True)
    return root


class PathsCheck(unittest.TestCase):
    maxDiff = None

    def problems(self, files, build=None):
        root = tree(files)
        return paths_check.check(root, build(root) if build else None)[0], root

    def test_a_clean_tree_passes(self):
        found, _ = self.problems({
            "docs/a.md": "Run `leancast-bench --json $TMPDIR/x.json`; see /usr/share/doc and "
                         "/dev/shm/leancast-1, ~/work/x and build/openmpi/leancast-bench.\n",
            "scripts/s.sh": 'work=$(mktemp -d /tmp/leancast-mutant.XXXXXX)\nOUT=${OUT:-/tmp/out}\n',
            "tools/t.py": 'PATTERN = r"(?<![\\w$.~/])/work/[\\w.-]+/"\n',
        })
        self.assertEqual(found, [])

    def test_the_checkout_s_path_fails_everywhere(self):
        root = tree({"placeholder.txt": "\n"})
        for path in ("tests/fixture.py", "evidence/run.jsonl"):
            with open(os.path.join(root, "placeholder.txt"), "w") as f:
                f.write("\n")
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(f'x\n["{root}/build/openmpi/leancast-bench", "--json"]\n')
            subprocess.run(["git", "-C", root, "add", "-A"], check=True)
            found = paths_check.check(root)[0]
            self.assertIn(f"{path}:2: names the checkout's path ({root})", found)

    def test_the_build_directory_is_named_as_the_build(self):
        found, root = self.problems({"data/x.rules": "# measured by: BUILD/leancast-bench\n"})
        build = os.path.join(root, "build", "openmpi")
        with open(os.path.join(root, "data/x.rules"), "w") as f:
            f.write(f"# measured by: {build}/leancast-bench\n")
        found = paths_check.check(root, build)[0]
        self.assertEqual(found, [f"data/x.rules:1: names the build directory's path ({build})"])

    def test_build_machine_roots_fail_everywhere(self):
        # The roots joined here, so that this file does not name them itself.
        home, root, work = ("/" + name for name in ("home", "root", "work"))
        found, _ = self.problems({"docs/a.md": f"see {home}/someone/leancast\n",
                                  "tools/b.py": f'BENCH = "{root}/build/leancast-bench"\n',
                                  "data/c.json": f'{{"command": ["{work}/lc/build/x"]}}\n'})
        self.assertEqual(len(found), 3, found)
        self.assertTrue(all("a build machine's folder" in p for p in found), found)

    def test_temporary_paths_fail_in_data_documents_and_evidence_but_not_in_code(self):
        found, _ = self.problems({
            "docs/a.md": "the run wrote /tmp/lcres/p16.json\n",
            "data/auto.rules": "#   P=16 osu: leancast-bench --json /tmp/lcres/x.json\n",
            "evidence/e.jsonl.gz": '{"ok": 1}\n{"json": "/var/tmp/leancast-tune-1/p2.json"}\n',
            "tests/t.py": 'session = "/tmp/leancast-session"\n',
            "tools/leancast-tool": "#!/bin/sh\ncd /tmp/x\n",
            "tests/CMakeLists.txt": "set(D /tmp/x)\n",
        })
        self.assertEqual(sorted(p.split(": ", 1)[0] for p in found),
                         ["data/auto.rules:1", "docs/a.md:1", "evidence/e.jsonl.gz:2"], found)

    def test_binary_files_are_skipped(self):
        found, _ = self.problems({"docs/figure.png": b"\x89PNG\0\0/tmp/x/home/y/work/z"})
        self.assertEqual(found, [])

    def test_untracked_files_are_not_checked(self):
        root = tree({"docs/a.md": "fine\n"})
        with open(os.path.join(root, "docs/new.md"), "w") as f:
            f.write("/tmp/x/y\n")
        self.assertEqual(paths_check.check(root)[0], [])

    @unittest.skipUnless(ROOT, "no repository given")
    def test_the_repository_names_no_machine_paths(self):
        problems, _ = paths_check.check(ROOT, BUILD)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


if __name__ == "__main__":
    unittest.main(verbosity=2)
