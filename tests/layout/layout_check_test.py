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

    def test_a_module_cycle_through_two_cpp_files_fails(self):
        # No header includes another: only the modules (a .hpp with its .cpp) make a cycle.
        pair = {"mpi/requests/p.hpp": "#pragma once\n", "mpi/requests/q.hpp": "#pragma once\n",
                "mpi/requests/p.cpp": '#include "p.hpp"\n#include "q.hpp"\n',
                "mpi/requests/q.cpp": '#include "q.hpp"\n#include "mpi/requests/p.hpp"\n'}
        found = self.problems(dict(GOOD, **pair))
        self.assertFalse(any(p.startswith("include cycle") for p in found), found)
        self.assertTrue(any("module include cycle: mpi/requests/p <-> mpi/requests/q" in p
                            and "mpi/requests/q.cpp includes mpi/requests/p.hpp" in p
                            for p in found), found)

    def test_a_module_cycle_of_three_through_a_header_fails(self):
        three = {"mpi/comm/a.hpp": '#include "b.hpp"\n', "mpi/comm/b.hpp": "#pragma once\n",
                 "mpi/comm/b.cpp": '#include "c.hpp"\n', "mpi/comm/c.hpp": "#pragma once\n",
                 "mpi/comm/c.cpp": '#include "a.hpp"\n'}
        found = self.problems(dict(GOOD, **three))
        self.assertTrue(any("module include cycle: mpi/comm/a <-> mpi/comm/b <-> mpi/comm/c" in p
                            for p in found), found)

    def test_a_cpp_including_its_own_header_and_one_way_edges_pass(self):
        one_way = {"mpi/comm/u.hpp": "#pragma once\n", "mpi/comm/u.cpp": '#include "u.hpp"\n',
                   "mpi/comm/v.hpp": '#include "u.hpp"\n',
                   "mpi/comm/v.cpp": '#include "v.hpp"\n#include "u.hpp"\n'}
        self.assertEqual(self.problems(dict(GOOD, **one_way)), [])

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
