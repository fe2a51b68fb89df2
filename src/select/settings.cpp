#include "settings.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "schedule/byte_size.hpp"

namespace leancast::detail {

namespace {

// Unset and empty variables count as absent.
const char* value_of(const Lookup& lookup, const char* name) {
  const char* value = lookup(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::string ignored(const char* name) { return std::string("; ") + name + " is ignored"; }

void read_algorithm(const Lookup& lookup, Settings& settings) {
  const char* value = value_of(lookup, "LEANCAST_BCAST_ALGORITHM");
  if (value == nullptr) return;
  std::string error;
  settings.algorithm = parse_algorithm_spec(value, &error);
  if (!settings.algorithm) {
    settings.warnings.push_back(std::string("LEANCAST_BCAST_ALGORITHM=") + value + ": " + error +
                                ignored("LEANCAST_BCAST_ALGORITHM"));
  }
}

void read_rules(const Lookup& lookup, Settings& settings) {
  const char* value = value_of(lookup, "LEANCAST_BCAST_RULES");
  if (value == nullptr) return;
  ParsedRules parsed = parse_rules(value, "LEANCAST_BCAST_RULES", false);
  if (!parsed.error.empty()) {
    settings.warnings.push_back(parsed.error + ignored("LEANCAST_BCAST_RULES"));
  }
  settings.rules = std::move(parsed.rules);
}

void read_config(const Lookup& lookup, Settings& settings) {
  const char* path = value_of(lookup, "LEANCAST_CONFIG");
  if (path == nullptr) return;
  std::error_code error;
  std::ifstream file(path);
  std::ostringstream text;
  if (std::filesystem::is_regular_file(path, error) && file) text << file.rdbuf();
  if (!std::filesystem::is_regular_file(path, error) || !file || file.bad()) {
    settings.warnings.push_back(std::string("LEANCAST_CONFIG=") + path + ": cannot read the file" +
                                ignored("LEANCAST_CONFIG"));
    return;
  }
  ParsedRules parsed = parse_rules(text.str(), path, true);
  if (!parsed.error.empty()) {
    settings.warnings.push_back("LEANCAST_CONFIG: " + parsed.error + ignored("LEANCAST_CONFIG"));
  }
  settings.config = std::move(parsed.rules);
}

// A yes/no setting: 1, yes, true, on (or 0, no, false, off).
void read_switch(const Lookup& lookup, const char* name, Settings& settings, bool& out) {
  const char* value = value_of(lookup, name);
  if (value == nullptr) return;
  const std::string_view v(value);
  if (v == "1" || v == "yes" || v == "true" || v == "on") {
    out = true;
  } else if (v == "0" || v == "no" || v == "false" || v == "off") {
    out = false;
  } else {
    settings.warnings.push_back(std::string(name) + "=" + value +
                                " is not 1 or 0 (or yes/no, true/false, on/off)" + ignored(name));
  }
}

// An integer setting in [low, high]; `out` is left as it is when unset or malformed.
void read_integer(const Lookup& lookup, const char* name, Settings& settings, int& out, int low = 1,
                  int high = 1 << 30) {
  const char* value = value_of(lookup, name);
  if (value == nullptr) return;
  const std::string_view v(value);
  int n = 0;
  const auto [end, failed] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (failed != std::errc() || end != v.data() + v.size() || n < low || n > high) {
    const std::string wanted =
        low == 1 && high == 1 << 30
            ? "a positive integer"
            : "an integer from " + std::to_string(low) + " to " + std::to_string(high);
    settings.warnings.push_back(std::string(name) + "=" + value + " is not " + wanted +
                                ignored(name));
    return;
  }
  out = n;
}

void read_tune_mode(const Lookup& lookup, Settings& settings) {
  const char* value = value_of(lookup, "LEANCAST_TUNE");
  if (value == nullptr) return;
  const std::string_view v(value);
  if (v == "online") {
    settings.tune_online = true;
  } else if (v != "off") {
    settings.warnings.push_back(std::string("LEANCAST_TUNE=") + value + " is not online or off" +
                                ignored("LEANCAST_TUNE"));
  }
}

// A number of candidates, or a list of algorithms (mpi is always tried; auto is not one).
void read_tune_candidates(const Lookup& lookup, Settings& settings) {
  const char* value = value_of(lookup, "LEANCAST_TUNE_CANDIDATES");
  if (value == nullptr) return;
  const std::string_view v(value);
  if (v.find_first_not_of("0123456789") == std::string_view::npos) {
    read_integer(lookup, "LEANCAST_TUNE_CANDIDATES", settings, settings.tune.candidates, 1, 64);
    return;
  }
  std::vector<AlgorithmSpec> list;
  for (std::size_t begin = 0; begin <= v.size();) {
    const std::size_t end = std::min(v.find(',', begin), v.size());
    std::string error;
    const auto spec = parse_algorithm_spec(v.substr(begin, end - begin), &error);
    if (spec && spec->algorithm == Algorithm::automatic)
      error = "auto is what online tuning chooses for";
    if (!spec || !error.empty()) {
      settings.warnings.push_back("LEANCAST_TUNE_CANDIDATES=" + std::string(v) + ": " + error +
                                  ignored("LEANCAST_TUNE_CANDIDATES"));
      return;
    }
    list.push_back(*spec);
    begin = end + 1;
  }
  settings.tune.list = std::move(list);
}

void read_tune_path(const Lookup& lookup, Settings& settings) {
  const char* path = value_of(lookup, "LEANCAST_TUNE_FILE");
  if (path == nullptr) return;
  settings.tune_path = path;
  settings.tune_file = read_tune_file(settings.tune_path);
  if (!settings.tune_file.warning.empty()) settings.warnings.push_back(settings.tune_file.warning);
}

// LEANCAST_STREAM_ABOVE: a byte count as rules write it ("8M", "1048576"), or off.
void read_stream_above(const Lookup& lookup, Settings& settings) {
  const char* value = value_of(lookup, "LEANCAST_STREAM_ABOVE");
  if (value == nullptr) return;
  if (std::string_view(value) == "off") {
    settings.stream_above = UINT64_MAX;
  } else if (const auto bytes = parse_byte_size(value)) {
    settings.stream_above = *bytes;
  } else {
    settings.warnings.push_back(std::string("LEANCAST_STREAM_ABOVE=") + value +
                                " is not a byte count (8M, 1048576) or off" +
                                ignored("LEANCAST_STREAM_ABOVE"));
  }
}

void read_executor(const Lookup& lookup, Settings& settings) {
  const char* value = value_of(lookup, "LEANCAST_EXECUTOR");
  if (value == nullptr) return;
  std::string why;
  if (const auto executor = parse_executor_spec(value, &why)) {
    settings.executor = *executor;
  } else {
    settings.warnings.push_back(std::string("LEANCAST_EXECUTOR=") + value + ": " + why +
                                ignored("LEANCAST_EXECUTOR"));
  }
}

// Whether the environment variable `name` configures the MPI library's broadcast: Open MPI's
// coll framework (which components run, their priorities, tuned's forced algorithm or rules
// file; not its verbosity), MPICH's control variables for broadcasts and the selection of
// collectives (set as MPIR_CVAR_X, MPICH_X or MPIR_PARAM_X).
bool configures_library_broadcast(std::string_view name) {
  if (name.starts_with("OMPI_MCA_coll")) return !name.ends_with("_verbose");
  for (const std::string_view prefix : {"MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"}) {
    if (!name.starts_with(prefix)) continue;
    name.remove_prefix(prefix.size());
    return name.find("BCAST") != std::string_view::npos ||
           name.find("COLL") != std::string_view::npos;
  }
  return false;
}

void read_library_configured(const Lookup& lookup, const std::vector<std::string>& names,
                             Settings& settings) {
  for (const std::string& name : names) {
    if (!configures_library_broadcast(name)) continue;
    const char* value = value_of(lookup, name.c_str());
    if (value != nullptr) settings.library_configuration.push_back(name + "=" + value);
  }
  settings.library_configuration = configuration_of(std::move(settings.library_configuration));
  // The name a log gives: the first in sorted order, whatever the environment's order.
  if (!settings.library_configuration.empty()) {
    const std::string& first = settings.library_configuration.front();
    settings.library_configured = first.substr(0, first.find('='));
  }
}

}  // namespace

Settings read_settings(const Lookup& lookup, const std::vector<std::string>& names) {
  Settings settings;
  read_algorithm(lookup, settings);
  read_rules(lookup, settings);
  read_config(lookup, settings);
  read_switch(lookup, "LEANCAST_VERBOSE", settings, settings.verbose);
  read_switch(lookup, "LEANCAST_CHECK", settings, settings.check);
  read_integer(lookup, "LEANCAST_RANKS_PER_NODE", settings, settings.ranks_per_node);
  read_executor(lookup, settings);
  read_integer(lookup, "LEANCAST_WINDOW", settings, settings.window);
  read_integer(lookup, "LEANCAST_SEND_WINDOW", settings, settings.send_window);
  read_stream_above(lookup, settings);
  read_switch(lookup, "LEANCAST_PROGRESS_THREAD", settings, settings.progress_thread);
  read_tune_mode(lookup, settings);
  read_integer(lookup, "LEANCAST_TUNE_WARMUP", settings, settings.tune.warmup, 0, 1000);
  read_integer(lookup, "LEANCAST_TUNE_TRIALS", settings, settings.tune.trials, 1, 1000);
  read_tune_candidates(lookup, settings);
  read_tune_path(lookup, settings);
  read_library_configured(lookup, names, settings);
  return settings;
}

}  // namespace leancast::detail
