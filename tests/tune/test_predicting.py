"""leancast-tune's predictor (tools/tune/leancast_tune/predicting.py) on synthetic cells
made by a known cost model: the non-negative least squares recovers the coefficients, an
unmeasured cell is predicted from them, a fit never has more unknowns than cells, the
predicted winner and margins follow deciding.py's rule, and the leave-one-out error of a
cell is that of a fit without it.

Usage: test_predicting.py
"""
import math
import unittest

from tune_package import K, M

from leancast_tune import predicting  # noqa: E402  (tune_package puts it on the path)

PROCS, SIZES = [2, 4, 8, 16], [K, 16 * K, 256 * K, 4 * M]
METHODS = ["paper"]


def features(algorithm, procs, size):
    """A stand-in for the schedules' features: a tree (binomial) and a pipeline (chain)."""
    depth = math.log2(procs)
    if algorithm == "binomial":
        return {"bytes": size * depth, "rounds": depth, "one": 1.0, "messages": procs - 1.0}
    if algorithm == "chain":
        segments = max(1.0, size / (64 * K))
        return {"bytes": float(size), "rounds": procs + 7.0, "one": 1.0, "messages": 2 * segments}
    return {"bytes": float(size), "rounds": depth, "one": 1.0, "tree_bytes": size * depth}


TRUE = {"binomial": {"bytes": 1e-9, "rounds": 2e-6, "one": 1e-6, "messages": 0.0},
        "chain": {"bytes": 1.2e-9, "rounds": 1e-6, "one": 3e-6, "messages": 2e-7},
        "mpi": {"bytes": 1.5e-9, "rounds": 2.5e-6, "one": 1e-6, "tree_bytes": 0.0}}


def truth(algorithm, procs, size):
    return sum(c * features(algorithm, procs, size).get(n, 0.0)
               for n, c in TRUE[algorithm].items())


def measured_at(cells, noise=None):
    """{(procs, bytes): {"paper": {algorithm: seconds}}}; noise: {(cell, algorithm): factor}."""
    noise = noise or {}
    return {c: {"paper": {a: truth(a, *c) * noise.get((c, a), 1.0) for a in TRUE}}
            for c in cells}


def predictor(cells, **kwargs):
    return predicting.Predictor(measured_at(cells, **kwargs), features, list(TRUE), METHODS)


class Solve(unittest.TestCase):
    def test_recovers_known_coefficients(self):
        rows = [[s, r, 1.0] for s in (1e3, 1e5, 1e7) for r in (1.0, 3.0, 7.0)]
        values = [2e-9 * s + 1e-6 * r + 5e-6 for s, r, _ in rows]
        for got, want in zip(predicting.solve(rows, values), (2e-9, 1e-6, 5e-6)):
            self.assertAlmostEqual(got / want, 1.0, places=6)

    def test_coefficients_are_never_negative(self):
        # The unconstrained fit of t = a x + b would take b < 0; the cost model has none:
        # b = 0 and a the relative least squares of t = a x alone.
        xs, ts = (1.0, 2.0, 3.0), (0.5, 1.9, 3.1)
        got = predicting.solve([[x, 1.0] for x in xs], list(ts))
        self.assertEqual(got[1], 0.0)
        ratios = [x / t for x, t in zip(xs, ts)]
        self.assertAlmostEqual(got[0], sum(ratios) / sum(r * r for r in ratios), places=6)


class Predictor(unittest.TestCase):
    def test_recovers_the_model_and_predicts_an_unmeasured_cell(self):
        cells = [(p, s) for p in PROCS for s in SIZES if (p, s) != (8, 256 * K)]
        fitted = predictor(cells)
        for algorithm in ("binomial", "chain"):
            got = fitted.fits[("paper", algorithm)].coefficients
            for name, want in TRUE[algorithm].items():
                self.assertAlmostEqual(got[name], want, delta=want * 1e-4 + 1e-12,
                                       msg=(algorithm, name))
        times = fitted.times(8, 256 * K)["paper"]
        for algorithm in TRUE:
            self.assertAlmostEqual(times[algorithm] / truth(algorithm, 8, 256 * K), 1.0, places=4)

    def test_fewer_cells_than_features_fit_fewer_unknowns(self):
        fitted = predictor([(4, K), (8, M)])
        self.assertEqual(fitted.fits[("paper", "chain")].names, ["bytes", "rounds"])
        self.assertEqual(predictor([(4, K)]).fits[("paper", "chain")].names, ["bytes"])

    def test_winner_and_margins(self):
        # chain 2x faster than mpi, binomial 1.6x: chain wins, 100 % over mpi, 25 % margin.
        p = predicting.Prediction({"paper": {"mpi": 2.0, "chain": 1.0, "binomial": 1.25},
                                   "osu": {"mpi": 2.0, "chain": 1.0, "binomial": 1.25}}, 0.001)
        self.assertEqual(p.winner, "chain")
        self.assertAlmostEqual(p.over_reference, 1.0)
        self.assertAlmostEqual(p.margin, 0.25)
        # The worse method counts: under osu chain only ties mpi, so binomial (1.6x, 1.25x).
        p = predicting.Prediction({"paper": {"mpi": 2.0, "chain": 1.0, "binomial": 1.25},
                                   "osu": {"mpi": 2.0, "chain": 2.0, "binomial": 1.6}}, 0.001)
        self.assertEqual(p.winner, "binomial")
        self.assertAlmostEqual(p.over_reference, 0.25)
        # Nothing beats mpi: mpi, its margin over the best leancast candidate.
        p = predicting.Prediction({"paper": {"mpi": 1.0, "chain": 1.5, "binomial": 1.25}}, 0.001)
        self.assertEqual((p.winner, p.over_reference), ("mpi", 0.0))
        self.assertAlmostEqual(p.margin, 0.25)


class Validation(unittest.TestCase):
    CELLS = [(p, s) for p in PROCS for s in SIZES]

    def test_an_exact_model_validates_exactly(self):
        fitted = predictor(self.CELLS)
        errors = fitted.validate()
        self.assertEqual(set(errors), set(self.CELLS))
        self.assertLess(max(errors.values()), 1e-4)

    def test_a_cell_the_model_misses_has_its_error_and_every_interpolation_sees_it(self):
        odd = (8, 256 * K)  # measured 1.5x slower for chain than the model says
        fitted = predictor(self.CELLS, noise={(odd, "chain"): 1.5})
        errors = fitted.validate()
        self.assertEqual(max(errors, key=errors.get), odd)
        # The error is that of a fit on the other cells, predicting the one left out.
        rest = {c: v for c, v in fitted.measured.items() if c != odd}
        alone = predicting.Predictor(rest, features, list(TRUE), METHODS).predict(*odd)
        measured = predicting.Prediction(fitted.measured[odd], 0.001)
        first = max(alone.lead, key=alone.lead.get)
        overstated = alone.speedup("paper", first) / measured.speedup("paper", first) - 1
        self.assertAlmostEqual(errors[odd], overstated, places=9)
        self.assertGreater(errors[odd], 0.2)
        self.assertEqual(fitted.error_at(8, 64 * K), errors[odd])  # a step away
        self.assertEqual(fitted.error_at(2, K), errors[odd])       # far from it, inside too
        self.assertLess(fitted.error_at(32, 4 * M), errors[odd])   # outside: its 3 nearest

    def test_a_cell_inside_the_measured_hull_sees_only_interpolated_errors(self):
        # chain measured 1.5x slower than the model at a corner: left out, that corner is
        # extrapolated from the rest and overstates chain's lead there. A cell inside the
        # measured hull is interpolated: the corner's error is not its; one outside the hull
        # is extrapolated as the corner was.
        corner, inner = (16, 4 * M), (8, 4 * M)
        fitted = predictor([c for c in self.CELLS if c != inner], noise={(corner, "chain"): 1.5})
        errors = fitted.validate()
        self.assertEqual(max(errors, key=errors.get), corner)
        self.assertEqual(fitted.inside, {c for c in errors if c not in (corner, (2, K),
                                                                       (2, 4 * M), (16, K))})
        self.assertLess(fitted.error_at(*inner), errors[corner])
        self.assertEqual(fitted.error_at(32, 4 * M), errors[corner])

    def test_within_the_hull_on_log_scales(self):
        square = [(2, K), (2, 4 * M), (16, K), (16, 4 * M)]
        self.assertTrue(predicting.within((4, 16 * K), square))
        self.assertTrue(predicting.within((16, 16 * K), square))  # on an edge
        self.assertFalse(predicting.within((32, 16 * K), square))
        triangle = square[:3]  # without (16, 4M): the diagonal bounds it
        self.assertTrue(predicting.within((4, 16 * K), triangle))
        self.assertFalse(predicting.within((16, 256 * K), triangle))
        line = [(4, K), (4, 256 * K)]  # one process count: a segment
        self.assertTrue(predicting.within((4, 16 * K), line))
        self.assertFalse(predicting.within((8, 16 * K), line))
        self.assertFalse(predicting.within((4, 4 * M), line))

    def test_an_understated_lead_is_no_error(self):
        # chain measured 1.5x faster than the model there: the others' fit understates its
        # lead, which can cost a win but never a loss to mpi.
        odd = (8, 256 * K)
        errors = predictor(self.CELLS, noise={(odd, "chain"): 1 / 1.5}).validate()
        self.assertEqual(errors[odd], 0.0)
        self.assertLess(max(errors.values()), 0.2)

    def test_without_two_cells_there_is_no_validation(self):
        fitted = predictor([(4, K)])
        self.assertEqual(fitted.validate(), {})
        self.assertTrue(math.isinf(fitted.error_at(4, M)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
