// What leancast-job-bench, leancast-packing-bench and leancast-overlap-bench share: the
// bytes a root broadcasts (a pattern that differs per position and per call, so a stale or
// shifted byte shows), the median of samples, and option checks (parse_options, in
// parse_options.hpp, apart: CLI11 costs seconds of compiling in every file that includes it).
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace leancast::bench {

// How a record shows one absolute path, so that a record names no machine's folders: inside
// the current directory (the repository's root, where the scripts run) relative to it;
// where it shares a folder with the current directory below the root and the temporary
// folder (the checkout seen from its build, a build beside it) relative to it with ..; else
// inside the temporary folder ($TMPDIR, else /tmp) as $TMPDIR/...; anything else
// (/usr/..., /dev/shm/...) as it is. tools/tune/leancast_tune/common.py's shown_path()
// follows the same rules.
inline std::string shown_path(const std::string& path) {
  namespace fs = std::filesystem;
  const auto under = [](const fs::path& p, const fs::path& folder) {
    if (folder.empty() || folder == "/") return false;
    const fs::path rest = p.lexically_relative(folder);
    return !rest.empty() && *rest.begin() != "..";
  };
  const fs::path p = fs::path(path).lexically_normal();
  const char* tmpdir = std::getenv("TMPDIR");
  const fs::path temporary[] = {
      fs::path(tmpdir != nullptr && *tmpdir ? tmpdir : "/tmp").lexically_normal(),
      fs::path("/tmp")};
  std::error_code error;
  const fs::path here = fs::current_path(error).lexically_normal();
  if (!error) {
    fs::path shared;  // the folders p and here have in common
    for (auto a = p.begin(), b = here.begin(); a != p.end() && b != here.end() && *a == *b;
         ++a, ++b) {
      shared /= *a;
    }
    const bool below_temporary =
        std::any_of(std::begin(temporary), std::end(temporary),
                    [&](const fs::path& t) { return t == shared || under(t, shared); });
    if (under(p, here) || (shared != "/" && !shared.empty() && !below_temporary)) {
      return p.lexically_relative(here).string();
    }
  }
  for (const fs::path& tmp : temporary) {
    if (under(p, tmp)) {
      const std::string rest = p.lexically_relative(tmp).string();
      return rest == "." ? "$TMPDIR" : "$TMPDIR/" + rest;
    }
  }
  return path;
}

// How a record shows an argument or a setting: each absolute path in it (the whole text,
// or a part after '=', ':' or ',', up to the next ':' or ',') as shown_path shows it.
inline std::string shown(std::string text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool starts = text[i] == '/' && (i == 0 || std::string_view("=:,").find(text[i - 1]) !=
                                                         std::string_view::npos);
    if (!starts || (i + 1 < text.size() && text[i + 1] == '/')) {
      out += text[i++];
      continue;
    }
    const std::size_t end = std::min(text.find_first_of(":,", i), text.size());
    out += shown_path(text.substr(i, end - i));
    i = end;
  }
  return out;
}

// The command line as a record shows it: the program by its name, the arguments by shown.
inline std::vector<std::string> shown_command(int argc, char** argv) {
  std::vector<std::string> command;
  for (int i = 0; i < argc; ++i) {
    command.push_back(i == 0 ? std::filesystem::path(argv[0]).filename().string() : shown(argv[i]));
  }
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
