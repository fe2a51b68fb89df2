"""The MPI library's own tuning files from --library-algorithms measurements: Open MPI's
coll_tuned dynamic rules file and MPICH's collective selection JSON."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from .common import REFERENCE, find_tool, shown_command, size_text
from .deciding import Chosen, size_runs
from .exporting import range_text, speedups_text
from .library import OMPI_BCAST, OMPI_BCAST_ID, OMPI_CHAIN_FANOUT, library_setting


def library_evidence(size, d):
    if isinstance(d, Chosen):  # --predict: said already, measured or predicted
        return d.text
    if d is None:
        return f"{size_text(size)}: not measured"
    if d.winner == REFERENCE:
        if not d.runner_up:
            return f"{size_text(size)}: no candidate measured"
        name, ratio = d.runner_up
        return f"{size_text(size)}: best {name} {ratio:.2f}x {speedups_text(d, name)}"
    name, ratio = d.runner_up
    return (f"{size_text(size)}: {d.worst(d.winner):.2f}x over the default "
            f"{speedups_text(d, d.winner)}; next {name} {ratio:.2f}x")


def library_header(options, argv, counts, extra, comment, notes=()):
    first = counts[min(counts)].env
    lines = [f"leancast-tune --library-algorithms, {first.get('date', '')[:10]}: "
             f"{first.get('mpi_library', '')}",
             f"machine: {first.get('cpu_model') or 'CPU unknown'}, {first.get('cores', '?')} "
             "cores on rank 0's host",
             f"  leancast-tune {shown_command(argv)}"]
    for command in options.measured_by if options.from_json else []:
        lines.append(f"  measured by: {' '.join(shlex.quote(a) for a in command)}")
    for procs in sorted(counts):
        for run in counts[procs].runs:
            for name, command in (run.get("library_commands") or {}).items():
                lines.append(f"  P={procs} {run['method']} {name}: "
                             f"{' '.join(shlex.quote(a) for a in command)}")
    for text in extra.get("library_failed") or []:
        lines.append(f"  failed, left out: {text}")
    lines += ["A forced algorithm wins a process count and size only where it beats the "
              "library's default",
              "(mpi) by more than the tie margin under every method; otherwise the default "
              "stays."]
    lines += list(notes)
    return [comment + line for line in lines]


def write_ompi_rules(path, options, argv, counts, extra, chosen, grid, notes=()):
    """coll_tuned's dynamic rules file (ompi/mca/coll/tuned/coll_tuned_dynamic_file.c, 4.1):
    whitespace-separated numbers, '#' to the end of a line a comment: the number of
    collectives; per collective its id (bcast 7) and the number of communicator sizes; per
    communicator size (ascending; a rule applies from its size up to the next, the first
    also below) the size and the number of message sizes; per message size (ascending,
    the first 0; from it up to the next) bytes, algorithm (0: the fixed decision), fan in/out
    (chain: its chains), segment size. `notes`: lines for the header (--predict's)."""
    lines = library_header(options, argv, counts, extra, "# ", notes)
    lines += ["# Load it: mpirun --mca coll_tuned_use_dynamic_rules 1 "
              f"--mca coll_tuned_dynamic_rules_filename {path} ...",
              "1  # collectives in this file",
              f"{OMPI_BCAST_ID}  # collective id: bcast",
              f"{len(chosen)}  # communicator sizes"]
    for procs, (low, high), decisions in chosen:
        runs = size_runs(grid, decisions)
        lines += [f"{max(low, 0)}  # communicator size: {range_text(low, high, False)} "
                  f"processes (decided at {procs})",
                  f"{len(runs)}  # message sizes"]
        for size_low, size_high, winner, sizes in runs:
            if winner == REFERENCE:
                algorithm, fanout, segsize, name = 0, 0, 0, "the library's fixed decision"
            else:
                _, algorithm, segsize = library_setting(winner)
                fanout = OMPI_CHAIN_FANOUT if algorithm == 2 else 0
                name = f"{winner} {OMPI_BCAST[algorithm]}"
            notes = " | ".join(library_evidence(s, d) for s, d in sizes)
            lines.append(f"{size_low} {algorithm} {fanout} {segsize}  # bytes "
                         f"{range_text(size_low, size_high, True)}: {name}; {notes}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return lines


MPICH_LIBRARY_NAMES = ("libmpich.so.12", "libmpich.so")


def find_libmpich(options):
    """The libmpich leancast-bench is linked with (ldd), else the usual places."""
    bench = find_tool("leancast-bench", options.bench)
    if bench and shutil.which("ldd"):
        done = subprocess.run(["ldd", bench], capture_output=True, text=True)
        for line in done.stdout.splitlines():
            match = re.search(r"libmpich\S*\.so\S*\s+=>\s+(\S+)", line)
            if match and os.path.exists(match.group(1)):
                return match.group(1)
    for directory in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"):
        for name in MPICH_LIBRARY_NAMES:
            if os.path.exists(os.path.join(directory, name)):
                return os.path.join(directory, name)
    return None


def builtin_mpich_tree(library):
    """MPICH's own MPIR selection tree, compiled into libmpich as a JSON string (the one
    naming MPIR_Bcast_intra_* algorithms, not CH4's compositions or POSIX's), or None."""
    with open(library, "rb") as f:
        data = f.read()
    at = 0
    while True:
        at = data.find(b'{"collective=', at)
        if at < 0:
            return None
        end = data.find(b"\0", at)
        text = data[at:end if end > 0 else len(data)]
        at += 1
        try:
            tree = json.loads(text.decode())
        except (ValueError, UnicodeDecodeError):
            continue
        if "MPIR_Bcast_intra_binomial" in json.dumps(tree.get("collective=bcast", {})) and \
                "collective=allreduce" in tree:
            return tree


def mpich_algorithm(name):
    algorithm = library_setting(name)[1]
    return "MPIR_Bcast_allcomm_nb" if algorithm == "nb" else f"MPIR_Bcast_intra_{algorithm}"


def write_mpich_json(path, options, argv, counts, extra, chosen, grid, notes=()):
    """MPICH's selection tree (src/mpi/coll/src/csel.c, 4.0): nested objects whose keys are
    conditions tried in order ("comm_size<=N", "avg_msg_size<=N" (bytes), "...=any" last),
    leaves {"algorithm=MPIR_Bcast_intra_NAME": {}}; a file replaces the library's whole
    tree, so every collective keeps the base's branch and only "collective=bcast" changes:
    per measured process count a comm_size branch, per run of sizes with one winner an
    avg_msg_size branch, the library's own intra-communicator branch where the default
    won."""
    if options.mpich_base:
        with open(options.mpich_base) as f:
            base = json.load(f)
        source = options.mpich_base
    else:
        library = find_libmpich(options)
        base = builtin_mpich_tree(library) if library else None
        if base is None:
            sys.exit("leancast-tune: MPICH's own selection tree was not found in "
                     f"{library or 'a libmpich'}; give --mpich-base FILE (e.g. "
                     "maint/tuning/coll/mpir/generic.json of the MPICH release installed)")
        source = f"built into {library}"
    bcast = base.get("collective=bcast", {})
    default = bcast.get("comm_type=intra")
    if default is None:
        sys.exit(f"leancast-tune: the base tree ({source}) has no collective=bcast / "
                 "comm_type=intra branch")
    intra = {}
    for index, (procs, (low, high), decisions) in enumerate(chosen):
        sizes = {}
        runs = size_runs(grid, decisions)
        for number, (_, size_high, winner, _) in enumerate(runs):
            key = ("avg_msg_size=any" if number + 1 == len(runs)
                   else f"avg_msg_size<={size_high}")
            if winner == REFERENCE:
                sizes[key] = json.loads(json.dumps(default))
            elif library_setting(winner)[1] == "smp":  # parent communicators only
                sizes[key] = {"comm_hierarchy=parent": {f"algorithm={mpich_algorithm(winner)}":
                                                        {}},
                              "comm_hierarchy=any": json.loads(json.dumps(default))}
            else:
                sizes[key] = {f"algorithm={mpich_algorithm(winner)}": {}}
        key = "comm_size=any" if index + 1 == len(chosen) else f"comm_size<={high}"
        intra[key] = sizes
    tree = {}
    for key, value in base.items():
        if key == "collective=bcast":
            value = {"comm_type=intra": intra,
                     **{k: v for k, v in bcast.items() if k != "comm_type=intra"}}
        tree[key] = value
    with open(path, "w") as f:
        json.dump(tree, f, indent=1)
        f.write("\n")
    lines = library_header(options, argv, counts, extra, "", notes)
    lines.append(f"MPICH tuning file {path}: the base tree {source}, collective=bcast "
                 "replaced:")
    for procs, (low, high), decisions in chosen:
        for size_low, size_high, winner, sizes in size_runs(grid, decisions):
            notes = " | ".join(library_evidence(s, d) for s, d in sizes)
            lines.append(f"  procs={range_text(low, high, False)} bytes="
                         f"{range_text(size_low, size_high, True)}: "
                         f"{'the default' if winner == REFERENCE else mpich_algorithm(winner)}"
                         f"  # {notes}")
    lines.append(f"Load it: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={path} "
                 "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 mpiexec ...")
    return lines
