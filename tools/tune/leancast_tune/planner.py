"""--site: how long each launch will take, and the repetitions and iterations that make all
remaining launches fit the time left (the --help epilog describes the plan); with
--budget-cells, which cells to measure instead, with fixed repetitions and target."""
import math

from .common import REFERENCE


MAX_ITERATIONS = 1000
MAX_TARGET = 0.25  # timed seconds per cell and repetition: beyond this, finish early
GOOD_TARGET = 0.02  # ... and enough for more than 5 repetitions
WARMUP = 1
GROUPS = 3  # launches per process count and method at most (sizes grouped) ...
LAUNCH_SHARE = 0.2  # ... unless a launch would take more than this share of the time left
# ... or a size would run fewer than 1 / MAX_SHRINK of its iterations: a group runs its
# smallest count, and 64 B-1 MiB in one launch gave 64 B 142 iterations (43 us a repetition)
# where it had a budget for 1000.
MAX_SHRINK = 4
# --budget-cells: every cell's timed seconds per repetition and the repetitions (a budget
# in cells fits nothing to a time left).
CELLS_TARGET = GOOD_TARGET
CELLS_REPS = 5


class Planner:
    """Estimates what each launch costs and chooses repetitions and iterations so that all
    remaining launches fit the time left (see the --help epilog). `pending` lists
    [procs, method, sizes still to measure], in order."""

    def __init__(self, options, candidates):
        self.options, self.candidates = options, candidates
        self.known = {}       # procs -> {(algorithm, bytes): seconds per broadcast}
        self.overhead = 1.0   # seconds to start and end one launch
        self.per_byte = 1e-9  # seconds per byte to prepare and check a buffer (the data check)
        self.dropped = set()  # (procs, bytes) left out for time
        # Measured / predicted time of the launches so far: one warm broadcast per cell
        # (the calibration) underestimated repeated ones up to 6x on this shared machine.
        self.correction = 2.0
        self.cap = math.inf   # the most one launch may take (LAUNCH_SHARE of the time left)
        self.cache = {}       # (procs, bytes) -> (sum over candidates, slowest): estimates
        # Cells known from the calibration only: a launch's timing replaces them (a few
        # broadcasts of a cell can be hundreds of times its usual time: on this VM the
        # calibration's slowest 16 KiB was 183 us, where the launches measured a few).
        self.rough = set()

    def learn(self, run, rough=False):
        """Adds a run's medians (the slower method's where both are known; a calibration's
        only until a launch has timed the cell)."""
        procs = run["environment"]["procs"]
        table = self.known.setdefault(procs, {})
        self.cache = {}
        for cell in run["results"]:
            key = (cell["algorithm"], cell["bytes"])
            seconds = cell["summary"]["seconds_per_bcast"]["median"]
            if rough or (procs, key) in self.rough:
                table[key] = seconds
            else:
                table[key] = max(table.get(key, 0.0), seconds)
            (self.rough.add if rough else self.rough.discard)((procs, key))

    def calibrate(self, run, wall):
        """From the calibration run (a checked broadcast, then a median of a few timed ones
        per cell): launch overhead and data-check cost."""
        self.learn(run, rough=True)
        timed = sum((1 + run["options"]["reps"]) * c["summary"]["seconds_per_bcast"]["median"]
                    for c in run["results"])
        checked = sum(2 * c["bytes"] for c in run["results"])
        self.overhead = max(0.3, wall - run["wall_seconds"])
        self.per_byte = min(1e-8, max(1e-10, (run["wall_seconds"] - timed) / max(1, checked)))

    def observe(self, predicted, actual):
        """A launch took `actual` seconds where the uncorrected estimate said `predicted`:
        the correction jumps to a larger ratio (an overrun costs measurements) and moves
        halfway (geometrically) towards a smaller one (finishing early costs nothing)."""
        ratio = max(actual, 1e-3) / max(predicted, 1e-3)  # actual < 0: a quick start
        step = ratio if ratio > self.correction else math.sqrt(self.correction * ratio)
        self.correction = min(20.0, max(0.8, step))

    def sums(self, procs, size):
        """(sum over the candidates, the slowest) of one broadcast's estimated time."""
        if (procs, size) not in self.cache:
            times = [self.seconds(procs, a, size) for a in self.candidates]
            self.cache[(procs, size)] = (sum(times), max(times))
        return self.cache[(procs, size)]

    def seconds(self, procs, algorithm, size):
        """One broadcast at `procs`: measured, or scaled by P - 1 from the nearest counts."""
        known = sorted(self.known)
        if procs in self.known:
            return self.at(procs, algorithm, size)
        below = [p for p in known if p < procs]
        above = [p for p in known if p > procs]
        if below and above:
            low, high = below[-1], above[0]
            t_low, t_high = self.at(low, algorithm, size), self.at(high, algorithm, size)
            share = math.log((procs - 1) / (low - 1)) / math.log((high - 1) / (low - 1))
            return t_low * (t_high / t_low) ** share
        near = below[-1] if below else above[0]
        return self.at(near, algorithm, size) * (procs - 1) / (near - 1)

    def at(self, procs, algorithm, size):
        table = self.known[procs]
        if (algorithm, size) in table:
            return max(table[(algorithm, size)], 1e-7)
        same_size = [t for (a, s), t in table.items() if s == size]
        return max(same_size or [max(table.values())])

    def left(self, procs, sizes):
        return [s for s in sizes if (procs, s) not in self.dropped]

    def launch_seconds(self, procs, method, sizes, iterations, reps, corrected=True):
        """Start and end, then per cell: warm-up and check, timed broadcasts (osu: each
        after a barrier, costed as the smallest mpi broadcast; fresh: also the data rewritten
        before each), buffer checks."""
        cells = len(self.candidates)
        barriered = method in ("osu", "fresh")
        barrier = self.seconds(procs, REFERENCE, self.options.sizes[0]) if barriered else 0
        rewrite = self.per_byte if method == "fresh" else 0
        cost = 0.0
        for size in sizes:
            total, _ = self.sums(procs, size)
            each = total + cells * (barrier + size * rewrite)
            cost += total * (WARMUP + 1) + reps * iterations * each
            cost += cells * (2 * size * self.per_byte + reps * 1e-3)
        return self.overhead + cost * (self.correction if corrected else 1.0)

    def groups(self, procs, method, sizes, target, reps):
        """[(sizes, iterations)] for one launch each: iterations = target / the slowest
        candidate's time, sizes with similar counts together: at most GROUPS launches,
        but none merged beyond self.cap, nor where a size's count would shrink more than
        MAX_SHRINK times."""
        counts = []
        for size in self.left(procs, sizes):
            slowest = self.sums(procs, size)[1]
            counts.append(([size], max(1, min(MAX_ITERATIONS, int(target / slowest)))))
        cost = lambda group: self.launch_seconds(procs, method, group[0], group[1], reps)
        while len(counts) > GROUPS:
            # Merge the neighbours whose counts differ least; the group runs the smaller.
            shrink = lambda k: max(counts[k][1], counts[k + 1][1]) / min(counts[k][1], counts[k + 1][1])
            order = sorted(range(len(counts) - 1), key=shrink)
            merged = [(k, (counts[k][0] + counts[k + 1][0], min(counts[k][1], counts[k + 1][1])))
                      for k in order if shrink(k) <= MAX_SHRINK]
            fitting = [(k, g) for k, g in merged if cost(g) <= self.cap]
            if not fitting:
                break
            k, group = fitting[0]
            counts[k:k + 2] = [group]
        return counts

    def total(self, pending, target, reps):
        return sum(self.launch_seconds(p, m, sizes, iterations, reps)
                   for p, m, left in pending
                   for sizes, iterations in self.groups(p, m, left, target, reps))

    def plan(self, pending, seconds_left):
        """(target, reps) for the remaining launches, dropping the largest size left (at
        the largest count first) while even one iteration does not fit: every count keeps
        its small sizes as long as possible. None when nothing fits."""
        self.cap = max(10.0, LAUNCH_SHARE * seconds_left)
        while any(self.left(p, sizes) for p, _, sizes in pending):
            # More repetitions (a better median and spread) once a cell's repetition is
            # long enough to average out the timer's and the scheduler's noise.
            for reps in (9, 7):
                if self.total(pending, GOOD_TARGET, reps) <= seconds_left:
                    return self.widest_target(pending, seconds_left, reps), reps
            for reps in (5, 3):
                if self.total(pending, 0.0, reps) <= seconds_left:
                    return self.widest_target(pending, seconds_left, reps), reps
            size, procs = max((s, p) for p, _, sizes in pending for s in self.left(p, sizes))
            self.dropped.add((procs, size))
        return None

    def keep_cells(self, pending, cells):
        """--budget-cells: drops the largest size left (at the largest count first, as plan
        does) while more than `cells` (process count, size, method) cells remain; a size is
        kept under every method or none. Speed plays no part."""
        def count():
            return sum(len(self.left(p, sizes)) for p, _, sizes in pending)
        while count() > cells:
            size, procs = max((s, p) for p, _, sizes in pending for s in self.left(p, sizes))
            self.dropped.add((procs, size))
        return CELLS_TARGET, CELLS_REPS

    def widest_target(self, pending, seconds_left, reps):
        low, high = 1e-7, MAX_TARGET
        if self.total(pending, high, reps) <= seconds_left:
            return high
        for _ in range(40):  # bisection on a log scale
            middle = math.sqrt(low * high)
            low, high = (middle, high) if self.total(pending, middle, reps) <= seconds_left \
                else (low, middle)
        return low
