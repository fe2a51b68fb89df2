// Names of the algorithms, their parameters, and the table from Algorithm to schedule
// function. A new algorithm is a new file with its schedule function plus one row here.
#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string>

#include <leancast/schedule.hpp>

#include "algorithms.hpp"
#include "byte_size.hpp"

namespace leancast {

namespace {

// What the text after "name:" means.
enum class Parameter { none, segment_bytes, radix, block_count, levels };

// 64 KiB segments: at MPI's usual 1-5 us per message and ~10 GB/s, a 64 KiB segment costs
// a few times the latency, so pipelining pays for its extra messages from a few hundred KiB
// on (Open MPI's tuned chain and pipeline pick segments of this order).
constexpr std::uint64_t kDefaultSegmentBytes = 64 << 10;
// Radix 4: half the binomial tree's depth for three concurrent sends per node and level,
// the short-message trade-off when a node's injection rate is not the bottleneck.
constexpr std::uint64_t kDefaultRadix = 4;
// Keeps the k-nomial arithmetic (k^levels) far from overflow; a radix >= P is linear anyway.
constexpr std::uint64_t kMaxRadix = 1 << 20;

struct Entry {
  Algorithm algorithm;
  std::string_view name;
  std::string_view alias;  // the paper's name, if any
  detail::ScheduleFunction schedule;
  Parameter parameter = Parameter::none;
  std::uint64_t default_parameter = 0;
};

template <RankSchedule (*Schedule)(const BcastShape&, int)>
RankSchedule without_parameter(const BcastShape& shape, int rank, std::uint64_t) {
  return Schedule(shape, rank);
}

// automatic and mpi have no schedule: auto resolves to a concrete algorithm first, and mpi
// is the MPI library's own broadcast, which make_schedule refuses.
constexpr std::array<Entry, 14> kRegistry{{
    {Algorithm::automatic, "auto", "", nullptr},
    {Algorithm::linear, "linear", "", without_parameter<detail::linear_schedule>},
    {Algorithm::binomial, "binomial", "", without_parameter<detail::binomial_schedule>},
    {Algorithm::hypercube, "hypercube", "", without_parameter<detail::hypercube_schedule>},
    {Algorithm::scatter_doubling, "scatter-doubling", "",
     without_parameter<detail::scatter_doubling_schedule>},
    {Algorithm::scatter_ring, "scatter-ring", "native",
     without_parameter<detail::scatter_ring_schedule>},
    {Algorithm::scatter_ring_tuned, "scatter-ring-tuned", "opt",
     without_parameter<detail::scatter_ring_tuned_schedule>},
    {Algorithm::pipeline_chain, "pipeline-chain", "", detail::pipeline_chain_schedule,
     Parameter::segment_bytes, kDefaultSegmentBytes},
    {Algorithm::pipeline_binary_tree, "pipeline-binary-tree", "",
     detail::pipeline_binary_tree_schedule, Parameter::segment_bytes, kDefaultSegmentBytes},
    {Algorithm::two_tree, "two-tree", "", detail::two_tree_schedule, Parameter::segment_bytes,
     kDefaultSegmentBytes},
    {Algorithm::knomial, "knomial", "", detail::knomial_schedule, Parameter::radix,
     kDefaultRadix},
    // 0 blocks: as many as 64 KiB segments (circulant.cpp).
    {Algorithm::circulant, "circulant", "", detail::circulant_schedule, Parameter::block_count, 0},
    // Composes two schedules by its levels, not a parameter: make_schedule calls it.
    {Algorithm::node_aware, "node-aware", "", nullptr, Parameter::levels, 0},
    {Algorithm::mpi, "mpi", "", nullptr},
}};

constexpr std::array<Algorithm, 12> kConcrete{
    Algorithm::linear,         Algorithm::binomial,
    Algorithm::hypercube,      Algorithm::scatter_doubling,
    Algorithm::scatter_ring,   Algorithm::scatter_ring_tuned,
    Algorithm::pipeline_chain, Algorithm::pipeline_binary_tree,
    Algorithm::two_tree,       Algorithm::knomial,
    Algorithm::circulant,      Algorithm::node_aware,
};

const Entry& entry(Algorithm algorithm) {
  for (const Entry& e : kRegistry) {
    if (e.algorithm == algorithm) return e;
  }
  throw std::invalid_argument("unknown leancast::Algorithm value");
}

std::string check_spec(const AlgorithmSpec& spec);

// Why `value` is no parameter for `e`, or "" if it is one.
std::string check_parameter(const Entry& e, std::uint64_t value) {
  if ((e.parameter == Parameter::none || e.parameter == Parameter::levels) && value != 0) {
    return std::string(e.name) + " takes no parameter";
  }
  if (e.parameter == Parameter::segment_bytes && value == 0) {
    return std::string(e.name) + ": the segment size must be at least 1 byte";
  }
  if (e.parameter == Parameter::radix && (value < 2 || value > kMaxRadix)) {
    return std::string(e.name) + ": the radix must be an integer from 2 to " +
           std::to_string(kMaxRadix);
  }
  return "";
}

// Why `level` cannot be a level of a node-aware broadcast, or "".
std::string check_level(const LevelSpec& level) {
  if (level.algorithm == Algorithm::node_aware || level.algorithm == Algorithm::mpi) {
    return "node-aware: a level must be a leancast algorithm or auto, not " +
           std::string(entry(level.algorithm).name);
  }
  if (level.algorithm == Algorithm::automatic) {
    return level.parameter == 0 ? "" : "auto takes no parameter";
  }
  return check_parameter(entry(level.algorithm), level.parameter);
}

// Everything wrong with a spec: its parameter, and for node-aware its levels.
std::string check_spec(const AlgorithmSpec& spec) {
  const Entry& e = entry(spec.algorithm);
  if (std::string problem = check_parameter(e, spec.parameter); !problem.empty()) return problem;
  if (e.parameter != Parameter::levels) return "";
  if (std::string problem = check_level(spec.between_nodes); !problem.empty()) return problem;
  return check_level(spec.within_nodes);
}

std::optional<std::uint64_t> parse_parameter(const Entry& e, std::string_view text,
                                             std::string& error) {
  if (e.parameter == Parameter::segment_bytes) {
    if (auto bytes = detail::parse_byte_size(text)) return bytes;
    error = std::string(e.name) + ": segment size '" + std::string(text) +
            "' is not a size (e.g. 65536, 64K, 1M)";
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, failed] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (failed != std::errc() || end != text.data() + text.size() || text.empty()) {
    error = std::string(e.name) + (e.parameter == Parameter::radix ? ": radix '" : ": block count '") +
            std::string(text) + "' is not an integer";
    return std::nullopt;
  }
  return value;
}

std::string parameter_text(Parameter kind, std::uint64_t value) {
  if (kind == Parameter::segment_bytes) {
    for (auto [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
      if (value >= (std::uint64_t{1} << shift) && value % (std::uint64_t{1} << shift) == 0) {
        return std::to_string(value >> shift) + suffix;
      }
    }
  }
  return std::to_string(value);
}

}  // namespace

AlgorithmSpec::AlgorithmSpec(Algorithm a) : algorithm(a), parameter(default_parameter(a)) {}

std::uint64_t default_parameter(Algorithm algorithm) {
  return entry(algorithm).default_parameter;
}

std::string parameter_problem(const AlgorithmSpec& spec) { return check_spec(spec); }

std::string_view to_string(Algorithm algorithm) { return entry(algorithm).name; }

std::string to_string(const AlgorithmSpec& spec) {
  const Entry& e = entry(spec.algorithm);
  if (e.parameter == Parameter::levels) {
    return std::string(e.name) + ":" + to_string(AlgorithmSpec(spec.between_nodes)) + "/" +
           to_string(AlgorithmSpec(spec.within_nodes));
  }
  // circulant's default (0 blocks) depends on the size: the plain name says so.
  if (e.parameter == Parameter::none || (e.parameter == Parameter::block_count && spec.parameter == 0)) {
    return std::string(e.name);
  }
  return std::string(e.name) + ":" + parameter_text(e.parameter, spec.parameter);
}

AlgorithmSpec AlgorithmSpec::node_aware(const AlgorithmSpec& between, const AlgorithmSpec& within) {
  AlgorithmSpec spec(Algorithm::node_aware);
  spec.between_nodes = between.level();
  spec.within_nodes = within.level();
  return spec;
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const Entry& e : kRegistry) {
    if (dashed == e.name || (!e.alias.empty() && dashed == e.alias)) return e.algorithm;
  }
  return std::nullopt;
}

namespace {

// "BETWEEN/WITHIN" of "node-aware:BETWEEN/WITHIN".
std::optional<AlgorithmSpec> parse_levels(std::string_view text, std::string& why) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    why = "node-aware: write node-aware:BETWEEN/WITHIN, e.g. node-aware:pipeline-chain/binomial "
          "(got '" + std::string(text) + "')";
    return std::nullopt;
  }
  const auto between = parse_algorithm_spec(text.substr(0, slash), &why);
  if (!between) return std::nullopt;
  const auto within = parse_algorithm_spec(text.substr(slash + 1), &why);
  if (!within) return std::nullopt;
  const AlgorithmSpec spec = AlgorithmSpec::node_aware(*between, *within);
  if (between->algorithm == Algorithm::node_aware || within->algorithm == Algorithm::node_aware) {
    why = "node-aware: a level cannot be node-aware itself";
    return std::nullopt;
  }
  if (std::string problem = check_spec(spec); !problem.empty()) {
    why = problem;
    return std::nullopt;
  }
  return spec;
}

}  // namespace

std::optional<AlgorithmSpec> parse_algorithm_spec(std::string_view text, std::string* error) {
  std::string ignored;
  std::string& why = error != nullptr ? *error : ignored;
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const auto algorithm = parse_algorithm(name);
  if (!algorithm) {
    why = "unknown algorithm '" + std::string(name) + "' (known: " + algorithm_names() + ")";
    return std::nullopt;
  }
  if (colon == std::string_view::npos) return AlgorithmSpec(*algorithm);
  const Entry& e = entry(*algorithm);
  if (e.parameter == Parameter::levels) return parse_levels(text.substr(colon + 1), why);
  if (e.parameter == Parameter::none) {
    why = std::string(e.name) + " takes no parameter (got '" + std::string(text) + "')";
    return std::nullopt;
  }
  const auto value = parse_parameter(e, text.substr(colon + 1), why);
  if (!value) return std::nullopt;
  // 0 blocks is circulant's default (one block per 64 KiB), written without a parameter.
  if (e.parameter == Parameter::block_count && *value == 0) {
    why = std::string(e.name) + ": the block count must be at least 1";
    return std::nullopt;
  }
  if (std::string problem = check_parameter(e, *value); !problem.empty()) {
    why = problem;
    return std::nullopt;
  }
  return AlgorithmSpec(*algorithm, *value);
}

std::span<const Algorithm> concrete_algorithms() { return kConcrete; }

std::string algorithm_names() {
  std::string names;
  for (const Entry& e : kRegistry) {
    names += (names.empty() ? "" : ", ") + std::string(e.name);
    if (e.parameter == Parameter::segment_bytes) names += "[:SEGMENT_BYTES]";
    if (e.parameter == Parameter::radix) names += "[:RADIX]";
    if (e.parameter == Parameter::block_count) names += "[:BLOCKS]";
    if (e.parameter == Parameter::levels) names += "[:BETWEEN/WITHIN]";
    if (!e.alias.empty()) names += ", " + std::string(e.alias);
  }
  return names;
}

RankSchedule make_schedule(const AlgorithmSpec& spec, const BcastShape& shape, int rank) {
  if (shape.procs < 1 || shape.root < 0 || shape.root >= shape.procs || rank < 0 ||
      rank >= shape.procs) {
    throw std::invalid_argument("make_schedule: need 0 <= root, rank < procs");
  }
  if (spec.algorithm == Algorithm::mpi) {
    throw std::invalid_argument("make_schedule: mpi is the MPI library's broadcast, no schedule");
  }
  if (shape.nodes && shape.nodes->size() != static_cast<std::size_t>(shape.procs)) {
    throw std::invalid_argument("make_schedule: the node map must name a node for every rank");
  }
  if (std::string problem = check_spec(spec); !problem.empty()) {
    throw std::invalid_argument("make_schedule: " + problem);
  }
  const AlgorithmSpec runs = resolve_automatic(spec, shape);
  if (shape.bytes == 0 || shape.procs == 1) {
    RankSchedule empty;
    empty.rank = rank;
    return empty;
  }
  if (runs.algorithm == Algorithm::mpi) {
    throw std::invalid_argument("make_schedule: auto chose mpi (the MPI library's broadcast) for "
                                "this shape; it has no schedule");
  }
  if (runs.algorithm == Algorithm::node_aware) return detail::node_aware_schedule(runs, shape, rank);
  return entry(runs.algorithm).schedule(shape, rank, runs.parameter);
}

}  // namespace leancast
