#!/usr/bin/env python3
"""The paper's Figures 6-8 simulated (docs/paper-reproduction.md), from the compact evidence
evidence/paper-reproduction.jsonl: one line per simulated run (scripts/paper-reproduction.sh
makes them), each with its cells' simulated time, bandwidth and speedup over the native ring.

  paper-figures.py compact RUN.json... [--out FILE]  leancast-sim JSON -> the compact lines
  paper-figures.py list                              the runs and groups in the evidence
  paper-figures.py summary GROUP                     leancast-report's table of a group's runs
  paper-figures.py speedups GROUP                    tuned over native ring, dataflow:1 / rounds
  paper-figures.py costs                             each run's simulation wall-clock seconds
  paper-figures.py plots [DIR]                       the figures the page shows (docs/figures/)

GROUP: a run's name without its -pP (fig6-hornet, fig7-hornet-rendezvous, ...) or "beyond"
(hornet-p64-vs-smpi). Every table is printed on stdout; paths are relative to the repository.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "tune"))
from leancast_tune import evidence  # noqa: E402  (the compact form's reading and writing)
EVIDENCE = "evidence/paper-reproduction.jsonl"
# The figures docs/paper-reproduction.md shows: (group, run or None for speedup-vs-procs, file).
PLOTS = [("fig6-hornet", "fig6-hornet-p16", "paper-fig6-hornet-p16-bandwidth.png"),
         ("fig6-hornet", "fig6-hornet-p64", "paper-fig6-hornet-p64-bandwidth.png"),
         ("fig6-hornet", "fig6-hornet-p256", "paper-fig6-hornet-p256-bandwidth.png"),
         ("fig7-hornet", None, "paper-fig7-hornet-speedup-vs-procs.png"),
         ("fig8-hornet", "fig8-hornet-p129", "paper-fig8-hornet-p129-bandwidth.png")]
# smpirun options every run has; the others (the rendezvous runs' eager limit) are kept.
USUAL_CFG = ("smpi/simulate-computation:", "smpi/bcast:")


def relative_arg(arg):
    """A command-line argument without a machine's path: temporary files by name only."""
    if "$TMPDIR" in arg or arg.startswith(("/tmp/", "/var/tmp/")):
        return os.path.basename(arg)
    if arg.startswith(ROOT + os.sep):
        return os.path.relpath(arg, ROOT)
    return arg


def compact_run(path):
    """One leancast-sim (leancast-bench) JSON file as one compact line."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    env, sim = data["environment"], data.get("simulation", {})
    if data["options"]["reps"] != 1:
        sys.exit(f"paper-figures: {path}: more than one repetition; the compact form keeps medians")
    first = (sim.get("runs") or [{}])[0].get("command", [])
    config = [a[len("--cfg="):] for a in first
              if a.startswith("--cfg=") and not a[len("--cfg="):].startswith(USUAL_CFG)]
    results = []
    for cell in data["results"]:
        s = cell["summary"]
        results.append({"algorithm": cell["algorithm"], "bytes": cell["bytes"],
                        "seconds": s["seconds_per_bcast"]["median"],
                        "mib_s": s["bandwidth_mib_s"]["median"],
                        "speedup": s["speedup_vs_baseline"]["median"],
                        "data_ok": cell["data_ok"]})
    return {"run": os.path.splitext(os.path.basename(path))[0],
            "platform": sim.get("platform"), "described": env.get("platform"),
            "procs": env["procs"], "nodes": env.get("nodes"), "method": data["method"],
            "baseline": data["baseline"], "algorithms": data["options"]["algorithms"],
            "iterations": data["options"]["iterations"], "smpi_config": config,
            "commit": env.get("git_revision"), "executor": env.get("executor"),
            "mpi_library": env.get("mpi_library"), "date": env.get("date"),
            "wall_seconds": sim.get("wall_seconds"),
            "command": [relative_arg(a) for a in data["options"]["command_line"]],
            "results": results}


def load(path=EVIDENCE):
    return evidence.read(os.path.join(ROOT, path))


def group_of(name):
    return "beyond" if name.startswith("hornet-") else re.sub(r"-p\d+$", "", name)


def group(runs, name):
    """A group's runs in leancast-report's order: the files' names sorted as a shell glob."""
    chosen = sorted((r for r in runs if group_of(r["run"]) == name), key=lambda r: r["run"])
    if not chosen:
        sys.exit(f"paper-figures: no run in group {name} (groups: "
                 f"{', '.join(sorted({group_of(r['run']) for r in runs}))})")
    return chosen


def size_text(n):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def describe(run):
    return (f"P={run['procs']}, {run['nodes']} node(s), {run['described']}, method "
            f"{run['method']}, executor {run['executor'].split(',')[0]}")


def summary(runs):
    """leancast-report's summary.md of the group's runs (min and max: the one repetition)."""
    lines = []
    for run in runs:
        lines += [f"### {run['run']}: {describe(run)}", "", f"`{' '.join(run['command'])}`", "",
                  f"| size | algorithm | MB/s median (min-max) | speedup vs {run['baseline']} | data |",
                  "|---:|---|---:|---:|---|"]
        order = run["algorithms"]
        for r in sorted(run["results"], key=lambda r: (r["bytes"], order.index(r["algorithm"]))):
            bw, sp = r["mib_s"], r["speedup"]
            lines.append(f"| {size_text(r['bytes'])} | {r['algorithm']} | {bw:.1f} ({bw:.1f}-{bw:.1f}) "
                         f"| {sp:.3f} ({sp:.3f}-{sp:.3f}) | {'ok' if r['data_ok'] else 'WRONG'} |")
        lines.append("")
    return "\n".join(lines)


def speedups(runs):
    """scatter-ring-tuned over scatter-ring (time native / time tuned) per P and size, under
    dataflow:1 and under rounds."""
    sizes = sorted({r["bytes"] for run in runs for r in run["results"]})
    lines = [f"Tuned over native ring (`dataflow:1` / `rounds`), {runs[0]['platform']}, method "
             f"{runs[0]['method']}" + (f", {' '.join(runs[0]['smpi_config'])}"
                                       if runs[0]["smpi_config"] else ""), "",
             "| P | " + " | ".join(size_text(s) for s in sizes) + " |",
             "|---:|" + "---:|" * len(sizes)]
    for run in sorted(runs, key=lambda r: r["procs"]):
        t = {(r["algorithm"], r["bytes"]): r["seconds"] for r in run["results"]}
        cells = []
        for s in sizes:
            pair = [t[(f"scatter-ring{x}", s)] / t[(f"scatter-ring-tuned{x}", s)]
                    for x in ("", "@rounds") if (f"scatter-ring{x}", s) in t]
            cells.append(" / ".join(f"{v:.2f}" for v in pair))
        lines.append(f"| {run['procs']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def costs(runs):
    lines = ["| run | P | sizes | algorithms | simulated in (s) |", "|---|---:|---:|---:|---:|"]
    for run in sorted(runs, key=lambda r: (group_of(r["run"]), r["procs"])):
        lines.append(f"| {run['run']} | {run['procs']} | {len({r['bytes'] for r in run['results']})} "
                     f"| {len(run['algorithms'])} | {run['wall_seconds']:g} |")
    return "\n".join(lines)


def bench_shape(run):
    """A compact run as leancast-report reads leancast-bench JSON (one repetition)."""
    spread = lambda v: {"median": v, "min": v, "max": v}
    return {"_name": run["run"], "method": run["method"], "baseline": run["baseline"],
            "options": {"algorithms": run["algorithms"], "command_line": run["command"]},
            "environment": {"procs": run["procs"], "nodes": run["nodes"],
                            "platform": run["described"], "executor": run["executor"]},
            "results": [{"algorithm": r["algorithm"], "bytes": r["bytes"], "data_ok": r["data_ok"],
                         "summary": {"seconds_per_bcast": spread(r["seconds"]),
                                     "bandwidth_mib_s": spread(r["mib_s"]),
                                     "speedup_vs_baseline": spread(r["speedup"])}}
                        for r in run["results"]]}


def plots(runs, out_dir):
    """The page's figures, drawn by leancast-report's own functions."""
    path = os.path.join(ROOT, "tools", "report", "leancast-report")
    loader = importlib.machinery.SourceFileLoader("leancast_report", path)
    spec = importlib.util.spec_from_loader("leancast_report", loader)
    report = importlib.util.module_from_spec(spec)
    loader.exec_module(report)
    os.makedirs(out_dir, exist_ok=True)
    for name, run_name, target in PLOTS:
        shaped = [bench_shape(r) for r in group(runs, name)]
        if run_name is None:
            made = report.plot_speedup_vs_procs(shaped, out_dir)
        else:
            made = report.plot_bandwidth(next(r for r in shaped if r["_name"] == run_name), out_dir)
        final = os.path.join(out_dir, target)
        os.replace(made, final)
        print(f"paper-figures: wrote {os.path.relpath(final, ROOT)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("compact")
    c.add_argument("files", nargs="+")
    c.add_argument("--out", help="write here (default stdout)")
    sub.add_parser("list")
    for name in ("summary", "speedups"):
        sub.add_parser(name).add_argument("group")
    sub.add_parser("costs")
    sub.add_parser("plots").add_argument("dir", nargs="?", default=os.path.join(ROOT, "docs", "figures"))
    args = parser.parse_args()
    if args.what == "compact":
        lines = [compact_run(p) for p in sorted(args.files, key=lambda p: os.path.basename(p))]
        if args.out:
            evidence.write(args.out, lines)
        else:
            sys.stdout.write(evidence.dumps(lines))
        return
    runs = load()
    if args.what == "list":
        for run in runs:
            print(f"{group_of(run['run'])}: {run['run']} (P = {run['procs']}, {run['commit']})")
    elif args.what == "summary":
        print(summary(group(runs, args.group)))
    elif args.what == "speedups":
        print(speedups(group(runs, args.group)))
    elif args.what == "costs":
        print(costs(runs))
    else:
        plots(runs, args.dir)


if __name__ == "__main__":
    main()
