"""leancast-tune: measures leancast's broadcasts beside the MPI library's own and writes the
rules auto should follow.

For each process count it runs leancast-bench with every candidate algorithm and with `mpi`
(the library's own MPI_Bcast, always measured) at every size, once per timing method, on
real MPI through a launcher or on a simulated platform through leancast-sim. Per size, a
leancast candidate wins only where it is faster than the reference (`mpi`; under --sim the
fastest of `mpi`, SMPI's default, and any smpi:NAME candidates, SMPI's copies of library
broadcasts) by more than the tie margin under every method; otherwise the size goes to
`mpi`. Consecutive sizes with the same winner make one rule:

    procs=LOW-HIGH ppn=LOW-HIGH library=NAME BYTES_LOW-BYTES_HIGH : ALGORITHM   # evidence

library= names the MPI library measured (openmpi, mpich, smpi), so that a leancast built
for another one ignores the rule. Size and process-count boundaries sit halfway
(geometrically) between measured points. The table is what LEANCAST_CONFIG reads, and what
data/auto.rules (auto's built-in table) is made of. The header names the machine, the MPI
library, the date and every command; each rule's comment gives, per measured size, the
winner's speedup over the reference under each method and the runner-up.

The package, by concern (the leancast-tune script beside it runs cli.main):

    options.py            the command line and its checks
    candidates.py         the default candidates, from leancast's registry (leancast-plan)
    measuring.py          launching leancast-bench or leancast-sim; message counts
    planner.py            --site: fitting the launches into the time budget
    choosing.py           --predict: which cells to measure within --budget-cells
    predicting.py         --predict: the rest predicted from the schedules, and validated
    exporting_predicted.py  --predict: the rules, each size measured or predicted
    deciding.py           from measurements to a winner per process count and size
    exporting.py          the rules file and the --json record
    exporting_library.py  Open MPI's and MPICH's own tuning files (--library-algorithms)
    library.py            the MPI library's own algorithms and the settings that force them
    common.py             names, sizes and paths every part shares
    cli.py                main: measure (or read --from-json), decide, export
"""
