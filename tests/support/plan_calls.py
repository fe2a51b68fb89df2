"""Calling leancast-plan from the Python tests: its exit status and output, or its --json
report (a failed call fails the test with leancast-plan's message)."""
import json
import subprocess


def run(plan, *args, timeout=120):
    return subprocess.run([plan, *args], capture_output=True, text=True, timeout=timeout)


def run_json(plan, *args):
    result = run(plan, *args, "--json")
    if result.returncode != 0:
        raise AssertionError(result.stderr)
    return json.loads(result.stdout)
