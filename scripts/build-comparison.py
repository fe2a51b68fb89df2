#!/usr/bin/env python3
"""Summary of scripts/build-comparison.sh: per P, algorithm and size, the old and the new
build's speedup over mpi (median over launches of each launch's median, and the range of the
launches' medians), and whether the new median lies within the old range.
Usage: build-comparison.py DIR OLD NEW COMMAND"""
import glob
import json
import statistics
import sys


def medians(path):
    """{(algorithm, bytes): the launch's median speedup over mpi}"""
    with open(path) as f:
        run = json.load(f)
    return {(r["algorithm"], r["bytes"]): statistics.median(x["speedup_vs_baseline"] for x in r["reps"])
            for r in run["results"] if r["algorithm"] != "mpi"}, run["environment"]


def main():
    folder, old, new, command = sys.argv[1:5]
    print(f"# leancast-bench, {old} against {new}: speedup over MPI_Bcast\n")
    print(f"Made by `{command}` (Open MPI, this 2-core VM; P = 4 oversubscribed). Launches "
          "alternate old, new, old, new; a cell is the median over launches of each launch's "
          "median, [lowest, highest launch]. `within`: the new median lies in the old "
          "launches' range widened by 5 %.\n")
    within = total = 0
    for procs in sorted({int(p.split("-p")[1].split("-")[0]) for p in glob.glob(f"{folder}/old-p*.json")}):
        runs = {side: [medians(p) for p in sorted(glob.glob(f"{folder}/{side}-p{procs}-round*.json"))]
                for side in ("old", "new")}
        env = runs["new"][0][1]
        print(f"## P = {procs} ({env.get('mpi_library', '?').split(',')[0]}, {env.get('date', '?')})\n")
        print("| algorithm | bytes | old | new | within |")
        print("|---|---:|---|---|---|")
        for key in sorted(runs["old"][0][0], key=lambda k: (k[0], k[1])):
            cells = {}
            for side, found in runs.items():
                values = [m[key] for m, _ in found if key in m]
                cells[side] = values
            lo, hi = min(cells["old"]), max(cells["old"])
            mid_new = statistics.median(cells["new"])
            ok = lo / 1.05 <= mid_new <= hi * 1.05
            within += ok
            total += 1
            text = {s: f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]" for s, v in cells.items()}
            print(f"| {key[0]} | {key[1]} | {text['old']} | {text['new']} | {'yes' if ok else 'NO'} |")
        print()
    print(f"{within} of {total} cells within. Raw JSON: the *.json files beside this page.")


if __name__ == "__main__":
    main()
