"""leancast-tune's main: measure (or read --from-json), decide, write the files."""
import sys
import tempfile
import time

from .choosing import complete, measure_predicted, measured_times, ranks_per_node
from .common import REFERENCE, STAND_INS, find_tool
from .deciding import check_references, group_runs, library_decisions
from .exporting import body, header, library_condition, write_json, write_rules
from .exporting_library import library_evidence, write_mpich_json, write_ompi_rules
from .exporting_predicted import predicted_body, predicted_header, predicted_library_decisions
from .measuring import Messages, measure_fixed, measure_library, measure_site
from .options import parse_args
from .predicting import Features, Predictor


def library_main(options, argv, start):
    """--library-algorithms: the library's own algorithms measured, its tuning file written."""
    if options.from_json:
        runs = options.saved["runs"]
        extra = {k: options.saved.get(k) for k in ("library_failed", "predict")}
    else:
        with tempfile.TemporaryDirectory(prefix="leancast-tune-") as tmp:
            measure = measure_predicted if options.predict else measure_library
            runs, extra = measure(options, tmp, start)
        extra["elapsed_seconds"] = round(time.monotonic() - start, 1)
        extra["budget_cells"] = options.budget_cells
    runs = [r for r in runs if r]
    if not runs:
        sys.exit("leancast-tune: nothing was measured")
    order = list(dict.fromkeys([REFERENCE] + list(options.candidates)))
    counts = group_runs(runs)
    check_references(counts)
    measured = library_condition(counts[min(counts)].env, None).strip()
    if measured and measured != f"library={options.library_kind}":
        sys.exit(f"leancast-tune: the runs measured {counts[min(counts)].env.get('mpi_library')}"
                 f", not the library whose file was asked for ({options.library_kind})")
    options.saved_methods = (options.saved or {}).get("methods") or options.methods
    notes = []
    if options.predict:
        predictor = fitted(options, runs, order, options.saved_methods)
        chosen, grid = predicted_library_decisions(options, counts, runs, predictor, order,
                                                   library_evidence)
        notes = [line[2:] for line in predicted_header(options, predictor, extra)]
    else:
        chosen, grid = library_decisions(options, counts, order)
    writer = write_ompi_rules if options.library_kind == "openmpi" else write_mpich_json
    lines = writer(options.out_ompi_rules or options.out_mpich_json, options, argv, counts,
                   extra, chosen, grid, notes)
    print("\n".join(lines))
    if options.json and not options.from_json:
        write_json(options.json, argv, {"library_algorithms": True, "candidates": order,
                                        "tie": options.tie, "methods": options.methods},
                   extra, runs)
    return 0


def fitted(options, runs, order, methods):
    """--predict's predictor fitted on the measured cells, validated."""
    features = Features(find_tool("leancast-plan", options.plan))
    ppn = ranks_per_node(options, runs)
    predictor = Predictor(complete(measured_times(runs), methods),
                          lambda a, p, s: features(a, p, s, ppn), order, methods, options.tie)
    predictor.validate()
    return predictor


def predicted_rules(options, counts, runs, extra, order, messages):
    """--predict: the header lines it adds and every cell's rule, measured or predicted."""
    options.methods = extra.get("methods") or options.methods
    predictor = fitted(options, runs, order, options.methods)
    return (predicted_header(options, predictor, extra)
            + predicted_body(options, counts, runs, predictor, extra, order, messages))


def main(argv):
    """Measure (or read --from-json), decide per process count and size, write the rules."""
    options = parse_args(argv)
    start = time.monotonic()
    if options.library_algorithms:
        return library_main(options, argv, start)
    extra = {}
    if options.from_json:
        runs = options.saved["runs"]
        extra = {k: options.saved.get(k)
                 for k in ("methods", "not_measured", "elapsed_seconds", "budget_minutes",
                           "budget_cells", "predict")}
    else:
        with tempfile.TemporaryDirectory(prefix="leancast-tune-") as tmp:
            measure = measure_predicted if options.predict else \
                measure_site if options.site else measure_fixed
            runs, extra = measure(options, tmp, start)
        runs = [r for r in runs if r]
        extra["elapsed_seconds"] = round(time.monotonic() - start, 1)
        extra["methods"] = options.methods
        extra["budget_minutes"] = options.budget_minutes
        extra["budget_cells"] = getattr(options, "budget_cells", None)
    if not runs:
        sys.exit("leancast-tune: nothing was measured")
    order = extra.get("candidates") or options.candidates
    order = list(dict.fromkeys([REFERENCE] + list(order)))
    counts = group_runs(runs)
    check_references(counts)
    messages = Messages(find_tool("leancast-plan", options.plan))
    if options.predict:
        rules = predicted_rules(options, counts, runs, extra, order, messages)
    else:
        rules = body(options, counts, extra, order, messages)
    lines = header(options, argv, counts, extra, order, messages) + rules
    write_rules(options.out, lines)
    print("\n".join(lines))
    if options.json and not options.from_json:
        write_json(options.json, argv, {"site": options.site, "predict": extra.get("predict"),
                                        "candidates": order,
                                        "tie": options.tie, "stand_ins": dict(STAND_INS)},
                   extra, runs)
    return 0
