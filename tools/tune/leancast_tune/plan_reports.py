"""leancast-plan's JSON reports of a schedule, asked once per command line: the tie-break
(messages at the busiest rank) and the predictor (features) ask for the same schedules
many times."""
import functools
import json
import subprocess


def plan_command(plan, algorithm, procs, size, ranks_per_node=None):
    """leancast-plan's command line for `algorithm`'s schedule (its @EXECUTOR dropped: every
    executor runs the same schedule); --ranks-per-node where the ranks span nodes."""
    command = [plan, "--algorithm", algorithm.split("@")[0], "--procs", str(procs),
               "--bytes", str(size), "--json", "--no-steps"]
    if ranks_per_node is not None and ranks_per_node < procs:
        command += ["--ranks-per-node", str(ranks_per_node)]
    return command


@functools.lru_cache(maxsize=None)
def _report(command):
    done = subprocess.run(list(command), capture_output=True, text=True)
    try:
        return json.loads(done.stdout), ""
    except ValueError:
        return None, done.stderr.strip() or f"exit status {done.returncode}"


def plan_report(command):
    """(the report of leancast-plan `command`, "") or (None, why it gave none)."""
    return _report(tuple(command))
