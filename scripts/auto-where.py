#!/usr/bin/python3
"""Where auto runs a leancast algorithm: one table row per rule of data/auto.rules that does
not say mpi, with its section's source and the evidence its comment carries (per measured
size: the worst-method speedup over the best stand-in for the library's broadcast).

Usage: auto-where.py [RULES]   (default data/auto.rules; prints markdown)
"""
import os
import re
import sys

RULE = re.compile(r"^(?P<conditions>[^:#]+):\s*(?P<algorithm>\S+)\s*#\s*(?P<evidence>.*)$")
# "64K: 1.15x over scatter-doubling (" or "30000: 1.21x over the best reference ("
WIN = re.compile(r"(?:^|\| )(?P<size>\S+): (?P<ratio>[\d.]+)x over (?P<reference>.+?) \(")


def main(path):
    source = ""
    print("| source | conditions | runs | measured sizes: lead over the library's broadcast (worst method) |")
    print("|---|---|---|---|")
    with open(path) as f:
        for line in f:
            if line.startswith("# leancast-tune, "):
                if "real MPI" in line:
                    library = line.split("real MPI, ")[1].split(",")[0].strip()
                    source = "real, " + library.replace("MPICH Version:", "MPICH").strip()
                else:
                    source = "simulated, " + line.split("simulated on ")[1].split(" (")[0]
            match = RULE.match(line.strip())
            if not match or match["algorithm"] == "mpi":
                continue
            wins = [f"{w['size']} {w['ratio']}x ({w['reference']})"
                    for w in WIN.finditer(match["evidence"])]
            print(f"| {source} | `{' '.join(match['conditions'].split())}` | `{match['algorithm']}` "
                  f"| {'; '.join(wins)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(__file__), "..", "data", "auto.rules")))
