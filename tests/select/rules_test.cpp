// The rules grammar shared by LEANCAST_BCAST_RULES and LEANCAST_CONFIG files.
#include <gtest/gtest.h>

#include "select/rules.hpp"

namespace leancast::detail {
namespace {

RuleSet parsed(std::string_view text, bool by_line = false) {
  ParsedRules result = parse_rules(text, "RULES", by_line);
  EXPECT_EQ(result.error, "") << text;
  return result.rules;
}

// The error message of a malformed text (which must leave no rules behind).
std::string error_of(std::string_view text, bool by_line = false) {
  ParsedRules result = parse_rules(text, "RULES", by_line);
  EXPECT_TRUE(result.rules.rules.empty()) << text;
  return result.error;
}

AlgorithmSpec chosen(const RuleSet& rules, int procs, std::uint64_t bytes, int ppn = 1,
                     const Configuration& configuration = {}) {
  const Rule* rule = rules.match(procs, bytes, ppn, configuration);
  return rule ? rule->algorithm : AlgorithmSpec(Algorithm::mpi);  // mpi: "no rule" in these tests
}

TEST(Rules, TheIssuesExampleSplitsAtTheShortMessageSize) {
  const RuleSet rules = parsed("0-12288:binomial,12289-:scatter-ring-tuned");
  ASSERT_EQ(rules.rules.size(), 2u);
  EXPECT_EQ(chosen(rules, 4, 0), Algorithm::binomial);
  EXPECT_EQ(chosen(rules, 4, 12288), Algorithm::binomial);
  EXPECT_EQ(chosen(rules, 4, 12289), Algorithm::scatter_ring_tuned);
  EXPECT_EQ(chosen(rules, 100000, UINT64_MAX), Algorithm::scatter_ring_tuned);
  EXPECT_EQ(rules.rules[1].where, "RULES rule 2");
}

TEST(Rules, ProcessCountsSuffixesStarsAndSingleValues) {
  const RuleSet rules =
      parsed("procs=1-7 bytes=*:binomial; procs=8 512K-:opt; procs=9- 1M:mpi, *:auto");
  EXPECT_EQ(chosen(rules, 7, 1 << 30), Algorithm::binomial);
  EXPECT_EQ(chosen(rules, 8, 524287), Algorithm::automatic);
  EXPECT_EQ(chosen(rules, 8, 524288), Algorithm::scatter_ring_tuned);
  EXPECT_EQ(chosen(rules, 9, 1 << 20), Algorithm::mpi);
  EXPECT_EQ(chosen(rules, 9, (1 << 20) + 1), Algorithm::automatic);
}

// A range whose ends are equal holds that one value (procs=4-4 is procs=4), and an
// executor after '@' goes with the algorithm.
TEST(Rules, RangesOfOneValueAndExecutors) {
  const RuleSet rules =
      parsed("procs=4-4 ppn=2-2 1K-1K:binomial@rounds; procs=4-4 *:two-tree:16K@dataflow:0");
  AlgorithmSpec rounds(Algorithm::binomial);
  rounds.executor = ExecutorSpec{ExecutorSpec::Kind::rounds, -1};
  EXPECT_EQ(chosen(rules, 4, 1024, 2), rounds);
  AlgorithmSpec paced(Algorithm::two_tree, 16 * 1024);
  paced.executor = ExecutorSpec{ExecutorSpec::Kind::dataflow, 0};
  EXPECT_EQ(chosen(rules, 4, 1025, 2), paced);
  EXPECT_EQ(chosen(rules, 4, 1024, 3), paced);
  EXPECT_EQ(chosen(rules, 5, 1024, 2), Algorithm::mpi);  // no rule
  EXPECT_EQ(chosen(rules, 3, 1024, 2), Algorithm::mpi);
}

TEST(Rules, RanksPerNodeNarrowRules) {
  const RuleSet rules = parsed(
      "ppn=1 *:pipeline-chain, ppn=2-8 procs=16- 1M-:node-aware:binomial/linear, *:binomial");
  EXPECT_TRUE(rules.uses_ppn());
  EXPECT_FALSE(parsed("procs=4 *:linear").uses_ppn());
  EXPECT_EQ(chosen(rules, 64, 100, 1), Algorithm::pipeline_chain);
  EXPECT_EQ(chosen(rules, 64, 1 << 20, 8),
            AlgorithmSpec::node_aware(Algorithm::binomial, Algorithm::linear));
  EXPECT_EQ(chosen(rules, 8, 1 << 20, 8), Algorithm::binomial);   // procs 8 < 16
  EXPECT_EQ(chosen(rules, 64, 1 << 20, 9), Algorithm::binomial);  // ppn 9 > 8
}

// A rule measured against one MPI library applies only in a build for that library.
TEST(Rules, LibraryConditionLimitsARuleToItsBuild) {
  const std::string ours(built_for_library());
  const std::string other = ours == "openmpi" ? "mpich" : "openmpi";
  const RuleSet rules = parsed("library=" + other + " procs=2 *:linear; library=" + ours +
                               " procs=2 *:binomial; *:hypercube");
  EXPECT_EQ(rules.rules[0].library, other);
  EXPECT_EQ(chosen(rules, 2, 100), Algorithm::binomial);
  EXPECT_EQ(chosen(rules, 3, 100), Algorithm::hypercube);
  EXPECT_EQ(
      error_of("library=lam *:linear"),
      "RULES rule 1 \"library=lam *:linear\": unknown library 'lam' (known: openmpi, mpich, smpi)");
  EXPECT_EQ(error_of("library=mpich library=mpich *:linear"),
            "RULES rule 1 \"library=mpich library=mpich *:linear\": library is given twice");
}

// A rule measured under a configuration of the library's broadcast applies under exactly
// that one (every variable, in any order); without configured= a rule applies under any.
TEST(Rules, ConfiguredConditionLimitsARuleToThatConfiguration) {
  const RuleSet rules = parsed(
      "configured=B=2 configured=A=1 procs=2 *:linear; "
      "configured=A=1 procs=2 *:binomial; procs=2 *:hypercube");
  EXPECT_EQ(rules.rules[0].configured, (Configuration{"A=1", "B=2"}));  // sorted
  EXPECT_EQ(chosen(rules, 2, 100, 1, {"A=1", "B=2"}), Algorithm::linear);
  EXPECT_EQ(chosen(rules, 2, 100, 1, {"A=1"}), Algorithm::binomial);
  EXPECT_EQ(chosen(rules, 2, 100, 1, {"A=2"}), Algorithm::hypercube);
  EXPECT_EQ(chosen(rules, 2, 100), Algorithm::hypercube);
  EXPECT_EQ(chosen(rules, 2, 100, 1, {"A=1", "B=2", "C=3"}), Algorithm::hypercube);
  EXPECT_EQ(error_of("configured=A *:linear"),
            "RULES rule 1 \"configured=A *:linear\": configured= takes NAME=VALUE, not 'A'");
  EXPECT_EQ(error_of("configured=A= *:linear"),
            "RULES rule 1 \"configured=A= *:linear\": configured= takes NAME=VALUE, not 'A='");
  EXPECT_EQ(error_of("configured==1 *:linear"),
            "RULES rule 1 \"configured==1 *:linear\": configured= takes NAME=VALUE, not '=1'");
  EXPECT_EQ(
      error_of("configured=A=1 configured=A=1 *:linear"),
      "RULES rule 1 \"configured=A=1 configured=A=1 *:linear\": configured=A=1 is given twice");
}

TEST(Rules, FirstApplyingRuleWinsAndUncoveredSizesMatchNothing) {
  const RuleSet rules = parsed("100-200:linear,0-1000:hypercube");
  EXPECT_EQ(chosen(rules, 2, 150), Algorithm::linear);
  EXPECT_EQ(chosen(rules, 2, 50), Algorithm::hypercube);
  EXPECT_EQ(rules.match(2, 1001, 1), nullptr);
  EXPECT_EQ(parsed("").match(2, 1, 1), nullptr);
}

TEST(Rules, FilesHaveCommentsBlankLinesAndLineNumbers) {
  const RuleSet rules = parsed(
      "# tuned on 2 nodes\n"
      "\n"
      "procs=2-3   0-16K     : scatter_doubling   # underscores are fine\n"
      "            16K-      : scatter-ring\r\n",
      true);
  ASSERT_EQ(rules.rules.size(), 2u);
  EXPECT_EQ(rules.rules[0].where, "RULES line 3");
  EXPECT_EQ(rules.rules[1].where, "RULES line 4");
  EXPECT_EQ(chosen(rules, 3, 16384), Algorithm::scatter_doubling);
  EXPECT_EQ(chosen(rules, 4, 16384), Algorithm::scatter_ring);
}

// A second ':' starts the algorithm's parameter; without one the default applies.
TEST(Rules, AlgorithmsWithParameters) {
  const RuleSet rules =
      parsed("procs=1-7 *:knomial:8; procs=8- 0-1M:knomial, *:pipeline-chain:128K");
  EXPECT_EQ(chosen(rules, 4, 1), (AlgorithmSpec{Algorithm::knomial, 8}));
  EXPECT_EQ(chosen(rules, 8, 1024), (AlgorithmSpec{Algorithm::knomial, 4}));
  EXPECT_EQ(chosen(rules, 8, 2 << 20), (AlgorithmSpec{Algorithm::pipeline_chain, 128 << 10}));
  EXPECT_NE(chosen(rules, 8, 2 << 20), Algorithm::pipeline_chain);  // not the default 64K
}

TEST(Rules, MalformedRulesSayWhereAndWhat) {
  EXPECT_EQ(
      error_of("0-10:binomial,11-:ring"),
      "RULES rule 2 \"11-:ring\": unknown algorithm 'ring' (known: " + algorithm_names() + ")");
  EXPECT_EQ(error_of("0-10 binomial"),
            "RULES rule 1 \"0-10 binomial\": a rule is CONDITIONS:ALGORITHM (or "
            "CONDITIONS:ALGORITHM:PARAMETER)");
  EXPECT_EQ(error_of("0-10:binomial:x"),
            "RULES rule 1 \"0-10:binomial:x\": binomial takes no parameter (got 'binomial:x')");
  EXPECT_EQ(error_of("*:knomial:1"),
            "RULES rule 1 \"*:knomial:1\": knomial: the radix must be an integer from 2 to 1048576 "
            "(got 1)");
  EXPECT_EQ(error_of("*:pipeline-chain:0"),
            "RULES rule 1 \"*:pipeline-chain:0\": pipeline-chain: the segment size must be from "
            "1 byte to 1G (got 0)");
  EXPECT_EQ(error_of("*:pipeline-chain:big"),
            "RULES rule 1 \"*:pipeline-chain:big\": pipeline-chain: segment size 'big' is not a "
            "size (e.g. 65536, 64K, 1M)");
  EXPECT_EQ(error_of(":binomial"),
            "RULES rule 1 \":binomial\": no condition before ':' (write * for any size)");
  EXPECT_EQ(error_of("0-10:"),
            "RULES rule 1 \"0-10:\": unknown algorithm '' (known: " + algorithm_names() + ")");
  EXPECT_EQ(error_of("10-5:linear"),
            "RULES rule 1 \"10-5:linear\": range '10-5' is empty (write LOW-HIGH)");
  EXPECT_EQ(error_of("12x:linear"),
            "RULES rule 1 \"12x:linear\": '12x' is not a number (suffixes K, M, G: base 2)");
  EXPECT_EQ(error_of("-5:linear"),
            "RULES rule 1 \"-5:linear\": '' is not a number (suffixes K, M, G: base 2)");
  EXPECT_EQ(error_of("nodes=2 *:linear"),
            "RULES rule 1 \"nodes=2 *:linear\": unknown condition 'nodes' (known: bytes, procs, "
            "ppn, library, configured)");
  EXPECT_EQ(error_of("ppn=2 ppn=3:linear"),
            "RULES rule 1 \"ppn=2 ppn=3:linear\": ppn is given twice");
  EXPECT_EQ(error_of("1-2 3-4:linear"), "RULES rule 1 \"1-2 3-4:linear\": bytes is given twice");
  EXPECT_EQ(error_of("# ok\n*:linear\nprocs=x *:linear", true),
            "RULES line 3 \"procs=x *:linear\": 'x' is not a number (suffixes K, M, G: base 2)");
}

}  // namespace
}  // namespace leancast::detail
