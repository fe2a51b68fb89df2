// auto's built-in table (data/auto.rules, compiled in): it parses, names only algorithms
// that run (mpi, the library's own broadcast, included), auto follows it, and where no rule
// applies auto runs the library's broadcast; it never puts a ring where the ring is
// latency-bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <leancast/schedule.hpp>

#include "select/rules.hpp"
#include "select/automatic.hpp"

namespace leancast::detail {
namespace {

ParsedRules table() { return parse_rules(automatic_table(), "auto table", true); }

TEST(AutoTable, ParsesAndNamesOnlyAlgorithmsThatRun) {
  const ParsedRules parsed = table();
  ASSERT_EQ(parsed.error, "");
  for (const Rule& rule : parsed.rules.rules) {
    EXPECT_NE(rule.algorithm.algorithm, Algorithm::automatic) << rule.where;
    EXPECT_EQ(parameter_problem(rule.algorithm), "") << rule.where;
  }
}

// The one-node sections' rules claim ppn as wide as procs, so 16 ranks on nodes of 12 match
// "procs=12-16 ppn=12-16"; shm runs within one node only, so auto runs the library's
// broadcast there (shm would fail with MPI_ERR_UNSUPPORTED_OPERATION).
TEST(AutoTable, SharedMemoryOnlyWhereEveryRankSharesTheNode) {
  const RuleSet rules = table().rules;
  int checked = 0;
  for (int procs = 2; procs <= 24; ++procs) {
    for (int ppn = 1; ppn < procs; ++ppn) {
      for (std::uint64_t bytes : {1024ull, 65536ull, 1ull << 24}) {
        const Rule* rule = rules.match(procs, bytes, ppn);
        if (rule == nullptr || !uses_shared_memory(rule->algorithm)) continue;
        ++checked;
        EXPECT_EQ(select_automatic(procs, bytes, ppn), AlgorithmSpec(Algorithm::mpi))
            << "P=" << procs << " ppn=" << ppn << " bytes=" << bytes;
      }
    }
  }
  // The Open MPI build's table has such rules (real16-openmpi); others may not.
  if (built_for_library() == "openmpi") {
    EXPECT_GT(checked, 0);
  }
}

// No measurement starts at 0 bytes (the smallest sizes measured are 64 B, 1 KiB and 1000 B),
// and below the smallest size measured auto runs the library's broadcast: at P = 2, shm once
// measured 2.5x MPI_Bcast at 1 KiB and 0.32x at 8 B (paper method).
TEST(AutoTable, NoLeancastRuleBelowTheSizesMeasured) {
  for (const Rule& rule : table().rules.rules) {
    EXPECT_TRUE(rule.bytes.low > 0 || rule.algorithm == AlgorithmSpec(Algorithm::mpi))
        << rule.where;
  }
}

// The first applying rule decides; without one, the MPI library's broadcast (no evidence
// that leancast is faster there); one process sends nothing, under the plainest name.
TEST(AutoTable, AutoFollowsTheFirstApplyingRuleElseTheLibrary) {
  const RuleSet rules = table().rules;
  int unmatched = 0;
  for (int procs : {1, 2, 3, 4, 8, 16, 24, 25, 33, 64, 129, 256, 700, 1024, 6144}) {
    for (int ppn : {1, 2, 4, 8, 16, 24}) {
      if (ppn > procs) continue;
      for (std::uint64_t bytes : {0ull, 8ull, 1024ull, 12288ull, 100000ull, 1ull << 20, 3000000ull,
                                  1ull << 24, 1ull << 26}) {
        const Rule* rule = rules.match(procs, bytes, ppn);
        const bool within_node = rule && (ppn == procs || !uses_shared_memory(rule->algorithm));
        const AlgorithmSpec expected = procs == 1    ? AlgorithmSpec(Algorithm::linear)
                                       : within_node ? rule->algorithm
                                                     : AlgorithmSpec(Algorithm::mpi);
        EXPECT_EQ(select_automatic(procs, bytes, ppn), expected)
            << "P=" << procs << " ppn=" << ppn << " bytes=" << bytes;
        unmatched += procs > 1 && rule == nullptr;
      }
    }
  }
  // Some classes have no evidence (e.g. 6144 ranks in nodes of 2): those exercise the
  // library fallback above.
  EXPECT_GT(unmatched, 0);
}

// Under a configuration of the library's broadcast, auto follows only rules measured under
// it (configured=, a section of their own); a rule measured under the library's defaults
// says nothing there, and a configuration nothing measured always gets the library's.
TEST(AutoTable, UnderAConfiguredLibraryOnlyRulesMeasuredUnderIt) {
  const RuleSet rules = table().rules;
  std::vector<Configuration> configurations{{"OMPI_MCA_coll_tuned_priority=30"}};
  for (const Rule& rule : rules.rules) {
    if (!rule.configured.empty() && std::find(configurations.begin(), configurations.end(),
                                              rule.configured) == configurations.end()) {
      configurations.push_back(rule.configured);
    }
  }
  for (const Configuration& configuration : configurations) {
    for (int procs : {2, 3, 4, 8, 16}) {
      for (std::uint64_t bytes : {8ull, 1024ull, 16384ull, 1ull << 20, 1ull << 24}) {
        const Rule* rule = rules.match(procs, bytes, procs, configuration);
        const AlgorithmSpec expected = rule != nullptr && !rule->configured.empty()
                                           ? rule->algorithm
                                           : AlgorithmSpec(Algorithm::mpi);
        EXPECT_EQ(select_automatic(procs, bytes, procs, configuration), expected)
            << configuration.front() << " P=" << procs << " bytes=" << bytes;
      }
    }
  }
  for (std::uint64_t bytes : {1024ull, 1ull << 20}) {
    EXPECT_EQ(select_automatic(2, bytes, 2, {"OMPI_MCA_coll_tuned_priority=30"}),
              AlgorithmSpec(Algorithm::mpi));
  }
}

// "a, b, c" (or with another separator) -> {a, b, c}
std::vector<std::string> split(std::string_view list, std::string_view separator = ", ") {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t next = std::min(list.find(separator, at), list.size());
    out.emplace_back(list.substr(at, next - at));
    at = next + separator.size();
  }
  return out;
}

// Every rule carries its evidence: it stands in a section that leancast-tune wrote (its
// header says real MPI, with the machine and the library, or a simulated platform), and its
// comment gives, at each size it covers, the measured speedups over the library's broadcast,
// back-to-back (paper) and with a barrier before each broadcast (osu), or the prediction.
TEST(AutoTable, EveryRuleCarriesItsEvidence) {
  std::string_view text = automatic_table();
  std::string section;               // the current section's header lines
  std::vector<std::string> methods;  // the timing methods its header names
  int line_number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string line(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line_number;
    if (line.rfind("# leancast-tune, ", 0) == 0) {
      section = line;
      continue;
    }
    if (line.rfind("# machine: ", 0) == 0 || line.rfind("# machines: ", 0) == 0) {
      section += "\n" + line;
    }
    if (line.rfind("# Methods: ", 0) == 0) {  // "# Methods: paper, osu (paper: ..."
      std::string_view list(line);
      list.remove_prefix(std::string_view("# Methods: ").size());
      methods = split(list.substr(0, list.find(" (")));
    }
    // A count measured with fewer methods than its section names says so in its own line
    // ("# P=4, ...; iterations x, repetitions r: paper 1K-256K x200 r9, ..."); its rules
    // carry those.
    const std::string counts_marker = "repetitions r: ";
    if (line.rfind("# P=", 0) == 0 && line.find(counts_marker) != std::string::npos) {
      methods.clear();
      for (const std::string& entry :
           split(line.substr(line.find(counts_marker) + counts_marker.size()))) {
        const std::string method = entry.substr(0, entry.find(' '));
        if (std::find(methods.begin(), methods.end(), method) == methods.end())
          methods.push_back(method);
      }
    }
    if (line.empty() || line[0] == '#') continue;
    SCOPED_TRACE("auto.rules line " + std::to_string(line_number) + ": " + line);
    ASSERT_FALSE(section.empty()) << "a rule outside any leancast-tune section";
    const bool real = section.find("real MPI") != std::string::npos;
    EXPECT_TRUE(real || section.find("simulated on ") != std::string::npos) << section;
    if (real) {
      // One machine, or several (a real section measured on each: scripts/auto-table.sh).
      EXPECT_TRUE(section.find("# machine: ") != std::string::npos ||
                  section.find("# machines: ") != std::string::npos)
          << section;
    }
    const std::size_t comment = line.find('#');
    ASSERT_NE(comment, std::string::npos) << "a rule without its evidence";
    // Per size ("SIZE: ... | SIZE: ..."): speedups over the library's broadcast under every
    // timing method the section measured ("(paper 1.2x, osu 1.3x ..." for paper and osu; the
    // large sections measured sync only), or, in a --predict section, a prediction with its
    // validation error.
    ASSERT_FALSE(methods.empty()) << "a section without its methods line";
    for (const std::string& part : split(std::string_view(line).substr(comment + 1), " | ")) {
      if (part.find(": predicted ") != std::string::npos) {
        EXPECT_NE(part.find("validation error "), std::string::npos) << part;
        continue;
      }
      for (std::size_t i = 0; i < methods.size(); ++i) {
        EXPECT_NE(part.find((i == 0 ? "(" : "") + methods[i] + " "), std::string::npos)
            << methods[i] << " in " << part;
      }
    }
  }
}

bool is_ring(const AlgorithmSpec& spec) {
  const auto ring = [](Algorithm a) {
    return a == Algorithm::scatter_ring || a == Algorithm::scatter_ring_tuned;
  };
  return ring(spec.algorithm) ||
         (spec.algorithm == Algorithm::node_aware && ring(spec.between_nodes.algorithm));
}

// The ring's P - 1 start-ups outweigh its bandwidth term 2 n beta while
// n < (P - 1) alpha / (2 beta); with hornet's 1.3 us and 10 GB/s that is (P - 1) * 6500
// bytes. There auto must not run a ring (between nodes, for node-aware).
TEST(AutoTable, NeverTheRingWhereItIsLatencyBound) {
  for (int procs : {64, 129, 256, 512, 1024, 4096, 6144}) {
    for (int ppn : {1, 24}) {
      const auto leaders = static_cast<std::uint64_t>(ppn == 1 ? procs : (procs + ppn - 1) / ppn);
      for (std::uint64_t bytes = 1; bytes < static_cast<std::uint64_t>(procs - 1) * 6500;
           bytes *= 2) {
        const AlgorithmSpec chosen = select_automatic(procs, bytes, ppn);
        const bool ring_between_few_leaders =
            chosen.algorithm == Algorithm::node_aware && bytes >= (leaders - 1) * 6500;
        EXPECT_TRUE(!is_ring(chosen) || ring_between_few_leaders)
            << "P=" << procs << " ppn=" << ppn << " bytes=" << bytes << ": " << to_string(chosen);
      }
    }
  }
}

}  // namespace
}  // namespace leancast::detail
