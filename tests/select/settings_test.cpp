// Reading the LEANCAST_* settings and the precedence between them.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include "select/decide.hpp"
#include "settings_support.hpp"
#include "select/automatic.hpp"

namespace leancast::detail {
namespace {

TEST(Settings, NothingSetIsAutoWithoutWarnings) {
  const Settings settings = read({});
  EXPECT_TRUE(settings.warnings.empty());
  EXPECT_FALSE(settings.verbose);
  const Decision d = decide(settings, std::nullopt, 16, 1 << 20);
  // No node map given: one node of 16 ranks, as auto's table sees it.
  EXPECT_EQ(d.algorithm, select_automatic(16, 1 << 20, 16));
  EXPECT_NE(d.algorithm.algorithm, Algorithm::automatic);
  EXPECT_EQ(d.named, Algorithm::automatic);
  EXPECT_EQ(d.by, "default");
  EXPECT_EQ(decide(read({{"LEANCAST_BCAST_ALGORITHM", ""}}), std::nullopt, 4, 1).by, "default");
}

TEST(Settings, PrecedenceCallThenAlgorithmThenRulesThenFileThenAuto) {
  const TestFile file("procs=4 *:hypercube\n*:linear\n");
  std::map<std::string, std::string> environment{{"LEANCAST_CONFIG", file.path},
                                                 {"LEANCAST_BCAST_RULES", "0-100:mpi"}};
  Settings settings = read(environment);
  ASSERT_TRUE(settings.warnings.empty()) << settings.warnings[0];
  EXPECT_EQ(decide(settings, std::nullopt, 4, 100).algorithm, Algorithm::mpi);
  EXPECT_EQ(decide(settings, std::nullopt, 4, 100).by, "LEANCAST_BCAST_RULES rule 1");
  EXPECT_EQ(decide(settings, std::nullopt, 4, 101).algorithm, Algorithm::hypercube);
  EXPECT_EQ(decide(settings, std::nullopt, 4, 101).by, file.path + " line 1");
  EXPECT_EQ(decide(settings, std::nullopt, 5, 101).algorithm, Algorithm::linear);
  EXPECT_EQ(decide(settings, Algorithm::binomial, 4, 100).algorithm, Algorithm::binomial);
  EXPECT_EQ(decide(settings, Algorithm::binomial, 4, 100).by, "the call");

  environment["LEANCAST_BCAST_ALGORITHM"] = "auto";
  settings = read(environment);
  const Decision d = decide(settings, std::nullopt, 4, 100);
  EXPECT_EQ(d.algorithm, select_automatic(4, 100, 4));  // auto resolved, one node
  EXPECT_EQ(d.named, Algorithm::automatic);
  EXPECT_EQ(d.by, "LEANCAST_BCAST_ALGORITHM");
}

TEST(Settings, AlgorithmVariableTakesAParameter) {
  Settings settings = read({{"LEANCAST_BCAST_ALGORITHM", "pipeline_binary_tree:1M"}});
  ASSERT_TRUE(settings.warnings.empty()) << settings.warnings[0];
  EXPECT_EQ(decide(settings, std::nullopt, 4, 100).algorithm,
            (AlgorithmSpec{Algorithm::pipeline_binary_tree, 1 << 20}));
  settings = read({{"LEANCAST_BCAST_ALGORITHM", "knomial:1"}});
  ASSERT_EQ(settings.warnings.size(), 1u);
  EXPECT_EQ(settings.warnings[0],
            "LEANCAST_BCAST_ALGORITHM=knomial:1: knomial: the radix must be an integer from 2 to "
            "1048576 (got 1); LEANCAST_BCAST_ALGORITHM is ignored");
  EXPECT_EQ(decide(settings, std::nullopt, 4, 100).named, Algorithm::automatic);
}

TEST(Settings, EachMalformedSettingWarnsOnceAndIsIgnored) {
  const TestFile file("procs=2 *:scatter-ring\n0-:nothing\n");
  const Settings settings = read({{"LEANCAST_BCAST_ALGORITHM", "fastest"},
                                  {"LEANCAST_BCAST_RULES", "0-5:linear,6-:binomial,7"},
                                  {"LEANCAST_CONFIG", file.path},
                                  {"LEANCAST_VERBOSE", "loud"}});
  ASSERT_EQ(settings.warnings.size(), 4u);
  EXPECT_EQ(settings.warnings[0],
            "LEANCAST_BCAST_ALGORITHM=fastest: unknown algorithm 'fastest' (known: " +
                algorithm_names() + "); LEANCAST_BCAST_ALGORITHM is ignored");
  EXPECT_EQ(settings.warnings[1],
            "LEANCAST_BCAST_RULES rule 3 \"7\": a rule is CONDITIONS:ALGORITHM (or "
            "CONDITIONS:ALGORITHM:PARAMETER); "
            "LEANCAST_BCAST_RULES is ignored");
  EXPECT_EQ(settings.warnings[2],
            "LEANCAST_CONFIG: " + file.path +
                " line 2 \"0-:nothing\": unknown algorithm 'nothing' (known: " + algorithm_names() +
                "); LEANCAST_CONFIG is ignored");
  EXPECT_EQ(settings.warnings[3],
            "LEANCAST_VERBOSE=loud is not 1 or 0 (or yes/no, true/false, on/off); "
            "LEANCAST_VERBOSE is ignored");
  EXPECT_FALSE(settings.verbose);
  const Decision d = decide(settings, std::nullopt, 2, 1);  // all ignored: auto
  EXPECT_EQ(d.by, "default");
  EXPECT_EQ(d.algorithm, select_automatic(2, 1, 2));
}

TEST(Settings, UnreadableConfigFileWarns) {
  for (const std::string& path : {std::string("/nonexistent/leancast.rules"), testing::TempDir()}) {
    const Settings settings = read({{"LEANCAST_CONFIG", path}});
    ASSERT_EQ(settings.warnings.size(), 1u) << path;
    EXPECT_EQ(settings.warnings[0],
              "LEANCAST_CONFIG=" + path + ": cannot read the file; LEANCAST_CONFIG is ignored");
  }
}

TEST(Settings, VerboseSpellings) {
  for (const char* on : {"1", "yes", "true", "on"})
    EXPECT_TRUE(read({{"LEANCAST_VERBOSE", on}}).verbose);
  for (const char* off : {"0", "no", "false", "off", ""}) {
    const Settings settings = read({{"LEANCAST_VERBOSE", off}});
    EXPECT_FALSE(settings.verbose);
    EXPECT_TRUE(settings.warnings.empty());
  }
}

TEST(Settings, CommunicatorHintBetweenTheCallAndTheEnvironment) {
  const Settings settings =
      read({{"LEANCAST_BCAST_ALGORITHM", "linear"}, {"LEANCAST_BCAST_RULES", "*:hypercube"}});
  const std::optional<AlgorithmSpec> hint = AlgorithmSpec{Algorithm::knomial, 3};
  Decision d = decide(settings, std::nullopt, 4, 100, {}, hint);
  EXPECT_EQ(d.algorithm, hint);
  EXPECT_EQ(d.by, kByCommInfo);
  d = decide(settings, Algorithm::binomial, 4, 100, {}, hint);
  EXPECT_EQ(d.algorithm, Algorithm::binomial);
  EXPECT_EQ(d.by, "the call");
  EXPECT_EQ(decide(settings, std::nullopt, 4, 100, {}, std::nullopt).by,
            "LEANCAST_BCAST_ALGORITHM");
  // A hint of auto is auto, before the environment: resolved by its table.
  d = decide(settings, std::nullopt, 4, 100, {}, AlgorithmSpec(Algorithm::automatic));
  EXPECT_EQ(d.algorithm, select_automatic(4, 100, 4));
  EXPECT_EQ(d.by, kByCommInfo);
}

TEST(Settings, CheckSpellings) {
  EXPECT_FALSE(read({}).check);
  for (const char* on : {"1", "yes", "true", "on"})
    EXPECT_TRUE(read({{"LEANCAST_CHECK", on}}).check);
  for (const char* off : {"0", "no", "false", "off", ""}) {
    EXPECT_FALSE(read({{"LEANCAST_CHECK", off}}).check);
  }
  const Settings bad = read({{"LEANCAST_CHECK", "always"}});
  EXPECT_FALSE(bad.check);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0],
            "LEANCAST_CHECK=always is not 1 or 0 (or yes/no, true/false, "
            "on/off); LEANCAST_CHECK is ignored");
}

TEST(Settings, ExecutorAndWindow) {
  const Settings none = read({});
  EXPECT_EQ(none.executor, (ExecutorSpec{ExecutorSpec::Kind::dataflow, 1}));
  EXPECT_EQ(none.window, 0);
  EXPECT_EQ(read({{"LEANCAST_EXECUTOR", "dataflow:1"}}).executor,
            (ExecutorSpec{ExecutorSpec::Kind::dataflow, 1}));
  const Settings set = read(
      {{"LEANCAST_EXECUTOR", "rounds"}, {"LEANCAST_WINDOW", "3"}, {"LEANCAST_SEND_WINDOW", "2"}});
  EXPECT_TRUE(set.warnings.empty());
  EXPECT_EQ(set.executor.kind, ExecutorSpec::Kind::rounds);
  EXPECT_EQ(set.window, 3);
  EXPECT_EQ(set.send_window, 2);
  EXPECT_FALSE(none.progress_thread);
  EXPECT_TRUE(read({{"LEANCAST_PROGRESS_THREAD", "1"}}).progress_thread);
  EXPECT_EQ(read({{"LEANCAST_PROGRESS_THREAD", "always"}}).warnings.size(), 1u);
  const Settings bad = read({{"LEANCAST_EXECUTOR", "fast"}, {"LEANCAST_WINDOW", "0"}});
  ASSERT_EQ(bad.warnings.size(), 2u);
  EXPECT_EQ(bad.warnings[0],
            "LEANCAST_EXECUTOR=fast: executor 'fast': unknown executor (rounds, dataflow, or "
            "dataflow:L with L rounds of lookahead, 0..1048576); LEANCAST_EXECUTOR is ignored");
  EXPECT_EQ(bad.warnings[1],
            "LEANCAST_WINDOW=0 is not a positive integer; LEANCAST_WINDOW is ignored");
  EXPECT_EQ(bad.executor, none.executor);
  EXPECT_EQ(bad.window, 0);
}

TEST(Settings, StreamAboveTakesAByteCountOrOff) {
  EXPECT_EQ(read({}).stream_above, std::uint64_t{8} << 20);
  EXPECT_EQ(read({{"LEANCAST_STREAM_ABOVE", "1"}}).stream_above, 1u);
  EXPECT_EQ(read({{"LEANCAST_STREAM_ABOVE", "64K"}}).stream_above, 65536u);
  EXPECT_EQ(read({{"LEANCAST_STREAM_ABOVE", "off"}}).stream_above, UINT64_MAX);
  const Settings bad = read({{"LEANCAST_STREAM_ABOVE", "big"}});
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0],
            "LEANCAST_STREAM_ABOVE=big is not a byte count (8M, 1048576) or off; "
            "LEANCAST_STREAM_ABOVE is ignored");
  EXPECT_EQ(bad.stream_above, std::uint64_t{8} << 20);
}

// A variable of the MPI library's that configures its broadcast: auto's built-in table was
// measured against the library's defaults, so auto runs the library's broadcast, and says
// which variable made it; what the user names, and rules, still decide.
TEST(Settings, TheLibrarysOwnBroadcastSettingsMakeAutoDefer) {
  for (const char* name :
       {"OMPI_MCA_coll_sm_priority", "OMPI_MCA_coll_tuned_bcast_algorithm", "OMPI_MCA_coll",
        "OMPI_MCA_coll_tuned_dynamic_rules_filename", "MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM",
        "MPIR_CVAR_DEVICE_COLLECTIVES", "MPICH_BCAST_SHORT_MSG_SIZE",
        "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"}) {
    const Settings settings = read({{name, "1"}, {"LEANCAST_VERBOSE", "1"}});
    EXPECT_EQ(settings.library_configured, name);
    const Decision d = decide(settings, std::nullopt, 2, 4096);
    EXPECT_EQ(d.algorithm, Algorithm::mpi) << name;
    EXPECT_EQ(d.named, Algorithm::automatic);
    EXPECT_EQ(d.by, name);
    EXPECT_TRUE(d.tunable);  // online tuning measures the library as configured
    EXPECT_EQ(decide(settings, Algorithm::binomial, 2, 4096).algorithm, Algorithm::binomial);
    const Settings with_rules = read({{name, "1"}, {"LEANCAST_BCAST_RULES", "*:linear"}});
    EXPECT_EQ(decide(with_rules, std::nullopt, 2, 4096).algorithm, Algorithm::linear);
  }
  for (const char* name : {"OMPI_MCA_btl_vader_single_copy_mechanism", "OMPI_MCA_coll_base_verbose",
                           "MPIR_CVAR_CH4_SHM_POSIX_EAGER", "MPICH_INTERFACE_HOSTNAME"}) {
    const Settings settings = read({{name, "1"}});
    EXPECT_EQ(settings.library_configured, "") << name;
    EXPECT_EQ(decide(settings, std::nullopt, 2, 4096).by, "default");
  }
  EXPECT_EQ(read({{"OMPI_MCA_coll_sm_priority", ""}}).library_configured, "");  // empty: unset
}

// The configuration is every such variable with its value, sorted: a rule measured under it
// (configured=) decides there, auto's included, and nowhere else.
TEST(Settings, RulesForTheLibrarysConfigurationDecideUnderItOnly) {
  const Settings settings = read({{"OMPI_MCA_coll_tuned_priority", "30"},
                                  {"OMPI_MCA_coll_sm_priority", "100"},
                                  {"OMPI_MCA_btl_vader_single_copy_mechanism", "cma"},
                                  {"LEANCAST_BCAST_RULES",
                                   "configured=OMPI_MCA_coll_sm_priority=100 "
                                   "configured=OMPI_MCA_coll_tuned_priority=30 *:linear"}});
  EXPECT_EQ(settings.library_configuration,
            (Configuration{"OMPI_MCA_coll_sm_priority=100", "OMPI_MCA_coll_tuned_priority=30"}));
  EXPECT_EQ(decide(settings, std::nullopt, 2, 4096).algorithm, Algorithm::linear);
  const Settings other =
      read({{"OMPI_MCA_coll_sm_priority", "90"},
            {"LEANCAST_BCAST_RULES", "configured=OMPI_MCA_coll_sm_priority=100 *:linear"}});
  EXPECT_EQ(decide(other, std::nullopt, 2, 4096).algorithm, Algorithm::mpi);
  EXPECT_EQ(decide(other, std::nullopt, 2, 4096).by, "OMPI_MCA_coll_sm_priority");
  EXPECT_TRUE(read({}).library_configuration.empty());
  // Whatever order the environment lists them in, the same configuration and the same name.
  const Settings reversed = read_settings(
      [](const char* name) -> const char* {
        const std::string_view asked(name);
        if (asked == "OMPI_MCA_coll_tuned_priority") return "30";
        return asked == "OMPI_MCA_coll_sm_priority" ? "100" : nullptr;
      },
      {"OMPI_MCA_coll_tuned_priority", "OMPI_MCA_coll_sm_priority"});
  EXPECT_EQ(reversed.library_configuration, settings.library_configuration);
  EXPECT_EQ(reversed.library_configured, "OMPI_MCA_coll_sm_priority");
}

}  // namespace
}  // namespace leancast::detail
