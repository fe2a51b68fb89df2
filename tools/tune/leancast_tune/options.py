"""The command line: options, their checks, and the candidates, sizes and process counts
they come to."""
import argparse
import json
import os
import sys

from . import __doc__ as OVERVIEW
from . import evidence
from .bench_runs import as_site_measurement, is_bench_run
from .choosing import check_predict
from .candidates import Candidates, RegistryError, counts_text, read_registry
from .common import (EMULATED_REFERENCES, METHODS, REFERENCE, SIMULATED_ONLY, SMPI_PREFIX,
                     STAND_INS, byte_size, find_tool, is_reference)
from .library import (LIBRARY_DEFAULTS, LIBRARY_EPILOG, MPICH_PREFIX, OMPI_PREFIX,
                      is_library, library_setting)


# Powers of two and decimal sizes: segments cut from the latter fall just below a power of two,
# where eager-protocol limits lie (hornet's 8 KiB: a chain of 8 KiB segments is 27 % slower
# at 3000000 bytes than at 2^21 on that model), so a winner must hold on both kinds.
DEFAULT_SIZES = "8,1000,4K,12288,30000,64K,150000,512K,1000000,2M,3000000,6000000,16M"
SITE_SIZES = "1K,4K,16K,64K,256K,1M,4M,16M,64M"

EPILOG = """\
tie rule: the margin at a process count, size and method is the larger of --tie and the
  median over that size's cells of their repetitions' spread: (Q3 - Q1) / median with 5 or
  more repetitions, else (max - min) / median (0 in a simulation: it repeats exactly). A
  leancast candidate counts only if it beats the reference by more than the margin under
  every method; the winner is the one with the best worst-method speedup. Candidates
  within the margin (or --tie-break, if smaller) of the fastest under every method are
  tied: a re-implementation of
  the library's broadcast (--reference) wins, then the one with the fewest messages at its
  busiest rank (sends + receives, from leancast-plan --json), then the one listed first.
  No such candidate: mpi.

--site: the whole table of one machine in one command. It launches `mpirun -n {procs}`
  (or --launcher) at process counts 2, 4, 8, ... up to the node's cores (or --procs), with
  auto's flat candidate families (and node-aware pairs where the ranks span several nodes)
  plus mpi, at 1K..64M (every 4x), under both methods, and stops within the budget:
  --budget-minutes (default 2 plus 1 per process count, at most 8). It first times every
  candidate 3 times per size at the largest count (the median; a launch's timing replaces
  it), estimates each cell at the other counts from the nearest measured count (time
  scaled by P - 1), and before each launch gives
  every remaining cell the same timed seconds per repetition (at most 0.25 s):
  iterations = that target / the slowest candidate's time at the size (1 to 1000), in up
  to 3 launches per count and method (sizes grouped, a group running its smallest count;
  more where one launch would take over a fifth of the time left or a size would run
  fewer than a quarter of its iterations), 9 or 7 repetitions where the target is at least 0.02 s,
  else 5 (3 where 5 do not fit), 1 warm-up. Estimates are corrected by what the launches
  so far took. Where not even one iteration fits, the largest size left is left out (at
  the largest count first; no rule there: auto runs mpi). Launches still running at 1.125 x
  the budget are stopped. With --budget-cells N instead, nothing depends on time: sizes are
  left out the same way until at most N (count, size, method) cells remain, and every cell
  gets 0.02 s per repetition, 5 repetitions, no launch stopped. The rules claim the measured counts only (procs up to the
  largest, and on one node ppn = procs).
"""


def local_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def site_procs(cores):
    """2, 4, 8, ... below the cores, and the cores themselves."""
    counts, p = [], 2
    while p < cores:
        counts.append(p)
        p *= 2
    return counts + [cores]


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="leancast-tune", description=OVERVIEW.split("\n\n")[0],
                                     epilog=EPILOG + "\n" + LIBRARY_EPILOG, add_help=False,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    counted = []  # the options whose help counts the registry's candidates
    parser.add_argument("-h", "--help", action=Help, counted=counted,
                        help="show this help message and exit")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--launcher", help="launch real MPI runs with this command, {procs} "
                                          "standing for the process count (e.g. 'mpirun "
                                          "--oversubscribe -n {procs}', 'srun -n {procs}')")
    where.add_argument("--sim", metavar="PLATFORM",
                       help="simulate on this leancast-sim platform (hornet, laki) instead")
    where.add_argument("--from-json", metavar="FILE[,FILE...]",
                       help="no measuring: derive the rules from earlier runs' --json (several: "
                            "their runs together, e.g. one file per process count); "
                            "leancast-bench --json files count as one --site measurement; "
                            "a compact evidence file (.jsonl, .jsonl.gz: evidence.py) counts "
                            "as the tunings and leancast-bench runs it holds")
    parser.add_argument("--select", metavar="PATTERN[,PATTERN...]",
                        help="--from-json: of a compact file's leancast-bench runs, only those "
                             "whose source matches one of these shell patterns")
    parser.add_argument("--site", action="store_true",
                        help="this machine's table in one command, within --budget-minutes "
                             "(see below); launcher 'mpirun -n {procs}' unless --launcher")
    parser.add_argument("--budget-minutes", type=float,
                        help="--site: time for all measuring (default 2 + 1 per process "
                             "count, at most 8); what fits depends on the machine's speed")
    parser.add_argument("--budget-cells", type=int, metavar="N",
                        help="--site: instead of a time budget, at most N (process count, "
                             "size, method) cells, each with every candidate: the largest "
                             "sizes (at the largest count first) are left out, a size under "
                             "every method or none; no time limit (the tests use it)")
    parser.add_argument("--predict", action="store_true",
                        help="with --budget-cells under --site, --sim or --library-algorithms: "
                             "measure where the winner is least certain, predict the rest "
                             "from the schedules "
                             "(docs/auto.md); --from-json: predict from saved cells")
    parser.add_argument("--procs", help="process counts to measure, comma-separated (e.g. "
                                        "16,64,256); --site: default 2, 4, 8, ..., cores")
    parser.add_argument("--ranks-per-node", type=int,
                        help="--sim: ranks per node (default: every core of a node)")
    parser.add_argument("--ppn", help="ppn range the rules claim (LOW-HIGH, LOW-, or *); "
                                      "default: the measured ranks per node exactly (--site or "
                                      "--sim on one node: the rule's procs range)")
    parser.add_argument("--library", choices=("openmpi", "mpich", "smpi", "any"),
                        help="library= the rules claim (default: the MPI library measured; "
                             "any: none, the rules apply in every build; not with "
                             "--library-algorithms)")
    parser.add_argument("--procs-cover", metavar="LOW-HIGH",
                        help="process counts the rules claim in all (LOW-HIGH or LOW-); default "
                             "all (--site: 1 to the largest measured), the measured counts "
                             "splitting them halfway")
    parser.add_argument("--sizes", help=f"sizes (default {DEFAULT_SIZES}; --site {SITE_SIZES})")
    counted.append(parser.add_argument(
        "--candidates", help="leancast algorithms to choose from, comma-separated (default: "
                             "{registry}); mpi is always added; --sim: smpi:NAME adds a "
                             "reference"))
    parser.add_argument("--reference", default="",
                        help="--sim: leancast algorithms, comma-separated, that re-implement the "
                             "library's own broadcast where SMPI has no faithful copy (e.g. what "
                             "MPICH runs on one node: binomial,scatter-doubling,scatter-ring); "
                             "measured as candidates that win ties, never a veto")
    parser.add_argument("--stand-in", default="", metavar="ALGORITHM=smpi:NAME[,...]",
                        help="--sim: simulate leancast's ALGORITHM in place of SMPI's smpi:NAME, "
                             "as a reference that vetoes as smpi:NAME would, never chosen: for "
                             "where smpi:NAME takes hours to simulate and a check shows the two "
                             "take the same time (e.g. knomial:4@dataflow:0=smpi:ompi above 2048 "
                             "ranks below 256 KiB, 8-16 KiB aside, scripts/large-scale-tune.py; "
                             "checked by scripts/large-scale.sh ompi)")
    parser.add_argument("--executors", default="",
                        help="executors to measure each leancast candidate under besides the "
                             "default (dataflow:1), comma-separated (e.g. dataflow,dataflow:0): "
                             "candidate NAME is also measured as NAME@EXECUTOR, and a rule may "
                             "name it so")
    parser.add_argument("--methods", default="paper,osu",
                        help="leancast-bench timing methods, each measured separately: paper "
                             "(back-to-back broadcasts), osu (a barrier before each), fresh (osu "
                             "with the root's data rewritten before each), sync "
                             "(--sim only: every rank starts at the same simulated instant); a "
                             "candidate must win under all (default paper,osu)")
    parser.add_argument("--exclude", default="",
                        help="candidates measured but never chosen, comma-separated (e.g. "
                             "what a model favours for reasons a machine does not share); a "
                             "NAME excludes NAME@EXECUTOR too")
    parser.add_argument("--tie", type=float, default=0.001,
                        help="smallest tie margin, a fraction (default 0.001; real runs use "
                             "their repetitions' spread where larger, see below)")
    parser.add_argument("--tie-break", type=float,
                        help="candidates count as tied within this fraction of the fastest "
                             "(default, and at most: the tie margin); a smaller window keeps a tie-break "
                             "from picking one that falls behind by more than the margin at a "
                             "count the rule claims but did not measure")
    parser.add_argument("--iterations", type=int,
                        help="broadcasts timed per cell (default: leancast-bench's, or 1 when "
                             "simulating: simulated time is exact)")
    parser.add_argument("--reps", type=int,
                        help="repetitions (default: leancast-bench's; 1 simulated)")
    parser.add_argument("--rotate-above", metavar="SIZE",
                        help="real runs: time sizes above SIZE (e.g. 4M) on buffers rotated "
                             "beyond the last-level cache (leancast-bench --rotate-above; "
                             "default: above the cache the machine reports)")
    parser.add_argument("--shared-buffer", action="store_true",
                        help="--sim: one buffer for all simulated ranks (leancast-bench "
                             "--shared-buffer), for thousands of ranks; the data is not checked")
    parser.add_argument("--out", help="write the rules table here (required unless "
                                      "--library-algorithms)")
    library = parser.add_argument_group(
        "the MPI library's own algorithms (--library-algorithms; see below)")
    library.add_argument("--library-algorithms", action="store_true",
                         help="measure the MPI library's own broadcast algorithms, each forced "
                              "in a launch of its own, and write the library's tuning file")
    library.add_argument("--out-ompi-rules", metavar="FILE",
                         help="write Open MPI's coll_tuned dynamic rules file (candidates "
                              "ompi:N[:SEG])")
    library.add_argument("--out-mpich-json", metavar="FILE",
                         help="write MPICH's collective selection JSON file (candidates "
                              "mpich:NAME)")
    library.add_argument("--mpich-base", metavar="FILE",
                         help="MPICH's tuning JSON that the file's broadcast part replaces in "
                              "(default: the tree built into the libmpich leancast-bench uses)")
    parser.add_argument("--json", help="also write every measurement here (not with --from-json)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress lines on stderr (otherwise: a live line on a "
                             "terminal; in a log a line per launch and at most one every 10 s)")
    parser.add_argument("--bench", help="leancast-bench to run (default: beside this script)")
    parser.add_argument("--plan", help="leancast-plan, for the message counts that break ties "
                                       "(default: beside this script)")
    parser.add_argument("--leancast-sim", dest="leancast_sim",
                        help="leancast-sim to run (default: beside this script)")
    options = parser.parse_args(argv)
    check_library_modes(parser, options)
    check_modes(parser, options)
    options.procs_given = options.procs  # --predict: the saved grid's unless given
    read_saved(options)
    check_predict(parser, options)
    parse_lists(parser, options)
    check_cover(parser, options)
    return options


def check_modes(parser, options):
    options.launcher_given = bool(options.launcher)
    if options.site:
        if options.sim or options.from_json:
            parser.error("--site measures real MPI: not with --sim or --from-json")
        if (options.iterations or options.reps) and not options.predict:
            parser.error("--site chooses --iterations and --reps from --budget-minutes "
                         "(or --budget-cells)")
        if options.budget_minutes is not None and options.budget_cells is not None:
            parser.error("--site takes --budget-minutes or --budget-cells, not both")
        options.launcher = options.launcher or "mpirun -n {procs}"
    elif options.budget_minutes is not None:
        parser.error("--budget-minutes goes with --site")
    elif options.budget_cells is not None and not options.predict:
        parser.error("--budget-cells goes with --site or --predict")
    if not (options.launcher or options.sim or options.from_json):
        parser.error("say where to measure: --launcher or --sim (or --site, or --from-json)")
    if options.launcher and "{procs}" not in options.launcher:
        parser.error("--launcher must contain {procs}")
    if options.budget_minutes is not None and options.budget_minutes <= 0:
        parser.error("--budget-minutes must be positive")
    if options.budget_cells is not None and options.budget_cells < 1:
        parser.error("--budget-cells must be at least 1")
    if options.ranks_per_node is not None and not options.sim:
        parser.error("--ranks-per-node goes with --sim (real runs place ranks by the launcher)")
    if options.shared_buffer and not options.sim:
        parser.error("--shared-buffer goes with --sim")


def read_saved(options):
    """--from-json: the runs of every file given, and the settings they were measured with
    (the first file's where they differ; candidates and methods: all files' together).
    leancast-bench files among them count as one --site measurement (bench_runs.py)."""
    options.saved = None
    if not options.from_json:
        return
    saved, bench = [], []
    select = options.select.split(",") if getattr(options, "select", None) else None
    for path in (p for p in options.from_json.split(",") if p):
        if evidence.is_compact(path):
            tunings, runs = evidence.tunings_and_bench(path, select)
            saved += tunings
            bench += runs
            continue
        with open(path) as f:
            data = json.load(f)
        if is_bench_run(data):
            bench.append((path, data))
        else:
            saved.append(data)
    if bench:
        try:
            saved.append(as_site_measurement(bench))
        except ValueError as problem:
            sys.exit(f"leancast-tune: --from-json: {problem}")
    merged = dict(saved[0], runs=[r for s in saved for r in s["runs"]])
    for key in ("candidates", "methods"):
        if any(s.get(key) for s in saved):
            merged[key] = list(dict.fromkeys(x for s in saved for x in s.get(key) or []))
    if all(s.get("elapsed_seconds") is not None for s in saved):
        merged["elapsed_seconds"] = sum(s["elapsed_seconds"] for s in saved)
    merged["not_measured"] = {k: v for s in saved for k, v in (s.get("not_measured") or {}).items()}
    merged["stand_ins"] = {k: v for s in saved for k, v in (s.get("stand_ins") or {}).items()}
    options.saved = merged
    options.measured_by = [s["command"] for s in saved]
    procs = sorted({r["environment"]["procs"] for r in merged["runs"]})
    options.procs = options.procs or ",".join(str(p) for p in procs)
    options.site = options.site or bool(merged.get("site"))


def parse_lists(parser, options):
    if options.site and not options.procs:
        cores = local_cores()
        if cores < 2:
            parser.error("--site needs at least 2 cores here, or --procs")
        options.procs = ",".join(str(p) for p in site_procs(cores))
    if not options.procs:
        parser.error("--procs is required")
    sizes = options.sizes or (SITE_SIZES if options.site else DEFAULT_SIZES)
    try:
        options.procs = sorted({int(p) for p in options.procs.split(",") if p})
        options.sizes = sorted({byte_size(s) for s in sizes.split(",") if s})
    except (ValueError, argparse.ArgumentTypeError) as error:
        parser.error(f"--procs/--sizes: {error}")
    if not options.procs or min(options.procs) < 1:
        parser.error("--procs needs process counts of at least 1")
    if options.site and min(options.procs) < 2:
        parser.error("--site measures from 2 processes (--procs needs process counts of at "
                     "least 2)")
    options.methods = list(dict.fromkeys(m for m in options.methods.split(",") if m))
    if not options.methods or any(m not in METHODS for m in options.methods):
        parser.error(f"--methods is a list of {', '.join(METHODS)}")
    if not options.sim and not options.from_json and set(options.methods) & set(SIMULATED_ONLY):
        parser.error("--methods sync needs a simulated clock: it goes with --sim")
    options.candidates_given = options.candidates is not None
    given = options.candidates.split(",") if options.candidates else None
    if options.from_json and not given:
        given = options.saved.get("candidates") or options.saved["runs"][0]["options"]["algorithms"]
    if not given and options.library_algorithms:
        given = LIBRARY_DEFAULTS[options.library_kind]
    if not given:
        given = registry_candidates(parser, options)
    EMULATED_REFERENCES.update(r for r in options.reference.split(",") if r)
    parse_stand_ins(parser, options, given)
    # mpi first: it is the baseline every speedup refers to; emulated references are measured
    # like candidates; then each leancast candidate under the other executors asked for.
    base = list(dict.fromkeys([REFERENCE] + [c for c in given if c] + sorted(EMULATED_REFERENCES)
                              + list(STAND_INS)))
    executors = [e for e in options.executors.split(",") if e]
    variants = [f"{c}@{e}" for e in executors for c in base
                if not is_reference(c) and "@" not in c]
    options.candidates = list(dict.fromkeys(base + variants))
    options.exclude = set(options.exclude.split(",")) - {""}
    if any(is_reference(c) for c in options.exclude):
        parser.error("--exclude: mpi, smpi:NAME and stand-ins are references, never chosen and "
                     "never excluded")
    if not options.sim and not options.from_json and any(
            c.startswith(SMPI_PREFIX) for c in options.candidates):
        parser.error("smpi:NAME candidates are SMPI's broadcasts: they go with --sim")
    if not options.sizes:
        parser.error("--sizes must not be empty")
    check_library_candidates(parser, options)


def parse_stand_ins(parser, options, given):
    """--stand-in ALGORITHM=smpi:NAME,... (and --from-json: the files' own, where files of
    several counts may hold smpi:NAME at one and its stand-in at another) into STAND_INS."""
    STAND_INS.update((options.saved or {}).get("stand_ins") or {})
    for item in (i for i in options.stand_in.split(",") if i):
        algorithm, _, name = item.partition("=")
        if not name.startswith(SMPI_PREFIX) or len(name) == len(SMPI_PREFIX) or not algorithm \
                or is_reference(algorithm) or algorithm in EMULATED_REFERENCES:
            parser.error(f"--stand-in {item}: give ALGORITHM=smpi:NAME, a leancast algorithm "
                         "(not a reference, nor --reference's) in place of SMPI's NAME")
        if name in given:  # the stand-in is there to spare simulating it
            parser.error(f"--stand-in {item}: {name} is measured too; measure one or the other")
        STAND_INS[algorithm] = name
    if options.stand_in and not (options.sim or options.from_json):
        parser.error("--stand-in stands in for SMPI's broadcasts: it goes with --sim")


def registry_candidates(parser, options):
    """The default candidates, from the registry (candidates.py): --site's flat ones, and
    node-aware pairs only where a launcher may span nodes (kept if it does); else those a
    simulation can run."""
    try:
        found = Candidates(read_registry(find_tool("leancast-plan", options.plan)))
    except RegistryError as error:
        parser.error(f"the default candidates come from leancast's registry: {error} (give "
                     "--plan PATH, or --candidates)")
    if options.site:
        return found.site_flat + (found.site_node_aware if options.launcher_given else [])
    return found.default


class Help(argparse.Action):
    """-h, --help: argparse's own, with the default candidates counted in the registry
    (read only here, when the help is shown)."""

    def __init__(self, option_strings, dest, counted, help=None):
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                         nargs=0, help=help)
        self.counted = counted

    def __call__(self, parser, namespace, values, option_string=None):
        text = counts_text(find_tool("leancast-plan", getattr(namespace, "plan", None)))
        for action in self.counted:
            action.help = action.help.replace("{registry}", text)
        parser.print_help()
        parser.exit()


def check_cover(parser, options):
    options.cover = (1, max(options.procs) if options.site else None)
    if options.procs_cover:
        low, _, high = options.procs_cover.partition("-")
        if not low.isdigit() or (high and not high.isdigit()) or (high and int(high) < int(low)):
            parser.error("--procs-cover is LOW-HIGH or LOW-")
        options.cover = (int(low), int(high) if high else None)
        if not all(options.cover[0] <= p and (options.cover[1] is None or p <= options.cover[1])
                   for p in options.procs):
            parser.error("--procs-cover must contain every --procs value")
    if options.site and options.budget_minutes is None and options.budget_cells is None:
        options.budget_minutes = min(8.0, 2.0 + len(options.procs))
    if options.budget_cells is not None and options.budget_cells < len(options.methods):
        parser.error(f"--budget-cells: a size takes one cell per method: at least "
                     f"{len(options.methods)} (--methods {','.join(options.methods)})")


def check_library_modes(parser, options):
    """--library-algorithms: which library's file, and options that do not mix."""
    outs = [o for o in (options.out_ompi_rules, options.out_mpich_json) if o]
    options.library_kind = None
    if not options.library_algorithms:
        if outs or options.mpich_base:
            parser.error("--out-ompi-rules, --out-mpich-json and --mpich-base go with "
                         "--library-algorithms")
        if not options.out:
            parser.error("--out is required (the rules table)")
        return
    if len(outs) != 1:
        parser.error("--library-algorithms writes one library's file: give --out-ompi-rules "
                     "or --out-mpich-json")
    if options.out:
        parser.error("--library-algorithms writes the library's file, not leancast rules "
                     "(--out)")
    if options.site or options.sim:
        parser.error("--library-algorithms measures through --launcher (or --from-json), "
                     "not --site or --sim")
    if options.mpich_base and not options.out_mpich_json:
        parser.error("--mpich-base goes with --out-mpich-json")
    options.library_kind = "openmpi" if options.out_ompi_rules else "mpich"


def check_library_candidates(parser, options):
    """Candidates are the library's own (ompi:N[:SEG] or mpich:NAME) exactly when
    --library-algorithms."""
    others = [c for c in options.candidates if c != REFERENCE]
    library = [c for c in others if is_library(c)]
    if not options.library_algorithms:
        if library:
            parser.error(f"{library[0]}: the library's own algorithms go with "
                         "--library-algorithms")
        return
    prefix = OMPI_PREFIX if options.library_kind == "openmpi" else MPICH_PREFIX
    for name in others:
        try:
            if not name.startswith(prefix):
                raise ValueError(f"not a {prefix}... candidate (--out-"
                                 f"{'ompi-rules' if prefix == OMPI_PREFIX else 'mpich-json'})")
            library_setting(name)
        except (ValueError, argparse.ArgumentTypeError) as error:
            parser.error(f"--candidates: {name}: {error}")
    if not others:
        parser.error("--library-algorithms needs candidates besides mpi")
