#!/usr/bin/env python3
"""The source layout's rules (docs/design.md#source-layout), checked over src/'s #include lines:

- folders are layers, in this order; a file includes only its own folder or earlier ones
  (so schedule/ includes nothing from select/ or mpi/);
- no include cycle among source files;
- no include cycle among modules: a module is the files of one name but for the extension
  (a .hpp and its .cpp), and a file of one that includes a file of another is an edge, so
  that two .cpp files each including the other's header are a cycle (the header-only
  check above passes them);
- no folder holds more than 15 files (schedule/, one file per algorithm, aside);
- no source file is longer than 450 lines.

Usage: layout_check.py REPOSITORY_ROOT   (exit 1 naming every break)
"""
import os
import re
import sys

LAYERS = ["schedule", "select", "mpi/base", "mpi/run", "mpi/requests", "mpi/comm", "mpi", "pmpi"]
MAX_FILES = 15
UNBOUNDED_FOLDERS = {"schedule"}
MAX_LINES = 450
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(src):
    found = {}
    for folder, _, names in os.walk(src):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                found[os.path.relpath(path, src)] = f.read()
    return found


def resolve(files, including, target):
    """The file `target` names from `including` (relative to it, else to src/), or None."""
    here = os.path.normpath(os.path.join(os.path.dirname(including), target))
    for candidate in (here, os.path.normpath(target)):
        if candidate in files:
            return candidate
    return None


def cycles(graph):
    """Every strongly connected component of more than one file, or a file including itself."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def module_of(path):
    """schedule/registry.cpp and schedule/registry.hpp are the module schedule/registry."""
    folder, name = os.path.split(path)
    return os.path.join(folder, name.split(".", 1)[0])


def module_cycles(graph):
    """Each cycle among modules, as its modules and the includes that close it."""
    modules, through = {}, {}
    for path, targets in graph.items():
        for target in targets:
            a, b = module_of(path), module_of(target)
            if a != b:
                modules.setdefault(a, set()).add(b)
                through.setdefault((a, b), []).append(f"{path} includes {target}")
    found = []
    for component in cycles(modules):
        members = set(component)
        edges = sorted(edge for pair, edges in through.items()
                       if pair[0] in members and pair[1] in members for edge in edges)
        found.append((component, edges))
    return found


def check(root):
    src = os.path.join(root, "src")
    files = sources(src)
    problems = []
    graph = {}
    for path, text in sorted(files.items()):
        folder = os.path.dirname(path)
        if folder not in LAYERS:
            problems.append(f"{path}: folder {folder or '.'} is no layer of {LAYERS}")
            continue
        lines = text.count("\n")
        if lines > MAX_LINES:
            problems.append(f"{path}: {lines} lines (at most {MAX_LINES})")
        for target in INCLUDE.findall(text):
            resolved = resolve(files, path, target)
            if resolved is None:
                problems.append(f'{path}: includes "{target}", which is not in src/')
                continue
            graph.setdefault(path, set()).add(resolved)
            to = os.path.dirname(resolved)
            if to in LAYERS and LAYERS.index(to) > LAYERS.index(folder):
                problems.append(f"{path}: includes {resolved}, a later layer ({folder} < {to})")
    for component in cycles(graph):
        problems.append("include cycle: " + " -> ".join(component))
    for component, edges in module_cycles(graph):
        problems.append("module include cycle: " + " <-> ".join(component) +
                        " (" + "; ".join(edges) + ")")
    counts = {}
    for path in files:
        counts[os.path.dirname(path)] = counts.get(os.path.dirname(path), 0) + 1
    for folder, count in sorted(counts.items()):
        if count > MAX_FILES and folder not in UNBOUNDED_FOLDERS:
            problems.append(f"src/{folder}: {count} files (at most {MAX_FILES})")
    return problems, len(files)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    problems, count = check(sys.argv[1])
    for problem in problems:
        print("layout_check:", problem)
    if problems:
        sys.exit(1)
    print(f"layout_check: ok ({count} files in {len(LAYERS)} layers)")


if __name__ == "__main__":
    main()
