#include "rules.hpp"

#include <algorithm>
#include <optional>

#include "schedule/byte_size.hpp"

namespace leancast::detail {

namespace {

constexpr std::string_view kBlanks = " \t\r";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

// Splits on any of `separators`, keeping empty pieces.
std::vector<std::string_view> split(std::string_view text, std::string_view separators) {
  std::vector<std::string_view> pieces;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find_first_of(separators, begin)) != std::string_view::npos;
       begin = end + 1) {
    pieces.push_back(text.substr(begin, end - begin));
  }
  pieces.push_back(text.substr(begin));
  return pieces;
}

// Parsing one rule: each step either fills in its part or leaves a message in `error`.
struct RuleParser {
  Rule rule;
  std::string error;
  bool seen_bytes = false;
  bool seen_procs = false;
  bool seen_ppn = false;

  bool library(std::string_view name) {
    if (!rule.library.empty()) {
      error = "library is given twice";
    } else if (name != "openmpi" && name != "mpich" && name != "smpi") {
      error = "unknown library '" + std::string(name) + "' (known: openmpi, mpich, smpi)";
    } else {
      rule.library = name;
    }
    return error.empty();
  }

  // NAME=VALUE: a variable the library reads, as the environment has it.
  bool configured(std::string_view setting) {
    const auto equals = setting.find('=');
    if (equals == 0 || equals == std::string_view::npos || equals + 1 == setting.size()) {
      error = "configured= takes NAME=VALUE, not '" + std::string(setting) + "'";
    } else if (std::find(rule.configured.begin(), rule.configured.end(), setting) !=
               rule.configured.end()) {
      error = "configured=" + std::string(setting) + " is given twice";
    } else {
      rule.configured.insert(
          std::upper_bound(rule.configured.begin(), rule.configured.end(), setting),
          std::string(setting));
    }
    return error.empty();
  }

  std::optional<std::uint64_t> number(std::string_view text) {
    auto value = parse_byte_size(text);
    if (!value) error = "'" + std::string(text) + "' is not a number (suffixes K, M, G: base 2)";
    return value;
  }

  std::optional<Range> range(std::string_view text) {
    if (text == "*") return Range{};
    const auto dash = text.find('-');
    const auto low = number(text.substr(0, dash));
    if (!low) return std::nullopt;
    if (dash == std::string_view::npos) return Range{*low, *low};
    if (dash + 1 == text.size()) return Range{*low};
    const auto high = number(text.substr(dash + 1));
    if (!high) return std::nullopt;
    if (*high < *low) {
      error = "range '" + std::string(text) + "' is empty (write LOW-HIGH)";
      return std::nullopt;
    }
    return Range{*low, *high};
  }

  bool condition(std::string_view text) {
    const auto equals = text.find('=');
    const std::string_view key =
        equals == std::string_view::npos ? "bytes" : text.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? text : text.substr(equals + 1);
    if (key == "library") return library(value);
    if (key == "configured") return configured(value);
    bool* seen = key == "bytes"   ? &seen_bytes
                 : key == "procs" ? &seen_procs
                 : key == "ppn"   ? &seen_ppn
                                  : nullptr;
    if (seen == nullptr) {
      error = "unknown condition '" + std::string(key) +
              "' (known: bytes, procs, ppn, library, configured)";
      return false;
    }
    if (*seen) {
      error = std::string(key) + " is given twice";
      return false;
    }
    *seen = true;
    const auto parsed = range(value);
    if (parsed) (key == "bytes" ? rule.bytes : key == "procs" ? rule.procs : rule.ppn) = *parsed;
    return parsed.has_value();
  }

  bool parse(std::string_view text) {
    // Conditions never contain ':', so the first one ends them; a second one belongs to
    // the algorithm's parameter ("knomial:8").
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
      error = "a rule is CONDITIONS:ALGORITHM (or CONDITIONS:ALGORITHM:PARAMETER)";
      return false;
    }
    const auto algorithm = parse_algorithm_spec(trim(text.substr(colon + 1)), &error);
    if (!algorithm) return false;
    rule.algorithm = *algorithm;
    int conditions = 0;
    for (std::string_view word : split(text.substr(0, colon), kBlanks)) {
      if (word.empty()) continue;
      if (!condition(word)) return false;
      ++conditions;
    }
    if (conditions == 0) error = "no condition before ':' (write * for any size)";
    return conditions > 0;
  }
};

}  // namespace

std::string_view built_for_library() { return LEANCAST_MPI_LIBRARY; }

Configuration configuration_of(std::vector<std::string> settings) {
  std::sort(settings.begin(), settings.end());
  settings.erase(std::unique(settings.begin(), settings.end()), settings.end());
  return settings;
}

const Rule* RuleSet::match(int procs, std::uint64_t bytes, int ranks_per_node,
                           const Configuration& configuration) const {
  for (const Rule& rule : rules) {
    const bool ours = (rule.library.empty() || rule.library == built_for_library()) &&
                      (rule.configured.empty() || rule.configured == configuration);
    if (ours && procs >= 0 && rule.procs.contains(static_cast<std::uint64_t>(procs)) &&
        rule.bytes.contains(bytes) && ranks_per_node >= 0 &&
        rule.ppn.contains(static_cast<std::uint64_t>(ranks_per_node))) {
      return &rule;
    }
  }
  return nullptr;
}

bool RuleSet::uses_ppn() const {
  for (const Rule& rule : rules) {
    if (!rule.ppn.any()) return true;
  }
  return false;
}

ParsedRules parse_rules(std::string_view text, std::string_view origin, bool by_line) {
  ParsedRules parsed;
  int line_number = 0, rule_number = 0;
  for (std::string_view line : split(text, "\n")) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    for (std::string_view piece : split(line, ",;")) {
      piece = trim(piece);
      if (piece.empty()) continue;
      ++rule_number;
      const std::string where = std::string(origin) + (by_line ? " line " : " rule ") +
                                std::to_string(by_line ? line_number : rule_number);
      RuleParser rule;
      if (!rule.parse(piece)) {
        parsed.error = where + " \"" + std::string(piece) + "\": " + rule.error;
        parsed.rules.rules.clear();
        return parsed;
      }
      rule.rule.where = where;
      parsed.rules.rules.push_back(std::move(rule.rule));
    }
  }
  return parsed;
}

}  // namespace leancast::detail
