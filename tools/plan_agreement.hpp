// What leancast-plan --compare says beside its ranking at large P: how often the cost model
// orders two algorithms as the SMPI simulation does, from scripts/model-vs-sim.py's output
// (data/model-agreement.json, built in;
// docs/benchmarks.md#leancast-plans-model-against-the-simulation). Only the tool reads it: auto
// never decides from the model.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace leancast::plan {

// From this many processes on --compare states the check: auto's simulated table claims
// up to 181 (data/auto.rules, section nodes); beyond, the model's ranking stands alone.
inline constexpr int kCheckedFromProcs = 182;
// The share of pairs ordered alike at which a ranking counts as validated.
inline constexpr double kValidatedPercent = 90;

struct RankingCheck {
  nlohmann::ordered_json json;
  std::string text;  // one or two lines, each ending in '\n'
};

// The comparison built in (data/model-agreement.json at build time).
std::string_view built_in_agreement();

// The check for a ranking at (procs, ranks_per_node, bytes) by a model with the parameters
// of `model_platform` unchanged ("": other parameters, which no simulation checked).
// `agreement`: scripts/model-vs-sim.py's JSON. Throws std::runtime_error if it is not that.
RankingCheck check_ranking(std::string_view agreement, std::string_view model_platform, int procs,
                           int ranks_per_node, std::uint64_t bytes);

}  // namespace leancast::plan
