#!/usr/bin/python3
"""The one-node model against the real 16-core node (docs/benchmarks.md#the-one-node-model-against-the-real-node).

Simulates P = 16, 8 and 4 ranks on one hornet node with leancast-sim, for the new model
(one host per core, per-message costs: the default) and the old one (one host per node,
no per-message cost), and checks every algorithm pair whose order the real measurements
establish (the 16-core node's figures, encoded in FACTS below). The runs' simulated times
are the compact evidence evidence/one-node-model.jsonl (one line per run, named as the
simulation's JSON was: new-p16-paper, calibration/send-0.1us-p16-paper, variants/NAME/...).

  one-node-validation.py [--variant NAME]    print the tables from the evidence
  one-node-validation.py --times RUN         one run's times and MB/s, algorithms by sizes
  one-node-validation.py --simulate BUILD [--calibration] [--variant NAME --smpi-config C]
      simulate (JSON under BUILD/one-node-model/), put the runs into the evidence, print
  one-node-validation.py --compact DIR       put DIR's leancast-sim JSON into the evidence
--calibration adds the Fig. 6 check and the sweep hornet.cpp cites (calibration/). A
--variant's new-model runs are variants/NAME/; its old model is the main one. Extra
--smpi-config KEY:VALUE options go to every new-model run (to try other settings).
"""
import argparse
import glob
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVIDENCE = os.path.join(ROOT, "evidence", "one-node-model.jsonl")

SIZES = [1024, 16384, 65536, 262144, 1048576, 4194304]
# The leancast algorithms of the real runs (every algorithm of the 16-core campaign's
# bench script, without auto and mpi).
LEANCAST = ["linear", "binomial", "hypercube", "scatter-doubling", "scatter-ring",
            "scatter-ring-tuned", "knomial", "pipeline-chain", "pipeline-binary-tree",
            "two-tree", "circulant"]
# The leancast algorithms of the real run that compared them with Open MPI's best forced
# algorithm (that bench.sh's "check" plan).
CHECKED = ["pipeline-chain", "two-tree", "scatter-ring", "scatter-ring-tuned"]
# Open MPI's best forced algorithm on the real node: its pipeline (a chain) in 128 KiB
# segments; leancast's chain sends the same messages.
PIPE128K = "pipeline-chain:128K"
PAPER_ALGORITHMS = LEANCAST + [PIPE128K, "smpi:ompi"]
OSU_ALGORITHMS = ["pipeline-chain", "two-tree", "smpi:ompi"]
# The paper reproduction's single-node figure (docs/paper-reproduction.md, Fig. 6 at P = 16).
FIG6 = ["--procs", "16", "--algorithms", "scatter-ring,scatter-ring-tuned", "--preset", "fig6",
        "--method", "paper", "--iterations", "4"]
# The calibration sweep (hornet.cpp cites it): P = 16 with one parameter changed.
EAGER = 8191  # hornet's largest eager message (smpi/send-is-detached-thresh 8192)


def costs(send, receive):
    return [a for key, value in (("smpi/ois", send), ("smpi/os", send), ("smpi/or", receive))
            for a in ("--smpi-config", f"{key}:0:{value}:0;{EAGER}:0:0")]


VARIANTS = {
    "send-port-10G": ({"LEANCAST_SIM_SEND_BANDWIDTH": "10e9"}, []),
    "send-port-15G": ({"LEANCAST_SIM_SEND_BANDWIDTH": "15e9"}, []),
    **{f"send-{o}us": ({}, costs(f"{o}e-6", "0.1e-6")) for o in ("0.1", "0.3", "0.7", "1")},
    **{f"receive-{o}us": ({}, costs("0.4e-6", f"{o}e-6")) for o in ("0", "0.3", "0.5")},
}
# The old model: one host per node and none of SMPI's per-message costs.
OLD = ["--node-hosts", "--smpi-config", "smpi/ois:0:0:0", "--smpi-config", "smpi/os:0:0:0",
       "--smpi-config", "smpi/or:0:0:0"]
ALL = tuple(SIZES)
BELOW_1M = tuple(s for s in SIZES if s < 1048576)

# Each fact: at P, with the method, `faster` takes less time than `slower` at `sizes`;
# then the real figure and, where it gives one, its range as a time ratio slower/faster.
# Names: a leancast algorithm, "ompi" (Open MPI 4.1's MPI_Bcast), "mpich" (MPICH 4's),
# "best" (the fastest of LEANCAST), "best-checked" (the fastest of CHECKED) and "pipe128k"
# (Open MPI's forced pipeline).
FACTS = [
    ("F1", 16, "paper", "ompi", "linear", ALL,
     "auto / MPI_Bcast (Open MPI) 0.28-0.48, auto ran linear at every size",
     (1 / 0.48, 1 / 0.28)),
    ("F2", 16, "paper", "mpich", "linear", ALL,
     "auto (linear) / MPI_Bcast (MPICH) 0.25-0.56", (1 / 0.56, 1 / 0.25)),
    ("F3", 16, "paper", "best", "ompi", ALL,
     "best leancast / MPI_Bcast (Open MPI) 1.07-1.45", (1.07, 1.45)),
    *[(f"F4 {a}", 16, "paper", a, "linear", ALL, "linear is the slowest leancast algorithm",
       None) for a in LEANCAST if a != "linear"],
    ("F5", 16, "paper", "pipe128k", "best-checked", BELOW_1M,
     "best leancast / Open MPI's forced pipeline (128K) 0.70-0.99 below 1 MiB",
     (1 / 0.99, 1 / 0.70)),
    ("F6", 16, "paper", "scatter-ring-tuned", "scatter-ring", (1024,),
     "scatter-ring-tuned / scatter-ring 1.44-2.03 at 1 KiB", (1.44, 2.03)),
    ("F7", 8, "paper", "ompi", "linear", (1024, 16384),
     "auto (linear) / MPI_Bcast (Open MPI) 0.52-0.65 up to 16 KiB", (1 / 0.65, 1 / 0.52)),
    ("F8", 8, "paper", "mpich", "linear", ALL,
     "auto (linear) / MPI_Bcast (MPICH) 0.41-0.78", (1 / 0.78, 1 / 0.41)),
    ("F9", 8, "paper", "best", "ompi", ALL,
     "best leancast / MPI_Bcast (Open MPI) 1.05-2.26", (1.05, 2.26)),
    ("F10", 4, "paper", "scatter-ring-tuned", "scatter-ring", (1048576, 4194304),
     "scatter-ring-tuned / scatter-ring 1.11-1.17 from 1 MiB", (1.11, 1.17)),
    ("F11", 16, "osu", "ompi", "pipeline-chain", BELOW_1M,
     "barrier before each: pipeline-chain / MPI_Bcast 0.24-0.82 below 1 MiB",
     (1 / 0.82, 1 / 0.24)),
    ("F12", 16, "osu", "two-tree", "ompi", (262144, 1048576, 4194304),
     "barrier before each: two-tree / MPI_Bcast 1.14-1.81 at 256 KiB-4 MiB", (1.14, 1.81)),
]
# Stated in the issue, not in the measurement file: reported apart, not counted.
BRIEF = [
    ("B1", 16, "paper", "two-tree", "binomial", (1048576, 4194304), "issue 12", None),
    ("B2", 16, "paper", "pipeline-chain", "binomial", (1048576, 4194304), "issue 12", None),
]


def ompi41(procs, size):
    """Open MPI 4.1's fixed decision (coll_tuned, as SMPI's ompi selector copies it): where
    it runs basic_linear, SMPI substitutes a pipelined chain (NTSL); leancast's linear sends
    basic_linear's messages, so it stands in there."""
    if procs < 8:
        return "linear" if 8192 <= size < 1048576 else "smpi:ompi"
    if procs < 16:
        return "linear" if size >= 32768 else "smpi:ompi"
    return "smpi:ompi"


def mpich4(procs, size):
    """MPICH 4's choice on one node (leancast's select_mpich): binomial below 12288 bytes
    or 8 ranks, scatter + recursive doubling below 512 KiB at a power of two, else the ring."""
    if size < 12288 or procs < 8:
        return "binomial"
    if size < 524288 and procs & (procs - 1) == 0:
        return "scatter-doubling"
    return "scatter-ring"


def run_name(model, procs, method):
    return f"{model}-p{procs}-{method}"


def command(build, out, model, procs, method, extra):
    algorithms = PAPER_ALGORITHMS if method == "paper" else OSU_ALGORITHMS
    args = [os.path.join(build, "leancast-sim"), "--platform", "hornet", "--procs", str(procs),
            "--algorithms", ",".join(algorithms), "--sizes", ",".join(map(str, SIZES)),
            "--iterations", "10", "--method", method, "--baseline", algorithms[0],
            "--json", os.path.join(out, run_name(model, procs, method) + ".json")]
    return args + (OLD if model == "old" else extra)


def simulate(args, env=None):
    text = shlex.join([f"{k}={v}" for k, v in (env or {}).items()] + [relative_arg(a) for a in args])
    print("$", text, file=sys.stderr)
    done = subprocess.run(args, stdout=subprocess.DEVNULL, timeout=600,
                          env=dict(os.environ, **(env or {})))
    if done.returncode != 0:
        sys.exit(f"failed: {shlex.join(args)}")
    COMMANDS[args[args.index("--json") + 1]] = text


def runs():
    return [(model, procs, method) for model in ("new", "old") for procs in (16, 8, 4)
            for method in ("paper", "osu") if method == "paper" or procs == 16]


def read_evidence():
    """{run name: compact run} from evidence/one-node-model.jsonl."""
    if not os.path.exists(EVIDENCE):
        return {}
    with open(EVIDENCE, encoding="utf-8") as f:
        return {run["run"]: run for run in map(json.loads, filter(str.strip, f))}


def load(evidence, prefix, model, procs, method):
    name = prefix + run_name(model, procs, method)
    if name not in evidence:
        sys.exit(f"one-node-validation: no run {name} in {os.path.relpath(EVIDENCE, ROOT)}")
    return {(c["algorithm"], c["bytes"]): c["seconds"] for c in evidence[name]["results"]}


def relative_arg(arg):
    """A command-line argument without a machine's path."""
    if "$TMPDIR" in arg or arg.startswith(("/tmp/", "/var/tmp/")):
        return os.path.basename(arg)
    return os.path.relpath(arg, ROOT) if arg.startswith(ROOT + os.sep) else arg


def compact_run(path, name, command=None):
    """One leancast-sim JSON file as one compact line: each cell's median simulated time."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    env = data["environment"]
    return {"run": name, "platform": data.get("simulation", {}).get("platform"),
            "procs": env["procs"], "method": data["method"], "baseline": data["baseline"],
            "iterations": data["options"]["iterations"], "commit": env.get("git_revision"),
            "executor": env.get("executor"), "mpi_library": env.get("mpi_library"),
            "date": env.get("date"),
            "command": command or " ".join(relative_arg(a) for a in data["options"]["command_line"]),
            "results": [{"algorithm": c["algorithm"], "bytes": c["bytes"],
                         "seconds": c["summary"]["seconds_per_bcast"]["median"]}
                        for c in data["results"]]}


# The commands simulate() ran, by the JSON each wrote.
COMMANDS = {}


def recorded_commands(directory):
    """The leancast-sim commands of an earlier simulation (its commands.txt: the "$ ENV
    COMMAND" lines it printed), by the path each --json names."""
    found = {}
    for path in glob.glob(os.path.join(directory, "**", "commands.txt"), recursive=True):
        with open(path, encoding="utf-8") as f:
            for line in f:
                words = shlex.split(line[1:]) if line.startswith("$") else []
                if "--json" in words:
                    found[words[words.index("--json") + 1]] = shlex.join(words)
    return found


def command_of(path, directory, recorded):
    """The command that wrote PATH: simulate()'s, else the commands.txt line whose --json
    ends in PATH's place under DIRECTORY (the nearest, where variants repeat a name)."""
    if path in COMMANDS:
        return COMMANDS[path]
    tail = "/" + os.path.relpath(path, directory)
    matches = sorted((j for j in recorded if ("/" + j).endswith(tail)), key=len)
    return recorded[matches[0]] if matches else None


def put_into_evidence(directory, prefix=""):
    """Every leancast-sim JSON under DIRECTORY as a compact run named by its path there."""
    evidence = read_evidence()
    recorded = recorded_commands(directory)
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.json"), recursive=True)):
        name = prefix + os.path.splitext(os.path.relpath(path, directory))[0]
        evidence[name] = compact_run(path, name, command_of(path, directory, recorded))
    with open(EVIDENCE, "w", encoding="utf-8") as f:
        for name in sorted(evidence):
            f.write(json.dumps(evidence[name], separators=(",", ":")) + "\n")
    return evidence


def print_times(run):
    """One run's cells: time per broadcast in µs and bandwidth in MB/s (2^20 B/s)."""
    sizes = sorted({c["bytes"] for c in run["results"]})
    names = list(dict.fromkeys(c["algorithm"] for c in run["results"]))
    cells = {(c["algorithm"], c["bytes"]): c["seconds"] for c in run["results"]}

    def cell(a, s):
        if (a, s) not in cells:
            return ""
        us = cells[(a, s)] * 1e6
        return f"{us:.{2 if us < 10 else 1}f} µs, {s / cells[(a, s)] / 2**20:.0f} MB/s"

    print(f"{run['run']}: P = {run['procs']}, {run['platform']}, method {run['method']}, "
          f"{run['iterations']} iterations; time per broadcast, bandwidth (MB = 2^20 B)\n")
    print("| algorithm | " + " | ".join(size_name(s) for s in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for a in names:
        print(f"| {a} | " + " | ".join(cell(a, s) for s in sizes) + " |")


def seconds(cells, procs, name, size):
    if name == "ompi":
        return cells[(ompi41(procs, size), size)]
    if name == "mpich":
        return cells[(mpich4(procs, size), size)]
    if name == "pipe128k":
        return cells[(PIPE128K, size)]
    if name == "best":
        return min(cells[(a, size)] for a in LEANCAST)
    if name == "best-checked":
        return min(cells[(a, size)] for a in CHECKED)
    return cells[(name, size)]


def check(facts, data, model):
    """Per fact: (agreeing sizes, sizes, min and max of slower/faster time ratio)."""
    rows = []
    for fact_id, procs, method, faster, slower, sizes, _, _ in facts:
        cells = data[(model, procs, method)]
        ratios = [seconds(cells, procs, slower, s) / seconds(cells, procs, faster, s)
                  for s in sizes]
        rows.append((sum(r > 1 + 1e-9 for r in ratios), len(sizes), min(ratios), max(ratios)))
    return rows


def in_range(facts, data, model):
    """Per fact with a real range: (sizes whose ratio lies in it, sizes)."""
    rows = []
    for fact_id, procs, method, faster, slower, sizes, _, real in facts:
        if real is None:
            rows.append(None)
            continue
        cells = data[(model, procs, method)]
        ratios = [seconds(cells, procs, slower, s) / seconds(cells, procs, faster, s)
                  for s in sizes]
        rows.append((sum(real[0] <= r <= real[1] for r in ratios), len(sizes)))
    return rows


def size_name(size):
    if size >= 1 << 20:
        return f"{size >> 20}M"
    return f"{size >> 10}K" if size >= 1 << 10 else f"{size}"


def print_calibration(evidence):
    """F1 (linear against Open MPI) and F6 (the rings at 1 KiB) for each variant."""
    print("\n| variant | linear / Open MPI, P = 16 (real 0.28-0.48) | scatter-ring-tuned / "
          "scatter-ring, 1 KiB (real 1.44-2.03) |")
    print("|---|---|---|")
    for name in ["model"] + list(VARIANTS):
        cells = load(evidence, "" if name == "model" else "calibration/",
                     "new" if name == "model" else name, 16, "paper")
        ratios = [seconds(cells, 16, "ompi", s) / cells[("linear", s)] for s in SIZES]
        f6 = cells[("scatter-ring", 1024)] / cells[("scatter-ring-tuned", 1024)]
        print(f"| {name} | {min(ratios):.2f}-{max(ratios):.2f} "
              f"({', '.join(f'{r:.2f}' for r in ratios)}) | {f6:.2f} |")


def print_tables(data):
    print("| fact | P | method | real: faster > slower | sizes | real figure | old model: "
          "agree, time slower/faster | new model: agree, time slower/faster |")
    print("|---|---:|---|---|---|---|---|---|")
    totals = {"old": [0, 0], "new": [0, 0]}
    checked = {m: check(FACTS, data, m) for m in totals}
    inside = {m: in_range(FACTS, data, m) for m in totals}
    for index, (fact_id, procs, method, faster, slower, sizes, source, real) in enumerate(FACTS):
        cells = []
        for model in ("old", "new"):
            agree, count, low, high = checked[model][index]
            totals[model][0] += agree
            totals[model][1] += count
            within = inside[model][index]
            cells.append(f"{agree}/{count}, {low:.2f}-{high:.2f}"
                         + (f" ({within[0]} in range)" if within else ""))
        sizes_text = ", ".join(size_name(s) for s in sizes) if len(sizes) < 6 else "all six"
        print(f"| {fact_id} | {procs} | {method} | {faster} > {slower} | {sizes_text} | {source} "
              f"| {cells[0]} | {cells[1]} |")
    for model, (agree, count) in totals.items():
        print(f"\n{model} model: {agree} of {count} pairs agree ({100 * agree / count:.0f} %)")
        inside = [r for r in in_range(FACTS, data, model) if r is not None]
        print(f"{model} model: ratio inside the real range at {sum(r[0] for r in inside)} of "
              f"{sum(r[1] for r in inside)} (fact, size) cells with a range")
    print("\nNot in the measurement file (issue 12's statement):")
    for model in ("old", "new"):
        for (fact_id, *_rest), (agree, count, low, high) in zip(BRIEF, check(BRIEF, data, model)):
            print(f"  {fact_id} {_rest[2]} > {_rest[3]} ({model}): {agree}/{count}, "
                  f"{low:.2f}-{high:.2f}")
    for procs in (16, 8, 4):
        print(f"\nP = {procs}, back to back: leancast's algorithms fastest first, MB/s "
              "(2^20 B/s); in brackets the stand-ins for Open MPI's and MPICH's MPI_Bcast")
        print("\n| size | old model | new model |\n|---|---|---|")
        for size in SIZES:
            columns = []
            for model in ("old", "new"):
                cells = data[(model, procs, "paper")]
                rate = lambda name: size / seconds(cells, procs, name, size) / 2**20
                order = sorted(LEANCAST, key=lambda a: cells[(a, size)])
                columns.append(", ".join(f"{a} {rate(a):.0f}" for a in order)
                               + f" [Open MPI {rate('ompi'):.0f}, MPICH {rate('mpich'):.0f}]")
            print(f"| {size_name(size)} | {columns[0]} | {columns[1]} |")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", help="the new model's runs of variants/NAME/")
    parser.add_argument("--times", metavar="RUN", help="print one run's times and MB/s")
    parser.add_argument("--simulate", metavar="BUILD", help="simulate with BUILD's leancast-sim")
    parser.add_argument("--compact", metavar="DIR", help="put DIR's JSON into the evidence")
    parser.add_argument("--only", choices=["new", "old"], help="simulate one model only")
    parser.add_argument("--smpi-config", action="append", default=[])
    parser.add_argument("--calibration", action="store_true",
                        help="also run the calibration sweep and the Fig. 6 check")
    options = parser.parse_args(argv)
    prefix = f"variants/{options.variant}/" if options.variant else ""
    if options.compact:
        put_into_evidence(options.compact, prefix)
    if options.simulate:
        build = options.simulate
        out = os.path.join(build, "one-node-model", prefix)
        extra = [a for c in options.smpi_config for a in ("--smpi-config", c)]
        os.makedirs(os.path.join(out, "calibration"), exist_ok=True)
        for model, procs, method in runs():
            if (options.only or ("new" if options.variant else None)) in (None, model):
                simulate(command(build, out, model, procs, method, extra))
        if options.calibration:
            simulate([os.path.join(build, "leancast-sim"), "--platform", "hornet", *FIG6,
                      "--json", os.path.join(out, "fig6-p16.json")])
            for name, (env, config) in VARIANTS.items():
                args = command(build, out, "new", 16, "paper", config)
                args[args.index("--json") + 1] = os.path.join(
                    out, "calibration", run_name(name, 16, "paper") + ".json")
                simulate(args, env)
        put_into_evidence(out, prefix)
    evidence = read_evidence()
    if options.times:
        if options.times not in evidence:
            sys.exit(f"one-node-validation: no run {options.times} (runs: {', '.join(evidence)})")
        print_times(evidence[options.times])
        return 0
    data = {run: load(evidence, prefix if run[0] == "new" else "", *run) for run in runs()}
    print_tables(data)
    if not prefix and f"calibration/{run_name(list(VARIANTS)[-1], 16, 'paper')}" in evidence:
        print_calibration(evidence)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
