"""Measuring: leancast-bench runs (through a launcher, or leancast-sim when simulating) at
every process count and method, --site's budgeted launches, the library's own algorithms
forced one launch each, and message counts from leancast-plan for the tie-break."""
import json
import math
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time

from .common import REFERENCE, duration_text, find_tool, shown, shown_args, size_text
from .library import library_environment
from .plan_reports import plan_command, plan_report
from .planner import WARMUP, Planner


class Progress:
    """The progress line on stderr: count, method, cells done of all, elapsed, time left.
    A launch's first line is always shown; then, on a terminal, one live line rewritten
    (a carriage return) at most every LIVE_EVERY seconds and ended when the launch ends;
    elsewhere (a log) a plain line at most every LOG_EVERY seconds; none with --quiet."""

    LIVE_EVERY = 1.0
    LOG_EVERY = 10.0

    def __init__(self, total_cells, start, quiet=False, stream=None, clock=time.monotonic):
        self.total, self.done, self.start = total_cells, 0, start
        self.left = None  # a function giving the estimated seconds left, or None
        self.quiet, self.clock, self.given_stream = quiet, clock, stream
        self.last = -math.inf
        self.live = False  # a terminal's line is open (no newline yet)

    @property
    def stream(self):
        return self.given_stream or sys.stderr

    @property
    def terminal(self):
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):
            return False

    def show(self, what, extra_cells=0.0, force=False):
        if self.quiet:
            return
        now = self.clock()
        if not force and now - self.last < (self.LIVE_EVERY if self.terminal else self.LOG_EVERY):
            return
        self.last = now
        elapsed = now - self.start
        done = min(self.total, self.done + extra_cells)
        if self.left:
            left = self.left(now)
        elif done > 0:
            left = elapsed / done * (self.total - done)
        else:
            left = None
        line = (f"leancast-tune: {what}: cells {done:.0f}/{self.total}, "
                f"{duration_text(elapsed)} elapsed, "
                f"{'about ' + duration_text(left) if left is not None else '?'} left")
        if self.terminal:
            self.stream.write(("\n" if self.live and force else "\r") + line + "\x1b[K")
            self.live = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def end(self):
        """A launch ended: a terminal's live line gets its newline."""
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
            self.live = False


BENCH_PROGRESS = re.compile(rb"cell (\d+)/(\d+)")
CALIBRATION_REPS = 3
NO_LIMIT = 10 ** 7  # seconds: a launch without a time limit


def run_command(command, timeout, on_progress=None, env=None):
    """Runs `command` in its own process group; (exit status, output tail). After `timeout`
    seconds the group is stopped and the status is 124. leancast-bench's progress
    ("cell K/N", counting cells x repetitions) goes to on_progress(K / N)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True, env=env)
    deadline = time.monotonic() + timeout
    tail = b""
    while True:
        wait = deadline - time.monotonic()
        if wait <= 0:
            stop_group(process)
            return 124, tail.decode(errors="replace")
        ready, _, _ = select.select([process.stdout], [], [], min(1.0, wait))
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            tail = (tail + chunk)[-8000:]
            found = BENCH_PROGRESS.findall(chunk)
            if found and on_progress:
                done, cells = found[-1]
                on_progress(int(done) / max(1, int(cells)))
        elif on_progress:
            on_progress(None)
    return process.wait(), tail.decode(errors="replace")


def stop_group(process):
    """Ends the launcher this tool started, and the ranks under it."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def bench_command(options, procs, method, sizes, out, iterations=None, reps=None, warmup=None,
                  candidates=None):
    """The command of one leancast-bench run (through leancast-sim when simulating)."""
    common = ["--algorithms", ",".join(candidates or options.candidates),
              "--sizes", ",".join(str(s) for s in sizes), "--method", method,
              "--baseline", REFERENCE, "--json", out]
    if options.sim:
        tool = find_tool("leancast-sim", options.leancast_sim)
        if not tool:
            sys.exit("leancast-tune: no leancast-sim (build with -DLEANCAST_MPI=smpi, or "
                     "--leancast-sim PATH)")
        command = [tool, "--platform", options.sim, "--procs", str(procs),
                   "--iterations", str(iterations or 1), "--reps", str(reps or 1)] + common
        if options.ranks_per_node:
            command += ["--ranks-per-node", str(options.ranks_per_node)]
        if options.shared_buffer:
            command.append("--shared-buffer")
        return command
    bench = find_tool("leancast-bench", options.bench)
    if not bench:
        sys.exit("leancast-tune: no leancast-bench (--bench PATH)")
    # The tuner ranks by time alone: no copy rates measured for a memory bound (each launch
    # would copy GiBs first, two seconds of the launch on a 2-core machine).
    command = shlex.split(options.launcher.replace("{procs}", str(procs))) + [bench] + common \
        + ["--no-memory-bound"]
    if options.rotate_above:  # rotation is the bench's; leancast-sim has no cache
        command += ["--rotate-above", options.rotate_above]
    for flag, value in (("--iterations", iterations), ("--reps", reps), ("--warmup", warmup)):
        if value is not None:
            command += [flag, str(value)]
    return command


def launch(command, out, timeout, progress, what, cells):
    """One measurement; its JSON (with the command and its wall time), or None if it was
    stopped at `timeout`. Any other failure ends the tuning."""
    progress.show(what, force=True)
    started = time.monotonic()
    latest = [0.0]  # the share of this launch done, as leancast-bench last reported it

    def update(share):
        latest[0] = latest[0] if share is None else share
        progress.show(what, cells * latest[0])

    status, tail = run_command(command, timeout, update)
    progress.end()
    if status == 124:
        print(f"leancast-tune: {what}: stopped after {duration_text(timeout)} (the budget)",
              file=sys.stderr, flush=True)
        return None
    if status != 0 or not os.path.exists(out) or os.path.getsize(out) == 0:
        sys.stderr.write(tail)
        sys.exit(f"leancast-tune: {what} failed (exit {status}): {' '.join(command)}")
    with open(out) as f:
        run = json.load(f)
    run["tune_command"] = shown_args(command)
    run["tune_wall_seconds"] = round(time.monotonic() - started, 3)
    progress.done += cells
    return run


def measure_fixed(options, tmp, start):
    """--launcher or --sim: one run per process count and method, the iterations and
    repetitions as given."""
    cells = len(options.candidates) * len(options.sizes)
    progress = Progress(cells * len(options.procs) * len(options.methods), start,
                        getattr(options, "quiet", False))
    runs = []
    for index, procs in enumerate(options.procs):
        for method in options.methods:
            out = os.path.join(tmp, f"p{procs}-{method}.json")
            command = bench_command(options, procs, method, options.sizes, out,
                                    options.iterations, options.reps)
            what = f"P={procs} ({index + 1} of {len(options.procs)}), {method}"
            runs.append(launch(command, out, NO_LIMIT, progress, what, cells))
    return runs, {}


def measure_site(options, tmp, start):
    """--site: calibrate at the largest count, then every count and method within budget,
    planning again before each launch with what the launches so far took. With
    --budget-cells the cells are chosen once, by count, and no launch has a time limit."""
    cells = getattr(options, "budget_cells", None)
    budget = None if cells is not None else options.budget_minutes * 60
    candidates = list(options.candidates)
    calibration, wall = calibrate(options, tmp, candidates, start, budget)
    if calibration["environment"].get("nodes", 1) == 1 and not options.candidates_given:
        candidates = [c for c in candidates if not c.startswith("node-aware")]
    planner = Planner(options, candidates)
    planner.calibrate(calibration, wall)
    pending = [[p, m, list(options.sizes)] for p in options.procs for m in options.methods]
    progress = Progress(len(candidates) * len(options.sizes) * len(pending), start,
                        getattr(options, "quiet", False))
    runs, plans = [], []
    fixed = planner.keep_cells(pending, cells) if cells is not None else None
    while pending:
        procs, method, sizes = pending[0]
        if not planner.left(procs, sizes):
            pending.pop(0)
            continue
        chosen = fixed or planner.plan(pending, budget * 0.95 - (time.monotonic() - start))
        if chosen is None:
            break
        target, reps = chosen
        progress.total = progress.done + sum(len(candidates) * len(planner.left(p, s))
                                             for p, _, s in pending)
        launches = planner.groups(procs, method, sizes, target, reps)
        if not launches:  # the plan left this count's sizes out
            continue
        group, iterations = launches[0]
        plans.append({"procs": procs, "method": method, "sizes": group, "iterations": iterations,
                      "reps": reps, "target_seconds": target,
                      "correction": round(planner.correction, 3),
                      "predicted_seconds": round(planner.launch_seconds(
                          procs, method, group, iterations, reps), 3)})
        run = launch_group(options, planner, pending, (group, iterations, reps, target), tmp,
                           progress, start + budget * 1.125 if budget is not None else None)
        plans[-1]["seconds"] = run["tune_wall_seconds"] if run else None
        if run:
            runs.append(run)
        pending[0][2] = [s for s in sizes if s not in group]
    not_measured = {p: sorted(s for q, s in planner.dropped if q == p) for p in options.procs}
    return runs, {"calibration": calibration, "plans": plans, "candidates": candidates,
                  "not_measured": {str(p): s for p, s in not_measured.items() if s}}


def calibrate(options, tmp, candidates, start, budget):
    """Every candidate at every size at the largest count: a checked broadcast, then the
    median of CALIBRATION_REPS timed ones (one alone was often an outlier). Within 40 % of
    a time budget; `budget` None (--budget-cells): no limit."""
    procs = max(options.procs)
    out = os.path.join(tmp, "calibration.json")
    command = bench_command(options, procs, "paper", options.sizes, out, 1, CALIBRATION_REPS, 0,
                            candidates)
    progress = Progress(len(candidates) * len(options.sizes), start,
                        getattr(options, "quiet", False))
    started = time.monotonic()
    run = launch(command, out, budget * 0.4 if budget is not None else NO_LIMIT, progress,
                 f"P={procs}, calibrating ({CALIBRATION_REPS} broadcasts per cell)",
                 len(candidates) * len(options.sizes))
    if run is None:
        sys.exit("leancast-tune: calibrating every cell at the largest count took more "
                 "than 40 % of the budget: give more --budget-minutes, fewer --sizes or --procs")
    return run, time.monotonic() - started


def launch_group(options, planner, pending, plan, tmp, progress, deadline):
    """The first launch of pending[0]; its run (which feeds the estimates), or None where
    it did not fit or was stopped at the deadline (its sizes then go unmeasured). No
    deadline (--budget-cells): the launch runs to its end."""
    procs, method, _ = pending[0]
    sizes, iterations, reps, target = plan
    cost = planner.launch_seconds(procs, method, sizes, iterations, reps)
    uncorrected = planner.launch_seconds(procs, method, sizes, iterations, reps, False)
    rest = [[p, m, [s for s in left if s not in sizes] if i == 0 else left]
            for i, (p, m, left) in enumerate(pending)]
    later = planner.total(rest, target, reps)
    begun = time.monotonic()
    progress.left = lambda now: max(0.0, cost - (now - begun)) + later
    timeout = min(cost * 4 + 30, deadline - begun) if deadline is not None else NO_LIMIT
    if timeout < 5:
        planner.dropped.update((procs, s) for s in sizes)
        return None
    out = os.path.join(tmp, f"p{procs}-{method}-{size_text(sizes[0])}.json")
    command = bench_command(options, procs, method, sizes, out, iterations, reps, WARMUP,
                            planner.candidates)
    what = (f"P={procs} ({options.procs.index(procs) + 1} of {len(options.procs)}), "
            f"{method}, {size_text(sizes[0])}-{size_text(sizes[-1])}")
    run = launch(command, out, timeout, progress, what, len(planner.candidates) * len(sizes))
    if run is None:
        planner.dropped.update((procs, s) for s in sizes)
        return None
    planner.observe(uncorrected - planner.overhead, run["tune_wall_seconds"] - planner.overhead)
    planner.learn(run)
    return run


def measure_library(options, tmp, start):
    """One launch per process count, method and candidate (mpi, the default, first), every
    size in it (library_runs)."""
    cells = len(options.sizes)
    progress = Progress(cells * len(options.candidates) * len(options.procs)
                        * len(options.methods), start, getattr(options, "quiet", False))
    runs, failed = [], []
    for procs in options.procs:
        runs += library_runs(options, tmp, progress, procs, options.sizes, failed)
    return runs, {"library_failed": failed}


def library_runs(options, tmp, progress, procs, sizes, failed):
    """One run per method at one process count: a launch per candidate, its MPI_Bcast
    results relabelled with the candidate, merged. A forced algorithm whose launch fails is
    left out (said on stderr, noted in `failed`), the default's failure ends the tuning."""
    candidates = options.candidates
    index = options.procs.index(procs) + 1
    runs = []
    for method in options.methods:
        merged = None
        for name in candidates:
            out = os.path.join(tmp, f"p{procs}-{method}-{size_text(sizes[0])}-{len(sizes)}-"
                                    f"{re.sub(r'[^A-Za-z0-9]', '_', name)}.json")
            command = bench_command(options, procs, method, sizes, out,
                                    options.iterations, options.reps, candidates=[REFERENCE])
            setting = library_environment(name)
            what = f"P={procs} ({index} of {len(options.procs)}), {method}, {name}"
            progress.show(what, force=True)
            status, tail = run_command(command, NO_LIMIT, env=dict(os.environ, **setting))
            progress.end()
            if status != 0 or not os.path.exists(out) or os.path.getsize(out) == 0:
                if name == REFERENCE:
                    sys.stderr.write(tail)
                    sys.exit(f"leancast-tune: {what} failed (exit {status}): "
                             f"{' '.join(command)}")
                print(f"leancast-tune: {what}: failed (exit {status}), left out",
                      file=sys.stderr, flush=True)
                failed.append(f"P={procs} {method} {name}")
                continue
            with open(out) as f:
                run = json.load(f)
            progress.done += len(sizes)
            if merged is None:
                merged = run
                merged["options"]["algorithms"] = list(candidates)
                merged["tune_command"] = shown_args(command)
                merged["library_commands"] = {}
            else:
                for result in run["results"]:
                    if result["algorithm"] == REFERENCE:
                        merged["results"].append(dict(result, algorithm=name))
            merged["library_commands"][name] = (
                [f"{k}={shown(v)}" for k, v in setting.items()] + shown_args(command))
        runs.append(merged)
    return runs


class Messages:
    """Messages at a candidate's busiest rank, from leancast-plan --json."""

    def __init__(self, plan):
        self.plan, self.missing = plan, False

    def __call__(self, algorithm, procs, size, env):
        ppn = env["ranks_per_node"] if env.get("nodes", 1) > 1 else None
        report = plan_report(plan_command(self.plan, algorithm, procs, size, ppn))[0] \
            if self.plan else None
        try:
            return report["busiest_rank"]["messages"]
        except (KeyError, TypeError):
            self.missing = True
            return None
