#!/usr/bin/env python3
"""What leancast's shared libraries export, read from their dynamic symbol tables.

libleancast-<mpi>.so exports its API only: the C functions LC_* and the C++ namespace
leancast (never leancast::detail), and no MPI_ or PMPI_ name. The interposer
libleancast_pmpi_<mpi>.so exports only the names its exports.map lists, MPI_Bcast and
MPI_Ibcast among them.

  symbols_check.py --library LIB.so [--interposer PMPI.so --map exports.map]
Exits 1 naming every name outside its list; symbols_check_test.py checks the rules.
"""
import argparse
import re
import subprocess
import sys

# What the linker itself defines in every shared library.
LINKER_NAMES = {"_init", "_fini", "_edata", "_end", "__bss_start"}
CXX_PREFIXES = ("", "typeinfo for ", "typeinfo name for ", "vtable for ")


def exported(path):
    """The names `path` defines in its dynamic symbol table, demangled."""
    nm = subprocess.run(["nm", "-D", "--defined-only", path], check=True,
                        capture_output=True, text=True).stdout
    names = [line.split()[-1] for line in nm.splitlines() if line.strip()]
    names = [n.split("@")[0] for n in names]
    demangled = subprocess.run(["c++filt"], input="\n".join(names), check=True,
                               capture_output=True, text=True).stdout.splitlines()
    return list(zip(names, demangled))


def library_problems(symbols):
    """Names outside libleancast's API."""
    problems = []
    for raw, name in symbols:
        if raw in LINKER_NAMES:
            continue
        if raw.startswith(("MPI_", "PMPI_", "mpi_", "pmpi_")):
            problems.append(f"{raw}: an MPI name")
        elif raw.startswith("LC_"):
            continue
        elif any(name.startswith(p + "leancast::") for p in CXX_PREFIXES) and \
                not any(name.startswith(p + "leancast::detail::") for p in CXX_PREFIXES):
            continue
        else:
            problems.append(f"{name}: not leancast's API")
    return problems


def map_names(map_text):
    """The global names of a version script."""
    body = re.sub(r"/\*.*?\*/", "", map_text, flags=re.S)
    globals_part = body.split("global:", 1)[1].split("local:", 1)[0]
    return {n.strip() for n in globals_part.split(";") if n.strip()}


# What every interposer must export: the broadcasts it takes over.
REQUIRED = ("MPI_Bcast", "MPI_Ibcast")


def interposer_problems(symbols, allowed):
    names = {raw for raw, _ in symbols}
    return [f"{raw}: not in exports.map" for raw in sorted(names)
            if raw not in LINKER_NAMES and raw not in allowed] + \
        [f"{name}: not exported" for name in REQUIRED if name not in names]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True)
    parser.add_argument("--interposer")
    parser.add_argument("--map")
    args = parser.parse_args()
    problems = [f"{args.library}: {p}" for p in library_problems(exported(args.library))]
    if args.interposer:
        with open(args.map) as f:
            allowed = map_names(f.read())
        problems += [f"{args.interposer}: {p}"
                     for p in interposer_problems(exported(args.interposer), allowed)]
    for p in problems:
        print("symbols_check:", p)
    if not problems:
        print("symbols_check: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
