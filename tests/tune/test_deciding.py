"""leancast-tune's deciding module (tools/tune/leancast_tune/deciding.py) on synthetic
measurements: the margin from the repetitions' spread, a winner only beyond it under every
method, the best reference, ties broken by a re-implementation of the library's broadcast,
then messages, then the order listed, and the boundaries halfway between measured points.

Usage: test_deciding.py
"""
import unittest

from tune_package import K, M, bench_run, options

from leancast_tune import deciding  # noqa: E402  (tune_package puts it on the path)
from leancast_tune.common import EMULATED_REFERENCES  # noqa: E402


def count_of(times_by_method, procs=4, **kwargs):
    """One Count from {method: {(algorithm, bytes): seconds}}."""
    runs = [bench_run(procs, method, times, **kwargs) for method, times in times_by_method.items()]
    return deciding.group_runs(runs)[procs]


def both(times):
    return {"paper": times, "osu": times}


def no_messages(*args):
    return None


def decide(count, size, order, messages=no_messages, methods=("paper", "osu"), **given):
    return deciding.decide(count, size, list(methods), options(**given), order, messages)


class Spread(unittest.TestCase):
    def test_quartiles_with_five_repetitions_or_more(self):
        # One repetition 5x slower sets max - min (400 %), not the quartiles (0 %).
        run = bench_run(2, "paper", {("mpi", K): 1e-6}, reps=[1, 1, 1, 1, 5])
        self.assertAlmostEqual(deciding.relative_spread(run["results"][0]), 0.0)
        run = bench_run(2, "paper", {("mpi", K): 1e-6}, reps=[0.9, 1, 1, 1.1, 5])
        self.assertAlmostEqual(deciding.relative_spread(run["results"][0]), 0.1)
        run = bench_run(2, "paper", {("mpi", K): 1e-6}, reps=[0.8, 0.9, 1, 1.1, 1.2])
        self.assertAlmostEqual(deciding.relative_spread(run["results"][0]), 0.2)

    def test_max_minus_min_with_fewer(self):
        run = bench_run(2, "paper", {("mpi", K): 1e-6}, spread=0.3)
        self.assertAlmostEqual(deciding.relative_spread(run["results"][0]), 0.3)
        run = bench_run(2, "paper", {("mpi", K): 1e-6}, reps=[0.5, 1.0, 1.5])
        self.assertAlmostEqual(deciding.relative_spread(run["results"][0]), 1.0)

    def test_bad_data_is_not_compared(self):
        run = bench_run(2, "paper", {("mpi", K): 1e-6, ("linear", K): 1e-7})
        run["results"][1]["data_ok"] = False
        count = deciding.group_runs([run])[2]
        self.assertEqual(set(count.at("paper", K)), {"mpi"})
        self.assertIn(("paper", K, "linear"), count.cells)


class Winner(unittest.TestCase):
    def tearDown(self):
        EMULATED_REFERENCES.clear()

    def test_beyond_the_margin_under_every_method_or_mpi(self):
        count = count_of({
            "paper": {("mpi", K): 1e-6, ("binomial", K): 0.5e-6,
                      ("mpi", 64 * K): 1e-5, ("binomial", 64 * K): 0.99e-5,
                      ("mpi", M): 1e-3, ("binomial", M): 0.5e-3},
            "osu": {("mpi", K): 1e-6, ("binomial", K): 0.8e-6,
                    ("mpi", 64 * K): 1e-5, ("binomial", 64 * K): 0.99e-5,
                    ("mpi", M): 1e-3, ("binomial", M): 1.2e-3}})
        order = ["mpi", "binomial"]
        d = decide(count, K, order)
        self.assertEqual(d.winner, "binomial")
        self.assertAlmostEqual(d.worst("binomial"), 1.25)  # the worse method counts
        self.assertEqual(d.runner_up, ("mpi", 1.0))
        for method in ("paper", "osu"):  # the spread, larger than --tie
            self.assertAlmostEqual(d.margins[method], 0.02)
        d = decide(count, 64 * K, order)  # 1 % faster, inside the 2 % margin
        self.assertEqual(d.winner, "mpi")
        self.assertEqual(d.runner_up[0], "binomial")
        self.assertEqual(decide(count, M, order).winner, "mpi")  # 2x under paper only
        self.assertEqual(decide(count, M, order, methods=("paper",)).winner, "binomial")
        # A larger --tie than the spread is the margin.
        self.assertEqual(decide(count, K, order, tie=0.3).winner, "mpi")

    def test_the_best_reference_is_the_one_to_beat(self):
        count = count_of(both({("mpi", K): 1e-6, ("smpi:mpich", K): 0.8e-6,
                               ("binomial", K): 0.79e-6,
                               ("mpi", M): 1e-3, ("smpi:mpich", M): 0.8e-3,
                               ("binomial", M): 0.5e-3}))
        order = ["mpi", "smpi:mpich", "binomial"]
        d = decide(count, K, order)
        self.assertEqual(d.winner, "mpi")  # 1.27x over mpi, 1.01x over smpi:mpich
        self.assertEqual(d.references["paper"], (0.8e-6, "smpi:mpich"))
        d = decide(count, M, order)
        self.assertEqual(d.winner, "binomial")
        self.assertAlmostEqual(d.worst("binomial"), 1.6)
        self.assertNotIn("smpi:mpich", d.ratios)  # a reference is never a candidate

    def test_ties_go_to_fewer_messages_then_the_order_listed(self):
        count = count_of(both({("mpi", K): 10e-6, ("linear", K): 5.0e-6,
                               ("binomial", K): 5.05e-6, ("knomial:4", K): 8e-6}), procs=8)
        order = ["mpi", "linear", "binomial", "knomial:4"]
        asked = []

        def messages(algorithm, procs, size, env):
            asked.append((algorithm, procs, size))
            return {"linear": 7, "binomial": 3}.get(algorithm)

        d = decide(count, K, order, messages)
        self.assertEqual(d.winner, "binomial")
        self.assertEqual(d.messages, {"linear": 7, "binomial": 3})
        self.assertEqual(sorted(asked), [("binomial", 8, K), ("linear", 8, K)])  # tied only
        self.assertEqual(d.runner_up[0], "linear")
        # Without message counts the order listed decides.
        self.assertEqual(decide(count, K, order).winner, "linear")
        self.assertEqual(decide(count, K, ["mpi", "binomial", "linear"]).winner, "binomial")
        # A clear lead is not a tie: no messages asked.
        count = count_of(both({("mpi", K): 10e-6, ("linear", K): 3e-6, ("binomial", K): 6e-6}))
        d = decide(count, K, ["mpi", "linear", "binomial"], messages)
        self.assertEqual((d.winner, d.messages), ("linear", {}))

    def test_tie_break_narrows_the_window(self):
        # 6 % apart: tied within a 10 % margin (fewer messages wins), not within 5 %.
        count = count_of(both({("mpi", K): 10e-6, ("linear", K): 5.0e-6,
                               ("binomial", K): 5.3e-6}), procs=8)
        order = ["mpi", "linear", "binomial"]
        messages = lambda a, *rest: {"linear": 7, "binomial": 3}.get(a)
        self.assertEqual(decide(count, K, order, messages, tie=0.1).winner, "binomial")
        d = decide(count, K, order, messages, tie=0.1, tie_break=0.05)
        self.assertEqual((d.winner, d.messages), ("linear", {}))
        self.assertEqual(decide(count, K, order, messages, tie=0.1, tie_break=0.07).winner,
                         "binomial")

    def test_a_re_implementation_of_the_library_wins_a_tie(self):
        count = count_of(both({("mpi", K): 10e-6, ("linear", K): 5.0e-6,
                               ("binomial", K): 5.05e-6}))
        order = ["mpi", "linear", "binomial"]
        counts = {"linear": 7, "binomial": 3}.get
        self.assertEqual(decide(count, K, order, lambda a, *_: counts(a)).winner, "binomial")
        EMULATED_REFERENCES.add("linear")
        self.assertEqual(decide(count, K, order, lambda a, *_: counts(a)).winner, "linear")

    def test_excluded_candidates_are_never_chosen(self):
        count = count_of(both({("mpi", K): 1e-6, ("binomial", K): 0.5e-6,
                               ("binomial@rounds", K): 0.4e-6, ("linear", K): 0.8e-6}))
        order = ["mpi", "binomial", "binomial@rounds", "linear"]
        self.assertEqual(decide(count, K, order).winner, "binomial@rounds")
        d = decide(count, K, order, exclude={"binomial"})
        self.assertEqual(d.winner, "linear")
        self.assertEqual(set(d.ratios), {"linear"})

    def test_no_reference_no_decision(self):
        count = count_of({"paper": {("mpi", K): 1e-6, ("linear", K): 0.5e-6},
                          "osu": {("linear", K): 0.5e-6}})
        self.assertIsNone(decide(count, K, ["mpi", "linear"]))
        self.assertIsNone(decide(count, 64 * K, ["mpi", "linear"]))  # not measured
        self.assertEqual(decide(count, K, ["mpi", "linear"], methods=("paper",)).winner,
                         "linear")
        without = deciding.group_runs([bench_run(2, "paper", {("linear", K): 1e-6})])
        with self.assertRaises(SystemExit) as stop:
            deciding.check_references(without)
        self.assertIn("P=2: no reference measured", str(stop.exception))
        deciding.check_references(deciding.group_runs([bench_run(2, "paper",
                                                                 {("smpi:ompi", K): 1e-6})]))


class Boundaries(unittest.TestCase):
    def test_halfway_geometrically(self):
        self.assertEqual(deciding.midpoint(K, 64 * K), 8 * K)
        self.assertEqual(deciding.midpoint(2, 8), 4)
        self.assertEqual(deciding.midpoint(1, 2), 2)   # always above the lower point
        self.assertEqual(deciding.midpoint(0, 16), 4)  # 0 counts as 1
        self.assertEqual(deciding.ranges([2, 4, 8]), [(0, 2), (3, 5), (6, None)])
        self.assertEqual(deciding.ranges([5]), [(0, None)])
        self.assertEqual(deciding.ranges([]), [])

    def test_claims_end_at_the_cover(self):
        runs = [bench_run(p, "paper", {("mpi", s): 1e-6 for s in (64 * K, K)}) for p in (8, 2)]
        counts = deciding.group_runs(runs)
        self.assertEqual(deciding.claims(counts, (1, None)),
                         ([2, 8], [(1, 3), (4, None)], [K, 64 * K]))
        self.assertEqual(deciding.claims(counts, (2, 16))[1], [(2, 3), (4, 16)])

    def test_methods_of(self):
        count = count_of({"osu": {("mpi", K): 1e-6}, "paper": {("mpi", K): 1e-6}})
        self.assertEqual(deciding.methods_of(count, None), ["osu", "paper"])
        self.assertEqual(deciding.methods_of(count, ["paper", "other"]), ["paper"])

    def test_a_method_run_again_is_a_timing_of_its_own(self):
        # Two tuning runs together: binomial wins by 2x in the first and loses in the second
        # (paper), so it wins nowhere; linear wins in both.
        first = {("mpi", K): 1e-6, ("binomial", K): 0.5e-6, ("linear", K): 0.7e-6}
        second = {("mpi", K): 1e-6, ("binomial", K): 1.5e-6, ("linear", K): 0.8e-6}
        runs = [bench_run(2, method, times) for times in (first, second)
                for method in ("paper", "osu")]
        count = deciding.group_runs(runs)[2]
        timings = deciding.methods_of(count, ["paper", "osu"])
        self.assertEqual(timings, ["paper", "paper#2", "osu", "osu#2"])
        d = deciding.decide(count, K, timings, options(), ["mpi", "binomial", "linear"],
                            no_messages)
        self.assertEqual(d.winner, "linear")
        self.assertAlmostEqual(d.worst("linear"), 1.25)
        self.assertAlmostEqual(d.worst("binomial"), 1 / 1.5)

    def test_size_groups_of_one_run_are_one_timing(self):
        # One tuning run times its sizes in groups (a run per group and method): each size
        # is measured once, so no repeat; a second run's group repeats only its own sizes.
        runs = [bench_run(2, "paper", {("mpi", K): 1e-6, ("linear", K): 0.5e-6}),
                bench_run(2, "paper", {("mpi", M): 1e-3, ("linear", M): 0.5e-3}),
                bench_run(2, "paper", {("mpi", M): 1e-3, ("linear", M): 2e-3})]
        count = deciding.group_runs(runs)[2]
        timings = deciding.methods_of(count, ["paper"])
        self.assertEqual(timings, ["paper", "paper#2"])
        order = ["mpi", "linear"]
        d = deciding.decide(count, K, timings, options(), order, no_messages)
        self.assertEqual((d.winner, list(d.margins)), ("linear", ["paper"]))
        d = deciding.decide(count, M, timings, options(), order, no_messages)
        self.assertEqual((d.winner, list(d.margins)), ("mpi", ["paper", "paper#2"]))

    def test_size_runs_join_neighbours_with_one_winner(self):
        grid = [K, 4 * K, 64 * K, M]
        win = deciding.Decision("ompi:3", {}, {}, {})
        keep = deciding.Decision("mpi", {}, {}, {})
        runs = deciding.size_runs(grid, {K: keep, 64 * K: win, M: win})
        self.assertEqual([(low, high, winner, [s for s, _ in sizes])
                          for low, high, winner, sizes in runs],
                         [(0, 16 * K - 1, "mpi", [K, 4 * K]),
                          (16 * K, None, "ompi:3", [64 * K, M])])
        self.assertIsNone(runs[0][3][1][1])  # 4K: not measured, the default's

    def test_library_decisions_per_count(self):
        runs = [bench_run(p, m, {("mpi", K): 1e-6, ("ompi:1", K): 0.5e-6, ("ompi:6", K): 0.5e-6})
                for p in (2, 4) for m in ("paper", "osu")]
        chosen, grid = deciding.library_decisions(options(cover=(1, 8)),
                                                  deciding.group_runs(runs),
                                                  ["mpi", "ompi:6", "ompi:1"])
        self.assertEqual(grid, [K])
        self.assertEqual([(p, bound, d[K].winner) for p, bound, d in chosen],
                         [(2, (1, 2), "ompi:6"), (4, (3, 8), "ompi:6")])  # tie: order listed


if __name__ == "__main__":
    unittest.main()
