#!/usr/bin/env python3
"""symbols_check.py's rules on made-up symbol tables (the ctest *.symbols runs it on the
built libraries)."""
import unittest

import symbols_check


class SymbolsCheck(unittest.TestCase):
    def test_the_api_passes(self):
        symbols = [("LC_Bcast", "LC_Bcast"), ("_ZN8leancast5bcastEv", "leancast::bcast()"),
                   ("_init", "_init")]
        self.assertEqual(symbols_check.library_problems(symbols), [])

    def test_mpi_names_and_internals_fail(self):
        symbols = [("MPI_Send", "MPI_Send"), ("PMPI_Wait", "PMPI_Wait"),
                   ("_ZN8leancast6detail1fEv", "leancast::detail::f()"),
                   ("_ZN3fmt1fEv", "fmt::f()")]
        self.assertEqual(len(symbols_check.library_problems(symbols)), 4)

    def test_the_interposer_exports_its_map_only(self):
        allowed = symbols_check.map_names("/* c */ { global: MPI_Bcast; mpi_bcast_; local: *; };")
        self.assertEqual(allowed, {"MPI_Bcast", "mpi_bcast_"})
        symbols = [("MPI_Bcast", "MPI_Bcast"), ("MPI_Wait", "MPI_Wait")]
        self.assertEqual(symbols_check.interposer_problems(symbols, allowed),
                         ["MPI_Wait: not in exports.map", "MPI_Ibcast: not exported"])


if __name__ == "__main__":
    unittest.main()
