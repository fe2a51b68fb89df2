#!/usr/bin/env python3
"""layout_check.py fails on each rule broken in a small tree, and passes the tree it came from."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layout_check  # noqa: E402


def tree(files):
    root = tempfile.mkdtemp(prefix="layout-")
    for path, text in files.items():
        full = os.path.join(root, "src", path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return root


GOOD = {"schedule/a.hpp": "#pragma once\n", "select/b.cpp": '#include "schedule/a.hpp"\n',
        "mpi/run/c.cpp": '#include "select/b.hpp"\n', "select/b.hpp": '#include "schedule/a.hpp"\n'}


class LayoutCheck(unittest.TestCase):
    def problems(self, files):
        return layout_check.check(tree(files))[0]

    def test_a_tree_by_the_rules_passes(self):
        self.assertEqual(self.problems(GOOD), [])

    def test_an_include_of_a_later_layer_fails(self):
        found = self.problems(dict(GOOD, **{"schedule/d.cpp": '#include "../select/b.hpp"\n'}))
        self.assertTrue(any("later layer" in p for p in found), found)

    def test_an_include_cycle_fails(self):
        found = self.problems(dict(GOOD, **{"select/x.hpp": '#include "y.hpp"\n',
                                            "select/y.hpp": '#include "x.hpp"\n'}))
        self.assertTrue(any("include cycle" in p and "select/x.hpp" in p for p in found), found)

    def test_a_long_file_fails(self):
        found = self.problems(dict(GOOD, **{"select/long.cpp": "int x;\n" * 451}))
        self.assertTrue(any("451 lines" in p for p in found), found)

    def test_a_crowded_folder_fails_but_schedule_may_grow(self):
        crowded = {f"mpi/base/f{i}.cpp": "" for i in range(16)}
        found = self.problems(dict(GOOD, **crowded))
        self.assertTrue(any("src/mpi/base: 16 files" in p for p in found), found)
        algorithms = {f"schedule/s{i}.cpp": "" for i in range(40)}
        self.assertEqual(self.problems(dict(GOOD, **algorithms)), [])

    def test_a_folder_outside_the_layers_fails(self):
        found = self.problems(dict(GOOD, **{"misc/z.cpp": ""}))
        self.assertTrue(any("no layer" in p for p in found), found)

    def test_the_repository_keeps_the_rules(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.assertEqual(layout_check.check(root)[0], [])


if __name__ == "__main__":
    unittest.main()
