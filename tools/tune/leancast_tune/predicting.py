"""--predict: each candidate's time at a cell that was not measured, from its schedule's
messages (leancast-plan --json), with a few coefficients fitted on the measured cells; the
predicted winner and its margins; and the leave-one-out error of the predictions at the
measured cells, which says how far the predictions hold.

A candidate's time at (procs, bytes) is modelled as c . f, f its schedule's features:

    one       1: per-broadcast overhead (the call, the executor's setup)
    rounds    messages on the critical path (leancast-plan's model with alpha 1, beta 0)
    bytes     bytes on the critical path (the model with alpha 0, beta 1)
    moved     bytes all ranks move (every byte crosses a node's memory, and on a node
              with fewer cores than ranks each costs the shared cores' time)
    transfers messages all ranks send (the same, per message)
    messages  sends + receives at the busiest rank (each costs its rank CPU time)
    node      bytes through the busiest node's interface (the model with only --beta-node
              1), where the ranks span nodes: what contends for a shared link

The library's own broadcast (mpi, smpi:NAME) has no schedule: its basis is the generic
alpha-beta one of a tree: 1, ceil(log2 P), bytes, bytes ceil(log2 P), and what all ranks
but the root receive, (P - 1) bytes in P - 1 messages. A library algorithm
(--library-algorithms) has the features of its leancast analogue (library.py), else this
basis too. Coefficients are fitted per candidate and timing method, non-negative,
minimising the relative error (times span four decades over the sizes). A candidate
measured at fewer cells than it has features keeps the first ones (bytes, rounds, one,
...), so a fit never has more unknowns than measurements."""
import math

from .common import REFERENCE, is_reference
from .library import is_library, schedule_analogue
from .plan_reports import plan_command, plan_report

SCHEDULE_FEATURES = ("bytes", "rounds", "one", "moved", "transfers", "messages", "node")
REFERENCE_FEATURES = ("bytes", "rounds", "one", "moved", "transfers", "tree_bytes")


class Features:
    """{feature: value} of a candidate at (procs, bytes, ranks a node), from leancast-plan;
    `plan` None: the generic basis for everyone (the tests' synthetic data)."""

    def __init__(self, plan):
        self.plan = plan

    def __call__(self, algorithm, procs, size, ppn=None):
        depth = max(1, math.ceil(math.log2(max(2, procs))))
        generic = {"bytes": float(size), "rounds": float(depth), "one": 1.0,
                   "moved": float(size * (procs - 1)), "transfers": float(procs - 1),
                   "tree_bytes": float(size * depth)}
        if generic_basis(algorithm) or not self.plan:
            return generic
        if is_library(algorithm):
            algorithm = schedule_analogue(algorithm, size)
        spans = ppn is not None and ppn < procs
        base = plan_command(self.plan, algorithm, procs, size, ppn)
        rounds = self.model(base + ["--alpha", "1", "--beta", "0"])
        if rounds is None:  # shared memory: not priced; its rounds and one copy of the data
            report = self.model(base, whole=True)
            return {"bytes": float(size), "rounds": float(report.get("steps", depth)),
                    "one": 1.0, "moved": float(report["bytes_moved"]),
                    "transfers": float(report["transfers"]),
                    "messages": float(report.get("busiest_rank", {}).get("messages", 0))}
        features = {"bytes": self.model(base + ["--alpha", "0", "--beta", "1"])["model_seconds"],
                    "rounds": rounds["model_seconds"], "one": 1.0,
                    "moved": float(rounds["bytes_moved"]),
                    "transfers": float(rounds["transfers"]),
                    "messages": float(rounds.get("busiest_rank", {}).get("messages", 0))}
        if spans:
            node = self.model(base + ["--alpha", "0", "--beta", "0", "--alpha-inter", "0",
                                      "--beta-inter", "0", "--beta-node", "1"])
            features["node"] = node["model_seconds"] if node else 0.0
        return features

    @staticmethod
    def model(command, whole=False):
        """leancast-plan's report; None where it has no model time (unless `whole`)."""
        report, error = plan_report(command)
        if report is None:
            raise SystemExit(f"leancast-tune: {' '.join(command)} failed: {error}")
        return report if whole or "model_seconds" in report else None


def generic_basis(algorithm):
    """Whether a candidate is priced by the generic basis: it has no schedule."""
    return is_reference(algorithm) or (is_library(algorithm)
                                       and schedule_analogue(algorithm, 1) is None)


def solve(rows, values):
    """Non-negative least squares of rows . c ~ values, minimising the relative error: the
    normal equations of the rows divided by their values, the most negative coefficient
    set to zero and the rest refitted until none is negative. Columns are scaled to unit
    norm first (bytes are 10^7 times rounds)."""
    width = len(rows[0])
    scaled = [[x / v for x in row] for row, v in zip(rows, values)]
    norms = [math.sqrt(sum(r[j] ** 2 for r in scaled)) or 1.0 for j in range(width)]
    active = [j for j in range(width) if any(r[j] for r in scaled)]
    while active:
        a = [[sum(r[i] * r[j] for r in scaled) / (norms[i] * norms[j]) for j in active]
             for i in active]
        b = [sum(r[i] for r in scaled) / norms[i] for i in active]
        for k in range(len(active)):  # a little ridge: collinear features stay solvable
            a[k][k] += 1e-9
        c = gauss(a, b)
        if min(c) >= 0:
            out = [0.0] * width
            for j, value in zip(active, c):
                out[j] = value / norms[j]
            return out
        active.pop(c.index(min(c)))
    return [0.0] * width


def gauss(a, b):
    """a x = b by Gaussian elimination with partial pivoting (a few unknowns)."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-300:
            continue
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for k in range(col, n + 1):
                m[r][k] -= f * m[col][k]
    x = [0.0] * n
    for r in reversed(range(n)):
        s = m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))
        x[r] = s / m[r][r] if abs(m[r][r]) > 1e-300 else 0.0
    return x


class Fit:
    """One candidate under one method: its coefficients over `names` (the features kept)."""

    def __init__(self, points, names):
        """points: [(features dict, seconds)]."""
        self.names = names[:max(1, min(len(names), len(points)))]
        rows = [[f.get(n, 0.0) for n in self.names] for f, _ in points]
        self.coefficients = dict(zip(self.names, solve(rows, [t for _, t in points])))

    def __call__(self, features):
        return sum(c * features.get(n, 0.0) for n, c in self.coefficients.items())


class Predictor:
    """Fits on measured cells and predicts the rest. measured: {(procs, bytes): {method:
    {algorithm: seconds}}}; features(algorithm, procs, bytes) -> {feature: value}."""

    def __init__(self, measured, features, candidates, methods, tie=0.001):
        self.measured, self.features = measured, features
        self.candidates, self.methods, self.tie = list(candidates), list(methods), tie
        self.fits = self.fit(measured)
        self.errors = None  # (procs, bytes) -> leave-one-out error, by validate()
        self.inside = set()  # the measured cells within the others' hull, by validate()

    def fit(self, measured):
        fits = {}
        for method in self.methods:
            for algorithm in self.candidates:
                points = [(self.features(algorithm, p, s), cells[method][algorithm])
                          for (p, s), cells in sorted(measured.items())
                          if algorithm in cells.get(method, {})]
                if points:
                    names = REFERENCE_FEATURES if generic_basis(algorithm) else SCHEDULE_FEATURES
                    fits[(method, algorithm)] = Fit(points, list(names))
        return fits

    def times(self, procs, size, fits=None):
        """{method: {algorithm: predicted seconds}}."""
        fits = fits or self.fits
        return {m: {a: max(fits[(m, a)](self.features(a, procs, size)), 1e-12)
                    for a in self.candidates if (m, a) in fits} for m in self.methods}

    def predict(self, procs, size, fits=None):
        return Prediction(self.times(procs, size, fits), self.tie)

    def validate(self):
        """Leave-one-out: each measured cell predicted from the others. Its error is how far
        the prediction overstated the lead of the leancast candidate it ranks first: the
        largest, over methods, of predicted speedup over the reference / measured speedup
        - 1 (0 where it understated it). One-sided, because a rule harms only where its
        candidate is slower than the library: a predicted speedup 1 + L that holds to within
        1 + E of the truth leaves a true speedup of at least (1 + L) / (1 + E), not below 1
        while E <= L, which is the fallback's test (exporting_predicted.py); an understated
        lead costs a missed win, not a loss (at P = 7, 1 KiB on 2 busy cores shm measured
        275x mpi where the others predicted 3.3x: 99 % both ways, 0 here). Returns
        {(procs, bytes): error}; a cell alone has none. Also notes which cells lie within
        the others' hull (inside): their prediction was an interpolation, and the same error
        of every leancast candidate predicted to lead there by more than the tie margin
        (candidate_errors, {cell: {algorithm: error}}; a candidate predicted to lose made no
        rule, so its error there says nothing of its rules), which error_at gives where a
        rule names that candidate."""
        self.errors, self.inside, self.candidate_errors = {}, set(), {}
        if len(self.measured) < 2:
            return self.errors
        for cell, cells in self.measured.items():
            rest = {c: v for c, v in self.measured.items() if c != cell}
            if within(cell, rest):
                self.inside.add(cell)
            guess = self.predict(*cell, fits=self.fit(rest))
            truth = Prediction(cells, self.tie)
            first = max(guess.lead, key=lambda a: (guess.lead[a], a), default=None)
            overstated = {}
            for algorithm, lead in guess.lead.items():
                if lead <= 1 + self.tie and algorithm != first:
                    continue  # predicted to lose here: no rule of its would have come of it
                worst = 0.0
                for method in self.methods:
                    s_true = truth.speedup(method, algorithm)
                    s_guess = guess.speedup(method, algorithm)
                    if s_true and s_guess:
                        worst = max(worst, s_guess / s_true - 1)
                overstated[algorithm] = worst
            self.candidate_errors[cell] = overstated
            self.errors[cell] = overstated.get(first, 0.0)
        return self.errors

    def error_at(self, procs, size, algorithm=None, near=3):
        """How far a prediction at (procs, bytes) may overstate a lead; inf with no
        validation. Of `algorithm`'s lead: at each cell counted the larger of its own error
        (where it was predicted to win) and the first-ranked candidate's. Within the measured
        cells' hull a prediction is an interpolation: the worst leave-one-out error of the
        cells whose own prediction was one (inside the others' hull), wherever they are,
        since a few measured cells say little of how errors vary across the grid
        (docs/auto.md). A corner left out is extrapolated from
        the rest, which no cell inside the corners is. Outside the hull, or with no
        interpolated cell, the largest error of the `near` measured cells closest to it (a
        doubling of procs or a 4x of bytes is one step)."""
        if not self.errors:
            return math.inf
        if self.inside and within((procs, size), self.errors):
            cells = self.inside
        else:
            def distance(cell):
                return math.hypot(math.log2(cell[0] / procs), math.log2(cell[1] / size) / 2)
            cells = sorted(self.errors, key=distance)[:near]
        if algorithm is None:
            return max(self.errors[c] for c in cells)
        return max(max(self.errors[c], self.candidate_errors[c].get(algorithm, 0.0))
                   for c in cells)


def within(cell, cells):
    """Whether (procs, bytes) lies in the convex hull of `cells` (its edges included), on
    log scales: where a fit on `cells` interpolates rather than extrapolates."""
    point = (math.log2(cell[0]), math.log2(cell[1]))
    hull = convex_hull([(math.log2(p), math.log2(s)) for p, s in cells])
    if len(hull) < 3:  # a point or a segment
        a, b = hull[0], hull[-1]
        on_line = abs(cross(a, b, point)) < 1e-9
        return on_line and all(min(a[i], b[i]) - 1e-9 <= point[i] <= max(a[i], b[i]) + 1e-9
                               for i in (0, 1))
    return all(cross(hull[i], hull[(i + 1) % len(hull)], point) >= -1e-9
               for i in range(len(hull)))


def cross(o, a, b):
    """The z of (a - o) x (b - o): > 0 where o, a, b turn counter-clockwise."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points):
    """The hull's corners counter-clockwise (Andrew's monotone chain); one or two points
    where they are all on a line."""
    points = sorted(set(points))
    if len(points) < 3:
        return points
    def half(ordered):
        chain = []
        for q in ordered:
            while len(chain) >= 2 and cross(chain[-2], chain[-1], q) <= 1e-12:
                chain.pop()
            chain.append(q)
        return chain[:-1]
    hull = half(points) + half(points[::-1])
    return hull if len(hull) >= 3 else [points[0], points[-1]]


class Prediction:
    """Times at one cell (predicted or measured): the winner as deciding.py would choose it
    (a leancast candidate only beyond the tie margin over the reference under every method),
    its lead over the reference, and the margin to the runner-up."""

    def __init__(self, times, tie):
        self.times, self.tie = times, tie
        methods = [m for m in times if times[m]]
        self.references = {m: min((t for a, t in times[m].items() if is_reference(a)),
                                   default=None) for m in methods}
        ours = {a for m in methods for a in times[m] if not is_reference(a)}
        ours = [a for a in ours if all(a in times[m] and self.references[m] for m in methods)]
        self.lead = {a: min(self.speedup(m, a) for m in methods) for a in ours}
        ranked = sorted(ours, key=lambda a: (-self.lead[a], a))
        best = ranked[0] if ranked else None
        if best and self.lead[best] > 1 + tie:
            self.winner, self.over_reference = best, self.lead[best] - 1
            runner_up = max([self.lead[a] for a in ranked[1:]] + [1.0])
            self.margin = self.lead[best] / runner_up - 1
        else:
            self.winner, self.over_reference = REFERENCE, 0.0
            self.margin = 1 / self.lead[best] - 1 if best else math.inf

    def speedup(self, method, algorithm):
        """The reference's time over the algorithm's under a method (mpi: 1)."""
        reference = self.references.get(method)
        if is_reference(algorithm):
            return 1.0
        t = self.times.get(method, {}).get(algorithm)
        return reference / t if reference and t else None
