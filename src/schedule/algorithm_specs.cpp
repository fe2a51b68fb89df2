// Algorithm specs checked and parsed against the registry's rows (registry.cpp): a
// parameter's range, node-aware's levels, and the text form NAME[:PARAMETER][@EXECUTOR]
// that the environment, info hints and the tools' options are written in.
#include <algorithm>
#include <charconv>
#include <string>

#include <leancast/schedule.hpp>

#include "algorithms.hpp"
#include "byte_size.hpp"

namespace leancast::detail {

using enum ParameterKind;

namespace {

// "the segment size", "the radix", "the block count".
std::string_view what_of(ParameterKind kind) {
  switch (kind) {
    case segment_bytes:
      return "segment size";
    case radix:
      return "radix";
    case block_count:
      return "block count";
    default:
      return "parameter";
  }
}

// "an integer from 2 to 1048576", "from 1 byte to 1G".
std::string range_text(const AlgorithmInfo& a) {
  if (a.parameter == segment_bytes) {
    return "from " + std::to_string(a.min_parameter) + (a.min_parameter == 1 ? " byte" : " bytes") +
           " to " + parameter_text(segment_bytes, a.max_parameter);
  }
  return "an integer from " + std::to_string(a.min_parameter) + " to " +
         std::to_string(a.max_parameter);
}

// Why `value` is no parameter for `a`, or "" if it is one. `written`: the user wrote it
// (circulant's default, 0, is only valid unwritten).
std::string check_parameter(const AlgorithmInfo& a, std::uint64_t value, bool written) {
  if (a.parameter == none || a.parameter == levels) {
    return value == 0 ? "" : std::string(a.name) + " takes no parameter";
  }
  if (!written && value == a.default_parameter) return "";
  if (value >= a.min_parameter && value <= a.max_parameter) return "";
  return std::string(a.name) + ": the " + std::string(what_of(a.parameter)) + " must be " +
         range_text(a) + " (got " + std::to_string(value) + ")";
}

// Why `level` cannot be a level of a node-aware broadcast, or "".
std::string check_level(const LevelSpec& level) {
  const AlgorithmInfo& a = algorithm_info(level.algorithm);
  if (level.algorithm == Algorithm::node_aware || level.algorithm == Algorithm::mpi) {
    return "node-aware: a level must be a leancast algorithm or auto, not " + std::string(a.name);
  }
  return check_parameter(a, level.parameter, false);
}

// Everything wrong with a spec: its parameter, and for node-aware its levels.
std::string check_spec(const AlgorithmSpec& spec) {
  const AlgorithmInfo& a = algorithm_info(spec.algorithm);
  if (std::string problem = check_parameter(a, spec.parameter, false); !problem.empty()) {
    return problem;
  }
  if (a.parameter != levels) return "";
  if (const AlgorithmInfo& between = algorithm_info(spec.between_nodes.algorithm);
      between.within_node) {
    return "node-aware: " + std::string(between.name) +
           " works within a node; the level between nodes must move messages";
  }
  if (std::string problem = check_level(spec.between_nodes); !problem.empty()) return problem;
  return check_level(spec.within_nodes);
}

std::optional<std::uint64_t> parse_parameter(const AlgorithmInfo& a, std::string_view text,
                                             std::string& error) {
  if (a.parameter == segment_bytes) {
    if (auto bytes = detail::parse_byte_size(text)) return bytes;
    error = std::string(a.name) + ": segment size '" + std::string(text) +
            "' is not a size (e.g. 65536, 64K, 1M)";
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, failed] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (failed != std::errc() || end != text.data() + text.size() || text.empty()) {
    error = std::string(a.name) + ": " + std::string(what_of(a.parameter)) + " '" +
            std::string(text) + "' is not " +
            (failed == std::errc::result_out_of_range ? range_text(a) : "an integer");
    return std::nullopt;
  }
  return value;
}

// "BETWEEN/WITHIN" of "node-aware:BETWEEN/WITHIN".
std::optional<AlgorithmSpec> parse_levels(std::string_view text, std::string& why) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    why =
        "node-aware: write node-aware:BETWEEN/WITHIN, e.g. node-aware:pipeline-chain/binomial "
        "(got '" +
        std::string(text) + "')";
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

}  // namespace leancast::detail

namespace leancast {

std::string parameter_problem(const AlgorithmSpec& spec) { return detail::check_spec(spec); }

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const AlgorithmInfo& info : algorithm_registry()) {
    if (dashed == info.name || (!info.alias.empty() && dashed == info.alias)) {
      return info.algorithm;
    }
  }
  return std::nullopt;
}

std::optional<AlgorithmSpec> parse_algorithm_spec(std::string_view text, std::string* error) {
  std::string ignored;
  std::string& why = error != nullptr ? *error : ignored;
  if (const auto at = text.rfind('@'); at != std::string_view::npos) {
    auto spec = parse_algorithm_spec(text.substr(0, at), &why);
    if (!spec) return std::nullopt;
    const auto executor = parse_executor_spec(text.substr(at + 1), &why);
    if (!executor) return std::nullopt;
    if (spec->algorithm == Algorithm::mpi) {
      why =
          "mpi is the library's broadcast: it takes no executor (got '" + std::string(text) + "')";
      return std::nullopt;
    }
    spec->executor = executor;
    return spec;
  }
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const auto algorithm = parse_algorithm(name);
  if (!algorithm) {
    why = "unknown algorithm '" + std::string(name) + "' (known: " + algorithm_names() + ")";
    return std::nullopt;
  }
  if (colon == std::string_view::npos) return AlgorithmSpec(*algorithm);
  const AlgorithmInfo& a = algorithm_info(*algorithm);
  if (a.parameter == ParameterKind::levels)
    return detail::parse_levels(text.substr(colon + 1), why);
  if (a.parameter == ParameterKind::none) {
    why = std::string(a.name) + " takes no parameter (got '" + std::string(text) + "')";
    return std::nullopt;
  }
  const auto value = detail::parse_parameter(a, text.substr(colon + 1), why);
  if (!value) return std::nullopt;
  if (std::string problem = detail::check_parameter(a, *value, true); !problem.empty()) {
    why = problem;
    return std::nullopt;
  }
  return AlgorithmSpec(*algorithm, *value);
}

}  // namespace leancast
