#!/usr/bin/env python3
"""leancast-plan's cost model against the SMPI simulation: per simulated point (platform,
ranks per node, P, size), the share of pairs of leancast algorithms that the model orders as
the simulation does.

  scripts/model-vs-sim.py [--plan build/smpi/leancast-plan] SIM... \\
      [--out data/model-agreement.json] [--pairs evidence/model-agreement.jsonl]
  scripts/model-vs-sim.py --tables [points|pairs|all]   the page's tables from those two
                                                        files (no leancast-plan)

SIM: leancast-sim (leancast-bench) JSON, leancast-tune --sim JSON (its "runs"), or compact
evidence (JSON Lines, gzip or not: every line's "run"). Compared: every leancast algorithm
simulated under the default executor (no "@"); SMPI's own (smpi:NAME, mpi) and auto are not
in the model. The model: `leancast-plan --compare --json --platform PLATFORM
--ranks-per-node N --candidates ...` at the point's P and size. A pair agrees when both
order it alike, or when the simulation has it within --tie (a near-tie agrees with either
order); a pair the model ties exactly does not. --out: a summary per point (what
leancast-plan builds in); --pairs: the evidence, one line per point with every pair that
disagrees and both time ratios; without --out and --pairs the tables are printed.
"""
import argparse
import gzip
import itertools
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = "data/model-agreement.json"
PAIRS = "evidence/model-agreement.jsonl"
VALIDATED_PERCENT = 90  # leancast-plan's threshold (tools/plan_agreement.hpp)


def runs_of(path):
    """(origin, run) for each leancast-bench run in a file; a compact evidence line's origin
    names its tuning (the header line's "name") or its "source"."""
    if path.endswith((".jsonl", ".jsonl.gz")):
        found, names = [], {}
        with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
            for line in filter(str.strip, f):
                item = json.loads(line)
                if "name" in item:
                    names[item.get("tuning")] = item["name"]
                if "run" in item and isinstance(item["run"], dict):
                    where = item.get("source") or names.get(item.get("tuning"))
                    found.append((f"{relative(path)}#{where}" if where else relative(path),
                                  item["run"]))
        return found
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return [(relative(path), run) for run in (data["runs"] if "runs" in data else [data])]


def median_seconds(cell):
    """A cell's median time per broadcast: leancast-bench's summary, or a compact cell's
    "seconds" (one repetition's, or each repetition's)."""
    if "summary" in cell:
        return cell["summary"]["seconds_per_bcast"]["median"]
    seconds = cell["seconds"]
    return statistics.median(seconds) if isinstance(seconds, list) else seconds


def is_leancast(name):
    return "@" not in name and name not in ("mpi", "auto") and not name.startswith("smpi:")


def load_points(paths, method):
    """{(platform, ppn, procs, bytes): {"method", "file", "times": {algorithm: seconds}}}."""
    points = {}
    for path in paths:
        for origin, run in runs_of(path):
            env = run["environment"]
            platform = run.get("simulation", {}).get("platform") or env["platform"].split()[0]
            ppn = env.get("ranks_per_node") or 1
            for cell in run["results"]:
                if not is_leancast(cell["algorithm"]) or cell.get("data_ok") is False:
                    continue
                key = (platform, ppn, env["procs"], cell["bytes"])
                point = points.get(key)
                # The chosen method wins over another; else the first file that has the point.
                if point is None or (point["method"] != method and run["method"] == method):
                    point = points[key] = {"method": run["method"], "file": origin, "times": {}}
                if point["method"] == run["method"] and point["file"] == origin:
                    point["times"][cell["algorithm"]] = median_seconds(cell)
    return points


def model_times(plan, key, algorithms, cache, extra=()):
    platform, ppn, procs, size = key
    args = [plan, "--compare", "--json", "--platform", platform, "--ranks-per-node", str(ppn),
            "--procs", str(procs), "--bytes", str(size), "--candidates", ",".join(algorithms),
            *extra]
    tag = " ".join(args[1:])
    if tag not in cache:
        result = subprocess.run(args, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"model-vs-sim: {' '.join(args)} failed: {result.stderr.strip()}")
        report = json.loads(result.stdout)
        cache[tag] = {row["candidate"]: row["model_seconds"] for row in report["algorithms"]}
    return cache[tag]


def compare(sim, model, tie):
    """The pairs of algorithms in both: (agreeing count, simulated near-ties, disagreements)."""
    names = sorted(set(sim) & set(model))
    agree, ties, disagree = 0, 0, []
    for a, b in itertools.combinations(names, 2):
        fast, slow = (a, b) if sim[a] <= sim[b] else (b, a)
        if sim[slow] <= sim[fast] * (1 + tie):
            agree += 1
            ties += 1
        elif model[fast] < model[slow]:
            agree += 1
        else:
            disagree.append({"faster": fast, "slower": slow,
                             "simulated_ratio": sim[fast] / sim[slow],
                             "model_ratio": model[fast] / model[slow]})
    return names, agree, ties, disagree


def size_text(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def percent(agree, pairs):
    return 100.0 * agree / pairs if pairs else 0.0


def markdown(summary, pairs, command, part="all"):
    """The tables: agreement per point, then the pairs that disagree most often. part:
    "points" (the first, without the line saying how it was made and, for one platform, its
    heading), "pairs" (the second) or "all"."""
    head = [f"Made by `{command}` at commit {summary['commit']}; a pair agrees within "
             f"{summary['tie'] * 100:g} % in the simulation either way. Validated: "
             f"≥ {VALIDATED_PERCENT} % of a point's pairs agree.", ""]
    lines = []
    groups = {}
    for p in summary["points"]:
        groups.setdefault((p["platform"], p["ranks_per_node"]), []).append(p)
    for (platform, ppn), points in sorted(groups.items()):
        sizes = sorted({p["bytes"] for p in points})
        procs = sorted({p["procs"] for p in points})
        cell = {(p["procs"], p["bytes"]): p for p in points}
        if part != "points" or len(groups) > 1:
            lines += [f"**{platform}, {ppn} ranks per node**: agreeing pairs / pairs (%), "
                      f"method {', '.join(sorted({p['method'] for p in points}))}", ""]
        lines += ["| P | " + " | ".join(size_text(s) for s in sizes) + " | all |",
                  "|---:|" + "---:|" * (len(sizes) + 1)]
        for n in procs:
            row, agree, total = [], 0, 0
            for s in sizes:
                p = cell.get((n, s))
                if p is None:
                    row.append("")
                    continue
                agree, total = agree + p["agree"], total + p["pairs"]
                mark = "" if percent(p["agree"], p["pairs"]) >= VALIDATED_PERCENT else "*"
                row.append(f"{p['agree']}/{p['pairs']} ({percent(p['agree'], p['pairs']):.0f}{mark})")
            lines.append(f"| {n} | " + " | ".join(row) + f" | {percent(agree, total):.0f} % |")
        agree = sum(p["agree"] for p in points)
        total = sum(p["pairs"] for p in points)
        lines += ["", f"All: {agree} of {total} pairs agree ({percent(agree, total):.1f} %); "
                  "`*`: below the validated share.", ""]
    if part == "points":
        return "\n".join(lines[:-1]) + "\n"
    lines = head + lines if part == "all" else []
    # The pairs that disagree, over all points: how often, and the widest miss.
    by_pair = {}
    for point in pairs:
        for d in point["disagreements"]:
            key = tuple(sorted((d["faster"], d["slower"])))
            entry = by_pair.setdefault(key, {"count": 0, "worst": None})
            entry["count"] += 1
            miss = d["model_ratio"] / d["simulated_ratio"]
            if entry["worst"] is None or miss > entry["worst"][0]:
                entry["worst"] = (miss, point, d)
    ranked = sorted(by_pair.items(), key=lambda kv: (-kv[1]["count"], -kv[1]["worst"][0]))
    lines += [f"Pairs that disagree at most points ({len(by_pair)} pairs disagree somewhere; "
              "every one with both ratios: the `--pairs` file). The widest miss: where the "
              "model's time ratio is furthest from the simulation's.", "",
              "| pair | points | widest miss at | simulated faster | time ratio simulated | model |",
              "|---|---:|---|---|---:|---:|"]
    for (a, b), entry in ranked[:20]:
        _, point, d = entry["worst"]
        lines.append(f"| `{a}` / `{b}` | {entry['count']} | P = {point['procs']}, "
                     f"{size_text(point['bytes'])} | `{d['faster']}` | "
                     f"{d['simulated_ratio']:.2f} | {d['model_ratio']:.2f} |")
    lines += ["", "Time ratio: the simulated-faster algorithm's time over the other's; the "
              "model's above 1 (or 1: a tie) is what disagrees."]
    return "\n".join(lines) + "\n"


def read_tables_input(root=ROOT):
    """The summary (data/model-agreement.json) and the evidence's points; they must agree."""
    with open(os.path.join(root, SUMMARY), encoding="utf-8") as f:
        summary = json.load(f)
    with open(os.path.join(root, PAIRS), encoding="utf-8") as f:
        pairs = [json.loads(line) for line in f if line.strip()]
    counted = [{k: v for k, v in p.items() if k not in ("file", "disagreements")} for p in pairs]
    if counted != summary["points"]:
        sys.exit(f"model-vs-sim: {PAIRS} and {SUMMARY} count different points; make both again")
    return summary, pairs


def relative(path):
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="leancast-sim or leancast-tune --sim JSON, "
                                                 "or compact evidence (.jsonl, .jsonl.gz)")
    parser.add_argument("--plan", default=os.path.join(ROOT, "build/smpi/leancast-plan"))
    parser.add_argument("--method", default="osu", help="timing method preferred (default osu)")
    parser.add_argument("--tie", type=float, default=0.03, help="simulated near-tie (0.03: 3 %%)")
    parser.add_argument("--min-procs", type=int, default=0, help="only points with at least P ranks")
    parser.add_argument("--out", help="summary JSON (leancast-plan's data/model-agreement.json)")
    parser.add_argument("--pairs", help="JSON Lines of every point's disagreeing pairs "
                                        "(the evidence, evidence/model-agreement.jsonl)")
    parser.add_argument("--tables", nargs="?", const="points", choices=["points", "pairs", "all"],
                        help=f"print the tables from {SUMMARY} and {PAIRS}: the agreement "
                             "per point (the default), the pairs that disagree most, or all")
    parser.add_argument("--cache", help="JSON keeping leancast-plan's answers between runs")
    parser.add_argument("--model-args", default="",
                        help="more leancast-plan options ('--beta-inter 2.4e-9'), to try "
                             "other parameters; not with --out (leancast-plan cites --platform's)")
    args = parser.parse_args()
    if args.tables:
        if args.files:
            parser.error("--tables reads the repository's files, no SIM")
        summary, pairs = read_tables_input()
        print(markdown(summary, pairs, summary["command"], args.tables), end="")
        return
    if not args.files:
        parser.error("no SIM file")
    if args.model_args and args.out:
        parser.error("--model-args changes the model that --out would stand for")

    cache = {}
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, encoding="utf-8") as f:
            cache = json.load(f)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    command = " ".join(["scripts/model-vs-sim.py", *map(relative, args.files),
                        *(["--tie", str(args.tie)] if args.tie != 0.03 else []),
                        *(["--min-procs", str(args.min_procs)] if args.min_procs else []),
                        *([f"--model-args '{args.model_args}'"] if args.model_args else [])])
    summary = {"about": "leancast-plan's model vs the SMPI simulation: pairs of leancast "
                        "algorithms ordered alike (docs/benchmarks.md#leancast-plans-model-against-the-simulation)",
               "command": command, "commit": commit, "tie": args.tie, "points": []}
    pairs = []
    for key, point in sorted(load_points(args.files, args.method).items()):
        platform, ppn, procs, size = key
        if procs < args.min_procs or len(point["times"]) < 2:
            continue
        model = model_times(args.plan, key, sorted(point["times"]), cache, args.model_args.split())
        names, agree, ties, disagree = compare(point["times"], model, args.tie)
        count = len(names) * (len(names) - 1) // 2
        summary["points"].append({"platform": platform, "ranks_per_node": ppn, "procs": procs,
                                  "bytes": size, "method": point["method"],
                                  "algorithms": len(names), "pairs": count, "agree": agree,
                                  "simulated_ties": ties,
                                  "percent": round(percent(agree, count), 1)})
        pairs.append({**summary["points"][-1], "file": point["file"],
                      "disagreements": disagree})
        print(f"{platform} ppn={ppn} P={procs} {size_text(size)}: {agree}/{count} agree "
              f"({percent(agree, count):.0f} %)", file=sys.stderr)
    if args.cache:
        with open(args.cache, "w", encoding="utf-8") as f:
            json.dump(cache, f)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    if args.pairs:
        with open(args.pairs, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(p, separators=(",", ":")) + "\n" for p in pairs)
    if not args.out and not args.pairs:
        print(markdown(summary, pairs, command), end="")


if __name__ == "__main__":
    main()
