#!/usr/bin/env python3
"""Tabulates the nonblocking broadcasts' runs as Markdown, from their compact evidence
(evidence/nonblocking.jsonl.gz: each leancast-overlap-bench record whole, with its source):
per run (library, P, way of computing) and size, the library's MPI_Ibcast and each leancast
contender's latency over its own blocking broadcast (ib/bl) and overlap %, medians over the
repetitions; then, per run, where the issue's targets hold: latency within 10 % of the
blocking leancast broadcast, and overlap at least the library's from 64 KiB; and auto's
latency against the library's MPI_Ibcast per size (MPI_Ibcast's time over auto's: > 1, auto
faster).
Usage: nonblocking-summary.py evidence/nonblocking.jsonl.gz   (prints Markdown)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "tune"))
from leancast_tune import evidence  # noqa: E402

WAYS = {"calls0": "no MPI call while computing (OSU default)",
        "calls10": "10 MPI_Test calls spread over the computation (OSU -t)",
        "thread": "no MPI call, LEANCAST_PROGRESS_THREAD=1 (MPI_THREAD_MULTIPLE)"}


def overlap(cell):
    """The overlap within 0-100 % (the tool clamps it; runs before it did not)."""
    return min(100.0, max(0.0, cell["overlap_percent"]))


def size_text(n):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = {line["source"]: line["data"] for line in evidence.read(sys.argv[1]) if "data" in line}
    print("# Nonblocking broadcasts: MPI_Ibcast beside LC_Ibcast\n")
    print("Measured by leancast-overlap-bench on a 2-core VM; runs from "
          f"{sys.argv[1]}. ib/bl: a contender's MPI_Ibcast + MPI_Wait time over "
          "its own blocking broadcast's (mpi: MPI_Ibcast over MPI_Bcast; leancast: LC_Ibcast "
          "over LC_Bcast with the same algorithm). overlap: OSU's, in %. Medians of 7 "
          "repetitions.\n")
    for source in sorted(runs, key=os.path.basename):
        data = runs[source]
        name, way = os.path.basename(source)[:-len(".json")].rsplit("-", 1)
        rows = {}
        contenders = []
        for r in data["results"]:
            rows.setdefault(r["bytes"], {})[r["contender"]] = r
            if r["contender"] not in contenders:
                contenders.append(r["contender"])
        print(f"## {name}, {WAYS.get(way, way)}\n")
        head = "| bytes | mpi us (ib/bl, overlap) |" + "".join(
            f" {c} ib/bl | {c} overlap |" for c in contenders if c != "mpi")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        latency_ok, latency_all, overlap_ok, overlap_all = 0, 0, 0, 0
        for size in sorted(rows):
            cells = rows[size]
            mpi = cells["mpi"]
            line = (f"| {size_text(size)} | {mpi['ibcast_us']:.1f} "
                    f"({mpi['ibcast_over_blocking']:.2f}, {overlap(mpi):.0f}) |")
            for c in contenders:
                if c == "mpi":
                    continue
                cell = cells[c]
                line += f" {cell['ibcast_over_blocking']:.2f} | {overlap(cell):.0f} |"
                latency_all += 1
                latency_ok += cell["ibcast_over_blocking"] <= 1.10
                if size >= 64 * 1024:
                    overlap_all += 1
                    overlap_ok += overlap(cell) >= overlap(mpi)
            print(line)
        print(f"\nLatency within 10 % of blocking: {latency_ok} of {latency_all} cells. "
              f"Overlap at least the library's from 64 KiB: {overlap_ok} of {overlap_all} "
              f"cells.")
        print("auto against MPI_Ibcast (MPI_Ibcast's time over auto's): " + ", ".join(
            f"{size_text(size)} {rows[size]['mpi']['ibcast_us'] / rows[size]['auto']['ibcast_us']:.2f}"
            for size in sorted(rows) if "auto" in rows[size]) + ".\n")


if __name__ == "__main__":
    main()
