// What leancast-job-bench, leancast-packing-bench and leancast-overlap-bench share: the
// bytes a root broadcasts (a pattern that differs per position and per call, so a stale or
// shifted byte shows), the median of samples, and option checks (parse_options, in
// parse_options.hpp, apart: CLI11 costs seconds of compiling in every file that includes it).
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace leancast::bench {

// How a record shows an argument or a setting: paths inside the current directory (the
// repository's root, where the scripts run) relative to it, so that a record means the same
// on every machine.
inline std::string shown(std::string text) {
  std::error_code ignored;
  const std::string here = std::filesystem::current_path(ignored).string() + "/";
  if (here.size() > 1) {
    for (std::size_t at; (at = text.find(here)) != std::string::npos;) text.erase(at, here.size());
  }
  return text;
}

// The command line as a record shows it.
inline std::vector<std::string> shown_command(int argc, char** argv) {
  std::vector<std::string> command;
  for (int i = 0; i < argc; ++i) command.push_back(shown(argv[i]));
  return command;
}

inline unsigned char pattern(std::uint64_t i, int salt) {
  return static_cast<unsigned char>(i * 7 + (i >> 13) + salt * 29 + 1);
}

// "a,b,,c" -> {a, b, c}: an option's comma-separated list.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// The end of a tool's option checks: a bad option is reported by rank 0 and exits 2 on
// every rank; otherwise run() gives the status.
template <class Run>
int run_or_refuse(const char* tool, const std::string& error, int rank, Run run) {
  if (error.empty()) return run();
  if (rank == 0) fmt::print(stderr, "{}: {}\n", tool, error);
  return 2;
}

// A tool's exit status from whether every broadcast delivered the right bytes.
inline int data_status(const char* tool, bool ok) {
  if (!ok) fmt::print(stderr, "{}: some broadcasts delivered wrong data\n", tool);
  return ok ? 0 : 1;
}

// `values` must not be empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace leancast::bench
