"""The compact form of measurements that back a shipped claim (evidence/*.jsonl.gz, listed
in evidence/manifest.json): JSON Lines, one object a line, gzip-compressed where the name
ends in .gz. A leancast-tune --json record (one "tuning") becomes a line
{"tuning": N, "name": NAME, "header": ...} (its fields but the runs) and one line
{"tuning": N, "run": RUN} per run ("part_of": M in the first: a part of tuning M's
measurement, whose cells of a size it joins); a leancast-bench --json file becomes one line
{"source": PATH, "run": RUN}, PATH naming the file as first written (relative to the
repository root, or to out/ where a driver writes it); any other record (leancast-job-bench's,
leancast-overlap-bench's) {"source": PATH, "data": ...}; a text file (not .json) that a run
printed {"source": PATH, "text": ...}. RUN keeps what the tools read (leancast-tune's deciding and exporting,
the summary scripts): the method, the options, the environment, the machine's probes and
per result the algorithm, the size, data_ok and the repetitions' seconds per broadcast
("seconds"), from which the summary (median, min, max) is computed again exactly as
leancast-bench computed it. Paths are relative, the temporary folder is $TMPDIR, programs
under /usr/bin go by their names. --from-json reads such a file as the tunings it holds, in
their order, and its leancast-bench runs as one --site measurement (bench_runs.py).

  python3 tools/tune/leancast_tune/evidence.py [--add] [--parts] OUT.jsonl[.gz] [NAME=]FILE.json...
      each leancast-tune FILE a tuning, named NAME or the file's base name, each
      leancast-bench FILE (or other record) a line whose source is NAME or FILE; --add:
      after what OUT holds (a line of the same source replaced);
      --parts: the tunings parts of one measurement (each size timed once: a size two of
      them measured is one timing, their cells together), the file's first tuning's
"""
import fnmatch
import gzip
import io
import json
import os
import re
import statistics
import sys

HEADER = ("command", "site", "candidates", "tie", "stand_ins", "not_measured",
          "elapsed_seconds", "methods", "budget_minutes", "budget_cells", "predict",
          "library_algorithms", "library_failed")
RUN = ("tool", "method", "baseline", "options", "environment", "last_level_cache_bytes",
       "memory_copy_ranks", "memory_copy_one_core_bytes_per_second",
       "memory_copy_all_cores_bytes_per_second", "memory_cross_copy_one_core_bytes_per_second",
       "memory_cross_copy_all_cores_bytes_per_second", "core_round_trip_seconds",
       "huge_page_bytes", "tune_command", "library_commands")
OPTIONS = ("algorithms", "sizes", "iterations", "warmup", "reps", "huge_pages",
           "shared_buffer", "rotate_above", "command_line")
RESULT = ("algorithm", "bytes", "data_ok", "buffers_rotated", "memory_bound_seconds")

PATHS = [(re.compile(r"(?<![\w$.~/])/tmp/"), "$TMPDIR/"),
         (re.compile(r"(?<![\w$.~/])/work/[\w.-]+/"), ""),
         (re.compile(r"(?<![\w$.~/])/(root|home/[\w.-]+)/"), "~/"),
         (re.compile(r"(?<![\w$.~/])/usr/(local/)?s?bin/"), "")]


def relative(value):
    """`value` with every absolute path of a machine made relative (see PATHS)."""
    if isinstance(value, str):
        for pattern, replacement in PATHS:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, list):
        return [relative(v) for v in value]
    if isinstance(value, dict):
        return {k: relative(v) for k, v in value.items()}
    return value


def compact_result(result):
    kept = {k: result[k] for k in RESULT if result.get(k) is not None}
    reps = result.get("reps") or []
    if [r.get("rep") for r in reps] != list(range(len(reps))):
        raise ValueError(f"{result['algorithm']} {result['bytes']}: repetitions out of order")
    kept["seconds"] = [r["seconds_per_bcast"] for r in reps]
    summary = result["summary"]["seconds_per_bcast"]
    if summary != summarize(kept["seconds"]):
        kept["summary"] = summary  # not what the repetitions give: kept as it was
    return kept


def summarize(seconds):
    if not seconds:
        return None
    return {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}


def compact_run(run):
    kept = {k: run[k] for k in RUN if k in run}
    kept["options"] = {k: run["options"][k] for k in OPTIONS if k in run["options"]}
    kept["results"] = [compact_result(r) for r in run["results"]]
    # What a name such as auto resolved to, per size (the rest ran as named).
    chosen = [{k: p[k] for k in ("algorithm", "bytes", "selected_algorithm")}
              for p in run.get("algorithm_parameters", [])
              if p.get("selected_algorithm", p["algorithm"]) != p["algorithm"]]
    if chosen:
        kept["algorithm_parameters"] = chosen
    return relative(kept)


def expand_run(run):
    """A RUN line back in leancast-bench's shape (what the readers index)."""
    run = dict(run)
    results = []
    for kept in run["results"]:
        result = {k: v for k, v in kept.items() if k not in ("seconds", "summary")}
        result["reps"] = [{"rep": i, "seconds_per_bcast": s}
                          for i, s in enumerate(kept["seconds"])]
        result["summary"] = {"seconds_per_bcast": kept.get("summary") or
                             summarize(kept["seconds"])}
        results.append(result)
    run["results"] = results
    return run


# Tools whose records have results of another shape (per size and mode or contender): kept
# whole as {"source": PATH, "data": ...}.
WHOLE = ("leancast-job-bench", "leancast-overlap-bench")


def is_bench(data):
    return (isinstance(data, dict) and "results" in data and "runs" not in data
            and data.get("tool") not in WHOLE)


def compact_lines(data, name, tuning, part_of=None):
    """The lines of one JSON record: a leancast-tune one as tuning number `tuning`, named
    `name` (with `part_of`, the number of the tuning it is a part of: one measurement in
    several runs, each size timed once, such as the large section's groups); a
    leancast-bench one as a run whose source is `name`."""
    if is_bench(data):
        return [{"source": relative(name), "run": compact_run(data)}]
    if "runs" not in data:  # another record (leancast-sim's speed table): kept whole
        return [{"source": relative(name), "data": relative(data)}]
    header = relative({k: data[k] for k in HEADER if k in data})
    part = {} if part_of in (None, tuning) else {"part_of": part_of}
    return ([{"tuning": tuning, "name": name, **part, "header": header}]
            + [{"tuning": tuning, "run": compact_run(run)} for run in data["runs"] if run])


def dumps(lines):
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


def write(path, lines):
    """Writes the lines; gzip (no name, no time: the same bytes from the same lines) where
    the path ends in .gz."""
    text = dumps(lines).encode()
    if path.endswith(".gz"):
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as f:
            f.write(text)
        text = buffer.getvalue()
    with open(path, "wb") as f:
        f.write(text)


def is_compact(path):
    return path.endswith((".jsonl", ".jsonl.gz"))


def read(path):
    """Every line of a compact file, as objects."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tunings_and_bench(path, select=None):
    """([leancast-tune records, in the order of their tuning numbers], [(source, bench run)])
    of a compact file, the runs in leancast-bench's shape, each tuning's runs marked with
    the measurement they are part of ("measurement", deciding.Count); `select` (shell
    patterns) keeps the bench runs whose source matches one, pattern by pattern."""
    tunings, bench = {}, []
    lines = read(path)
    parts = {line["tuning"]: line.get("part_of", line["tuning"]) for line in lines
             if "header" in line}
    for line in lines:
        if "tuning" in line:
            record = tunings.setdefault(line["tuning"], {"runs": []})
            if "header" in line:
                record.update(line["header"], name=line.get("name"))
            else:
                run = expand_run(line["run"])
                run["measurement"] = f"{path}#{parts.get(line['tuning'], line['tuning'])}"
                record["runs"].append(run)
        elif "run" in line:
            bench.append((line["source"], line["run"]))
    if select is not None:  # in the order of the patterns, as a shell lists its globs
        bench = [pair for pattern in select for pair in bench
                 if fnmatch.fnmatch(pair[0], pattern)]
        bench = list({source: (source, run) for source, run in bench}.values())
    return ([tunings[n] for n in sorted(tunings)],
            [(source, expand_run(run)) for source, run in bench])


def runs(path, select=None):
    """Every run of a compact file, in leancast-bench's shape, each with its tuning's name
    or its source as "evidence_of"."""
    tunings, bench = tunings_and_bench(path, select)
    found = [dict(run, evidence_of=t.get("name")) for t in tunings for run in t["runs"]]
    return found + [dict(run, evidence_of=source) for source, run in bench]


def main(argv):
    add = "--add" in argv     # the files' tunings after those OUT holds already
    parts = "--parts" in argv  # the tunings parts of one measurement (the file's first)
    argv = [a for a in argv if a not in ("--add", "--parts")]
    if len(argv) < 2 or not is_compact(argv[0]):
        sys.exit(__doc__)
    lines = read(argv[0]) if add and os.path.exists(argv[0]) else []
    given = {relative(g.rpartition("=")[0] or g) for g in argv[1:]}
    lines = [line for line in lines if line.get("source") not in given]  # made again
    tuning = max([line["tuning"] for line in lines if "tuning" in line], default=0)
    first = 1 if tuning else None
    for given in argv[1:]:
        name, _, path = given.rpartition("=") if "=" in given else ("", "", given)
        with open(path) as f:
            if not path.endswith(".json"):  # a text a run printed: {"source", "text"}
                lines.append({"source": relative(name or path), "text": relative(f.read())})
                continue
            data = json.load(f)
        if "runs" in data:
            tuning += 1
            first = first or tuning
        lines += compact_lines(data, name or (os.path.basename(path).rsplit(".", 1)[0]
                                              if "runs" in data else path),
                               tuning, first if parts else None)
    write(argv[0], lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
