"""leancast-bench --json files read as a --site measurement (--from-json takes them beside
leancast-tune's own files): each file one run (one method, one process count) of the MPI
library's default broadcast, `mpi`, beside leancast's algorithms. A run where `mpi` was not
the library's default broadcast, or where leancast did not choose by its defaults, says
nothing about auto's table under the defaults, so it is left out, with a line saying why:
the library's broadcast configured (what leancast read as such: OMPI_MCA_coll* but its
verbosity, MPICH's control variables of broadcasts or collectives), leancast preloaded
under the library (LD_PRELOAD) or told what to run (LEANCAST_BCAST*, LEANCAST_CONFIG).
Runs of several MPI libraries are an error."""
import sys

LEANCAST_TOLD = ("LD_PRELOAD", "LEANCAST_BCAST", "LEANCAST_CONFIG")


def configures_library_broadcast(name):
    """For files older than environment.library_configuration: the rule leancast applies to
    the environment (configures_library_broadcast in src/select/settings.cpp)."""
    if name.startswith("OMPI_MCA_coll"):
        return not name.endswith("_verbose")
    for prefix in ("MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            return "BCAST" in rest or "COLL" in rest
    return False


def is_bench_run(data):
    """Whether a --from-json file is leancast-bench's rather than leancast-tune's."""
    return isinstance(data, dict) and "results" in data and "environment" in data \
        and "runs" not in data


def not_by_default(environment):
    """The recorded settings under which a run did not measure the defaults: the library's
    configuration as leancast read it (environment.library_configuration) where the file
    has it, and whatever told leancast what to run."""
    settings = environment.get("settings") or {}
    told = {name: value for name, value in settings.items() if name.startswith(LEANCAST_TOLD)}
    if "library_configuration" in environment:
        configured = dict(entry.split("=", 1) for entry in environment["library_configuration"])
    else:
        configured = {name: value for name, value in settings.items()
                      if configures_library_broadcast(name)}
    return {**configured, **told}


def as_site_measurement(paths_and_runs, log=sys.stderr):
    """[(path, leancast-bench JSON)] -> what leancast-tune --site --json would have saved:
    {"command", "site", "runs"}. Raises ValueError where no run is left or the runs are of
    several MPI libraries."""
    runs, libraries = [], set()
    for path, run in paths_and_runs:
        left_out = not_by_default(run["environment"])
        if left_out:
            print(f"leancast-tune: {path} left out: not the defaults ({left_out})", file=log)
            continue
        libraries.add(run["environment"].get("mpi_library", "?").split(",")[0])
        runs.append(run)
    if not runs:
        raise ValueError("none of the leancast-bench files measured the defaults")
    if len(libraries) > 1:
        raise ValueError(f"leancast-bench files of several MPI libraries: {sorted(libraries)}")
    command = ["leancast-bench:"] + [path for path, _ in paths_and_runs]
    return {"command": command, "site": True, "runs": runs}
