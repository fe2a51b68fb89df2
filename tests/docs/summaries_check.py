"""Evidence follows the code: every table under docs/ that a script makes from raw JSON is
what that script makes now. A change to a summary script, or new JSON in its folder, that
is not followed by the table it makes fails here.

Usage: summaries_check.py REPOSITORY_ROOT
Prints each table that differs (and how to make it again) and exits 1 if any does.
"""
import os
import shutil
import subprocess
import sys
import tempfile

# (script, folder under docs/, the table it makes there); each script prints the table
# from the folder's JSON, except auto-summary.py, which writes it into the folder.
PRINTED = [
    ("within-node-summary.py", "benchmarks/within-node"),
    ("real-16core-summary.py", "benchmarks/real-16core"),
    ("executor-summary.py", "benchmarks/executor"),
    ("online-tuning-summary.py", "benchmarks/online-tuning"),
    ("nonblocking-summary.py", "benchmarks/nonblocking"),
]
WRITTEN = [("auto-summary.py", "auto/vs-mpi")]


def run(script, folder, root):
    result = subprocess.run([sys.executable, os.path.join(root, "scripts", script), folder],
                            capture_output=True, text=True, timeout=120, cwd=root)
    if result.returncode != 0:
        sys.exit(f"summaries_check: {script} {folder} failed: {result.stderr.strip()}")
    return result.stdout


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[1])
    stale = []
    for script, folder in PRINTED:
        made = run(script, os.path.join("docs", folder), root)
        if made != read(os.path.join(root, "docs", folder, "summary.md")):
            stale.append(f"python3 scripts/{script} docs/{folder} > docs/{folder}/summary.md")
    for script, folder in WRITTEN:
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "copy")
            shutil.copytree(os.path.join(root, "docs", folder), copy)
            run(script, copy, root)
            if read(os.path.join(copy, "summary.md")) != read(
                    os.path.join(root, "docs", folder, "summary.md")):
                stale.append(f"python3 scripts/{script} docs/{folder}")
    for command in stale:
        print(f"summaries_check: a table is not what its script makes now: {command}")
    if stale:
        print(f"summaries_check: FAILED, {len(stale)} table(s)")
        return 1
    print(f"summaries_check: ok ({len(PRINTED) + len(WRITTEN)} tables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
