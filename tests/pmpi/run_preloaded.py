"""Runs an MPI program that knows nothing of leancast with the interposer preloaded, the way
the README tells users to (Open MPI: mpirun -x NAME=VALUE; MPICH: mpiexec -genv NAME VALUE),
with LEANCAST_VERBOSE=1, and checks what the interposer reports against what the program
says it did:

- the program exits 0 and prints its "made N ... broadcasts ...; all data correct" line;
- rank 0 alone prints exactly one "leancast-pmpi: summary:" line and logs each
  (P, bytes, algorithm) at most once;
- the summary counts as many broadcasts as the program made (at least as many for Boost.MPI
  and mpi4py, which broadcast internally too), with the program's intercommunicator
  broadcasts counted as "mpi";
- the rest went where the settings say: --served-by names algorithms that must have served
  some, --calls NAME=N exactly how many one served, --only the one that served them all; and every choice auto made (logged "(auto, by
  default)") is the one leancast-plan -a auto names for that P and size (--plan), so the
  expectation follows auto's built-in table instead of a list written here;
- private communicators are freed with their communicators (at most world's is left), and
  none exist when everything went to the MPI library;
- exactly --warnings warnings ("... is ignored"), each printed once;
- with --online-tuning N (for a run with LEANCAST_TUNE=online): broadcasts ran on trial, and
  at least N size classes settled, each reported once per communicator as "online tuning
  P=... bytes LOW-HIGH: CANDIDATE TIME us, ... -> WINNER" with mpi the first candidate and the
  winner one of the candidates.

--log-line REGEX: a line of the log that must appear (repeatable).
--configured NAME=VALUE: as --env, and leancast-plan checks auto's choices under it.
--every-algorithm: the program's arguments end with "default" and every name that
leancast-plan --list-algorithms prints (the registry's), so that it runs each in turn.
--expect-abort instead expects the job to abort. Exit 77 from the program means skipped;
--opt-in NAME skips unless the environment has NAME=1.
"""
import argparse
import json
import os
import re
import subprocess
import sys

SUMMARY = re.compile(r"^leancast-pmpi: summary: (\d+) broadcasts, (\d+) bytes(.*)$", re.M)
PART = re.compile(r"\| (\S+): (\d+) calls, (\d+) bytes")  # names carry parameters: knomial:8
COMMS = re.compile(r"\| private communicators: (\d+) created, (\d+) freed")
CHOICE = re.compile(r"^leancast-pmpi: P=(\d+) bytes=(\d+): (\S+)", re.M)
AUTO_CHOICE = re.compile(r"^leancast-pmpi: P=(\d+) bytes=(\d+): (\S+) \(auto, by default\)"
                         r"(?: on \d+ node\(s\), up to (\d+) ranks each)?", re.M)
TUNING = re.compile(r"^leancast-pmpi: online tuning P=(\d+) ppn=(\d+) bytes (\d+)-(\d+): (.*) -> "
                    r"(\S+) \((\S+)x mpi\)$", re.M)
TUNING_CHOICE = re.compile(r"^leancast-pmpi: P=\d+ bytes=\d+: \S+ \(auto, by online tuning(, on trial)?\)",
                           re.M)
WARNING = re.compile(r"^leancast-pmpi: .* is ignored$", re.M)
MADE = re.compile(r"made (at least )?(\d+) (?:valid )?broadcasts(?:, (\d+) on intercommunicators)?; "
                  r"all data correct")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--launcher-flag", action="append", default=[])
    parser.add_argument("--flavor", choices=("openmpi", "mpich"), required=True)
    parser.add_argument("--procs", type=int, required=True)
    parser.add_argument("--preload", help="the interposer; omit for a program linked with it")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the ranks")
    parser.add_argument("--configured", action="append", default=[], metavar="NAME=VALUE",
                        help="a variable that configures the library's broadcast, for the "
                             "ranks and for leancast-plan's view of auto")
    parser.add_argument("--served-by", action="append", default=[])
    parser.add_argument("--calls", action="append", default=[], metavar="NAME=N")
    parser.add_argument("--only")
    parser.add_argument("--log-line", action="append", default=[], metavar="REGEX",
                        help="a line of rank 0's log that must appear")
    parser.add_argument("--plan", help="leancast-plan, to check auto's choices against")
    parser.add_argument("--warnings", type=int, default=0)
    parser.add_argument("--online-tuning", type=int, metavar="N",
                        help="expect online tuning to settle at least N size classes")
    parser.add_argument("--every-algorithm", action="store_true",
                        help="append 'default' and every registry name to the program's arguments")
    parser.add_argument("--expect-abort", action="store_true")
    parser.add_argument("--timeout", type=int, default=200)
    parser.add_argument("--opt-in", metavar="NAME", help="skip unless the variable NAME is 1")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.program[:1] == ["--"]:
        args.program = args.program[1:]
    return args


def launch(args, environment):
    command = [args.launcher, *args.launcher_flag, "-n", str(args.procs)]
    for name, value in environment:
        command += ["-x", f"{name}={value}"] if args.flavor == "openmpi" else ["-genv", name, value]
    command += args.program
    print("+", " ".join(command), flush=True)
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAILED: no result after {args.timeout} s (hang?)")
    output = result.stdout + result.stderr
    print(output, flush=True)
    return result.returncode, output


def fail(message):
    sys.exit(f"FAILED: {message}")


def check_summary(args, output, made):
    summaries = SUMMARY.findall(output)
    if len(summaries) != 1:
        fail(f"expected one summary line (rank 0 only), found {len(summaries)}")
    total = int(summaries[0][0])
    rest = summaries[0][2]
    calls = {name: int(n) for name, n, _ in PART.findall(rest)}
    created, freed = map(int, COMMS.search(rest).groups())
    at_least, count, on_inter = made.group(1), int(made.group(2)), int(made.group(3) or 0)
    if (total < count) if at_least else (total != count):
        fail(f"the program made {'at least ' if at_least else ''}{count} broadcasts, "
             f"the interposer counted {total}")
    if sum(calls.values()) != total:
        fail("the per-algorithm calls do not add up to the total")
    if args.only:
        if calls.get(args.only, 0) != total:
            fail(f"expected every broadcast served by {args.only}: {calls}")
    elif calls.get("mpi", 0) < on_inter:
        fail(f"expected at least {on_inter} (intercommunicator) broadcasts passed to MPI, got {calls}")
    for name in args.served_by:
        if calls.get(name, 0) == 0:
            fail(f"{name} served no broadcast: {calls}")
    for expected in args.calls:
        name, count = expected.split("=")
        if calls.get(name, 0) != int(count):
            fail(f"expected {name} to serve {count} broadcasts: {calls}")
    if args.only == "mpi" and created != 0:
        fail(f"{created} private communicators created although everything went to MPI")
    if created - freed > 1:
        fail(f"private communicators leak: {created} created, {freed} freed")
    print(f"checked: {total} broadcasts {calls}, private communicators {created}/{freed}")


def check_auto_choices(args, output):
    """Each choice auto logged is what leancast-plan says auto picks there (ranks on one node
    unless the log names the nodes)."""
    choices = AUTO_CHOICE.findall(output)
    for procs, size, chosen, ppn in choices:
        configured = [f"--configured={setting}" for setting in args.configured]
        report = subprocess.run([args.plan, "-a", "auto", "-p", procs, "-b", size,
                                 "--ranks-per-node", ppn or procs, "--json"] + configured,
                                capture_output=True, text=True, check=True).stdout
        expected = json.loads(report)["selected_algorithm"]
        if chosen != expected:
            fail(f"auto ran {chosen} at P={procs} bytes={size}; its table says {expected}")
    print(f"checked: {len(choices)} choices of auto against leancast-plan")


def check_logs(args, output):
    choices = CHOICE.findall(output)
    if len(choices) != len(set(choices)):
        fail("a (P, bytes, algorithm) was logged more than once")
    warnings = WARNING.findall(output)
    if len(warnings) != args.warnings:
        fail(f"expected {args.warnings} warnings, found {len(warnings)}")


def check_online_tuning(args, output):
    """Online tuning ran through the interposer: trials, settled classes, well-formed reports."""
    reports = TUNING.findall(output)
    if len(reports) < args.online_tuning:
        fail(f"expected at least {args.online_tuning} online tuning reports, found {len(reports)}")
    for procs, _, low, high, times, winner, speedup in reports:
        low, high = int(low), int(high)
        if high != 2 * low - 1 or low & (low - 1):
            fail(f"online tuning class {low}-{high} is no power-of-two class")
        names = [part.split(" ")[0] for part in times.split(", ")]
        if names[0] != "mpi" or len(names) < 2:
            fail(f"online tuning at P={procs} bytes {low}-{high} tried {names}: mpi first and others")
        if winner not in names or f"{winner} " not in times.replace(" (won)", " "):
            fail(f"online tuning at P={procs} bytes {low}-{high}: the winner {winner} was no candidate")
        if winner == "mpi" and float(speedup) != 1.0:
            fail(f"online tuning at P={procs} bytes {low}-{high}: mpi won at {speedup}x itself")
    # (Each (P, bytes, algorithm) is logged once: a winner's later calls are not.)
    if ", on trial" not in [m.group(1) for m in TUNING_CHOICE.finditer(output)]:
        fail("no broadcast ran on trial")
    print(f"checked: {len(reports)} size classes tuned online "
          f"({', '.join(r[5] for r in reports)})")


def main():
    args = parse_arguments()
    if args.opt_in and os.environ.get(args.opt_in) != "1":
        print(f"skipped: opt-in test, run with {args.opt_in}=1")
        return 77
    if args.every_algorithm:
        names = subprocess.run([args.plan, "--list-algorithms"], capture_output=True, text=True,
                               check=True).stdout.split()
        args.program += ["default", *names]
    environment = [("LD_PRELOAD", args.preload)] if args.preload else []
    environment.append(("LEANCAST_VERBOSE", "1"))
    environment += [tuple(setting.split("=", 1)) for setting in args.env + args.configured]
    status, output = launch(args, environment)
    if args.expect_abort:
        if status in (0, 124) or "not reached" in output:
            fail(f"expected the job to abort, exit status {status}")
        print(f"aborted as expected (exit status {status})")
        return 0
    if status == 77:
        print("skipped by the program")
        return 77
    if status != 0:
        fail(f"exit status {status}")
    made = MADE.search(output)
    if not made:
        fail("the program did not report correct data")
    check_summary(args, output, made)
    check_logs(args, output)
    for pattern in args.log_line:
        if not re.search(pattern, output, re.M):
            fail(f"no log line matches {pattern!r}")
    if args.online_tuning is not None:
        check_online_tuning(args, output)
    if args.plan:
        check_auto_choices(args, output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
