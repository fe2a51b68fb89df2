// The registry is the single list of algorithms: names, parsing, the parameter ranges and
// the lists everything else iterates come from its rows. Every parameterized row is tested
// at its range's boundaries, just inside and just outside, written and as a spec, alone and
// as a node-aware level: a new row is tested without a line here.
#include <gtest/gtest.h>

#include <set>

#include <leancast/analysis.hpp>

namespace leancast {
namespace {

bool ranged(const AlgorithmInfo& info) {
  return info.parameter == ParameterKind::segment_bytes || info.parameter == ParameterKind::radix ||
         info.parameter == ParameterKind::block_count;
}

std::string spec_text(const AlgorithmInfo& info, std::uint64_t value) {
  return std::string(info.name) + ":" + std::to_string(value);
}

TEST(Registry, RowsAreTheAlgorithms) {
  std::set<std::string_view> names;
  std::vector<Algorithm> concrete;
  for (const AlgorithmInfo& info : algorithm_registry()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(parse_algorithm(info.name), info.algorithm) << info.name;
    EXPECT_EQ(to_string(info.algorithm), info.name);
    EXPECT_EQ(&algorithm_info(info.algorithm), &info) << info.name;
    if (!info.alias.empty()) {
      EXPECT_EQ(parse_algorithm(info.alias), info.algorithm);
    }
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_NE(algorithm_names().find(algorithm_usage(info)), std::string::npos) << info.name;
    EXPECT_NE(algorithm_help().find(algorithm_usage(info)), std::string::npos) << info.name;
    EXPECT_EQ(default_parameter(info.algorithm), info.default_parameter) << info.name;
    EXPECT_EQ(parameter_problem(AlgorithmSpec(info.algorithm)), "") << info.name;
    if (info.concrete) concrete.push_back(info.algorithm);
  }
  // concrete_algorithms() is the registry's concrete rows, in order: all but auto and mpi.
  EXPECT_EQ(concrete,
            std::vector<Algorithm>(concrete_algorithms().begin(), concrete_algorithms().end()));
  EXPECT_FALSE(algorithm_info(Algorithm::automatic).concrete);
  EXPECT_FALSE(algorithm_info(Algorithm::mpi).concrete);
  EXPECT_EQ(concrete.size() + 2, algorithm_registry().size());
  EXPECT_THROW(algorithm_info(static_cast<Algorithm>(1000)), std::invalid_argument);
}

// The flat rows and the tuned specs are read off the rows: a new flat row is flat wherever
// it stands, and every tuned spec is valid, of its own row, flat or node-aware as asked.
TEST(Registry, FlatAlgorithmsAndTunedSpecsComeFromTheRows) {
  std::vector<Algorithm> flat;
  std::size_t tuned_rows = 0;
  for (const AlgorithmInfo& info : algorithm_registry()) {
    if (info.concrete && info.parameter != ParameterKind::levels) flat.push_back(info.algorithm);
    if (!info.tuned.empty()) ++tuned_rows;
  }
  EXPECT_EQ(flat_algorithms(), flat);
  EXPECT_FALSE(is_flat(algorithm_info(Algorithm::node_aware)));
  EXPECT_FALSE(is_flat(algorithm_info(Algorithm::mpi)));
  std::set<Algorithm> rows_seen;
  std::vector<AlgorithmSpec> from_names[2];
  for (const AlgorithmInfo& info : algorithm_registry()) {
    for (std::string_view name : tuned_names(info)) {
      const auto spec = parse_algorithm_spec(name);
      ASSERT_TRUE(spec) << name;
      EXPECT_EQ(spec->algorithm, info.algorithm) << name;
      EXPECT_EQ(parameter_problem(*spec), "") << name;
      from_names[info.parameter == ParameterKind::levels].push_back(*spec);
      rows_seen.insert(info.algorithm);
    }
  }
  EXPECT_EQ(tuned_specs(false), from_names[0]);
  EXPECT_EQ(tuned_specs(true), from_names[1]);
  for (const AlgorithmSpec& spec : tuned_specs(true))
    EXPECT_EQ(spec.algorithm, Algorithm::node_aware);
  EXPECT_EQ(rows_seen.size(), tuned_rows);
}

// Just inside the range: parsed, valid as a spec, planned (on a small shape, as a
// node-aware level too) and verified.
TEST(Registry, EveryRangeBoundaryInsideIsAccepted) {
  int checked = 0;
  for (const AlgorithmInfo& info : algorithm_registry()) {
    if (!ranged(info)) continue;
    for (std::uint64_t value : {info.min_parameter, info.max_parameter}) {
      const std::string text = spec_text(info, value);
      std::string error;
      const auto spec = parse_algorithm_spec(text, &error);
      ASSERT_TRUE(spec) << text << ": " << error;
      EXPECT_EQ(*spec, (AlgorithmSpec{info.algorithm, value})) << text;
      EXPECT_EQ(parameter_problem(*spec), "") << text;
      EXPECT_EQ(parse_algorithm_spec(to_string(*spec)), spec) << text;
      EXPECT_TRUE(verify_schedule(*spec, {5, 2, 1000}).ok()) << text;
      // shm and cma work within nodes only (a between-node level of them is refused).
      const std::string between = info.within_node ? "binomial" : text;
      const auto level = parse_algorithm_spec("node-aware:" + between + "/" + text, &error);
      ASSERT_TRUE(level) << error;
      EXPECT_TRUE(verify_schedule(*level, {6, 1, 1000, block_nodes(6, 2)}).ok()) << text;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);  // 5 rows with a parameter today
}

// Just outside: refused alike everywhere, naming the algorithm, the value and the range.
TEST(Registry, EveryRangeBoundaryOutsideIsRefused) {
  for (const AlgorithmInfo& info : algorithm_registry()) {
    if (!ranged(info)) continue;
    for (std::uint64_t value : {info.min_parameter - 1, info.max_parameter + 1}) {
      const std::string text = spec_text(info, value);
      std::string error;
      EXPECT_FALSE(parse_algorithm_spec(text, &error)) << text;
      EXPECT_EQ(error.rfind(std::string(info.name) + ": the ", 0), 0u) << error;
      EXPECT_NE(error.find("(got " + std::to_string(value) + ")"), std::string::npos) << error;
      const std::string range =
          info.parameter == ParameterKind::segment_bytes
              ? "from 1 byte to " + (info.max_parameter == (1ull << 30)
                                         ? std::string("1G")
                                         : std::to_string(info.max_parameter >> 20) + "M")
              : "from " + std::to_string(info.min_parameter) + " to " +
                    std::to_string(info.max_parameter);
      EXPECT_NE(error.find(range), std::string::npos) << error;
      std::string level_error;
      EXPECT_FALSE(parse_algorithm_spec("node-aware:binomial/" + text, &level_error));
      EXPECT_EQ(level_error, error);
      // A spec built in C++ is checked alike (circulant's unwritten default, 0, aside).
      const AlgorithmSpec spec{info.algorithm, value};
      if (value != info.default_parameter) {
        EXPECT_EQ(parameter_problem(spec), error) << text;
        EXPECT_THROW(make_schedule(spec, {4, 0, 10}, 0), std::invalid_argument) << text;
        EXPECT_EQ(parameter_problem(AlgorithmSpec::node_aware(Algorithm::binomial, spec)), error);
      }
    }
  }
}

// The issue's cases: circulant's 2^32 blocks was accepted (0.18 s for 4 KB), a radix of
// 2^31 refused; now both are refused by the same rule.
TEST(Registry, IssueCasesAreRefusedAlike) {
  std::string error;
  EXPECT_FALSE(parse_algorithm_spec("circulant:4294967296", &error));
  EXPECT_EQ(error,
            "circulant: the block count must be an integer from 1 to 1048576 (got 4294967296)");
  EXPECT_FALSE(parse_algorithm_spec("knomial:2147483648", &error));
  EXPECT_EQ(error, "knomial: the radix must be an integer from 2 to 1048576 (got 2147483648)");
  EXPECT_FALSE(parse_algorithm_spec("two-tree:4G", &error));
  EXPECT_EQ(error, "two-tree: the segment size must be from 1 byte to 1G (got 4294967296)");
  EXPECT_FALSE(parse_algorithm_spec("knomial:99999999999999999999999", &error));
  EXPECT_EQ(error, "knomial: radix '99999999999999999999999' is not an integer from 2 to 1048576");
  // circulant's default, 0 blocks, is valid unwritten only.
  EXPECT_EQ(parameter_problem(Algorithm::circulant), "");
  EXPECT_FALSE(parse_algorithm_spec("circulant:0"));
}

// The executor after '@': parsed with the name, written back the same, refused for mpi and
// for unknown executors or lookaheads.
TEST(Registry, ExecutorAfterTheName) {
  const auto chain = parse_algorithm_spec("pipeline-chain:16K@dataflow:0");
  ASSERT_TRUE(chain);
  EXPECT_EQ(chain->algorithm, Algorithm::pipeline_chain);
  EXPECT_EQ(chain->parameter, 16u * 1024);
  ASSERT_TRUE(chain->executor);
  EXPECT_EQ(*chain->executor, (ExecutorSpec{ExecutorSpec::Kind::dataflow, 0}));
  EXPECT_EQ(to_string(*chain), "pipeline-chain:16K@dataflow:0");
  for (const char* text : {"binomial@rounds", "two-tree:64K@dataflow", "auto@dataflow:3",
                           "node-aware:binomial/pipeline-chain:8K@rounds"}) {
    const auto spec = parse_algorithm_spec(text);
    ASSERT_TRUE(spec) << text;
    EXPECT_EQ(to_string(*spec), text);
  }
  EXPECT_FALSE(parse_algorithm_spec("binomial")->executor);
  EXPECT_NE(*parse_algorithm_spec("binomial@rounds"), *parse_algorithm_spec("binomial"));
  std::string error;
  EXPECT_FALSE(parse_algorithm_spec("mpi@rounds", &error));
  EXPECT_EQ(error, "mpi is the library's broadcast: it takes no executor (got 'mpi@rounds')");
  for (const char* text : {"binomial@fast", "binomial@dataflow:-1", "binomial@dataflow:x",
                           "binomial@dataflow:", "binomial@"}) {
    EXPECT_FALSE(parse_algorithm_spec(text, &error)) << text;
    EXPECT_NE(error.find("rounds, dataflow, or dataflow:L"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace leancast
