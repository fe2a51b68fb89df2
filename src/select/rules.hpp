// Selection rules: which algorithm a broadcast of `bytes` bytes on `procs` processes, at
// most `ppn` of them on one node, uses.
// LEANCAST_BCAST_RULES and the files LEANCAST_CONFIG names share one grammar:
//
//   rules     := rule { (',' | ';' | newline) rule }     '#' comments to the end of a line
//   rule      := condition { blank condition } ':' algorithm [ ':' parameter ]
//   condition := [ ("bytes" | "procs" | "ppn") '=' ] range   a range without a key is bytes
//              | "library=" ("openmpi" | "mpich" | "smpi")
//              | "configured=" NAME "=" VALUE                   (repeatable)
//   range     := '*' | N | N '-' | N '-' M               inclusive; N, M take K, M, G (base 2)
//
// A rule applies when all its conditions hold (a missing condition holds for any value);
// the first rule that applies wins. ppn is the number of ranks on the communicator's most
// populated node. library= limits a rule to leancast built against that MPI library: a
// measurement against Open MPI's MPI_Bcast says nothing about MPICH's. configured= limits a
// rule to a run whose environment configures the library's broadcast with exactly those
// variables (Settings::library_configuration: OMPI_MCA_coll_sm_priority=100, say): a
// measurement against coll sm forced says nothing about the default selection, nor the
// other way round (a rule without it, in auto's table, was measured under the defaults:
// select_automatic). leancast-tune and
// auto's built-in table (data/auto.rules) write the same format: one line per
// (process-count, ranks-per-node, byte range) cell. MPI-free.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <leancast/algorithm.hpp>

namespace leancast::detail {

struct Range {
  std::uint64_t low = 0;
  std::uint64_t high = std::numeric_limits<std::uint64_t>::max();
  bool contains(std::uint64_t value) const { return low <= value && value <= high; }
  bool any() const { return low == 0 && high == std::numeric_limits<std::uint64_t>::max(); }
};

// The variables that configure the MPI library's broadcast, "NAME=VALUE" each, sorted.
using Configuration = std::vector<std::string>;
// `settings` as a Configuration: sorted, each once.
Configuration configuration_of(std::vector<std::string> settings);

struct Rule {
  Range procs;
  Range bytes;
  Range ppn;                 // ranks per node
  std::string library;       // empty: any; else the MPI library leancast must be built against
  Configuration configured;  // empty: any; else the library's configuration, exactly
  AlgorithmSpec algorithm;   // with its parameter: "procs=8- 1M-:pipeline-chain:128K"
  std::string where;         // for logs: "LEANCAST_BCAST_RULES rule 2", "/path/rules line 7"
};

// The MPI library this build of leancast runs on, as library= names it.
std::string_view built_for_library();

struct RuleSet {
  std::vector<Rule> rules;
  // The first rule that applies (library= rules only in a build for that library, configured=
  // rules only under that `configuration`), or nullptr.
  const Rule* match(int procs, std::uint64_t bytes, int ranks_per_node,
                    const Configuration& configuration = {}) const;
  // Whether any rule has a ppn condition (else match ignores ranks_per_node).
  bool uses_ppn() const;
};

struct ParsedRules {
  RuleSet rules;
  std::string error;  // empty on success; otherwise where and what, for one warning
};

// Parses `text`. `origin` names it in messages and in Rule::where; places are numbered
// by line for files (`by_line`) and by rule for one-line variables. Any malformed rule
// makes the whole text an error: half a rule set would choose differently than written.
ParsedRules parse_rules(std::string_view text, std::string_view origin, bool by_line);

}  // namespace leancast::detail
