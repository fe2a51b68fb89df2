"""The MPI library's own broadcast algorithms (--library-algorithms): their names
(ompi:N[:SEG], mpich:NAME), the defaults measured, and the settings that force each."""
from .common import REFERENCE, byte_size


# Open MPI 4.1 (ompi_info --param coll tuned --level 9): coll_tuned_bcast_algorithm 0 ignore
# (the fixed decision), 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree,
# 5 binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather, 9 scatter_allgather_ring, with
# coll_tuned_bcast_algorithm_segmentsize, honoured only with coll_tuned_use_dynamic_rules.
# MPICH 4.0 (src/mpi/coll/cvars.txt, coll_algorithms.txt): MPIR_CVAR_BCAST_INTRA_ALGORITHM
# binomial, scatter_recursive_doubling_allgather, scatter_ring_allgather, smp (parent
# communicators only), nb; it applies where MPI_Bcast reaches MPIR_Bcast_impl, which with
# MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 is every call (else CH4 picks its own path first).

OMPI_PREFIX, MPICH_PREFIX = "ompi:", "mpich:"
OMPI_BCAST = {1: "basic_linear", 2: "chain", 3: "pipeline", 4: "split_binary_tree",
              5: "binary_tree", 6: "binomial", 7: "knomial", 8: "scatter_allgather",
              9: "scatter_allgather_ring"}
OMPI_BCAST_ID = 7      # BCAST in COLLTYPE_T, ompi/mca/coll/base/coll_base_functions.h (4.1)
OMPI_CHAIN_FANOUT = 4  # coll_tuned_bcast_algorithm_chain_fanout's default: what ompi:2 ran
MPICH_BCAST = ("binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather",
               "smp", "nb")
LIBRARY_DEFAULTS = {
    "openmpi": ["ompi:1", "ompi:2", "ompi:2:8K", "ompi:3", "ompi:3:8K", "ompi:4:8K", "ompi:5",
                "ompi:5:8K", "ompi:6", "ompi:6:8K", "ompi:7", "ompi:8", "ompi:9"],
    "mpich": ["mpich:" + name for name in MPICH_BCAST],
}
LIBRARY_EPILOG = """\
--library-algorithms: the MPI library's own broadcasts instead of leancast's. Each
  candidate is leancast-bench's `mpi` (MPI_Bcast) in a launch of its own with the library's
  setting in the environment; `mpi` without it is the library's default:
    ompi:N[:SEG]  Open MPI coll_tuned_bcast_algorithm N (1-9) with segment size SEG (bytes,
                  K/M; default 0, no segments): OMPI_MCA_coll_tuned_use_dynamic_rules=1,
                  OMPI_MCA_coll_tuned_bcast_algorithm=N,
                  OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize=SEG
    mpich:NAME    MPICH MPIR_CVAR_BCAST_INTRA_ALGORITHM=NAME (binomial,
                  scatter_recursive_doubling_allgather, scatter_ring_allgather, smp, nb)
                  with MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0
  A candidate wins a process count and size only where it beats the default by more than
  the tie margin under every method (as above; ties: the order listed), else the default
  stays. --out-ompi-rules writes coll_tuned's dynamic rules file (load it with --mca
  coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE);
  --out-mpich-json writes MPICH's selection tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=
  FILE, with MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 as measured): the library's own tree (read
  from libmpich, or --mpich-base) with the broadcast part replaced, where the default keeps
  the library's own branch. --predict --budget-cells N: some cells measured, the rest
  predicted, each algorithm from the leancast schedule most like it. Default candidates:
  Open MPI """ + ", ".join(
    LIBRARY_DEFAULTS["openmpi"]) + "; MPICH " + ", ".join(LIBRARY_DEFAULTS["mpich"]) + "."


def library_setting(name):
    """ompi:N[:SEG] -> ("openmpi", N, SEG); mpich:NAME -> ("mpich", NAME, None)."""
    if name.startswith(OMPI_PREFIX):
        parts = name[len(OMPI_PREFIX):].split(":")
        if len(parts) > 2 or not parts[0].isdigit() or int(parts[0]) not in OMPI_BCAST:
            raise ValueError("ompi:N[:SEG] with N in 1..9")
        segsize = byte_size(parts[1]) if len(parts) == 2 else 0
        if segsize >= 1 << 31:
            raise ValueError("segment size beyond 2^31 - 1")
        return "openmpi", int(parts[0]), segsize
    if name.startswith(MPICH_PREFIX):
        algorithm = name[len(MPICH_PREFIX):]
        if algorithm not in MPICH_BCAST:
            raise ValueError(f"mpich:NAME with NAME one of {', '.join(MPICH_BCAST)}")
        return "mpich", algorithm, None
    raise ValueError("not one of the library's algorithms")


def library_environment(name):
    """The environment variables that force one candidate (none for mpi)."""
    if name == REFERENCE:
        return {}
    kind, algorithm, segsize = library_setting(name)
    if kind == "openmpi":
        return {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                "OMPI_MCA_coll_tuned_bcast_algorithm": str(algorithm),
                "OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize": str(segsize)}
    return {"MPIR_CVAR_BCAST_INTRA_ALGORITHM": algorithm,
            "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE": "0"}


# --predict: the leancast schedule whose messages are most like each library algorithm's,
# so that its time is predicted from messages of its shape (the fitted coefficients absorb
# the rest). Segmented forms use their segment size (0, unsegmented: the whole message). No
# analogue (Open MPI's chain of 4 chains, the segmented binomial, MPICH's nb): the generic
# basis of a tree, as for the library's default.
OMPI_SCHEDULES = {1: "linear", 3: "pipeline-chain:{seg}", 4: "split-binary-tree:{seg}",
                  5: "pipeline-binary-tree:{seg}", 7: "knomial:4", 8: "scatter-doubling",
                  9: "scatter-ring"}
MPICH_SCHEDULES = {"binomial": "binomial", "scatter_recursive_doubling_allgather":
                   "scatter-doubling", "scatter_ring_allgather": "scatter-ring",
                   "smp": "node-aware:binomial/binomial"}


def is_library(name):
    return name.startswith((OMPI_PREFIX, MPICH_PREFIX))


def schedule_analogue(name, size):
    """The leancast algorithm (NAME[:PARAMETER]) standing in for a library algorithm's
    messages at `size` bytes, or None (no analogue)."""
    kind, algorithm, segsize = library_setting(name)
    if kind == "mpich":
        return MPICH_SCHEDULES.get(algorithm)
    if algorithm == 6:
        return "binomial" if segsize == 0 else None
    pattern = OMPI_SCHEDULES.get(algorithm)
    return pattern and pattern.format(seg=segsize or max(1, size))
