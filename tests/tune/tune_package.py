"""What the module tests of leancast-tune (test_*.py beside this file) share: the package
leancast_tune imported from the source tree (tools/tune), without writing bytecode there,
and synthetic measurements in leancast-bench's JSON as leancast-tune reads it."""
import os
import sys
import types

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "tune"))

K, M = 1 << 10, 1 << 20


def bench_run(procs, method, times, spread=0.02, reps=None, nodes=1, **environment):
    """One leancast-bench run; times: {(algorithm, bytes): seconds}; reps: each cell's
    repetitions as factors of its time (else only min and max, the time -+ spread / 2)."""
    results = []
    for (algorithm, size), t in times.items():
        low, high = (min(reps), max(reps)) if reps else (1 - spread / 2, 1 + spread / 2)
        results.append({"algorithm": algorithm, "bytes": size, "data_ok": True,
                        "reps": [{"seconds_per_bcast": t * f} for f in reps or []],
                        "summary": {"seconds_per_bcast": {"median": t, "min": t * low,
                                                          "max": t * high}}})
    env = {"procs": procs, "nodes": nodes, "ranks_per_node": procs // nodes,
           "mpi_library": "Fixture MPI 1.0", "date": "2026-01-02T03:04:05Z",
           "cpu_model": "Fixture CPU", "cores": 8, "hosts": ["fixture"]}
    env.update(environment)
    return {"tool": "leancast-bench", "method": method, "baseline": "mpi",
            "options": {"algorithms": list(dict.fromkeys(a for a, _ in times)),
                        "sizes": sorted({s for _, s in times}), "iterations": 10, "reps": 5,
                        "command_line": ["leancast-bench"]},
            "environment": env, "results": results}


def options(**given):
    """The parsed options deciding and exporting read, with leancast-tune's defaults."""
    values = {"tie": 0.001, "tie_break": None, "exclude": set(), "cover": (1, None),
              "saved_methods": None,
              "site": False, "ppn": None, "library": None, "methods": ["paper", "osu"],
              "from_json": None, "candidates": [], "rotate_above": None}
    values.update(given)
    return types.SimpleNamespace(**values)


def write_script(path, text):
    """An executable Python script (a stand-in for leancast-plan or leancast-bench)."""
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\n{text}")
    os.chmod(path, 0o755)
    return path
