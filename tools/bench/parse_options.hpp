// The bench tools' command line (CLI11), apart from bench_support.hpp so that only the
// files that parse options compile CLI11.
#pragma once

#include <CLI/CLI.hpp>

namespace leancast::bench {

// Parses the options (the same on every rank); rank 0 alone prints the help or the error.
// -1: go on; otherwise the exit status.
inline int parse_options(CLI::App& app, int argc, char** argv, int rank) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  return -1;
}

}  // namespace leancast::bench
