"""--predict's rules: one per run of sizes with the same winner at each process count of
the grid, measured or not; each size's evidence says whether it was measured (deciding.py
decided it, as without --predict) or predicted (predicting.py), and for a prediction its
lead over the library's broadcast, its margin to the runner-up and the validation error
(Predictor.error_at). Each candidate's predicted lead is divided by 1 + its error, and the
rule is the candidate whose lead so reduced is largest where it still clears the tie margin,
else mpi: a prediction is trusted only as far as the predictions of its kind (interpolated
or extrapolated, of that candidate) held at the measured cells. With
--library-algorithms the same choice per size feeds the library's file
(predicted_library_decisions), a forced algorithm in place of a leancast one."""
import math

from .choosing import complete, measured_times, ranks_per_node
from .common import REFERENCE, size_text
from .deciding import Chosen, decide, methods_of, ranges
from .exporting import configured_conditions, evidence, library_condition, range_text
from .library import is_library


def percent(x):
    return "inf" if math.isinf(x) else f"{x * 100:.1f}%"


def predicted_choice(predictor, procs, size):
    """(winner, evidence) of an unmeasured cell; None where nothing could be fitted. Each
    leancast candidate's predicted lead is taken at its lower bound, divided by 1 + its
    validation error (Predictor.error_at): the rule is the candidate whose bound is largest,
    where that bound still clears the tie margin a measured winner must clear; else mpi."""
    prediction = predictor.predict(procs, size)
    if not any(prediction.times.values()):
        return None
    tie = predictor.tie
    # Each candidate that leads beyond the margin as predicted, with its own error.
    errors = {a: predictor.error_at(procs, size, a)
              for a, lead in prediction.lead.items() if lead > 1 + tie}
    bounds = {a: prediction.lead[a] / (1 + error) for a, error in errors.items()}
    cleared = [a for a, bound in bounds.items() if bound > 1 + tie]
    head = f"{size_text(size)}: predicted"
    if cleared:
        winner = max(cleared, key=lambda a: (bounds[a], a))
        lead = prediction.lead[winner]
        margin = lead / max([l for a, l in prediction.lead.items() if a != winner] + [1.0]) - 1
        text = (f"{head} {winner} lead {percent(lead - 1)} over mpi, margin {percent(margin)} "
                f"to the next, validation error {percent(errors[winner])}")
        if winner != prediction.winner:
            text += (f" ({prediction.winner}: lead {percent(prediction.over_reference)}, "
                     f"error {percent(errors[prediction.winner])})")
        return winner, text
    if prediction.winner != REFERENCE:
        winner, lead = prediction.winner, prediction.over_reference
        return REFERENCE, (f"{head} {winner} lead {percent(lead)} over mpi, margin "
                           f"{percent(prediction.margin)} to the next, validation error "
                           f"{percent(errors[winner])}: within it, so mpi")
    best = max(prediction.lead, key=lambda a: (prediction.lead[a], a), default=None)
    if best is None:
        return REFERENCE, f"{head} mpi (no leancast candidate fitted)"
    kind = "candidate" if is_library(best) else "leancast"
    error = predictor.error_at(procs, size)
    return REFERENCE, (f"{head} mpi, margin {percent(prediction.margin)} over the best "
                       f"{kind} {best}, validation error {percent(error)}")


def cell_choice(predictor, measured, count, procs, size, decided):
    """(winner, evidence) at one cell of the grid: where it was measured, `decided(size)` of
    its count's measurements, the evidence saying so; else the prediction (None where
    nothing could be fitted)."""
    if (procs, size) in measured and count is not None:
        winner, text = decided(size)
        return winner, text.replace(": ", ": measured, ", 1)
    return predicted_choice(predictor, procs, size)


def grid_bounds(options):
    """The grid's process counts and the range each claims (the ends: --procs-cover)."""
    procs_list = list(options.procs)
    bounds = ranges(procs_list)
    bounds[0] = (options.cover[0], bounds[0][1])
    bounds[-1] = (bounds[-1][0], options.cover[1])
    return procs_list, bounds


def predicted_library_decisions(options, counts, runs, predictor, order, evidence_of):
    """--library-algorithms --predict: [(procs, (low, high), {bytes: Chosen})] over the
    whole grid, each size measured (decided as without --predict, evidence_of(size,
    Decision) its text) or predicted, and the sizes."""
    procs_list, bounds = grid_bounds(options)
    measured = complete(measured_times(runs), options.saved_methods)
    no_messages = lambda *args: None  # the library's algorithms: ties go to the order listed
    out = []
    for procs, bound in zip(procs_list, bounds):
        count = counts.get(procs)

        def decided(size):
            d = decide(count, size, methods_of(count, options.saved_methods), options, order,
                       no_messages)
            return (d.winner if d else REFERENCE), evidence_of(size, d)

        choices = {s: cell_choice(predictor, measured, count, procs, s, decided)
                   for s in options.sizes}
        out.append((procs, bound, {s: c and Chosen(*c) for s, c in choices.items()}))
    return out, list(options.sizes)


def predicted_body(options, counts, runs, predictor, extra, order, messages):
    """The rules: every (process count, size) of the grid, measured or predicted."""
    procs_list, bounds = grid_bounds(options)
    sizes = list(options.sizes)
    measured = complete(measured_times(runs), options.methods)
    any_count = counts[min(counts)]
    conditions = (f"{library_condition(any_count.env, options.library)}"
                  f"{configured_conditions(any_count.runs)}")
    size_bounds = ranges(sizes)
    size_bounds[0] = (sizes[0], size_bounds[0][1])  # below the smallest size: mpi
    layout = ranks_per_node(options, runs)
    lines = []
    for procs, (low, high) in zip(procs_list, bounds):
        # Ranks a node: --sim's or the runs' across nodes, else as measured at this count,
        # else one node (--site).
        measured_ppn = counts[procs].env.get("ranks_per_node") if procs in counts else None
        ppn = min(procs, layout or measured_ppn or procs)
        nodes = math.ceil(procs / ppn)
        procs_text = "*" if (low, high) == (1, None) else range_text(low, high, False)
        one_node = nodes == 1 and procs_text != "*"
        ppn_text = options.ppn or (procs_text if one_node else str(ppn))
        count = counts.get(procs)

        def decided(size):
            d = decide(count, size, methods_of(count, extra.get("methods") or options.methods),
                       options, order, messages)
            return d.winner, evidence(size, d, count)

        # per size: (winner, evidence) or None
        chosen = [cell_choice(predictor, measured, count, procs, s, decided) for s in sizes]
        told = sum(1 for s in sizes if (procs, s) in measured)
        lines.append(f"# P={procs}, {nodes} node(s) of up to {ppn} ranks; {told} of "
                     f"{len(sizes)} sizes measured, the rest predicted")
        i = 0
        while i < len(sizes):
            if chosen[i] is None:
                i += 1
                continue
            j = i
            while j + 1 < len(sizes) and chosen[j + 1] and chosen[j + 1][0] == chosen[i][0]:
                j += 1
            condition = (f"procs={procs_text} ppn={ppn_text} {conditions}"
                         f"{range_text(size_bounds[i][0], size_bounds[j][1], True)}")
            notes = " | ".join(c[1] for c in chosen[i:j + 1])
            lines.append(f"{condition:<46} : {chosen[i][0]:<36} # {notes}")
            i = j + 1
    return lines


def predicted_header(options, predictor, extra):
    """What --predict adds above the rules: cells measured, how the rest were predicted,
    and the validation."""
    record = extra.get("predict") or {}
    measured = len(predictor.measured)
    grid = len(options.procs) * len(options.sizes)
    errors = sorted(predictor.errors.values()) if predictor.errors else []
    median = errors[len(errors) // 2] if errors else math.inf
    stop = next((s["stopped"] for s in record.get("steps", []) if "stopped" in s), None)
    return [
        f"# --predict: {measured} of {grid} cells (count, size) measured under every method, "
        f"{grid - measured} predicted" + (f"; stopped: {stop}" if stop else ""),
        "# Predicted: each candidate's time from its schedule's messages (leancast-plan: "
        "critical-path",
        "# messages and bytes, messages at the busiest rank, a node's interface bytes), "
        "coefficients fitted",
        "# per candidate and method on the measured cells. Validation: each measured cell "
        "predicted",
        f"# from the others (leave-one-out), the error in the speedups there: median "
        f"{percent(median)}, worst {percent(errors[-1] if errors else math.inf)}.",
        "# A predicted lead over mpi counts divided by 1 + the worst error of the measured cells "
        "that",
        "# were interpolated from the others, as it is (outside the measured cells' hull: of the "
        "3",
        "# nearest it), the candidate's own where it was predicted to win there; the rule is the",
        "# candidate whose lead so reduced is largest and still beyond the tie margin, else mpi.",
    ]
