#include "decide.hpp"

namespace leancast::detail {

namespace {

Decision named(const AlgorithmSpec& algorithm, std::string_view by, int procs,
               std::uint64_t bytes) {
  const AlgorithmSpec runs = algorithm.algorithm == Algorithm::automatic
                                 ? AlgorithmSpec(select_automatic(procs, bytes))
                                 : algorithm;
  return Decision{runs, algorithm, by};
}

}  // namespace

Decision decide(const Settings& settings, std::optional<AlgorithmSpec> per_call, int procs,
                std::uint64_t bytes) {
  if (per_call) return named(*per_call, "the call", procs, bytes);
  if (settings.algorithm) {
    return named(*settings.algorithm, "LEANCAST_BCAST_ALGORITHM", procs, bytes);
  }
  for (const RuleSet* rules : {&settings.rules, &settings.config}) {
    if (const Rule* rule = rules->match(procs, bytes)) {
      return named(rule->algorithm, rule->where, procs, bytes);
    }
  }
  return named(Algorithm::automatic, "default", procs, bytes);
}

}  // namespace leancast::detail
