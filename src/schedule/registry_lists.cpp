// What the registry's rows (registry.cpp) give the tools and tuners: help texts, name lists,
// the flat algorithms and the specs tuners measure.
#include <algorithm>
#include <string>
#include <vector>

#include <leancast/schedule.hpp>

#include "algorithms.hpp"

namespace leancast {

std::string algorithm_usage(const AlgorithmInfo& info) {
  switch (info.parameter) {
    case ParameterKind::segment_bytes:
      return std::string(info.name) + "[:SEGMENT_BYTES]";
    case ParameterKind::radix:
      return std::string(info.name) + "[:RADIX]";
    case ParameterKind::block_count:
      return std::string(info.name) + "[:BLOCKS]";
    case ParameterKind::levels:
      return std::string(info.name) + "[:BETWEEN/WITHIN]";
    case ParameterKind::none:
      break;
  }
  return std::string(info.name);
}

std::string algorithm_names() {
  std::string names;
  for (const AlgorithmInfo& a : algorithm_registry()) {
    names += (names.empty() ? "" : ", ") + algorithm_usage(a);
    if (!a.alias.empty()) names += ", " + std::string(a.alias);
  }
  return names;
}

std::string algorithm_help() {
  std::size_t width = 0;
  for (const AlgorithmInfo& a : algorithm_registry())
    width = std::max(width, algorithm_usage(a).size());
  std::string help;
  for (const AlgorithmInfo& a : algorithm_registry()) {
    std::string usage = algorithm_usage(a);
    usage.resize(width + 2, ' ');
    help += "  " + usage + std::string(a.description);
    if (!a.alias.empty()) help += "; also '" + std::string(a.alias) + "'";
    if (a.parameter == ParameterKind::segment_bytes || a.parameter == ParameterKind::radix ||
        a.parameter == ParameterKind::block_count) {
      help +=
          " (" + detail::parameter_text(a.parameter, a.min_parameter) + ".." +
          detail::parameter_text(a.parameter, a.max_parameter) + ", default " +
          (a.default_parameter == 0 ? std::string("one per 64K")
                                    : detail::parameter_text(a.parameter, a.default_parameter)) +
          ")";
    }
    help += "\n";
  }
  return help;
}

bool is_flat(const AlgorithmInfo& info) {
  return info.concrete && info.parameter != ParameterKind::levels;
}

std::vector<Algorithm> flat_algorithms() {
  std::vector<Algorithm> flat;
  for (const AlgorithmInfo& a : algorithm_registry()) {
    if (is_flat(a)) flat.push_back(a.algorithm);
  }
  return flat;
}

std::vector<std::string_view> tuned_names(const AlgorithmInfo& info) {
  std::vector<std::string_view> names;
  for (std::string_view rest = info.tuned; !rest.empty();) {
    const auto comma = std::min(rest.find(','), rest.size());
    names.push_back(rest.substr(0, comma));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
  }
  return names;
}

std::vector<AlgorithmSpec> tuned_specs(bool node_aware) {
  std::vector<AlgorithmSpec> specs;
  for (const AlgorithmInfo& a : algorithm_registry()) {
    if ((a.parameter == ParameterKind::levels) != node_aware) continue;
    for (std::string_view name : tuned_names(a)) specs.push_back(*parse_algorithm_spec(name));
  }
  return specs;
}

}  // namespace leancast
