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
        return named(learned->algorithm, learned->where);
      }
      // The built-in table says where leancast beat the library's broadcast in its default
      // configuration; one the user chose (coll sm forced, a tuned rules file) is another
      // broadcast, which nothing measured leancast against: the library's.
      if (!settings_.library_configured.empty()) {
        return Decision{Algorithm::mpi, algorithm, settings_.library_configured, true};
      }
    }
    return Decision{needs_nodes(algorithm) ? resolve_automatic(algorithm, with_nodes()) : algorithm,
                    algorithm, by, algorithm.algorithm == Algorithm::automatic};
  }

  const Rule* match(const RuleSet& rules) {
    const int ppn = rules.uses_ppn() ? node_counts(with_nodes()).ranks_per_node : 0;
    return rules.match(shape_.procs, shape_.bytes, ppn);
  }

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
    if (const Rule* rule = situation.match(*rules)) return situation.named(rule->algorithm, rule->where);
  }
  return situation.named(Algorithm::automatic, "default");
}

}  // namespace leancast::detail
