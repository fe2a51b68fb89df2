#!/usr/bin/python3
"""Summarizes online tuning over a whole job from its compact evidence
(evidence/online-tuning.jsonl.gz: each leancast-job-bench record whole, and the trials a short
LEANCAST_VERBOSE=1 run printed, each with its source): per run and size, the whole job's time
with MPI_Bcast, auto and online tuning (trials included), what online tuning settled on, its
per-call time after settling beside MPI_Bcast's over the same calls and beside the best single
candidate, and the targets of issue 14. Ratios are medians over repetitions of ratios taken
within one repetition (> 1: online tuning faster). Runs of fewer than 1000 calls (the
simulations) also get the 1000-call job computed from their exact, deterministic per-call
times.
Usage: online-tuning-summary.py evidence/online-tuning.jsonl.gz   (prints Markdown)"""
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "tune"))
from leancast_tune import evidence  # noqa: E402

JOB_CALLS = 1000
def median(values):
    return statistics.median(values)


def projected(cell, calls):
    """MPI_Bcast's and online's time for a job of `calls` calls, per repetition: the
    measured start (first call; online: its trials) plus the steady per-call time."""
    mpi, online = cell["modes"]["mpi"], cell["online"]
    out = []
    for rep, settled in enumerate(online["trial_calls"]):
        mpi_job = mpi["first_call_seconds"][rep] + (calls - 1) * mpi["per_call_seconds"][rep]
        online_job = (online["trial_seconds"][rep] +
                      (calls - settled) * online["after_tuning_per_call_seconds"][rep])
        out.append(mpi_job / online_job)
    return median(out)


def no_first(cell):
    """Job mpi/online without each job's first call (which sets up the fresh communicator)."""
    mpi, online = cell["modes"]["mpi"], cell["modes"]["online"]
    return median([(mt - mf) / (ot - of) for mt, mf, ot, of in
                   zip(mpi["total_seconds"], mpi["first_call_seconds"],
                       online["total_seconds"], online["first_call_seconds"])])


def spread(values):
    return f"{min(values):.2f}–{max(values):.2f}"


def mark(ok):
    return "yes" if ok else "**no**"


def table(path, run, trials):
    env = run["environment"]
    library = env.get("mpi_library", "").split(",")[0]
    simulated = library.startswith("SMPI")
    if simulated:  # "SMPI Version 3.32. Copyright ..."
        library = "SMPI " + library.split()[2].rstrip(".")
    short = run["calls"] < JOB_CALLS
    lines = [f"### {os.path.basename(path)}: {run.get('label') or library}", "",
             f"{library}, P = {run['procs']} ({env.get('nodes', '?')} node(s), up to "
             f"{env.get('ranks_per_node', '?')} ranks each); jobs of {run['calls']} calls "
             f"(mpi, auto, online) and {run['fixed_calls']} (each single algorithm), "
             f"{run['reps']} repetition(s); {run['wall_seconds']:.0f} s"
             f"{' simulated' if simulated else ''} in all.", "",
             "`" + " ".join(shlex.quote(a) for a in run["command_line"]) + "`",
             ""]
    head = ["bytes", "mpi job ms", "auto job ms", "online job ms", "job mpi/online",
            "job mpi/online, 1st call out", "job mpi/auto"]
    if short:
        head.append(f"{JOB_CALLS}-call job mpi/online (computed)")
    head += ["trial calls", "trials' extra ms", "1st call µs mpi/online", "online's winner", "after µs/call",
             "mpi µs/call", "after mpi/online", "best single µs/call", "online/best",
             "job ≥ 0.95", "after ≥ 1.0", "≤ 1.05 best"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    met = [0, 0, 0]
    for cell in run["results"]:
        modes, online, ratios = cell["modes"], cell["online"], cell["ratios"]
        job = ratios["median_job_mpi_over_online"]
        after = ratios["median_after_tuning_mpi_over_online"]
        best = ratios["median_after_tuning_online_over_best_single"]
        if short:
            job_target = projected(cell, JOB_CALLS)
        else:
            job_target = job
        checks = [job_target >= 0.95, after >= 1.0, best <= 1.05]
        met = [m + c for m, c in zip(met, checks)]
        winners = sorted(set(online["winners"]))
        best_names = sorted(set(cell["best_single"]["names"]))
        row = [str(cell["bytes"]),
               f"{modes['mpi']['median_total_seconds'] * 1e3:.4g}",
               f"{modes['auto']['median_total_seconds'] * 1e3:.4g}",
               f"{modes['online']['median_total_seconds'] * 1e3:.4g}",
               f"{job:.3f}", f"{no_first(cell):.3f}",
               f"{ratios['median_job_mpi_over_auto']:.3f}"]
        if short:
            row.append(f"{job_target:.3f}")
        row += ["/".join(str(c) for c in sorted(set(online["trial_calls"]))),
                f"{median(online['trial_cost_vs_mpi_seconds']) * 1e3:.3g}",
                f"{median(modes['mpi']['first_call_seconds']) * 1e6:.3g}/"
                f"{median(modes['online']['first_call_seconds']) * 1e6:.3g}",
                ", ".join(winners) + ("" if online["ranks_agree"] else " (RANKS DISAGREE)"),
                f"{online['median_after_tuning_per_call_seconds'] * 1e6:.4g}",
                f"{median(online['mpi_same_calls_per_call_seconds']) * 1e6:.4g}",
                f"{after:.3f} ({spread(ratios['after_tuning_mpi_over_online'])})",
                f"{median(cell['best_single']['per_call_seconds']) * 1e6:.4g} "
                f"({', '.join(best_names)})",
                f"{best:.3f}"] + [mark(c) for c in checks]
        if not all(m["data_ok"] for m in modes.values()):
            row[0] += " DATA WRONG"
        lines.append("| " + " | ".join(row) + " |")
    n = len(run["results"])
    lines += ["", f"Targets met at {met[0]}/{n} sizes (whole job ≥ 0.95× MPI_Bcast"
              f"{', 1000-call job computed' if short else ''}), {met[1]}/{n} (after tuning ≥ "
              f"1.0× MPI_Bcast), {met[2]}/{n} (after tuning within 5 % of the best single "
              "candidate).", ""]
    name = path[:-len(".json")] + "-trials.txt"
    if name in trials:
        lines += [f"What online tuning tried, in a separate short run with LEANCAST_VERBOSE=1 "
                  f"({os.path.basename(name)}; its times are that run's; a 1 KiB line "
                  "may come twice, the first from the tool's untimed warm-up job):", "", "```",
                  trials[name].rstrip(), "```", ""]
    return "\n".join(lines)


def main(path):
    lines = evidence.read(path)
    runs = {line["source"]: line["data"] for line in lines if "data" in line}
    trials = {line["source"]: line["text"] for line in lines if "text" in line}
    print("## Online tuning over a job (leancast-job-bench)\n")
    print("Columns: the whole job's time (median over repetitions, trials included) with "
          "MPI_Bcast (`mpi`), the built-in `auto` (tuning off) and online tuning; job mpi/online "
          "(also without each job's first call, in which online tuning sets up leancast's "
          "private communicator: a cost a program pays once per communicator, not per size) and "
          "mpi/auto (> 1: faster than MPI_Bcast); the calls online tuning spent on trials and "
          "what they cost beyond MPI_Bcast's time for as many calls; the first call of a job; "
          "the winner(s) (several: the repetitions differ); the per-call time after the class "
          "settled beside MPI_Bcast's over the same calls of its job, and their ratio (median, "
          "and min–max over the repetitions); the best single candidate (MPI_Bcast or a "
          "`--fixed` algorithm, per call, first call left out) and online's after-tuning time "
          "over it (< 1.05: within 5 %). Each run's command line is the program's, launched "
          "with `mpirun --oversubscribe -n P`, "
          "`mpiexec.mpich -n 2` or `build/smpi/leancast-sim --platform hornet --procs P "
          "[--ranks-per-node 1] --run`.\n")
    for source in sorted(runs, key=lambda p: ("smpi" in p, p)):
        print(table(source, runs[source], trials))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
