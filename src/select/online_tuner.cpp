#include "online_tuner.hpp"
#include "select/automatic.hpp"

#include <algorithm>
#include <bit>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include <leancast/analysis.hpp>

namespace leancast::detail {

std::vector<AlgorithmSpec> model_pool(bool several_nodes) {
  std::vector<AlgorithmSpec> pool;
  for (bool node_aware : {false, true}) {
    if (node_aware && !several_nodes) break;
    for (const AlgorithmSpec& spec : tuned_specs(node_aware)) {
      if (!uses_shared_memory(spec)) pool.push_back(spec);
    }
  }
  return pool;
}

namespace {

// The model expands every message, O(M log M): 2.7 ms at P = 4 and 16 MiB, 112 ms at
// P = 128, on every rank when a class opens. So it plays at most kModelMaxBytes (the
// ranking among pipelines and trees settles by then), only up to kModelMaxProcs processes
// (0.17-0.9 ms at P = 16), and once per shape and process. Beyond, MPICH's documented
// choice and one pipelined family (a tree for short messages) stand in for it.
constexpr int kModelMaxProcs = 32;
constexpr std::uint64_t kModelMaxBytes = std::uint64_t{1} << 20;

// A generic cluster (leancast-plan --compare's defaults), messages between nodes slower.
CostModel generic_model(const NodeCounts& counts) {
  CostModel model{.alpha = 2e-6, .beta = 1e-10};
  if (counts.nodes > 1) {
    // The model's node layout is by blocks; it only ranks candidates, trials decide.
    model.ranks_per_node = counts.ranks_per_node;
    model.alpha_inter = 5e-6;
    model.beta_inter = 2e-10;
  }
  return model;
}

std::vector<AlgorithmSpec> model_ranking(const BcastShape& shape) {
  if (shape.procs > kModelMaxProcs) {
    return {AlgorithmSpec(select_mpich(shape.procs, shape.bytes)),
            shape.bytes < (64 << 10) ? AlgorithmSpec(Algorithm::knomial, 8)
                                     : AlgorithmSpec(Algorithm::two_tree)};
  }
  BcastShape modelled = shape;
  modelled.bytes = std::min(shape.bytes, kModelMaxBytes);
  const NodeCounts counts = node_counts(modelled);
  using Key = std::tuple<int, std::uint64_t, int, int>;
  static std::mutex mutex;
  static std::map<Key, std::vector<AlgorithmSpec>> known;
  const Key key{modelled.procs, modelled.bytes, counts.nodes, counts.ranks_per_node};
  {
    std::lock_guard lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  const CostModel model = generic_model(counts);
  std::vector<std::pair<double, AlgorithmSpec>> ranked;
  for (const AlgorithmSpec& candidate : model_pool(counts.nodes > 1)) {
    try {
      ranked.emplace_back(model_seconds(candidate, modelled, model), candidate);
    } catch (const std::exception&) {
      // A shape the model cannot play: not a candidate.
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // Two parameters of one family that the model times alike (a message of one segment under
  // either segment size) are one schedule: the first stands for both.
  std::vector<AlgorithmSpec> out;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const bool same_as_earlier =
        std::any_of(ranked.begin(), ranked.begin() + i, [&](const auto& earlier) {
          return earlier.second.algorithm == ranked[i].second.algorithm &&
                 earlier.first == ranked[i].first;
        });
    if (!same_as_earlier) out.push_back(ranked[i].second);
  }
  std::lock_guard lock(mutex);
  return known.emplace(key, std::move(out)).first->second;
}

void add_once(std::vector<AlgorithmSpec>& list, const AlgorithmSpec& candidate) {
  if (candidate.algorithm == Algorithm::automatic) return;
  if (std::find(list.begin(), list.end(), candidate) == list.end()) list.push_back(candidate);
}

// Whether `spec`'s schedule copies through the kernel (phases through cross memory).
bool copies_through_kernel(const AlgorithmSpec& spec, const BcastShape& shape) {
  const RankSchedule schedule = make_schedule(spec, shape, shape.root);
  return std::any_of(schedule.phases.begin(), schedule.phases.end(),
                     [](const Phase& phase) { return through_kernel(phase.medium); });
}

}  // namespace

int size_class(std::uint64_t bytes) { return std::bit_width(bytes) - 1; }

std::uint64_t class_low(int size_class) { return std::uint64_t{1} << size_class; }

std::uint64_t class_high(int size_class) {
  return size_class >= 63 ? std::numeric_limits<std::uint64_t>::max()
                          : (std::uint64_t{1} << (size_class + 1)) - 1;
}

std::vector<AlgorithmSpec> tune_candidates(const TuneSettings& settings, const BcastShape& shape) {
  std::vector<AlgorithmSpec> list{Algorithm::mpi};
  if (!settings.list.empty()) {
    for (const AlgorithmSpec& candidate : settings.list) add_once(list, candidate);
    return list;
  }
  const auto limit = static_cast<std::size_t>(std::max(settings.candidates, 1));
  // auto's own choice, unless it copies through shared memory where that cannot run.
  const AlgorithmSpec automatic = resolve_automatic(Algorithm::automatic, shape);
  if (list.size() < limit && (settings.shared_memory || !uses_shared_memory(automatic))) {
    add_once(list, automatic);
  }
  // The model does not price copies through the node's memory (shm, cma, cma-split), so it
  // cannot rank them: on one node they are tried, in the registry's order; those through the
  // kernel only from kKernelCopyTriedFromBytes.
  if (settings.shared_memory && shape.procs > 1 && node_counts(shape).nodes == 1) {
    for (const AlgorithmSpec& spec : tuned_specs(false)) {
      if (list.size() >= limit || !uses_shared_memory(spec)) continue;
      const AlgorithmSpec plain(spec.algorithm);
      if (shape.bytes < kKernelCopyTriedFromBytes && copies_through_kernel(plain, shape)) continue;
      add_once(list, plain);
    }
  }
  if (list.size() < limit) {
    for (const AlgorithmSpec& candidate : model_ranking(shape)) {
      if (list.size() >= limit) break;
      add_once(list, candidate);
    }
  }
  return list;
}

std::size_t pick_winner(std::span<const double> seconds) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < seconds.size(); ++i) {
    if (best == 0 ? seconds[i] < seconds[0] * (1 - kTuneMargin) : seconds[i] < seconds[best]) {
      best = i;
    }
  }
  return best;
}

TuneStep OnlineTuner::next(int procs, std::uint64_t bytes,
                           const std::shared_ptr<const NodeMap>& nodes) {
  const int k = size_class(bytes);
  auto& state = classes_[k];
  if (!state) {
    state = std::make_unique<ClassState>();
    state->result.size_class = k;
    state->result.first_bytes = bytes;
    state->result.candidates = tune_candidates(settings_, {procs, 0, bytes, nodes});
    state->times.resize(state->result.candidates.size());
  }
  if (state->done) return {state->result.candidates[state->result.winner], k, false};
  return {state->result.candidates[state->current], k, true};
}

bool OnlineTuner::record(const TuneStep& step, double seconds) {
  ClassState& state = *classes_[step.size_class];
  if (state.done) return false;
  if (state.calls++ >= settings_.warmup) state.times[state.current].push_back(seconds);
  if (state.calls < settings_.warmup + settings_.trials) return false;
  state.calls = 0;
  return ++state.current == state.result.candidates.size();
}

std::vector<double> OnlineTuner::medians(int size_class) const {
  std::vector<double> out;
  for (std::vector<double> times : classes_[size_class]->times) {
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    out.push_back(times.empty() ? 0.0 : times[times.size() / 2]);
  }
  return out;
}

const TunedClass& OnlineTuner::settle(int size_class, std::span<const double> slowest) {
  ClassState& state = *classes_[size_class];
  state.result.seconds.assign(slowest.begin(), slowest.end());
  state.result.winner = pick_winner(slowest);
  state.done = true;
  state.times.clear();
  return state.result;
}

const TunedClass* OnlineTuner::settled(std::uint64_t bytes) const {
  if (bytes == 0) return nullptr;
  const auto& state = classes_[size_class(bytes)];
  return state && state->done ? &state->result : nullptr;
}

}  // namespace leancast::detail
