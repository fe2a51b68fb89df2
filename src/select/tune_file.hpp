// LEANCAST_TUNE_FILE: what online tuning learned, kept between jobs in the LEANCAST_CONFIG
// grammar (rules.hpp), one rule per (process count, ranks per node, size class) with its
// evidence in the comment. The file's first line marks it as leancast's; a file without it
// (a site's own rules, anything else) is foreign: read nowhere, written never. A file with
// it that does not parse is corrupt: ignored with a warning, and rewritten. MPI-free.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <leancast/algorithm.hpp>

#include "rules.hpp"

namespace leancast::detail {

inline constexpr std::string_view kTuneFileMark = "# leancast online tuning";

struct TuneFile {
  RuleSet rules;                   // to follow (empty if missing, foreign or corrupt)
  std::vector<std::string> lines;  // the rule lines as written, kept when rewriting
  bool writable = true;            // false for a foreign file
  std::string warning;             // empty, or why the file is ignored
};

// Reads the file at `path`; a missing file, or one of blanks only, is an empty, writable one.
TuneFile read_tune_file(const std::string& path);

// One learned rule: "procs=P ppn=N library=L bytes=LOW-HIGH : ALGORITHM  # evidence".
std::string learned_rule(int procs, int ranks_per_node, std::uint64_t low, std::uint64_t high,
                         const AlgorithmSpec& winner, std::string_view evidence);

// The whole file: the mark, `about` (comment lines), then the kept and the new rules.
std::string tune_file_text(std::string_view about, const std::vector<std::string>& kept,
                           const std::vector<std::string>& learned);

// Writes `text` to `path` atomically (a temporary file beside it, then rename). Returns an
// error message, empty on success.
std::string write_atomically(const std::string& path, const std::string& text);

}  // namespace leancast::detail
