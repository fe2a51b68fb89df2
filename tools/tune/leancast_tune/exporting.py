"""The leancast rules file (what LEANCAST_CONFIG and data/auto.rules read): its header,
one rule per run of sizes with the same winner and each rule's evidence; and the --json
record of every measurement."""
import json
import sys

from .common import (EMULATED_REFERENCES, METHOD_TEXT, METHODS, REFERENCE, STAND_INS,
                     duration_text, is_reference, reference_text, shown, shown_command,
                     size_text)
from .deciding import claims, decide, methods_of, ranges


def speedups_text(d, algorithm):
    """(paper 1.35x margin 4.0%, osu 1.31x margin 2.2%), naming the reference where it is
    not mpi."""
    parts = []
    for method, ratio in d.ratios[algorithm].items():
        reference = d.references[method][1]
        parts.append(f"{method} {ratio:.2f}x"
                     + ("" if reference == REFERENCE else f" {reference_text(reference)}")
                     + f" margin {d.margins[method] * 100:.1f}%")
    return f"({', '.join(parts)})"


def over_mpi(d, count, size, algorithm):
    """", 1.50x over mpi" where the best reference was another (smpi:NAME)."""
    if all(ref[1] == REFERENCE for ref in d.references.values()):
        return ""
    times = [(count.at(m, size).get(REFERENCE), count.at(m, size)[algorithm])
             for m in d.ratios[algorithm]]
    if not all(mpi for mpi, _ in times):
        return ""
    return f", {min(mpi.seconds / mine.seconds for mpi, mine in times):.2f}x over mpi"


def evidence(size, d, count):
    """One size's evidence in a rule's comment."""
    if d.winner == REFERENCE:
        if not d.runner_up:
            return f"{size_text(size)}: no leancast candidate measured"
        name, ratio = d.runner_up
        return (f"{size_text(size)}: best leancast {name} {ratio:.2f}x "
                f"{speedups_text(d, name)}{over_mpi(d, count, size, name)}")
    references = {ref[1] for ref in d.references.values()}
    over = reference_text(references.pop()) if len(references) == 1 else "the best reference"
    text = (f"{size_text(size)}: {d.worst(d.winner):.2f}x over {over} "
            f"{speedups_text(d, d.winner)}{over_mpi(d, count, size, d.winner)}")
    name, ratio = d.runner_up
    text += f"; next {name} {ratio:.2f}x"
    if d.messages:
        others = [f"{a} {'?' if n is None else n}" for a, n in d.messages.items() if a != d.winner]
        text += (f"; tied, messages at the busiest rank {d.messages[d.winner]} against "
                 f"{', '.join(others)}")
    return text


def range_text(low, high, sized):
    show = size_text if sized else str
    if low == 0 and high is None:
        return "*"
    if low == high:
        return show(low)
    if high is None:
        return f"{show(low)}-"
    return f"{show(low)}-{show(high)}"


def rules_for(count, grid, decisions, procs_text, ppn_text, library):
    """One rule per run of neighbouring grid sizes with the same winner; a size without a
    decision (not measured) has no rule, so auto runs mpi there. The rules start at the
    smallest measured size: below it nothing was measured, so auto runs mpi there too (at
    P = 2, shm measured 2.5x MPI_Bcast at 1 KiB and 0.32x at 8 B, paper method)."""
    lines, bounds, i = [], ranges(grid), 0
    conditions = f"{library_condition(count.env, library)}{configured_conditions(count.runs)}"
    if grid:
        bounds[0] = (grid[0], bounds[0][1])
    while i < len(grid):
        if decisions.get(grid[i]) is None:
            i += 1
            continue
        j = i
        while (j + 1 < len(grid) and decisions.get(grid[j + 1]) is not None
               and decisions[grid[j + 1]].winner == decisions[grid[i]].winner):
            j += 1
        low, high = bounds[i][0], bounds[j][1]
        notes = " | ".join(evidence(s, decisions[s], count) for s in grid[i:j + 1])
        lines.append((f"procs={procs_text} ppn={ppn_text} {conditions}{range_text(low, high, True)}",
                      decisions[grid[i]].winner, notes))
        i = j + 1
    return lines


def library_condition(env, claimed):
    """"library=NAME " for the MPI library the runs measured (rules with it apply only in a
    leancast built for that library), or "" where it is not one leancast builds for;
    `claimed` (--library) overrides it."""
    if claimed:
        return "" if claimed == "any" else f"library={claimed} "
    text = env.get("mpi_library", "")
    for name, marks in (("smpi", ("SMPI", "SimGrid")), ("openmpi", ("Open MPI",)),
                        ("mpich", ("MPICH",))):
        if any(text.startswith(m) or m in text for m in marks):
            return f"library={name} "
    return ""


def configuration(runs):
    """The variables that configured the library's broadcast in the runs ("NAME=VALUE", as
    leancast read them: their JSON's environment.library_configuration), the same in each."""
    seen = {tuple(r["environment"].get("library_configuration") or ()) for r in runs}
    if len(seen) > 1:
        sys.exit("leancast-tune: the runs configured the library's broadcast differently: "
                 + "; ".join(" ".join(c) or "(defaults)" for c in sorted(seen)))
    found = next(iter(seen), ())
    for setting in found:
        if any(c in setting for c in " \t,;:#"):
            sys.exit(f"leancast-tune: {setting} cannot be a rule's configured= condition "
                     "(blank, ',', ';', ':' or '#' in it)")
    return found


def configured_conditions(runs):
    """"configured=NAME=VALUE " for each variable that configured the library's broadcast
    in the runs: auto follows such rules only under that configuration, and rules without
    them only under the library's defaults (docs/auto.md)."""
    return "".join(f"configured={setting} " for setting in configuration(runs))


def stamp(env, counts):
    """What produced the measurements: leancast's commit (each count's, where they differ),
    the executor, the library, when (the first count's)."""
    executor = env.get("executor") or "dataflow:1 (leancast's default)"
    revisions = {}  # commit(s) -> the counts measured with them
    for procs in sorted(counts):
        made = "+".join(dict.fromkeys(r["environment"].get("git_revision", "?")
                                      for r in counts[procs].runs))
        revisions.setdefault(made, []).append(str(procs))
    commits = (next(iter(revisions)) if len(revisions) == 1 else
               ", ".join(f"{made} (P={','.join(p)})" for made, p in revisions.items()))
    return (f"# produced by leancast {commits}, executor {executor} unless a "
            f"rule names one after @, {env.get('mpi_library', '?')}, {env.get('date', '?')}")


def machine_text(run):
    """The machine a real run measured, as far as its JSON tells: CPU, cores, host kind and
    last-level cache (VMs of one CPU name differ there: 8 MiB on one here, 508 MiB on
    another)."""
    env = run["environment"]
    hosts = env.get("hosts") or []
    text = (f"{env.get('cpu_model') or 'CPU unknown'}, {env.get('cores', '?')} cores on rank 0's "
            f"host{' (' + hosts[0] + ')' if hosts else ''}")
    cache = run.get("last_level_cache_bytes")
    return text + (f", last-level cache {size_text(cache)}" if cache else "")


def header(options, argv, counts, extra, order, messages):
    """The comment lines above the rules: the machine or platform, the library, every
    command, what was left out for time, and how the rules were decided."""
    first = counts[min(counts)].env
    platform = first.get("platform")
    methods = extra.get("methods") or options.methods
    lines = [f"# leancast-tune, {first.get('date', '')[:10]}: "
             f"{'simulated on ' + platform if platform else 'real MPI'}, "
             f"{first.get('mpi_library', '')}".rstrip(", ")]
    if platform:
        refs = [reference_text(c) for c in order if is_reference(c)]
        lines.append(f"# the library's broadcast: {', '.join(refs)} (mpi: SMPI's default; "
                     "smpi:NAME: SMPI's copy of a library's broadcast"
                     + ("; A for smpi:NAME: leancast's A simulated in its place, taking its "
                        "time" if STAND_INS else "") + ")")
        if EMULATED_REFERENCES:
            lines.append("# re-implementations of what the library runs, candidates that win "
                         f"ties: {', '.join(sorted(EMULATED_REFERENCES))}")
    else:
        machines = list(dict.fromkeys(machine_text(run) for procs in sorted(counts)
                                      for run in counts[procs].runs))
        configured = configuration([r for c in counts.values() for r in c.runs])
        broadcast = "mpi" + (f", configured by {' '.join(configured)}" if configured else "")
        if len(machines) == 1:
            lines.append(f"# machine: {machines[0]}; the library's broadcast: {broadcast}")
        else:  # runs from several machines: a rule holds on each (auto-table.sh's KEEP_RUNS)
            lines.append(f"# machines: {'; '.join(machines)}; the library's broadcast: {broadcast}")
    lines.append(stamp(first, counts))
    lines.append(f"#   leancast-tune {shown_command(argv)}")
    for command in options.measured_by if options.from_json else []:
        lines.append(f"#   measured by: {shown_command(command)}")
    if extra.get("elapsed_seconds") is not None:
        lines.append(f"#   took {duration_text(extra['elapsed_seconds'])}"
                     + (f" (budget {extra['budget_minutes']:g} min)"
                        if extra.get("budget_minutes") else "")
                     + (f" (budget {extra['budget_cells']} cells)"
                        if extra.get("budget_cells") else ""))
    for procs in sorted(counts):
        for run in counts[procs].runs:
            command = run.get("tune_command", run["options"].get("command_line", []))
            lines.append(f"#   P={procs} {run['method']}: {shown_command(command)}")
    for procs, sizes in (extra.get("not_measured") or {}).items():
        lines.append(f"# not measured for time at P={procs}: "
                     f"{', '.join(size_text(s) for s in sizes)} (no rule: auto runs mpi)")
    described = "; ".join(f"{m}: {METHOD_TEXT[m]}" for m in methods)
    lines += [
        f"# Methods: {', '.join(methods)} ({described}). A leancast",
        "# candidate wins a size only where it beats the library's broadcast by more than the "
        "tie margin",
        "# under every method (ranked by its worst speedup); otherwise the rule says mpi. "
        "Margin: the larger",
        f"# of {options.tie:g} and the median over the cells at that size and method of their "
        "repetitions'",
        "# (Q3 - Q1) / median (with fewer than 5 repetitions: (max - min) / median).",
        "# Ties between leancast candidates"
        + ("" if options.tie_break is None else f" (within {options.tie_break:g} of the fastest)")
        + ": a re-implementation of the library's broadcast first, then",
        "# fewest messages at the busiest rank, then the order listed.",
        "# Evidence per measured size: the winner's speedup over the library (time of mpi / "
        "time), per method,",
        "# and the runner-up; for mpi rules, the best leancast candidate's speedup (below "
        "1 + margin).",
    ]
    if messages.missing:
        lines.append("# (message counts unavailable: no leancast-plan; ties went to the order "
                     "listed)")
    return lines


def body(options, counts, extra, order, messages):
    """The rules, one comment line per process count before its rules."""
    procs_list, bounds, grid = claims(counts, options.cover)
    lines = []
    for procs, (low, high) in zip(procs_list, bounds):
        count = counts[procs]
        env = count.env
        ppn = env.get("ranks_per_node") or procs
        nodes = env.get("nodes", 1)
        procs_text = "*" if (low, high) == (1, None) else range_text(low, high, False)
        # --site or a simulation on one node: the rules claim one node (ppn = the procs range).
        one_node = (options.site or bool(env.get("platform"))) and nodes == 1 and procs_text != "*"
        ppn_text = options.ppn or (procs_text if one_node else str(ppn))
        methods = methods_of(count, extra.get("methods"))
        lines.append(f"# P={procs}, {nodes} node(s) of up to {ppn} ranks; "
                     f"{describe_timing(count)}")
        missing = [m for m in extra.get("methods") or [] if m in METHODS and m not in methods]
        if missing:
            lines.append(f"# P={procs}: not measured under {', '.join(missing)}; its rules rest "
                         f"on {', '.join(methods)} alone")
        decisions = {s: decide(count, s, methods, options, order, messages) for s in grid}
        for condition, algorithm, notes in rules_for(count, grid, decisions, procs_text, ppn_text,
                                                      options.library):
            lines.append(f"{condition:<46} : {algorithm:<36} # {notes}")
    return lines


def describe_timing(count):
    """iterations and repetitions of the runs at one count."""
    parts = []
    for run in count.runs:
        o = run["options"]
        parts.append(f"{run['method']} {size_text(min(o['sizes']))}-{size_text(max(o['sizes']))}"
                     f" x{o['iterations']} r{o['reps']}")
    return "iterations x, repetitions r: " + ", ".join(parts)


def write_rules(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_json(path, argv, fields, extra, runs):
    """The --json record: the command, `fields` (the mode, the candidates, the tie margin),
    what the measuring said (`extra`, which may override a field) and every run; what
    --from-json reads back."""
    saved = {"command": ["leancast-tune"] + [shown(a) for a in argv], **fields, **extra,
             "runs": runs}
    with open(path, "w") as f:
        json.dump(saved, f, indent=1)
        f.write("\n")
