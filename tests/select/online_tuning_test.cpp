// Online tuning without MPI: size classes, candidates, the winner rule, the tuner's books,
// its settings, and the tune file (reading, refusing, writing, and deciding by it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "select/decide.hpp"
#include "settings_support.hpp"
#include "select/online_tuner.hpp"
#include "select/tune_file.hpp"
#include "select/automatic.hpp"

namespace leancast::detail {
namespace {

AlgorithmSpec spec(std::string_view text) { return *parse_algorithm_spec(text); }

TEST(OnlineTuning, SizeClassesArePowersOfTwo) {
  EXPECT_EQ(size_class(1), 0);
  EXPECT_EQ(size_class(1024), 10);
  EXPECT_EQ(size_class(2047), 10);
  EXPECT_EQ(size_class(2048), 11);
  for (int k : {0, 10, 24, 40}) {
    EXPECT_EQ(size_class(class_low(k)), k);
    EXPECT_EQ(size_class(class_high(k)), k);
    EXPECT_EQ(class_high(k) + 1, class_low(k + 1));
  }
  EXPECT_EQ(class_high(63), ~std::uint64_t{0});
}

TEST(OnlineTuning, CandidatesStartWithMpiThenAutoAndTheModel) {
  const TuneSettings settings;  // 4 candidates
  for (std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{1} << 20}) {
    const BcastShape shape{8, 0, bytes};
    const auto list = tune_candidates(settings, shape);
    ASSERT_EQ(list.size(), 4u) << bytes;
    EXPECT_EQ(list[0], AlgorithmSpec(Algorithm::mpi));
    const AlgorithmSpec table = select_automatic(8, bytes, 8);
    if (table.algorithm != Algorithm::mpi) {
      EXPECT_EQ(list[1], table);
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      EXPECT_NE(list[i].algorithm, Algorithm::automatic);
      for (std::size_t j = 0; j < i; ++j) EXPECT_NE(list[i], list[j]);
    }
  }
}

// The model's pool is the registry's tuned specs (what leancast-tune measures too), less
// those through shared memory, which the model cannot price: a new row's tuned specs join.
TEST(OnlineTuning, TheModelPoolIsTheRegistrysTunedSpecs) {
  for (bool several_nodes : {false, true}) {
    std::vector<AlgorithmSpec> expected;
    for (bool node_aware : {false, true}) {
      if (node_aware && !several_nodes) continue;
      for (const AlgorithmSpec& spec : tuned_specs(node_aware)) {
        if (!uses_shared_memory(spec)) expected.push_back(spec);
      }
    }
    EXPECT_EQ(detail::model_pool(several_nodes), expected);
    EXPECT_FALSE(expected.empty());
  }
}

TEST(OnlineTuning, OneSegmentOfTwoSegmentSizesIsOneCandidate) {
  TuneSettings settings;
  settings.candidates = 20;
  const auto list = tune_candidates(settings, {8, 0, 1024});
  // At 1 KiB a pipeline of 16 KiB or 64 KiB segments is the same single message.
  int chains = 0;
  for (const AlgorithmSpec& candidate : list)
    chains += candidate.algorithm == Algorithm::pipeline_chain;
  EXPECT_EQ(chains, 1);
}

TEST(OnlineTuning, ListedCandidatesAreExactlyThoseAndMpi) {
  TuneSettings settings;
  settings.list = {spec("two-tree"), spec("binomial"), spec("two-tree")};
  const auto list = tune_candidates(settings, {5, 0, 4096});
  EXPECT_EQ(list,
            (std::vector<AlgorithmSpec>{Algorithm::mpi, spec("two-tree"), Algorithm::binomial}));
  settings.list = {Algorithm::mpi};
  EXPECT_EQ(tune_candidates(settings, {5, 0, 4096}).size(), 1u);
  settings.list.clear();
  settings.candidates = 1;
  EXPECT_EQ(tune_candidates(settings, {5, 0, 4096}), (std::vector<AlgorithmSpec>{Algorithm::mpi}));
}

// shm, which the model cannot rank, is tried on one node (after auto's choice) and not
// where the ranks span nodes, nor where the settings leave it out (SMPI).
TEST(OnlineTuning, ShmIsACandidateOnOneNode) {
  TuneSettings settings;
  const auto has_shm = [&](const BcastShape& shape) {
    const auto list = tune_candidates(settings, shape);
    return std::find(list.begin(), list.end(), AlgorithmSpec(Algorithm::shm)) != list.end();
  };
  EXPECT_TRUE(has_shm({8, 0, 4096}));
  EXPECT_TRUE(has_shm({2, 1, 1 << 20}));
  EXPECT_FALSE(has_shm({8, 0, 4096, block_nodes(8, 4)}));
  settings.shared_memory = false;
  EXPECT_FALSE(has_shm({8, 0, 4096}));
}

// cma and cma-split (a system call per segment) are tried from kKernelCopyTriedFromBytes,
// shm at every size; the kernel's copies are found by their schedules' media, so a new row
// that copies through the kernel is held back too. auto's own choice is always tried (the
// tables of a library's section may name cma where they measured it winning): left out here.
TEST(OnlineTuning, KernelCopiesAreTriedFromTheirThreshold) {
  TuneSettings settings;
  settings.candidates = 30;
  const auto has = [&](const BcastShape& shape, Algorithm algorithm) {
    const auto list = tune_candidates(settings, shape);
    return std::any_of(list.begin(), list.end(),
                       [&](const AlgorithmSpec& c) { return c.algorithm == algorithm; });
  };
  const auto tried_beside_auto = [&](const BcastShape& shape, Algorithm algorithm) {
    return has(shape, algorithm) &&
           resolve_automatic(Algorithm::automatic, shape).algorithm != algorithm;
  };
  const std::uint64_t from = kKernelCopyTriedFromBytes;
  for (int procs : {2, 4, 8}) {
    for (Algorithm kernel : {Algorithm::cma, Algorithm::cma_split}) {
      EXPECT_FALSE(tried_beside_auto({procs, 0, 64}, kernel)) << procs;
      EXPECT_FALSE(tried_beside_auto({procs, 1, from - 1}, kernel)) << procs;
      EXPECT_TRUE(has({procs, 1, from}, kernel)) << procs;
      EXPECT_TRUE(has({procs, 0, 1 << 20}, kernel)) << procs;
    }
    EXPECT_TRUE(has({procs, 0, 64}, Algorithm::shm)) << procs;
    EXPECT_TRUE(has({procs, 0, from - 1}, Algorithm::shm)) << procs;
  }
}

TEST(OnlineTuning, NodeAwarePairsOnlyWhereRanksSpanNodes) {
  TuneSettings settings;
  settings.candidates = 30;
  auto has_node_aware = [&](const BcastShape& shape) {
    for (const AlgorithmSpec& c : tune_candidates(settings, shape)) {
      if (c.algorithm == Algorithm::node_aware) return true;
    }
    return false;
  };
  EXPECT_FALSE(has_node_aware({8, 0, 1 << 20}));
  EXPECT_TRUE(has_node_aware({8, 0, 1 << 20, block_nodes(8, 4)}));
}

TEST(OnlineTuning, LeancastMustBeatMpiByTheMargin) {
  EXPECT_EQ(pick_winner(std::vector<double>{1.0, 0.96, 1.5}), 0u);  // within 5 %: mpi
  EXPECT_EQ(pick_winner(std::vector<double>{1.0, 0.97, 0.9}), 2u);  // the fastest
  EXPECT_EQ(pick_winner(std::vector<double>{1.0, 0.5, 0.5001}), 1u);
  EXPECT_EQ(pick_winner(std::vector<double>{1.0, 2.0}), 0u);
  EXPECT_EQ(pick_winner(std::vector<double>{1.0}), 0u);
}

TEST(OnlineTuning, TunerTriesEachCandidateThenSettles) {
  TuneSettings settings;
  settings.list = {Algorithm::binomial, Algorithm::two_tree};
  settings.warmup = 1;
  settings.trials = 2;
  OnlineTuner tuner(settings);
  const BcastShape shape{4, 0, 3000};
  std::vector<AlgorithmSpec> ran;
  // Candidate i's calls take i + 1 seconds, but its warm-up 100 (it must not count).
  bool ended = false;
  for (int call = 0; call < 9 && !ended; ++call) {
    const TuneStep step = tuner.next(shape.procs, shape.bytes, shape.nodes);
    ASSERT_TRUE(step.trial);
    EXPECT_EQ(step.size_class, size_class(3000));
    EXPECT_EQ(tuner.settled(3000), nullptr);
    ran.push_back(step.algorithm);
    const double seconds = call % 3 == 0 ? 100.0 : static_cast<double>(call / 3 + 1);
    ended = tuner.record(step, seconds);
    EXPECT_EQ(ended, call == 8);
  }
  EXPECT_EQ(ran, (std::vector<AlgorithmSpec>{Algorithm::mpi, Algorithm::mpi, Algorithm::mpi,
                                             Algorithm::binomial, Algorithm::binomial,
                                             Algorithm::binomial, Algorithm::two_tree,
                                             Algorithm::two_tree, Algorithm::two_tree}));
  EXPECT_EQ(tuner.medians(size_class(3000)), (std::vector<double>{1, 2, 3}));
  // The slowest ranks' medians decide, not this rank's.
  const TunedClass& tuned = tuner.settle(size_class(3000), std::vector<double>{3, 2, 1});
  EXPECT_EQ(tuned.candidates[tuned.winner], AlgorithmSpec(Algorithm::two_tree));
  // Any size of the class runs the winner now, untimed; another class starts its own trials.
  ASSERT_NE(tuner.settled(2048), nullptr);
  const TuneStep after = tuner.next(4, 4095, nullptr);
  EXPECT_FALSE(after.trial);
  EXPECT_EQ(after.algorithm, AlgorithmSpec(Algorithm::two_tree));
  EXPECT_FALSE(tuner.record(after, 5.0));
  EXPECT_EQ(tuner.settled(4096), nullptr);
  EXPECT_TRUE(tuner.next(4, 4096, nullptr).trial);
}

TEST(OnlineTuning, Settings) {
  const Settings off = read({});
  EXPECT_FALSE(off.tune_online);
  EXPECT_EQ(off.tune.trials, 8);
  EXPECT_EQ(off.tune.warmup, 1);
  EXPECT_EQ(off.tune.candidates, 4);
  const Settings on = read({{"LEANCAST_TUNE", "online"},
                            {"LEANCAST_TUNE_TRIALS", "5"},
                            {"LEANCAST_TUNE_WARMUP", "0"},
                            {"LEANCAST_TUNE_CANDIDATES", "binomial,knomial:4"}});
  EXPECT_TRUE(on.warnings.empty());
  EXPECT_TRUE(on.tune_online);
  EXPECT_EQ(on.tune.trials, 5);
  EXPECT_EQ(on.tune.warmup, 0);
  EXPECT_EQ(on.tune.list, (std::vector<AlgorithmSpec>{Algorithm::binomial, spec("knomial:4")}));
  EXPECT_EQ(read({{"LEANCAST_TUNE_CANDIDATES", "6"}}).tune.candidates, 6);
  for (const auto& [name, value] :
       std::map<std::string, std::string>{{"LEANCAST_TUNE", "yes"},
                                          {"LEANCAST_TUNE_TRIALS", "0"},
                                          {"LEANCAST_TUNE_WARMUP", "-1"},
                                          {"LEANCAST_TUNE_CANDIDATES", "0"},
                                          {"LEANCAST_TUNE_CANDIDATES", "binomial,nonsense"}}) {
    const Settings bad = read({{name, value}});
    ASSERT_EQ(bad.warnings.size(), 1u) << name << "=" << value;
    EXPECT_NE(bad.warnings[0].find(name), std::string::npos) << bad.warnings[0];
    EXPECT_FALSE(bad.tune_online);
    EXPECT_TRUE(bad.tune.list.empty());
  }
  const Settings with_auto = read({{"LEANCAST_TUNE_CANDIDATES", "auto,binomial"}});
  EXPECT_EQ(with_auto.warnings.size(), 1u);
  EXPECT_TRUE(with_auto.tune.list.empty());
}

TEST(OnlineTuning, LearnedRulesRoundTripAndDecideForAuto) {
  TestFile file;
  const std::string rule =
      learned_rule(4, 4, 1024, 2047, spec("two-tree:16K"),
                   "online 2026-11-23 on host (cpu), lib: mpi 2 us, two-tree 1 us");
  ASSERT_EQ(write_atomically(file.path, tune_file_text("about\nthis machine", {}, {rule})), "");
  for (const auto& entry : std::filesystem::directory_iterator(testing::TempDir())) {
    EXPECT_EQ(entry.path().string().find(file.path + ".tmp"), std::string::npos);
  }
  EXPECT_EQ(file.content().rfind(kTuneFileMark, 0), 0u);
  const Settings settings = read({{"LEANCAST_TUNE_FILE", file.path}});
  EXPECT_TRUE(settings.warnings.empty()) << settings.warnings[0];
  EXPECT_EQ(settings.tune_file.lines, std::vector<std::string>{rule});
  ASSERT_EQ(settings.tune_file.rules.rules.size(), 1u);
  // It decides where auto would: 1024..2047 bytes at P = 4 with 4 ranks per node (no map:
  // one node), in this build's library; not where a call or a variable names an algorithm.
  const Decision learned = decide(settings, std::nullopt, 4, 1500);
  EXPECT_EQ(learned.algorithm, spec("two-tree:16K"));
  EXPECT_FALSE(learned.tunable);
  EXPECT_NE(learned.by.find(file.path), std::string::npos);
  // Still auto's choice (the nonblocking rule and the shm fallback apply to it).
  EXPECT_EQ(learned.named, AlgorithmSpec(Algorithm::automatic));
  EXPECT_EQ(decide(settings, AlgorithmSpec(Algorithm::automatic), 4, 1024).algorithm,
            spec("two-tree:16K"));
  EXPECT_TRUE(decide(settings, std::nullopt, 4, 2048).tunable);
  EXPECT_TRUE(decide(settings, std::nullopt, 5, 1024).tunable);
  EXPECT_EQ(decide(settings, AlgorithmSpec(Algorithm::binomial), 4, 1024).algorithm,
            AlgorithmSpec(Algorithm::binomial));
  // Kept lines are written back as they were.
  EXPECT_NE(tune_file_text("", settings.tune_file.lines, {}).find(rule), std::string::npos);
}

TEST(OnlineTuning, ForeignFilesAreNeitherReadNorWritten) {
  TestFile file("* : binomial\n");
  const Settings settings = read({{"LEANCAST_TUNE_FILE", file.path}});
  ASSERT_EQ(settings.warnings.size(), 1u);
  EXPECT_NE(settings.warnings[0].find(file.path), std::string::npos);
  EXPECT_NE(settings.warnings[0].find("not a leancast tuning file"), std::string::npos);
  EXPECT_FALSE(settings.tune_file.writable);
  EXPECT_TRUE(settings.tune_file.rules.rules.empty());
  EXPECT_TRUE(decide(settings, std::nullopt, 4, 1024).tunable);
}

TEST(OnlineTuning, CorruptFilesAreIgnoredAndRewritable) {
  TestFile file(std::string(kTuneFileMark) + "\nprocs=4 bytes=1K : no-such-algorithm\n");
  const Settings settings = read({{"LEANCAST_TUNE_FILE", file.path}});
  ASSERT_EQ(settings.warnings.size(), 1u);
  EXPECT_NE(settings.warnings[0].find("no-such-algorithm"), std::string::npos);
  EXPECT_TRUE(settings.tune_file.writable);
  EXPECT_TRUE(settings.tune_file.rules.rules.empty());
  EXPECT_TRUE(settings.tune_file.lines.empty());
  // A missing file is an empty one, no warning.
  const Settings missing = read({{"LEANCAST_TUNE_FILE", file.path + ".missing"}});
  EXPECT_TRUE(missing.warnings.empty());
  EXPECT_TRUE(missing.tune_file.writable);
}

// An empty file (LEANCAST_TUNE_FILE=$(mktemp)) is a missing one: no warning, written.
TEST(OnlineTuning, EmptyFilesAreWritable) {
  for (const char* text : {"", "\n", " \n\t\n"}) {
    TestFile file;
    std::ofstream(file.path) << text;
    const Settings settings = read({{"LEANCAST_TUNE_FILE", file.path}});
    EXPECT_TRUE(settings.warnings.empty()) << settings.warnings[0];
    EXPECT_TRUE(settings.tune_file.writable);
    EXPECT_TRUE(settings.tune_file.rules.rules.empty());
  }
}

}  // namespace
}  // namespace leancast::detail
