// Which algorithm one broadcast runs, by precedence: the per-call name, then the
// communicator's hint (LC_Comm_set_algorithm, or its leancast_bcast_algorithm info), then
// LEANCAST_BCAST_ALGORITHM, then the first applying rule of LEANCAST_BCAST_RULES, then of
// the LEANCAST_CONFIG file, then auto. The ad-hoc outranks the standing: a call that names
// its algorithm means it, so does a communicator the program gave a hint (code that
// names its communicator's algorithm is as deliberate as a call, and narrower than the
// job's environment), a one-off variable overrides a job's rules, and a job's rules
// override the site's (or tuner's) file. Wherever auto decides (by default, or named), a
// rule of the LEANCAST_TUNE_FILE that applies comes first: what online tuning learned on
// this machine replaces the built-in table, and such a size needs no trials. MPI-free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include <leancast/schedule.hpp>

#include "settings.hpp"

namespace leancast::detail {

struct Decision {
  AlgorithmSpec algorithm;  // what runs: a concrete algorithm (with its parameter) or mpi
  AlgorithmSpec named;      // as the deciding setting named it
  std::string_view by;  // the deciding setting: "the call", a variable, a rule's place, "default"
  // auto decided by its built-in table: online tuning (LEANCAST_TUNE=online) may try others
  bool tunable = false;
};

// Where the ranks run (null: unknown, one node). Asked for only when the choice depends on
// it (auto, rules with ppn=, node-aware levels left to auto), since finding out may
// communicate; then at most once.
using NodesLookup = std::function<std::shared_ptr<const NodeMap>()>;

// `per_comm`: the communicator's info hint (comm_hint.hpp), if any.
Decision decide(const Settings& settings, std::optional<AlgorithmSpec> per_call, int procs,
                std::uint64_t bytes, const NodesLookup& nodes = {},
                const std::optional<AlgorithmSpec>& per_comm = std::nullopt);

// Decision::by of a choice the communicator's info hint made.
inline constexpr std::string_view kByCommInfo = "the communicator's hint";

}  // namespace leancast::detail
