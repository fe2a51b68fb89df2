#!/usr/bin/env python3
"""No tracked file names a machine's folders: a record, a document or a test made in one
checkout must mean the same in every other. Over every tracked file (`git ls-files`, as in
the working tree; a .gz file decompressed; other binary files, those with a NUL byte,
skipped), each line is checked for

- the checkout's absolute path (the repository root, as given and as resolved), and the
  build directory's (BUILD_DIR, where given): in every file;
- a path under a build machine's usual roots, /work/, /root/ or /home/ (a slash, the root's
  name, a slash and a file name character: `/work/[\\w.-]`, not preceded by a path or name
  character, so `~/work/x`, `$TMPDIR/home/x` and a regex's `/work/[` pass): in every file;
- a path under the temporary folder, /tmp/ or /var/tmp/ followed by a file name (a record
  shows a run's temporary folders as $TMPDIR/...): in every file but source code. Source
  code (.py .sh .cpp .hpp .c .h .cmake .in, CMakeLists.txt, and executable files) may name
  /tmp/ paths, since code that makes temporary files or folders names them (mktemp
  templates, a default such as ${OUT:-/tmp/out}, the comments that explain them); data,
  documents and evidence (.md .json .jsonl .rules .csv .txt, and every other file) may not.

System paths (/usr/..., /dev/shm/..., /proc/..., /etc/..., /opt/...) are no machine's own
and pass.

Usage: paths_check.py REPOSITORY_ROOT [BUILD_DIR]   (exit 1 naming every line that breaks a
rule, as FILE:LINE)
"""
import gzip
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".py", ".sh", ".cpp", ".hpp", ".c", ".h", ".cmake", ".in")
SOURCE_NAMES = ("CMakeLists.txt",)
# Not preceded by a character that would make it part of a longer path or a name.
BOUNDARY = r"(?<![\w.~$/-])"
MACHINE_ROOTS = re.compile(BOUNDARY + r"/(?:work|root|home)/[\w.-]")
TEMPORARY = re.compile(BOUNDARY + r"(?:/var)?/tmp/[\w.$-]")
MAX_BYTES = 64 << 20  # a decompressed file larger than this is read up to here


def tracked_files(root):
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                            check=True).stdout
    return sorted(p for p in listed.decode("utf-8", "replace").split("\0") if p)


def is_source(root, path):
    name = os.path.basename(path)
    if name in SOURCE_NAMES or name.endswith(SOURCE_SUFFIXES):
        return True
    full = os.path.join(root, path)
    return os.access(full, os.X_OK) and not os.path.isdir(full)


def text_of(full):
    """The file's text, a .gz file's decompressed; None for another binary file."""
    opener = gzip.open if full.endswith(".gz") else open
    try:
        with opener(full, "rb") as f:
            data = f.read(MAX_BYTES)
    except (OSError, EOFError):
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def own_paths(root, build):
    """The checkout's and the build directory's absolute paths, as given and resolved."""
    paths = {}
    for what, path in (("the checkout's path", root), ("the build directory's path", build)):
        if not path:
            continue
        for form in (os.path.abspath(path), os.path.realpath(path)):
            if form != os.sep:
                paths.setdefault(form.rstrip(os.sep), what)
    # The longest first, so that a build inside the checkout is named as the build.
    return [(re.compile(re.escape(p) + r"(?![\w.-])"), what)
            for p, what in sorted(paths.items(), key=lambda item: -len(item[0]))]


def line_problems(line, source, own):
    for pattern, what in own:
        if match := pattern.search(line):
            return f"names {what} ({match.group(0)})"
    if match := MACHINE_ROOTS.search(line):
        return f"names a build machine's folder ({shown_match(line, match)})"
    if not source and (match := TEMPORARY.search(line)):
        return f"names a temporary folder ({shown_match(line, match)}; a record writes $TMPDIR)"
    return None


def shown_match(line, match):
    end = re.compile(r"[\s\"',;)\]}]").search(line, match.end())
    return line[match.start():end.start() if end else len(line)][:80]


def check(root, build=None):
    """(problems, files checked): each problem 'FILE:LINE: what'."""
    own = own_paths(root, build)
    problems, checked = [], 0
    for path in tracked_files(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue  # deleted in the working tree
        text = text_of(full)
        if text is None:
            continue
        checked += 1
        source = is_source(root, path)
        for number, line in enumerate(text.splitlines(), 1):
            if problem := line_problems(line, source, own):
                problems.append(f"{path}:{number}: {problem}")
    return problems, checked


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    problems, checked = check(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None)
    for problem in problems:
        print("paths_check:", problem)
    if problems:
        files = len({p.split(":", 1)[0] for p in problems})
        print(f"paths_check: {len(problems)} lines in {files} of {checked} files name a "
              "machine's folders")
        sys.exit(1)
    print(f"paths_check: ok ({checked} text files)")


if __name__ == "__main__":
    main()
