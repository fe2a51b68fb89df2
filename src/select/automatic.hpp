// auto: leancast's choice of algorithm by process count, ranks per node and size, from its
// tuning table (data/auto.rules, built in), and MPICH's documented selection. Selection
// policy, kept apart from the MPI-free schedules (src/schedule), which know only concrete
// algorithms: callers resolve auto here before they ask for a schedule.
#pragma once

#include <cstdint>
#include <string_view>

#include <leancast/schedule.hpp>

#include "select/rules.hpp"

namespace leancast {

// MPICH 3/4's documented choice (MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288,
// MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288, MPIR_CVAR_BCAST_MIN_PROCS = 8), with the
// tuned ring wherever MPICH would run the enclosed one: what a node-aware level left to
// auto runs where the table has no flat leancast algorithm for it.
Algorithm select_mpich(int procs, std::uint64_t bytes);

// auto: the first rule of leancast's tuning table that applies to (procs, bytes, ranks per
// node) under the library's `configuration`; mpi (the MPI library's own broadcast) where
// none applies, the rule says so, it names a shared-memory algorithm (shm, cma) and the
// ranks span several nodes, or the library is configured and the rule was measured under
// its defaults (no configured=); linear (which sends nothing) on one process. Never auto;
// node-aware levels may be auto (resolve_automatic resolves them).
AlgorithmSpec select_automatic(int procs, std::uint64_t bytes, int ranks_per_node,
                               const detail::Configuration& configuration = {});

// The text of that tuning table, as built in.
std::string_view automatic_table();

// `spec` with auto resolved for `shape`: auto becomes select_automatic's choice for the
// shape's procs, bytes and ranks per node (which may be mpi, the library's broadcast), and
// a node-aware level that is auto becomes the choice for the node leaders (one rank per
// node) or for the largest node (MPICH's selection where that choice is not a flat leancast
// algorithm). An executor named with auto ("auto@rounds") goes to what auto chose, unless
// the table's rule names its own. Other specs come back as they are. `configuration`: as
// for select_automatic (node-aware levels never run the library's broadcast and ignore it).
AlgorithmSpec resolve_automatic(const AlgorithmSpec& spec, const BcastShape& shape,
                                const detail::Configuration& configuration = {});

}  // namespace leancast
