"""From measurements to decisions: per process count and size, the winner over the
reference (mpi, or the best smpi:NAME) beyond the tie margin under every method, ties
broken by messages at the busiest rank, and the boundaries between measured points."""
import math
import statistics
import sys
from collections import namedtuple

from .common import EMULATED_REFERENCES, METHODS, REFERENCE, is_reference


class Cell:
    """One algorithm at one size under one method: its median time and relative spread."""

    def __init__(self, result):
        summary = result["summary"]["seconds_per_bcast"]
        self.seconds = summary["median"]
        self.spread = relative_spread(result) if self.seconds > 0 else 0.0
        self.ok = result["data_ok"]


def relative_spread(result):
    """(Q3 - Q1) / median of the repetitions where there are at least 5, else (max - min) /
    median. The quartiles, because one repetition hit by the scheduler sets max - min: at
    P = 2 on this 2-core machine, 1000 broadcasts of 1 KiB took 0.90 us in 8 repetitions
    and 4.99 us in one (max - min: 445 %, quartiles: 4 %)."""
    times = sorted(rep["seconds_per_bcast"] for rep in result.get("reps", []))
    summary = result["summary"]["seconds_per_bcast"]
    if len(times) >= 5:
        low, _, high = statistics.quantiles(times, n=4, method="inclusive")
        return (high - low) / summary["median"]
    return (summary["max"] - summary["min"]) / summary["median"]


class Count:
    """Everything measured at one process count: cells by (timing, bytes, algorithm), where a
    timing is a method ("paper"), or, for a size that an earlier run of the same method
    measured too, that method's second, third... timing of it ("paper#2"): files of several
    tuning runs together (--from-json A,B), each a timing of its own, so that a candidate
    wins only where it wins in every run (a machine whose times come in modes minutes apart,
    docs/auto.md). One tuning run measures each size once per method (in several runs by
    size group). Runs that carry the same "measurement" (evidence.py: the tunings of a compact
    file that are parts of one measurement, such as the large section's groups, which
    measure some sizes in two groups with different candidates) time a size together."""

    def __init__(self, procs):
        self.procs, self.env, self.cells, self.runs = procs, None, {}, []
        self.timings = []  # every timing, in the order first seen
        self.by_size = {}  # (timing, bytes) -> {algorithm: Cell} of the cells with good data
        self.times_measured = {}  # (method, bytes) -> the timings that measured it so far

    def add(self, run):
        self.env = self.env or run["environment"]
        self.runs.append(run)
        method = run["method"]
        timing_of = {}
        measurement = run.get("measurement") or id(run)
        for size in dict.fromkeys(result["bytes"] for result in run["results"]):
            seen = self.times_measured.setdefault((method, size), [])
            if measurement not in seen:
                seen.append(measurement)
            again = seen.index(measurement)
            timing_of[size] = method if again == 0 else f"{method}#{again + 1}"
            if timing_of[size] not in self.timings:
                self.timings.append(timing_of[size])
        for result in run["results"]:
            cell, size, algorithm = Cell(result), result["bytes"], result["algorithm"]
            self.cells[(timing_of[size], size, algorithm)] = cell
            if cell.ok:
                self.by_size.setdefault((timing_of[size], size), {})[algorithm] = cell

    def at(self, method, size):
        return self.by_size.get((method, size), {})


class Decision:
    """Which algorithm one size goes to, and the evidence: every candidate's speedup over
    the reference per method, the margins, the references, the runner-up and, where the
    tie-break decided, the tied candidates' message counts."""

    def __init__(self, winner, ratios, margins, references):
        self.winner, self.ratios = winner, ratios
        self.margins, self.references = margins, references
        self.runner_up = None  # (name, worst speedup)
        self.messages = {}     # tied candidates (winner included): messages at the busiest rank

    def worst(self, algorithm):
        return 1.0 if algorithm == REFERENCE else min(self.ratios[algorithm].values())


def measure_size(count, size, methods, options, order):
    """A Decision with the speedups filled in (winner still mpi), or None where some method
    lacks a reference measurement at this size."""
    margins, references = {}, {}
    # A repeated timing ("paper#2") counts where it measured this size.
    methods = [m for m in methods if "#" not in m or count.at(m, size)]
    for method in methods:
        cells = count.at(method, size)
        measured = [(c.seconds, a) for a, c in cells.items() if is_reference(a)]
        if not measured:
            return None
        references[method] = min(measured)
        margins[method] = max(options.tie, statistics.median(c.spread for c in cells.values()))
    ratios = {}
    for algorithm in order:
        if is_reference(algorithm) or algorithm.split("@")[0] in options.exclude:
            continue
        cells = [count.at(m, size).get(algorithm) for m in methods]
        if all(cells):
            ratios[algorithm] = {m: references[m][0] / c.seconds for m, c in zip(methods, cells)}
    return Decision(REFERENCE, ratios, margins, references)


def decide(count, size, methods, options, order, messages):
    """The winner at one size (see the tie rule in --help), or None (not measured)."""
    d = measure_size(count, size, methods, options, order)
    if d is None:
        return None
    methods = list(d.margins)  # the timings that measured this size
    beating = [a for a, r in d.ratios.items() if all(r[m] > 1 + d.margins[m] for m in methods)]
    if beating:
        leader = max(beating, key=d.worst)
        # Tied with the best: within the margin of the fastest under every method, so that
        # a tie-break never picks what one method measured slower by more than the margin
        # (smpi.auto_table replays each method on its own).
        # --tie-break narrows the window (the margin by default).
        best = {m: max(d.ratios[a][m] for a in beating) for m in methods}
        window = {m: d.margins[m] if options.tie_break is None
                  else min(d.margins[m], options.tie_break) for m in methods}
        tied = [a for a in beating
                if all(d.ratios[a][m] * (1 + window[m]) >= best[m] for m in methods)]
        tied = tied or [leader]
        if len(tied) > 1:
            d.messages = {a: messages(a, count.procs, size, count.env) for a in tied}
        # A re-implementation of the library's broadcast wins a tie (it is what the library
        # would run), then fewer messages at the busiest rank, then the order listed.
        counted = lambda a: (a not in EMULATED_REFERENCES, d.messages.get(a) is None,
                             d.messages.get(a) or 0, order.index(a))
        d.winner = min(tied, key=counted)
    others = [a for a in d.ratios if a != d.winner]
    if d.winner != REFERENCE:
        others.append(REFERENCE)
    if others:
        best = max(others, key=d.worst)
        d.runner_up = (best, d.worst(best))
    return d


def midpoint(low, high):
    """The first value of the upper half between two measured points (geometric)."""
    return max(low + 1, math.ceil(math.sqrt(max(low, 1) * high)))


def ranges(points):
    """[low, high] for each sorted point: halfway to the neighbours, open at the ends."""
    out = []
    for i, point in enumerate(points):
        low = 0 if i == 0 else midpoint(points[i - 1], point)
        high = None if i + 1 == len(points) else midpoint(point, points[i + 1]) - 1
        out.append((low, high))
    return out


def claims(counts, cover):
    """The measured process counts in order, the range of counts each claims (halfway to its
    neighbours, the ends given by `cover`, see --procs-cover), and every measured size."""
    procs_list = sorted(counts)
    bounds = ranges(procs_list)
    bounds[0] = (cover[0], bounds[0][1])
    bounds[-1] = (bounds[-1][0], cover[1])
    grid = sorted({s for c in counts.values() for (_, s, _) in c.cells})
    return procs_list, bounds, grid


def group_runs(runs):
    counts = {}
    for run in runs:
        procs = run["environment"]["procs"]
        counts.setdefault(procs, Count(procs)).add(run)
    return counts


def methods_of(count, saved_methods):
    """The timings a count's rules rest on: those of the methods of the run (saved) it was
    measured under, each run of a method its own (Count). A count measured under fewer
    methods (files of several runs together) rests on those it has; the rules file says so
    above its rules."""
    seen = list(dict.fromkeys(run["method"] for run in count.runs))
    methods = [m for m in (saved_methods or seen) if m in METHODS and m in seen]
    return [t for m in methods for t in count.timings if t.split("#")[0] == m]


def check_references(counts):
    for procs, count in counts.items():
        if not any(is_reference(a) for (_, _, a) in count.cells):
            sys.exit(f"leancast-tune: P={procs}: no reference measured (mpi, or smpi:NAME "
                     "under --sim); these runs predate the rule that only a measured win over "
                     "the library's own broadcast makes a rule: measure again")


# --predict's choice at one size of a library file: the winner and its evidence (measured
# or predicted), in place of a Decision.
Chosen = namedtuple("Chosen", "winner text")


def library_decisions(options, counts, order):
    """[(procs, (low, high), {bytes: Decision})] per measured count, and the size grid."""
    procs_list, bounds, grid = claims(counts, options.cover)
    no_messages = lambda *args: None  # the library's algorithms: ties go to the order listed
    out = []
    for procs, bound in zip(procs_list, bounds):
        count = counts[procs]
        methods = methods_of(count, options.saved_methods)
        out.append((procs, bound, {s: decide(count, s, methods, options, order, no_messages)
                                   for s in grid}))
    return out, grid


def size_runs(grid, decisions):
    """[(low, high or None, winner, [(size, Decision)])]: neighbouring sizes with the same
    winner; an unmeasured size goes to the default (mpi)."""
    bounds, out = ranges(grid), []
    for size, (low, high) in zip(grid, bounds):
        d = decisions.get(size)
        winner = d.winner if d else REFERENCE
        if out and out[-1][2] == winner:
            out[-1] = (out[-1][0], high, winner, out[-1][3] + [(size, d)])
        else:
            out.append((low, high, winner, [(size, d)]))
    return out
