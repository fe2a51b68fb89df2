#!/usr/bin/env python3
"""leancast-tune --predict against the exhaustive tuner on one grid (docs/auto.md):
first the budgeted tuner (--site --predict --budget-cells, a fraction of the grid's cells),
then, once it has written its rules, the exhaustive measurement of every cell (leancast-tune
--launcher, the same candidates, iterations and repetitions), so that the budgeted tuner
never had the exhaustive grid to read: it did not exist yet, and no command of the budgeted
run names it (tests/tune/test_separation.py). Per cell, the budgeted rules' choice is timed
by the exhaustive measurement: its ratio to the fastest candidate there and to the library's
broadcast (the fastest reference, which an mpi rule runs), under the worse method. From the
repository root:

  python3 scripts/site-tuning-eval.py --launcher 'mpirun --oversubscribe -n {procs}' \\
      --procs 2,3,4,5,6,7,8 --sizes 1K,16K,256K,1M --candidates binomial,linear \\
      --fraction 0.5 --evidence evidence/site-tuning-local.jsonl.gz
  python3 scripts/site-tuning-eval.py --table evidence/site-tuning-local.jsonl.gz
  python3 scripts/site-tuning-eval.py --markdown evidence/site-tuning-local.jsonl.gz

The evidence holds both tunings (tools/tune/leancast_tune/evidence.py) and the budgeted
rules as written; --table recomputes the comparison from it alone. Of a simulated study,
--replay EVIDENCE --budget-cells N,... runs the budgeted session again with each budget,
measuring a cell by reading it from the exhaustive run (a simulation repeats it, at 16 MiB
within 10 %: other sizes in a launch shift when it starts), and prints the comparison per
budget: how large a budget the grid needed.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "tune"))
from leancast_tune import evidence  # noqa: E402
from leancast_tune.choosing import Session, prediction_record, ranks_per_node  # noqa: E402
from leancast_tune.predicting import Features  # noqa: E402
from leancast_tune.common import byte_size, is_reference, size_text  # noqa: E402
from leancast_tune.deciding import relative_spread  # noqa: E402

RULE = re.compile(r"^procs=(?P<procs>\S+) ppn=\S+ (?:library=\S+ )?(?:configured=\S+ )*"
                  r"(?P<bytes>\S+)\s+: (?P<algorithm>\S+)\s+# (?P<evidence>.*)$")
RULES_SOURCE = "budgeted.rules"


def covers(text, value):
    """Whether a rule's range (*, N, N-, N-M, sizes with K/M/G) holds `value`."""
    if text == "*":
        return True
    low, dash, high = text.partition("-")
    number = lambda t: byte_size(t) if t[-1:].isalpha() else int(t)
    return number(low) == value if not dash else \
        number(low) <= value and (not high or value <= number(high))


def choice(rules_text, procs, size):
    """(algorithm, measured or predicted) the rules give at a cell; (mpi, none) uncovered."""
    for line in rules_text.splitlines():
        rule = RULE.match(line)
        if rule and covers(rule.group("procs"), procs) and covers(rule.group("bytes"), size):
            said = [p for p in rule.group("evidence").split(" | ")
                    if p.startswith(size_text(size) + ": ")]
            kind = said[0].split(": ", 1)[1].split(",")[0].split(" ")[0] if said else "none"
            if said and said[0].endswith("so mpi"):  # a predicted lead within the error
                return rule.group("algorithm"), "fallback", said[0].split()[2]
            return rule.group("algorithm"), kind, None
    return "mpi", "none", None


def tuner_commands(args, tmp):
    """[(role, command, outputs)] in the order they run: the budgeted tuner, then the
    exhaustive one; each names only its own outputs."""
    flavour = "smpi" if getattr(args, "sim", None) else "openmpi"
    tune = args.tune or os.path.join(ROOT, "build", flavour, "leancast-tune")
    common = ["--candidates", args.candidates, "--sizes", args.sizes, "--procs", args.procs,
              "--methods", args.methods, "--iterations", str(args.iterations or 20),
              "--reps", str(args.reps or 5), "--quiet"]
    where = ["--launcher", args.launcher]
    if getattr(args, "sim", None):  # simulated time is exact: one broadcast, once
        common[common.index("--iterations") + 1] = str(args.iterations or 1)
        common[common.index("--reps") + 1] = str(args.reps or 1)
        where = ["--sim", args.sim] + (["--ranks-per-node", str(args.ranks_per_node)]
                                       if args.ranks_per_node else [])
    cells = len(args.procs.split(",")) * len(args.sizes.split(","))
    budget = max(1, math.floor(args.fraction * cells)) * len(args.methods.split(","))
    out = {role: (os.path.join(tmp, f"{role}.rules"), os.path.join(tmp, f"{role}.json"))
           for role in ("budgeted", "exhaustive")}
    return [
        ("budgeted", [tune, *([] if where[0] == "--sim" else ["--site"]), "--predict", *where,
                      "--budget-cells", str(budget), *common, "--out", out["budgeted"][0],
                      "--json", out["budgeted"][1]], out["budgeted"]),
        ("exhaustive", [tune, *where, *common,
                        "--out", out["exhaustive"][0], "--json", out["exhaustive"][1]],
         out["exhaustive"]),
    ]


def measure(args):
    with tempfile.TemporaryDirectory(prefix="site-tuning-") as tmp:
        seconds = {}
        for role, command, (rules, saved) in tuner_commands(args, tmp):
            print(f"site-tuning-eval: {role}: {' '.join(command)}", file=sys.stderr, flush=True)
            started = time.monotonic()
            done = subprocess.run(["timeout", str(args.timeout), *command])
            if done.returncode != 0:
                sys.exit(f"site-tuning-eval: {role} failed (exit {done.returncode})")
            seconds[role] = round(time.monotonic() - started, 1)
        budgeted_rules = os.path.join(tmp, "budgeted.rules")
        evidence.main([args.evidence, f"budgeted={os.path.join(tmp, 'budgeted.json')}",
                       f"exhaustive={os.path.join(tmp, 'exhaustive.json')}",
                       f"{RULES_SOURCE}={budgeted_rules}"])
    print(json.dumps({"wall_seconds": seconds}), file=sys.stderr)


def times_of(runs):
    """{(procs, bytes): {method: {algorithm: median seconds}}}."""
    out = {}
    for run in runs:
        for result in run["results"]:
            if result["data_ok"]:
                out.setdefault((run["environment"]["procs"], result["bytes"]), {}) \
                   .setdefault(run["method"], {})[result["algorithm"]] = \
                    result["summary"]["seconds_per_bcast"]["median"]
    return out


def compare(path):
    """The comparison from a compact evidence file: per cell and in summary."""
    tunings, _ = evidence.tunings_and_bench(path)
    by_name = {t["name"]: t for t in tunings}
    rules = next(line["text"] for line in evidence.read(path) if line.get("source") == RULES_SOURCE)
    truth = times_of(by_name["exhaustive"]["runs"])
    # The exhaustive run's own noise at a cell: mpi's spread over its repetitions, the
    # larger under the two methods (deciding.py's measure of it).
    noise = {}
    for run in by_name["exhaustive"]["runs"]:
        for result in run["results"]:
            if result["algorithm"] == "mpi":
                key = (run["environment"]["procs"], result["bytes"])
                noise[key] = max(noise.get(key, 0.0), relative_spread(result))
    measured = {tuple(c) for c in by_name["budgeted"]["predict"]["measured_order"]}

    # The library's broadcast: the fastest reference (mpi; in SMPI also its copies of the
    # libraries' algorithms, a library configured to its best), what a rule's lead was taken
    # over and what an mpi rule runs.
    def seconds_of(t, name):
        return min(v for a, v in t.items() if is_reference(a)) if name == "mpi" else t[name]
    cells = []
    for (procs, size), methods in sorted(truth.items()):
        algorithm, kind, unguarded = choice(rules, procs, size)
        if any(a not in t for a in (algorithm, unguarded or algorithm) for t in methods.values()):
            sys.exit(f"site-tuning-eval: {algorithm} not measured at P={procs} {size}")
        to_best = min(min(t.values()) / seconds_of(t, algorithm) for t in methods.values())
        # Where the guard said mpi: how the predicted winner itself would have done.
        unguarded_to_best = min(min(t.values()) / seconds_of(t, unguarded or algorithm)
                                for t in methods.values())
        to_library = min(seconds_of(t, "mpi") / seconds_of(t, algorithm)
                         for t in methods.values())
        cells.append({"procs": procs, "bytes": size, "chosen": algorithm, "rule": kind,
                      "measured": (procs, size) in measured, "to_best": round(to_best, 4),
                      "to_library": round(to_library, 4),
                      "unguarded_to_best": round(unguarded_to_best, 4),
                      "noise": round(noise.get((procs, size), 0.0), 4)})
    return cells, by_name


def summary(cells, by_name):
    def stats(rows):
        best = [c["to_best"] for c in rows]
        library = [c["to_library"] for c in rows]
        return {"cells": len(rows), "median_to_best": statistics.median(best) if rows else None,
                "worst_to_best": min(best, default=None),
                "worst_to_library": min(library, default=None),
                "median_unguarded_to_best": statistics.median(
                    c["unguarded_to_best"] for c in rows) if rows else None,
                "median_noise": statistics.median(c["noise"] for c in rows) if rows else None}
    exhaustive, budgeted = by_name["exhaustive"], by_name["budgeted"]
    return {"all": stats(cells), "predicted": stats([c for c in cells if not c["measured"]]),
            "measured": stats([c for c in cells if c["measured"]]),
            "fallback": stats([c for c in cells if c["rule"] == "fallback"]),
            "measured_cells": sum(c["measured"] for c in cells),
            "launches": {"budgeted": len(budgeted["runs"]), "exhaustive": len(exhaustive["runs"])},
            "tuner_seconds": {"budgeted": budgeted.get("elapsed_seconds"),
                              "exhaustive": exhaustive.get("elapsed_seconds")}}


def table(path):
    cells, by_name = compare(path)
    s = summary(cells, by_name)
    print(f"{'P':>3} {'bytes':>6}  {'chosen':<22}{'rule':<10}{'to best':>8}{'to lib':>8}"
          f"{'noise':>8}")
    for c in cells:
        print(f"{c['procs']:>3} {size_text(c['bytes']):>6}  {c['chosen']:<22}"
              f"{c['rule'] + ('' if c['measured'] else '*'):<10}{c['to_best']:>8.3f}"
              f"{c['to_library']:>8.3f}{c['noise']:>8.3f}")
    print("(* not measured by the budgeted tuner)")
    print(json.dumps(s, indent=1))
    return s


def markdown(paths):
    """One table, a row per study: what docs/auto.md shows (generated from it)."""
    print("| study | cells measured / predicted | to the best, measured cells: median, "
          "worst | predicted cells: median, worst | of them mpi for the error: cells, "
          "median (their predicted winner's) | worst to the library: measured, predicted | "
          "noise | launches, seconds: budgeted / exhaustive |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        cells, by_name = compare(path)
        s = summary(cells, by_name)
        m, p, f = s["measured"], s["predicted"], s["fallback"]
        launches, seconds = s["launches"], s["tuner_seconds"]
        print(f"| `{path}` | {m['cells']} / {p['cells']} | {m['median_to_best']:.2f}, "
              f"{m['worst_to_best']:.2f} | {p['median_to_best']:.2f}, {p['worst_to_best']:.2f} "
              f"| {f['cells']}, {f['median_to_best'] or 0:.2f} "
              f"({f['median_unguarded_to_best'] or 0:.2f}) | {m['worst_to_library']:.2f}, "
              f"{p['worst_to_library']:.2f} | "
              f"{s['all']['median_noise']:.2f} | {launches['budgeted']} / "
              f"{launches['exhaustive']}, {seconds['budgeted']:.0f} / {seconds['exhaustive']:.0f} |")


# What the budgeted run's command measured with, which --from-json has no use for (--plan:
# --replay's own).
MEASURING = {"--sim": 1, "--launcher": 1, "--ranks-per-node": 1, "--budget-cells": 1,
             "--budget-minutes": 1, "--iterations": 1, "--reps": 1, "--out": 1, "--json": 1,
             "--plan": 1, "--quiet": 0, "--site": 0}


def replay(path, budgets, tune, plan):
    """--replay: per budget, the session on the exhaustive run's cells, its rules derived by
    leancast-tune --from-json --predict with the budgeted command's options, and the
    comparison's summary line."""
    tunings, _ = evidence.tunings_and_bench(path)
    by_name = {t["name"]: t for t in tunings}
    exhaustive, budgeted = by_name["exhaustive"], by_name["budgeted"]
    command = budgeted["command"][1:]
    # The layout the runs were placed in, as --from-json prices it.
    ppn = ranks_per_node(argparse.Namespace(ranks_per_node=None), exhaustive["runs"])
    options, i = [], 0
    while i < len(command):
        skip = MEASURING.get(command[i])
        options += [] if skip is not None else [command[i]]
        i += 1 + (skip or 0)
    grid = budgeted["predict"]["grid"]

    def measure(procs, sizes):  # one run per method, as the tuner's own
        return [dict(run, results=[r for r in run["results"] if r["bytes"] in sizes])
                for run in exhaustive["runs"] if run["environment"]["procs"] == procs]
    with tempfile.TemporaryDirectory(prefix="site-tuning-replay-") as tmp:
        saved, rules = os.path.join(tmp, "budgeted.json"), os.path.join(tmp, "budgeted.rules")
        whole, study = os.path.join(tmp, "exhaustive.json"), os.path.join(tmp, "study.jsonl.gz")
        with open(whole, "w") as f:
            json.dump(exhaustive, f)
        for budget in budgets:
            session = Session(grid["procs"], grid["sizes"], budgeted["candidates"],
                              budgeted["methods"], Features(plan), measure, budgeted["tie"], ppn)
            session.run(budget)
            with open(saved, "w") as f:
                json.dump(dict(budgeted, runs=session.runs,
                               predict=prediction_record(session)), f)
            done = subprocess.run([tune, "--from-json", saved, *options, "--plan", plan,
                                   "--out", rules], capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"site-tuning-eval: --replay: {done.stderr}")
            evidence.main([study, f"budgeted={saved}", f"exhaustive={whole}",
                           f"{RULES_SOURCE}={rules}"])
            p = summary(*compare(study))["predicted"]
            print(f"{budget} cells: predicted cells {p['cells']}" + (
                f", to the best median {p['median_to_best']:.2f} worst "
                f"{p['worst_to_best']:.2f}, worst to the library {p['worst_to_library']:.2f}"
                if p["cells"] else ""))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", metavar="EVIDENCE", help="only compare, from this file")
    parser.add_argument("--markdown", metavar="EVIDENCE", nargs="+",
                        help="only the summary table of these studies (docs/auto.md)")
    parser.add_argument("--replay", metavar="EVIDENCE",
                        help="a simulated study's session again with each --budget-cells")
    parser.add_argument("--budget-cells", default="", help="--replay: budgets, N,M,...")
    parser.add_argument("--plan", help="--replay: leancast-plan (default build/smpi's)")
    parser.add_argument("--launcher", default="mpirun --oversubscribe -n {procs}")
    parser.add_argument("--sim", metavar="PLATFORM", help="simulate (leancast-sim) instead")
    parser.add_argument("--ranks-per-node", type=int, help="--sim: ranks a node")
    parser.add_argument("--procs", default="2,3,4,5,6,7,8")
    parser.add_argument("--sizes", default="1K,16K,256K,1M")
    parser.add_argument("--candidates", default="binomial,linear")
    parser.add_argument("--methods", default="paper,osu")
    parser.add_argument("--iterations", type=int, help="default 20 (--sim: 1)")
    parser.add_argument("--reps", type=int, help="default 5 (--sim: 1)")
    parser.add_argument("--fraction", type=float, default=0.5,
                        help="the budget: this share of the grid's (count, size) cells")
    parser.add_argument("--evidence", help="the compact evidence to write (.jsonl.gz)")
    parser.add_argument("--tune", help="leancast-tune (default build/openmpi's, --sim: build/smpi's)")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per tuner run")
    args = parser.parse_args(argv)
    if args.table:
        table(args.table)
        return 0
    if args.markdown:
        markdown(args.markdown)
        return 0
    if args.replay:
        replay(args.replay, [int(b) for b in args.budget_cells.split(",") if b],
               args.tune or os.path.join(ROOT, "build", "smpi", "leancast-tune"),
               args.plan or os.path.join(ROOT, "build", "smpi", "leancast-plan"))
        return 0
    if not args.evidence:
        parser.error("--evidence is required (or --table)")
    measure(args)
    table(args.evidence)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
