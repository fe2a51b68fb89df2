#!/usr/bin/env python3
"""Tabulates scripts/call-path-measure.sh's JSON (leancast-call-path-bench) as markdown:
per flavour, whole calls at P = 1 and 2 (and through the preloaded interposer), before and
after, and the front end's steps. Medians of the repetitions, in ns per call; "min" is the
fastest repetition (the machine is shared: the minimum is the least disturbed); the ratios
are of minima.

Usage: scripts/call-path-summary.py DIR [BEFORE_LABEL AFTER_LABEL]   (default before after)
"""
import json
import os
import sys


def load(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cell(entry):
    if entry is None:
        return "-"
    return f"{entry['median_ns']:.0f} ({entry['min_ns']:.0f})"


def index(report, key):
    return {(e["name"], e["bytes"]): e for e in report[key]} if report else {}


def stamp(report):
    env = report.get("environment", {})
    library = env.get("mpi_library", env.get("library", ""))
    when = env.get("date", env.get("time", ""))
    return f"{library}; revision {report.get('revision', '?')}; {when}; `{report['command']}`"


def calls_table(flavor, directory, labels, procs, suffix=""):
    reports = [load(os.path.join(directory, f"{flavor}-{label}-p{procs}{suffix}.json"))
               for label in labels]
    if not all(reports):
        return []
    before, after = (index(r, "calls") for r in reports)
    lines = [f"#### P = {procs}{' with the interposer preloaded (mpi_bcast is its MPI_Bcast: auto)' if suffix else ''}",
             "", *(f"- {label}: {stamp(r)}" for label, r in zip(labels, reports)), "",
             f"| call | bytes | {labels[0]} ns (min) | {labels[1]} ns (min) | {labels[1]} / {labels[0]} "
             f"| pmpi / call, {labels[0]} | pmpi / call, {labels[1]} | note |",
             "|---|---|---|---|---|---|---|---|"]
    for key, entry in after.items():
        old = before.get(key)
        pmpi_old = before.get(("pmpi", key[1]))
        pmpi_new = after.get(("pmpi", key[1]))
        ratio = f"{entry['min_ns'] / old['min_ns']:.2f}" if old else "-"
        speed_old = f"{pmpi_old['min_ns'] / old['min_ns']:.2f}" if old and pmpi_old else "-"
        speed_new = f"{pmpi_new['min_ns'] / entry['min_ns']:.2f}" if pmpi_new else "-"
        lines.append(f"| {key[0]} | {key[1]} | {cell(old)} | {cell(entry)} | {ratio} | {speed_old} "
                     f"| {speed_new} | {entry.get('note', '')} |")
    return lines + [""]


def steps_table(flavor, directory, labels, procs=2, size=64):
    reports = [load(os.path.join(directory, f"{flavor}-{label}-p{procs}.json")) for label in labels]
    if not all(reports):
        return []
    before, after = (index(r, "steps") for r in reports)
    lines = [f"#### Steps alone, P = {procs}, {size} B", "",
             f"| step | {labels[0]} ns (min) | {labels[1]} ns (min) | what |", "|---|---|---|---|"]
    names = [k[0] for k in after if k[1] == size]
    names += [k[0] for k in before if k[1] == size and k[0] not in names]
    for name in names:
        old, new = before.get((name, size)), after.get((name, size))
        note = (new or old).get("note", "")
        lines.append(f"| {name} | {cell(old)} | {cell(new)} | {note} |")
    return lines + [""]


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    directory = sys.argv[1]
    labels = sys.argv[2:4] if len(sys.argv) == 4 else ["before", "after"]
    out = []
    for flavor in ("openmpi", "mpich"):
        part = []
        for procs in (1, 2):
            part += calls_table(flavor, directory, labels, procs)
        part += calls_table(flavor, directory, labels, 2, "-interposer")
        part += steps_table(flavor, directory, labels)
        if part:
            out += [f"### {flavor}", ""] + part
    print("\n".join(out))


if __name__ == "__main__":
    main()
