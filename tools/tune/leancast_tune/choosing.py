"""--predict: which cells of the grid (process count, size) to measure within --budget-cells.
A seed set first (the grid's corners and middle), then, after each refit of the predictor
(predicting.py), the unmeasured cell whose predicted winner is least certain: the smallest
predicted margin to the runner-up, ties going to the largest validation error there.
It stops when the budget is spent, or when a refit changed no unmeasured cell's winner and
every one of them is certain (its lead over the runner-up, and over the reference where a
leancast candidate wins, larger than the validation error there).

A cell costs one budget cell per timing method (--budget-cells counts (count, size,
method) cells, as without --predict); every candidate is measured at a measured cell."""
import os

from .common import REFERENCE, find_tool, size_text
from .measuring import NO_LIMIT, Progress, bench_command, launch, library_runs
from .predicting import Features, Predictor


def check_predict(parser, options):
    """--predict: with --budget-cells under --site or --sim (--library-algorithms: through
    --launcher), or --from-json (the grid a saved --predict run chose from, unless --procs
    and --sizes say another)."""
    if not options.predict:
        return
    if options.from_json:
        grid = (options.saved.get("predict") or {}).get("grid") or {}
        if grid and not options.procs_given:
            options.procs = ",".join(str(p) for p in grid["procs"])
        if grid and not options.sizes:
            options.sizes = ",".join(str(s) for s in grid["sizes"])
        return
    if options.budget_cells is None or not (options.site or options.sim
                                            or options.library_algorithms):
        parser.error("--predict measures --budget-cells N under --site or --sim, or with "
                     "--library-algorithms (or reads --from-json)")


def seed_cells(procs, sizes, limit):
    """The corners of the grid and its middle (in that order, no cell twice), at most
    `limit`: the extremes bound every fit's extrapolation, the middle checks its curvature."""
    p_mid, s_mid = procs[len(procs) // 2], sizes[len(sizes) // 2]
    order = [(procs[0], sizes[0]), (procs[-1], sizes[-1]), (procs[0], sizes[-1]),
             (procs[-1], sizes[0]), (p_mid, s_mid)]
    return list(dict.fromkeys(order))[:max(0, limit)]


def certain(prediction, error):
    """Whether a predicted winner holds beyond the validation error: its margin to the
    runner-up, and, for a leancast winner, its lead over the reference, exceed it."""
    if prediction.margin <= error:
        return False
    return prediction.winner == REFERENCE or prediction.over_reference > error


def next_cell(predictor, unmeasured):
    """The least certain unmeasured cell: the smallest predicted margin, then the largest
    validation error, then the smallest (procs, bytes)."""
    def key(cell):
        prediction = predictor.predict(*cell)
        return (prediction.margin, -predictor.error_at(*cell), cell)
    return min(unmeasured, key=key)


def measured_times(runs):
    """{(procs, bytes): {method: {algorithm: median seconds}}} of the runs' good cells."""
    out = {}
    for run in runs:
        procs = run["environment"]["procs"]
        for result in run["results"]:
            if result["data_ok"]:
                cell = out.setdefault((procs, result["bytes"]), {}).setdefault(run["method"], {})
                cell[result["algorithm"]] = result["summary"]["seconds_per_bcast"]["median"]
    return out


def ranks_per_node(options, runs):
    """The ranks a node predictions price: --sim's, else (--from-json) as the runs placed
    them where they span nodes; None on one node."""
    spanning = [r["environment"] for r in runs if r["environment"].get("nodes", 1) > 1]
    return options.ranks_per_node or (spanning[0]["ranks_per_node"] if spanning else None)


def complete(measured, methods):
    """The measured cells with every method (a cell half measured is not fitted)."""
    return {c: v for c, v in measured.items() if all(v.get(m) for m in methods)}


class Session:
    """The choice of cells on a grid with a way to measure one process count's sizes
    (`measure(procs, sizes)` -> runs, one per method) and the features of the schedules."""

    def __init__(self, procs, sizes, candidates, methods, features, measure, tie=0.001,
                 ranks_per_node=None):
        self.grid = [(p, s) for p in procs for s in sizes]
        self.procs, self.sizes = procs, sizes
        self.candidates, self.methods, self.tie = candidates, methods, tie
        self.features = lambda a, p, s: features(a, p, s, ranks_per_node)
        self.measure = measure
        self.runs, self.order, self.steps = [], [], []

    def measured(self):
        return complete(measured_times(self.runs), self.methods)

    def predictor(self):
        predictor = Predictor(self.measured(), self.features, self.candidates, self.methods,
                              self.tie)
        predictor.validate()
        return predictor

    def take(self, cells):
        for procs in dict.fromkeys(p for p, _ in cells):
            self.runs += self.measure(procs, sorted(s for p, s in cells if p == procs))
        self.order += cells

    def run(self, budget_cells):
        """Measures up to budget_cells // len(methods) cells; returns the last predictor."""
        limit = min(len(self.grid), budget_cells // len(self.methods))
        self.take(seed_cells(self.procs, self.sizes, limit))
        previous = None
        predictor = self.predictor()
        while len(self.order) < limit:
            unmeasured = [c for c in self.grid if c not in self.order]
            winners = {c: predictor.predict(*c).winner for c in unmeasured}
            sure = all(certain(predictor.predict(*c), predictor.error_at(*c))
                       for c in unmeasured)
            unchanged = previous is not None and all(previous.get(c) == w
                                                     for c, w in winners.items())
            if unchanged and sure:
                self.steps.append({"stopped": "converged"})
                break
            previous = winners
            cell = next_cell(predictor, unmeasured)
            prediction = predictor.predict(*cell)
            self.steps.append({"cell": list(cell), "predicted_winner": prediction.winner,
                               "predicted_margin": round(prediction.margin, 4),
                               "error_nearby": round(min(predictor.error_at(*cell), 1e9), 4)})
            self.take([cell])
            predictor = self.predictor()
        return predictor


def measure_predicted(options, tmp, start):
    """leancast-tune --predict (--site, --sim or --library-algorithms): the runs of the
    chosen cells, and what the choice was (the grid, the order the cells were measured in,
    each step's reason)."""
    candidates = list(options.candidates)
    methods = list(options.methods)
    budget = options.budget_cells
    total = min(budget, len(options.procs) * len(options.sizes) * len(methods))
    progress = Progress(total * len(candidates), start, getattr(options, "quiet", False))
    reps = options.reps or (1 if options.sim else 5)
    iterations = options.iterations or (1 if options.sim else None)

    failed = []  # --library-algorithms: the forced algorithms whose launch failed

    def measure(procs, sizes):
        if options.library_algorithms:  # the library's own: a launch per candidate
            return library_runs(options, tmp, progress, procs, sizes, failed)
        runs = []
        for method in methods:
            out = os.path.join(tmp, f"p{procs}-{method}-{size_text(sizes[0])}-{len(sizes)}.json")
            command = bench_command(options, procs, method, sizes, out, iterations, reps,
                                    None if options.sim else 1, candidates)
            what = f"P={procs}, {method}, {','.join(size_text(s) for s in sizes)}"
            runs.append(launch(command, out, NO_LIMIT, progress, what,
                               len(candidates) * len(sizes)))
        return runs

    session = Session(options.procs, options.sizes, candidates, methods,
                      Features(find_tool("leancast-plan", options.plan)), measure, options.tie,
                      options.ranks_per_node)
    session.run(budget)
    extra = {"candidates": candidates, "predict": prediction_record(session)}
    if options.library_algorithms:
        extra["library_failed"] = failed
    return session.runs, extra


def prediction_record(session):
    return {"grid": {"procs": session.procs, "sizes": session.sizes},
            "measured_order": [list(c) for c in session.order], "steps": session.steps}
