"""The docs against the code: every algorithm name the registry knows is in leancast.h's
list and in docs/algorithms.md, every `$ leancast-plan ...` example prints what the page
shows, auto.md carries the table of rules scripts/auto-where.py prints from data/auto.rules,
the README stays short, no relative link is dead, and docs/ stays within its budget: at
most DOCS_MAX_PAGES Markdown pages, README.md and docs/ together at most MAX_WORDS words
(counted as `wc -w` counts), docs/ at most DOCS_MAX_BYTES bytes on disk.

Usage: docs_check.py LEANCAST_PLAN REPOSITORY_ROOT [--update-examples]
Prints every problem found and exits 1 if there is one, 0 if there is none.
--update-examples writes the planner's output into the examples instead of reporting them.
"""
import os
import re
import shlex
import subprocess
import sys

README_MAX_LINES = 90
DOCS_MAX_PAGES = 12                 # Markdown files under docs/, recursively
MAX_WORDS = 30000                   # README.md and every Markdown file under docs/
DOCS_MAX_BYTES = 6 * 1024 * 1024    # every file under docs/, summed (6 MiB)

# [text](target) and ![alt](target); the target ends at the first space (a title may follow).
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# A ```text block whose first line is a leancast-plan command: the rest is its output.
PLAN_EXAMPLE = re.compile(r"(```text\n\$ leancast-plan ([^\n]*)\n)(.*?)(```)", re.DOTALL)


def registry_names(plan):
    result = subprocess.run([plan, "--list-algorithms"], capture_output=True, text=True,
                            timeout=60)
    if result.returncode != 0:
        sys.exit(f"docs_check: {plan} --list-algorithms failed: {result.stderr.strip()}")
    names = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    if not names:
        sys.exit(f"docs_check: {plan} --list-algorithms printed no name")
    return names


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def missing_from_header(names, header_text):
    # The list is the C comment's quoted names: "linear", "two-tree", ...
    quoted = set(re.findall(r'"([a-z0-9-]+)"', header_text))
    return [n for n in names if n not in quoted]


def missing_from_algorithms_page(names, page_text):
    # A section of its own (## NAME ...) or the name in code: `NAME`, `NAME:...`, `NAME@...`.
    missing = []
    for n in names:
        heading = re.search(rf"^#+\s+{re.escape(n)}(\s|$)", page_text, re.MULTILINE)
        code = re.search(rf"`{re.escape(n)}[`:@]", page_text)
        if not heading and not code:
            missing.append(n)
    return missing


def as_shown(text):
    # Trailing spaces and blank lines are not shown.
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def stale_plan_examples(plan, root, update):
    problems = []
    for page in markdown_files(root):
        text = read(page)

        def current(match):
            args, shown = match.group(2), match.group(3)
            result = subprocess.run([plan] + shlex.split(args), capture_output=True, text=True,
                                    timeout=60)
            now = as_shown(result.stdout + result.stderr)
            if as_shown(shown) == now:
                return match.group(0)
            if not update:
                problems.append(f"{os.path.relpath(page, root)}: `leancast-plan {args}` now "
                                "prints otherwise (docs_check.py ... --update-examples)")
            return match.group(1) + now + match.group(4)

        updated = PLAN_EXAMPLE.sub(current, text)
        if update and updated != text:
            with open(page, "w", encoding="utf-8") as f:
                f.write(updated)
    return problems


def stale_where_table(root):
    script = os.path.join(root, "scripts", "auto-where.py")
    result = subprocess.run([sys.executable, script, os.path.join(root, "data", "auto.rules")],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        return [f"scripts/auto-where.py failed: {result.stderr.strip()}"]
    if result.stdout.strip() not in read(os.path.join(root, "docs", "auto.md")):
        return ["docs/auto.md: its table of rules is not what `python3 scripts/auto-where.py` "
                "prints from data/auto.rules (paste it)"]
    return []


def markdown_files(root):
    files = [os.path.join(root, "README.md")]
    for directory, _, names in os.walk(os.path.join(root, "docs")):
        files += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".md")]
    return files


def words(path):
    """Words as `wc -w` counts them: runs of bytes that are not ASCII white space."""
    with open(path, "rb") as f:
        return len(re.findall(rb"[^ \t\n\r\f\v]+", f.read()))


def budget(root):
    """(pages, words, bytes, problems): docs/ against its budget."""
    files = markdown_files(root)
    pages = len(files) - 1  # README.md is not a page of docs/
    total_words = sum(words(f) for f in files)
    size = 0
    for directory, _, names in os.walk(os.path.join(root, "docs")):
        size += sum(os.path.getsize(os.path.join(directory, n)) for n in names)
    problems = []
    if pages > DOCS_MAX_PAGES:
        problems.append(f"docs/: {pages} Markdown pages, more than {DOCS_MAX_PAGES}")
    if total_words > MAX_WORDS:
        problems.append(f"README.md and docs/: {total_words} words, more than {MAX_WORDS}")
    if size > DOCS_MAX_BYTES:
        problems.append(f"docs/: {size} bytes, more than {DOCS_MAX_BYTES}")
    return pages, total_words, size, problems


def link_targets(text):
    """(line number, target) of every link outside code blocks and code spans."""
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s*(```|~~~)", line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(1)
        match = REFERENCE_LINK.match(line)
        if match:
            yield number, match.group(1)


def dead_links(root):
    problems = []
    for path in markdown_files(root):
        for number, target in link_targets(read(path)):
            if SCHEME.match(target) or target.startswith("#") or target.startswith("/"):
                continue
            file_part = target.split("#", 1)[0].split("?", 1)[0]
            if not file_part:
                continue
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(resolved):
                problems.append(f"{os.path.relpath(path, root)}:{number}: link to "
                                f"{target}, which does not exist")
    return problems


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update-examples"):
        sys.exit(__doc__)
    plan, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    names = registry_names(plan)
    problems = []

    header = os.path.join("include", "leancast", "leancast.h")
    for n in missing_from_header(names, read(os.path.join(root, header))):
        problems.append(f"{header}: registry name {n} is missing from its list of algorithms")

    algorithms = os.path.join("docs", "algorithms.md")
    for n in missing_from_algorithms_page(names, read(os.path.join(root, algorithms))):
        problems.append(f"{algorithms}: registry name {n} is missing (no section, not in code)")

    lines = read(os.path.join(root, "README.md")).count("\n")
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines, more than {README_MAX_LINES}")

    problems += stale_plan_examples(plan, root, update=len(sys.argv) == 4)
    problems += stale_where_table(root)
    problems += dead_links(root)
    pages, total_words, size, over = budget(root)
    problems += over

    for p in problems:
        print(f"docs_check: {p}")
    if problems:
        print(f"docs_check: FAILED, {len(problems)} problem(s)")
        return 1
    print(f"docs_check: ok ({len(names)} registry names, README {lines} lines, "
          f"{len(markdown_files(root))} Markdown files' links, docs/ {pages} pages, "
          f"{total_words} words with the README, {size / 2**20:.2f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
