#include "decide.hpp"
#include "select/automatic.hpp"

namespace leancast::detail {

namespace {

bool needs_nodes(const AlgorithmSpec& spec) {
  return spec.algorithm == Algorithm::automatic ||
         (spec.algorithm == Algorithm::node_aware &&
          (spec.between_nodes.algorithm == Algorithm::automatic ||
           spec.within_nodes.algorithm == Algorithm::automatic));
}

// The broadcast's shape as far as selection cares, with the node map fetched on demand.
class Situation {
 public:
  Situation(const Settings& settings, int procs, std::uint64_t bytes, const NodesLookup& nodes)
      : settings_(settings), shape_{procs, 0, bytes}, lookup_(nodes) {}

  const BcastShape& with_nodes() {
    if (!looked_up_ && lookup_) shape_.nodes = lookup_();
    looked_up_ = true;
    return shape_;
  }

  Decision named(const AlgorithmSpec& algorithm, std::string_view by) {
    if (algorithm.algorithm == Algorithm::automatic) {
      const Rule* learned = match(settings_.tune_file.rules);
      if (learned != nullptr && learned->algorithm.algorithm != Algorithm::automatic) {
        // Still auto's choice, from its learned table instead of the built-in one: what
        // holds for auto's choices (the nonblocking rule, the shm fallback) holds for it.
        Decision decision = named(learned->algorithm, learned->where);
        decision.named = algorithm;
        return decision;
      }
    }
    const bool automatic = algorithm.algorithm == Algorithm::automatic;
    Decision decision{needs_nodes(algorithm)
                          ? resolve_automatic(algorithm, with_nodes(), configuration())
                          : algorithm,
                      algorithm, by, automatic};
    // Under a configured library the built-in table decides only where it measured that
    // configuration (select_automatic); the log names the variable where auto defers.
    if (automatic && decision.algorithm.algorithm == Algorithm::mpi &&
        !settings_.library_configured.empty()) {
      decision.by = settings_.library_configured;
    }
    return decision;
  }

  const Rule* match(const RuleSet& rules) {
    const int ppn = rules.uses_ppn() ? node_counts(with_nodes()).ranks_per_node : 0;
    return rules.match(shape_.procs, shape_.bytes, ppn, configuration());
  }

  const Configuration& configuration() const { return settings_.library_configuration; }

 private:
  const Settings& settings_;
  BcastShape shape_;
  const NodesLookup& lookup_;
  bool looked_up_ = false;
};

}  // namespace

Decision decide(const Settings& settings, std::optional<AlgorithmSpec> per_call, int procs,
                std::uint64_t bytes, const NodesLookup& nodes,
                const std::optional<AlgorithmSpec>& per_comm) {
  Situation situation(settings, procs, bytes, nodes);
  if (per_call) return situation.named(*per_call, "the call");
  if (per_comm) return situation.named(*per_comm, kByCommInfo);
  if (settings.algorithm) return situation.named(*settings.algorithm, "LEANCAST_BCAST_ALGORITHM");
  for (const RuleSet* rules : {&settings.rules, &settings.config}) {
    if (const Rule* rule = situation.match(*rules))
      return situation.named(rule->algorithm, rule->where);
  }
  return situation.named(Algorithm::automatic, "default");
}

}  // namespace leancast::detail
