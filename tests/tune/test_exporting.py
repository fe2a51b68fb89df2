"""leancast-tune's exporting modules (tools/tune/leancast_tune/exporting.py and
exporting_library.py) on synthetic decisions: the rules file line by line (conditions,
ranges, evidence, header), the --json record, Open MPI's coll_tuned rules file number by
number, and MPICH's selection JSON branch by branch.

Usage: test_exporting.py
"""
import json
import os
import re
import tempfile
import types
import unittest

from tune_package import K, M, bench_run, options

from leancast_tune import deciding, exporting, exporting_library  # noqa: E402


def decisions_of(runs, order, messages=lambda *args: None, **given):
    """{procs: (Count, {bytes: Decision})} from runs, as the rules are decided."""
    out = {}
    for procs, count in deciding.group_runs(runs).items():
        grid = sorted({s for (_, s, _) in count.cells})
        out[procs] = (count, {s: deciding.decide(count, s, ["paper", "osu"], options(**given),
                                                 order, messages) for s in grid})
    return out


def both(procs, times, **environment):
    return [bench_run(procs, m, times, **environment) for m in ("paper", "osu")]


class Text(unittest.TestCase):
    def test_ranges(self):
        self.assertEqual(exporting.range_text(0, None, True), "*")
        self.assertEqual(exporting.range_text(K, K, True), "1K")
        self.assertEqual(exporting.range_text(8 * K, None, True), "8K-")
        self.assertEqual(exporting.range_text(0, 8 * K - 1, True), "0-8191")
        self.assertEqual(exporting.range_text(3, 8, False), "3-8")
        self.assertEqual(exporting.range_text(2048, 2048, False), "2048")

    def test_library_condition(self):
        for text, condition in (("Open MPI v4.1.2", "library=openmpi "),
                                ("MPICH Version: 4.0", "library=mpich "),
                                ("SMPI (SimGrid 3.35)", "library=smpi "),
                                ("Fixture MPI 1.0", "")):
            self.assertEqual(exporting.library_condition({"mpi_library": text}, None), condition)
        open_mpi = {"mpi_library": "Open MPI v4.1.2"}
        self.assertEqual(exporting.library_condition(open_mpi, "any"), "")
        self.assertEqual(exporting.library_condition(open_mpi, "mpich"), "library=mpich ")


class Rules(unittest.TestCase):
    TIMES = {("mpi", K): 1e-6, ("binomial", K): 0.5e-6, ("linear", K): 0.505e-6,
             ("mpi", 4 * K): 2e-6, ("binomial", 4 * K): 1e-6, ("linear", 4 * K): 3e-6,
             ("mpi", M): 1e-3, ("binomial", M): 1.2e-3, ("linear", M): 0.995e-3}

    def test_one_rule_per_run_of_sizes_and_none_where_unmeasured(self):
        runs = both(4, self.TIMES, mpi_library="Open MPI v4.1.2")
        count, decisions = decisions_of(runs, ["mpi", "binomial", "linear"],
                                        lambda a, *_: {"binomial": 3, "linear": 7}[a])[4]
        grid = [K, 4 * K, 64 * K, M]  # 64K: measured at another count only
        rules = exporting.rules_for(count, grid, decisions, "*", "4", None)
        self.assertEqual([(c, a) for c, a, _ in rules],
                         [("procs=* ppn=4 library=openmpi 1K-16383", "binomial"),
                          ("procs=* ppn=4 library=openmpi 256K-", "mpi")])
        notes = rules[0][2].split(" | ")
        self.assertEqual(notes[0], "1K: 2.00x over mpi (paper 2.00x margin 2.0%, osu 2.00x "
                                   "margin 2.0%); next linear 1.98x; tied, messages at the "
                                   "busiest rank 3 against linear 7")
        self.assertEqual(notes[1], "4K: 2.00x over mpi (paper 2.00x margin 2.0%, osu 2.00x "
                                   "margin 2.0%); next mpi 1.00x")
        self.assertEqual(rules[1][2], "1M: best leancast linear 1.01x (paper 1.01x margin "
                                      "2.0%, osu 1.01x margin 2.0%)")
        rules = exporting.rules_for(count, grid, decisions, "3-8", "1-", "any")
        self.assertEqual(rules[0][0], "procs=3-8 ppn=1- 1K-16383")

    def test_runs_under_a_configured_library_carry_its_configuration(self):
        setting = ["OMPI_MCA_coll_sm_priority=100"]
        runs = both(2, self.TIMES, mpi_library="Open MPI v4.1.2", library_configuration=setting)
        count, decisions = decisions_of(runs, ["mpi", "binomial", "linear"],
                                        lambda a, *_: {"binomial": 3, "linear": 7}[a])[2]
        rules = exporting.rules_for(count, [K, 4 * K, M], decisions, "2", "2", None)
        self.assertEqual([c for c, _, _ in rules], [
            "procs=2 ppn=2 library=openmpi configured=OMPI_MCA_coll_sm_priority=100 1K-65535",
            "procs=2 ppn=2 library=openmpi configured=OMPI_MCA_coll_sm_priority=100 64K-"])
        header = exporting.header(options(site=True), ["--out", "x.rules"],
                                  deciding.group_runs(runs), {}, ["mpi", "binomial", "linear"],
                                  types.SimpleNamespace(missing=False))
        self.assertIn("the library's broadcast: mpi, configured by "
                      "OMPI_MCA_coll_sm_priority=100", header[1])
        # Runs of one count under two configurations say nothing about either together.
        mixed = runs + both(2, self.TIMES, mpi_library="Open MPI v4.1.2")
        with self.assertRaisesRegex(SystemExit, "configured the library's broadcast differently"):
            exporting.configuration(mixed)
        odd = both(2, self.TIMES, library_configuration=["MPICH_X=a,b"])
        with self.assertRaisesRegex(SystemExit, "cannot be a rule's configured= condition"):
            exporting.configuration(odd)

    def test_a_count_measured_under_fewer_methods_rests_on_those(self):
        # Files of several runs together: P = 8 has paper only, the section names both.
        runs = both(2, self.TIMES) + [bench_run(8, "paper", self.TIMES)]
        counts = deciding.group_runs(runs)
        extra = {"methods": ["paper", "osu"]}
        body = exporting.body(options(cover=(1, 8)), counts, extra, ["mpi", "binomial", "linear"],
                              lambda *args: None)
        at8 = body[body.index(next(l for l in body if l.startswith("# P=8,"))):]
        self.assertEqual(at8[1], "# P=8: not measured under osu; its rules rest on paper alone")
        self.assertTrue(at8[2].startswith("procs=4-8 ppn=8 1K-65535"), at8[2])
        self.assertIn("(paper 2.00x margin 2.0%)", at8[2])
        self.assertFalse(any(l.startswith("# P=2:") for l in body))

    def test_evidence_names_the_reference_beaten(self):
        times = {("mpi", K): 1e-6, ("smpi:mpich", K): 0.8e-6, ("binomial", K): 0.5e-6,
                 ("mpi", M): 1e-3, ("smpi:mpich", M): 1e-3, ("binomial", M): 2e-3}
        count, decisions = decisions_of(both(16, times), ["mpi", "smpi:mpich", "binomial"])[16]
        self.assertEqual(exporting.evidence(K, decisions[K], count),
                         "1K: 1.60x over smpi:mpich (paper 1.60x smpi:mpich margin 2.0%, osu "
                         "1.60x smpi:mpich margin 2.0%), 2.00x over mpi; next mpi 1.00x")
        self.assertEqual(exporting.evidence(M, decisions[M], count),
                         "1M: best leancast binomial 0.50x (paper 0.50x margin 2.0%, osu "
                         "0.50x margin 2.0%)")
        alone = deciding.Decision("mpi", {}, {"paper": 0.01}, {"paper": (1e-6, "mpi")})
        self.assertEqual(exporting.evidence(K, alone, count),
                         "1K: no leancast candidate measured")

    def test_the_file(self):
        runs = both(2, self.TIMES) + both(8, self.TIMES)
        for run in runs:
            run["tune_command"] = ["mpirun", "-n", str(run["environment"]["procs"]),
                                   "leancast-bench", "--method", run["method"]]
        counts = deciding.group_runs(runs)
        order = ["mpi", "binomial", "linear"]
        given = options(site=True, cover=(1, 8), from_json="saved.json",
                        measured_by=[["leancast-tune", "--site"]])
        extra = {"methods": ["paper", "osu"], "elapsed_seconds": 95, "budget_minutes": 4,
                 "not_measured": {"8": [16 * M]}}
        count_messages = types.SimpleNamespace(missing=True)
        body = exporting.body(given, counts, extra, order, lambda *args: None)
        header = exporting.header(given, ["--site", "--out", "x.rules"], counts, extra, order,
                                  count_messages)
        self.assertEqual(body[0], "# P=2, 1 node(s) of up to 2 ranks; iterations x, "
                                  "repetitions r: paper 1K-1M x10 r5, osu 1K-1M x10 r5")
        rule = body[1]
        # --site on one node: ppn is the procs range. 1K: binomial and linear tie, no
        # message counts, so the order listed decides.
        self.assertTrue(rule.startswith(f"{'procs=1-3 ppn=1-3 1K-65535':<46} : "
                                        f"{'binomial':<36} # 1K: "), rule)
        self.assertEqual([line.split(" : ")[0].strip() for line in body if " : " in line],
                         ["procs=1-3 ppn=1-3 1K-65535", "procs=1-3 ppn=1-3 64K-",
                          "procs=4-8 ppn=4-8 1K-65535", "procs=4-8 ppn=4-8 64K-"])
        self.assertEqual(header[0], "# leancast-tune, 2026-01-02: real MPI, Fixture MPI 1.0")
        self.assertIn("#   leancast-tune --site --out x.rules", header)
        self.assertIn("#   measured by: leancast-tune --site", header)
        self.assertIn("#   took 1m35s (budget 4 min)", header)
        self.assertIn("#   P=8 osu: mpirun -n 8 leancast-bench --method osu", header)
        self.assertIn("# not measured for time at P=8: 16M (no rule: auto runs mpi)", header)
        self.assertIn("# of 0.001 and the median over the cells at that size and method of "
                      "their repetitions'", header)
        self.assertEqual(header[-1], "# (message counts unavailable: no leancast-plan; ties "
                                     "went to the order listed)")

        # Not --site: the measured ranks per node, or --ppn.
        body = exporting.body(options(cover=(1, None)), counts, extra, order, lambda *a: None)
        self.assertTrue(body[1].startswith("procs=1-3 ppn=2 1K-65535"), body[1])
        body = exporting.body(options(ppn="*"), counts, extra, order, lambda *a: None)
        self.assertTrue(body[-1].startswith("procs=4- ppn=* 64K-"), body[-1])
        one = deciding.group_runs(both(2, self.TIMES))
        body = exporting.body(options(), one, extra, order, lambda *a: None)
        self.assertTrue(body[1].startswith("procs=* ppn=2 "), body[1])

    def test_the_machine_line_names_every_machine_the_runs_measured(self):
        runs = both(2, self.TIMES)
        for run in runs:
            run["last_level_cache_bytes"] = 8 * M
        order = ["mpi", "binomial", "linear"]
        given = options(site=True)

        def machine_lines():
            header = exporting.header(given, ["--out", "x.rules"], deciding.group_runs(runs),
                                      {}, order, types.SimpleNamespace(missing=False))
            return [line for line in header if line.startswith("# machine")]
        self.assertEqual(machine_lines(), [
            "# machine: Fixture CPU, 8 cores on rank 0's host (fixture), last-level cache 8M; "
            "the library's broadcast: mpi"])
        # A second machine's runs (auto-table.sh's KEEP_RUNS): a rule must hold on both.
        more = both(2, self.TIMES)
        for run in more:
            run["last_level_cache_bytes"] = 508 * M
        runs += more
        self.assertEqual(machine_lines(), [
            "# machines: Fixture CPU, 8 cores on rank 0's host (fixture), last-level cache 8M; "
            "Fixture CPU, 8 cores on rank 0's host (fixture), last-level cache 508M; the "
            "library's broadcast: mpi"])

    def test_the_stamp_names_each_counts_commit(self):
        runs = (both(2, self.TIMES, git_revision="aaaaaaa")
                + both(8, self.TIMES, git_revision="aaaaaaa")
                + both(16, self.TIMES, git_revision="bbbbbbb")
                + [bench_run(16, "osu", self.TIMES, git_revision="ccccccc")])
        counts = deciding.group_runs(runs)
        self.assertTrue(exporting.stamp(counts[2].env, counts).startswith(
            "# produced by leancast aaaaaaa (P=2,8), bbbbbbb+ccccccc (P=16), executor "))
        one = deciding.group_runs(both(2, self.TIMES, git_revision="aaaaaaa"))
        self.assertTrue(exporting.stamp(one[2].env, one).startswith(
            "# produced by leancast aaaaaaa, executor "))

    def test_write_rules_and_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "out.rules")
            exporting.write_rules(path, ["# a", "procs=* ppn=* * : mpi"])
            with open(path) as f:
                self.assertEqual(f.read(), "# a\nprocs=* ppn=* * : mpi\n")
            path = os.path.join(tmp, "out.json")
            runs = both(2, {("mpi", K): 1e-6})
            exporting.write_json(path, ["--procs", "2"], {"site": False, "candidates": ["mpi"],
                                                          "tie": 0.001},
                                 {"candidates": ["mpi", "linear"], "methods": ["osu"]}, runs)
            with open(path) as f:
                text = f.read()
            saved = json.loads(text)
            self.assertEqual(list(saved), ["command", "site", "candidates", "tie", "methods",
                                           "runs"])
            self.assertEqual(saved["command"], ["leancast-tune", "--procs", "2"])
            self.assertEqual(saved["candidates"], ["mpi", "linear"])  # what was measured
            self.assertEqual(saved["runs"], runs)
            self.assertTrue(text.endswith("}\n") and text.startswith('{\n "command"'))


OMPI_TIMES = {("mpi", K): 1e-6, ("ompi:3:1K", K): 3e-6, ("ompi:2:8K", K): 2e-6,
              ("mpi", 64 * K): 2e-5, ("ompi:3:1K", 64 * K): 1e-5, ("ompi:2:8K", 64 * K): 3e-5,
              ("mpi", M): 8e-4, ("ompi:3:1K", M): 9e-4, ("ompi:2:8K", M): 4e-4}


def library_files(times, procs_list, order, cover=(1, None), library="Open MPI v4.1.2"):
    runs = [r for p in procs_list for r in both(p, times, mpi_library=library)]
    given = options(cover=cover, from_json="saved.json", measured_by=[["leancast-tune", "x"]])
    counts = deciding.group_runs(runs)
    chosen, grid = deciding.library_decisions(given, counts, order)
    return given, counts, chosen, grid


class LibraryFiles(unittest.TestCase):
    def test_open_mpi_rules_file(self):
        given, counts, chosen, grid = library_files(OMPI_TIMES, [2, 4],
                                                    ["mpi", "ompi:3:1K", "ompi:2:8K"])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ompi.rules")
            lines = exporting_library.write_ompi_rules(path, given, ["--x"], counts,
                                                       {"library_failed": ["P=4 osu ompi:9"]},
                                                       chosen, grid)
            with open(path) as f:
                text = f.read()
        self.assertEqual(text, "\n".join(lines) + "\n")
        numbers = [int(n) for line in text.splitlines() for n in line.split("#")[0].split()]
        # bcast (7), 2 communicator sizes; each: 3 message sizes, the fixed decision (0) from
        # 0 bytes, the pipeline (3) of 1 KiB segments from 8 KiB, the chain (2) of 8 KiB
        # segments, 4 chains, from 256 KiB.
        per_count = [3, 0, 0, 0, 0, 8192, 3, 0, 1024, 262144, 2, 4, 8192]
        self.assertEqual(numbers, [1, 7, 2, 1] + per_count + [3] + per_count)
        self.assertIn("# machine: Fixture CPU, 8 cores on rank 0's host", lines)
        self.assertIn("#   failed, left out: P=4 osu ompi:9", lines)
        self.assertIn("#   measured by: leancast-tune x", lines)
        self.assertIn("3  # communicator size: 3- processes (decided at 4)", lines)
        self.assertTrue(any(line.startswith("8192 3 0 1024  # bytes 8K-262143: ompi:3:1K "
                                            "pipeline; 64K: 2.00x over the default")
                            for line in lines), lines)

    def test_mpich_selection_json(self):
        times = {("mpi", K): 1e-6, ("mpich:smp", K): 0.5e-6, ("mpich:binomial", K): 1e-6,
                 ("mpi", M): 1e-3, ("mpich:smp", M): 1e-3, ("mpich:binomial", M): 1e-3}
        given, counts, chosen, grid = library_files(
            times, [2, 8], ["mpi", "mpich:smp", "mpich:binomial"], library="MPICH 4.0")
        default = {"comm_size<=4": {"algorithm=MPIR_Bcast_intra_binomial": {}}}
        base = {"collective=allreduce": {"x": {}},
                "collective=bcast": {"comm_type=intra": default, "comm_type=inter": {"y": {}}},
                "collective=reduce": {"z": {}}}
        with tempfile.TemporaryDirectory() as tmp:
            given.mpich_base = os.path.join(tmp, "base.json")
            with open(given.mpich_base, "w") as f:
                json.dump(base, f)
            path = os.path.join(tmp, "mpich.json")
            lines = exporting_library.write_mpich_json(path, given, ["--x"], counts, {}, chosen,
                                                       grid)
            with open(path) as f:
                tree = json.load(f)
        self.assertEqual(list(tree), list(base))  # every collective kept, in its order
        self.assertEqual(tree["collective=allreduce"], base["collective=allreduce"])
        bcast = tree["collective=bcast"]
        self.assertEqual(bcast["comm_type=inter"], {"y": {}})
        smp = {"comm_hierarchy=parent": {"algorithm=MPIR_Bcast_intra_smp": {}},
               "comm_hierarchy=any": default}
        sizes = {"avg_msg_size<=32767": smp, "avg_msg_size=any": default}
        self.assertEqual(bcast["comm_type=intra"], {"comm_size<=3": sizes,
                                                    "comm_size=any": sizes})
        self.assertTrue(any(re.match(r"  procs=1-3 bytes=0-32767: MPIR_Bcast_intra_smp  # 1K:",
                                     line) for line in lines), lines)
        self.assertTrue(lines[-1].startswith("Load it: MPIR_CVAR_COLL_SELECTION_TUNING_JSON"))
        with tempfile.TemporaryDirectory() as tmp:
            given.mpich_base = os.path.join(tmp, "base.json")
            with open(given.mpich_base, "w") as f:
                json.dump({"collective=bcast": {}}, f)
            with self.assertRaises(SystemExit):
                exporting_library.write_mpich_json(os.path.join(tmp, "out.json"), given, [],
                                                   counts, {}, chosen, grid)

    def test_mpich_names_and_its_built_in_tree(self):
        self.assertEqual(exporting_library.mpich_algorithm("mpich:nb"), "MPIR_Bcast_allcomm_nb")
        self.assertEqual(exporting_library.mpich_algorithm("mpich:scatter_ring_allgather"),
                         "MPIR_Bcast_intra_scatter_ring_allgather")
        tree = {"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                "collective=allreduce": {}}
        # Skipped: not JSON, POSIX's tree (not MPIR's), a bcast-only composition table.
        posix = {"collective=bcast": {"algorithm=MPIDI_POSIX_mpi_bcast_release_gather": {}}}
        bcast_only = {"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {"x": 1}}}
        blob = (b"\x7fELF\0{\"collective=bcast\": broken\0" + json.dumps(posix).encode()
                + b"\0" + json.dumps(bcast_only).encode() + b"\0" + json.dumps(tree).encode()
                + b"\0tail")
        with tempfile.TemporaryDirectory() as tmp:
            library = os.path.join(tmp, "libmpich.so.12")
            with open(library, "wb") as f:
                f.write(blob)
            self.assertEqual(exporting_library.builtin_mpich_tree(library), tree)
            with open(library, "wb") as f:
                f.write(b"\0" + json.dumps(posix).encode() + b"\0")
            self.assertIsNone(exporting_library.builtin_mpich_tree(library))

    def test_library_evidence(self):
        d = deciding.Decision("mpi", {}, {}, {})
        self.assertEqual(exporting_library.library_evidence(K, None), "1K: not measured")
        self.assertEqual(exporting_library.library_evidence(K, d), "1K: no candidate measured")


if __name__ == "__main__":
    unittest.main()
