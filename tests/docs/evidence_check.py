"""The evidence stays small and listed: every file of evidence/ is in evidence/manifest.json
and every file listed there exists; each entry says file, backs, commit, executor, machine,
mpi_library, command and date; the files are CSV or JSON Lines (.csv, .jsonl, .csv.gz,
.jsonl.gz), each line of JSON Lines one JSON object, and any file over 1 MiB is gzip; the
folder holds at most 5 MiB and docs/ takes at most 6 MiB on disk (what `du -s` counts).

Usage: evidence_check.py REPOSITORY_ROOT
Prints each problem and exits 1 if there is one.
"""
import gzip
import json
import os
import sys

MANIFEST = "evidence/manifest.json"
KEYS = ("file", "backs", "commit", "executor", "machine", "mpi_library", "command", "date")
SUFFIXES = (".csv", ".jsonl", ".csv.gz", ".jsonl.gz")
MIB = 1 << 20
GZIP_ABOVE = 1 * MIB
EVIDENCE_LIMIT = 5 * MIB
DOCS_LIMIT = 6 * MIB


def files_under(root, folder):
    found = []
    for here, dirs, files in os.walk(os.path.join(root, folder)):
        dirs.sort()
        found += sorted(os.path.relpath(os.path.join(here, f), root) for f in files)
    return found


def disk_usage(path):
    """Bytes on disk of a folder and everything in it, as `du -s` counts them."""
    total = 0
    for here, dirs, files in os.walk(path):
        for name in [here] + [os.path.join(here, f) for f in files]:
            st = os.lstat(name)
            total += st.st_blocks * 512
    return total


def text_lines(path):
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    if path.endswith(".gz") != gzipped:
        raise ValueError("is named .gz but is not gzip" if path.endswith(".gz")
                         else "is gzip but not named .gz")
    opener = gzip.open if gzipped else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from f


def content_problem(path):
    """Why a file is not CSV or JSON Lines, or None."""
    try:
        if path.endswith((".jsonl", ".jsonl.gz")):
            for number, line in enumerate(text_lines(path), 1):
                if line.strip() and not isinstance(json.loads(line), dict):
                    return f"line {number} is not a JSON object"
        else:
            if not next(iter(text_lines(path)), "").strip():
                return "has no header line"
    except (OSError, ValueError, UnicodeDecodeError, EOFError) as error:
        return str(error)
    return None


def check(root):
    """The problems found, as text."""
    root = os.path.abspath(root)
    problems = []
    try:
        with open(os.path.join(root, MANIFEST), encoding="utf-8") as f:
            studies = json.load(f)["studies"]
        if not isinstance(studies, list):
            raise ValueError("studies is not a list")
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [f"{MANIFEST}: cannot read its studies ({error})"]
    listed = {}
    for index, entry in enumerate(studies):
        name = entry.get("file") if isinstance(entry, dict) else None
        where = f"{MANIFEST}: entry {index + 1}" + (f" ({name})" if name else "")
        if not isinstance(entry, dict):
            problems.append(f"{where}: not an object")
            continue
        for key in KEYS:
            if not entry.get(key):
                problems.append(f"{where}: no {key}")
        if name:
            if name in listed:
                problems.append(f"{where}: listed twice")
            listed[name] = entry
    present = [f for f in files_under(root, "evidence") if f != MANIFEST]
    for name in present:
        path = os.path.join(root, name)
        if name not in listed:
            problems.append(f"{name}: not listed in {MANIFEST}")
        if not name.endswith(SUFFIXES):
            problems.append(f"{name}: not {', '.join(SUFFIXES)}")
            continue
        size = os.path.getsize(path)
        if size > GZIP_ABOVE and not name.endswith(".gz"):
            problems.append(f"{name}: {size / MIB:.2f} MiB, over 1 MiB and not gzip-compressed")
        reason = content_problem(path)
        if reason:
            problems.append(f"{name}: {reason}")
    for name in sorted(set(listed) - set(present)):
        problems.append(f"{MANIFEST}: lists {name}, which does not exist")
    total = sum(os.path.getsize(os.path.join(root, f))
                for f in files_under(root, "evidence"))
    if total > EVIDENCE_LIMIT:
        problems.append(f"evidence/: {total / MIB:.2f} MiB, over {EVIDENCE_LIMIT // MIB} MiB")
    docs = disk_usage(os.path.join(root, "docs")) if os.path.isdir(os.path.join(root, "docs")) else 0
    if docs > DOCS_LIMIT:
        problems.append(f"docs/: {docs / MIB:.2f} MiB on disk, over {DOCS_LIMIT // MIB} MiB")
    return problems


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    problems = check(argv[0])
    for problem in problems:
        print(f"evidence_check: {problem}")
    if problems:
        print(f"evidence_check: FAILED, {len(problems)} problem(s)")
        return 1
    print("evidence_check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
