// One plan per call shape (src/mpi/comm/call_plans.hpp) and a repeated call's way
// (src/mpi/pass_at_once.hpp): a repeated shape finds its plan, and another count, type, root
// or named algorithm gets its own; LC_Comm_set_algorithm forgets the plans; a derived type
// freed and made again under its old handle gets the plan of its own bytes; more shapes than
// the map holds replace plans and still deliver; nonblocking and persistent calls use the
// blocking call's plan. Of the repeats, only a blocking one decided for the library's
// broadcast goes straight to it, and only one whose plan ran copies at once runs those
// copies again, into any buffer, across a window that grows; a leancast broadcast
// outstanding or online tuning trying the call take the whole path. A nonblocking repeat of
// a nonblocking deferral goes straight to MPI_Ibcast.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <leancast/leancast.h>
#include <leancast/leancast.hpp>

#include "mpi/pass_at_once.hpp"
#include "test_support.hpp"

namespace leancast::test {
namespace {

using detail::BcastCall;
using detail::ibcast_passes_at_once;
using detail::planned;

// Whether a repeat of `call` would go straight to the library's broadcast.
bool passes_at_once(const BcastCall& call, const AlgorithmSpec* named) {
  const detail::PlanSlot* slot = planned(call, named);
  return slot != nullptr && !detail::tasks_outstanding() && detail::passes(*slot);
}

// Whether a repeat of `call` would run its plan's copies at once again.
bool copies_again(const BcastCall& call, const AlgorithmSpec& named) {
  const detail::PlanSlot* slot = planned(call, &named);
  return slot != nullptr && detail::copies_again_apply(*slot->plan);
}

// The plan of `call` (a predefined type), or null.
const detail::CallPlan* plan_of(const BcastCall& call, const AlgorithmSpec* named) {
  const detail::PlanSlot* slot = planned(call, named);
  return slot != nullptr ? slot->plan.get() : nullptr;
}

class Plans : public ::testing::Test {
 protected:
  void SetUp() override {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    std::shared_ptr<const NodeMap> nodes;  // makes the private state, where a repeat is kept
    ASSERT_EQ(node_map(comm_, nodes), MPI_SUCCESS);
    data_.resize(16);
  }
  void TearDown() override { MPI_Comm_free(&comm_); }

  // Broadcasts 16 ints from `root` (seed + i) and counts the ranks that did not get them all;
  // into `into` (of 16 ints or more) where given.
  int broadcast(int root, int seed, const std::optional<AlgorithmSpec>& algorithm,
                std::vector<int>* into = nullptr) {
    std::vector<int>& data = into != nullptr ? *into : data_;
    const int rank = world_rank();
    for (int i = 0; i < 16; ++i) data[i] = rank == root ? seed + i : -1;
    const int rc = algorithm ? bcast(data.data(), 16, MPI_INT, root, comm_, *algorithm)
                             : bcast(data.data(), 16, MPI_INT, root, comm_);
    int wrong = rc != MPI_SUCCESS;
    for (int i = 0; i < 16; ++i) wrong |= data[i] != seed + i;
    int ranks_wrong = 0;
    MPI_Allreduce(&wrong, &ranks_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return ranks_wrong;
  }
  // The same as a nonblocking broadcast, or a persistent one started twice, each completed
  // at once.
  int nonblocking(int root, int seed, const std::optional<AlgorithmSpec>& algorithm,
                  bool persistent = false) {
    int* data = data_.data();
    auto fill = [&](int value) {
      for (int i = 0; i < 16; ++i) data[i] = world_rank() == root ? value + i : -1;
    };
    auto wrong_after = [&](int value) {
      int wrong = 0;
      for (int i = 0; i < 16; ++i) wrong |= data[i] != value + i;
      return wrong;
    };
    MPI_Request request = MPI_REQUEST_NULL;
    int wrong = 0;
    if (!persistent) {
      fill(seed);
      int rc = algorithm ? ibcast(data, 16, MPI_INT, root, comm_, *algorithm, &request)
                         : ibcast(data, 16, MPI_INT, root, comm_, &request);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
      wrong = rc != MPI_SUCCESS || wrong_after(seed);
    } else {
      LC_Persistent planned = LC_PERSISTENT_NULL;
      int rc = algorithm ? bcast_init(data, 16, MPI_INT, root, comm_, *algorithm, &planned)
                         : bcast_init(data, 16, MPI_INT, root, comm_, &planned);
      for (int start = 0; start < 2; ++start) {
        fill(seed + start);
        if (rc == MPI_SUCCESS) rc = LC_Start(planned, &request);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
        wrong |= rc != MPI_SUCCESS || wrong_after(seed + start);
      }
      if (planned != LC_PERSISTENT_NULL) LC_Persistent_free(&planned);
    }
    int ranks_wrong = 0;
    MPI_Allreduce(&wrong, &ranks_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return ranks_wrong;
  }
  BcastCall call(int root, int count = 16) { return {data_.data(), count, MPI_INT, root, comm_}; }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> data_;
};

TEST_F(Plans, OnlyARepeatedDeferralTakesIt) {
  const AlgorithmSpec mpi(Algorithm::mpi);
  EXPECT_FALSE(passes_at_once(call(0), &mpi)) << "nothing was broadcast on the communicator yet";
  ASSERT_EQ(broadcast(0, 7, mpi), 0);
  EXPECT_TRUE(passes_at_once(call(0), &mpi));
  EXPECT_FALSE(passes_at_once(call(0), nullptr)) << "another named algorithm (none)";
  EXPECT_FALSE(passes_at_once(call(0, 15), &mpi)) << "another count";
  EXPECT_FALSE(passes_at_once({MPI_IN_PLACE, 16, MPI_INT, 0, comm_}, &mpi)) << "MPI_IN_PLACE";
  if (world_size() > 1) {
    EXPECT_FALSE(passes_at_once(call(1), &mpi)) << "another root";
  }
  for (int seed = 100; seed < 150; ++seed) {
    ASSERT_EQ(broadcast(0, seed, mpi), 0) << "a repeat straight to the library, seed " << seed;
  }
  EXPECT_TRUE(passes_at_once(call(0), &mpi));
  ASSERT_EQ(broadcast(0, 8, AlgorithmSpec(Algorithm::binomial)), 0);
  EXPECT_TRUE(passes_at_once(call(0), &mpi)) << "binomial's call has a plan of its own";
}

// A nonblocking deferral (named mpi, or auto below 16 KiB) repeats straight to the library's
// MPI_Ibcast, from the same plan as the blocking calls of its shape, whose repeats keep their
// way; a nonblocking call that runs leancast does not take it.
TEST_F(Plans, RepeatedNonblockingDeferralGoesToMpiIbcast) {
  const AlgorithmSpec mpi(Algorithm::mpi);
  ASSERT_EQ(broadcast(0, 7, mpi), 0);
  EXPECT_FALSE(ibcast_passes_at_once(call(0), &mpi)) << "no nonblocking call of the plan yet";
  ASSERT_EQ(nonblocking(0, 10, mpi), 0);
  EXPECT_TRUE(ibcast_passes_at_once(call(0), &mpi));
  EXPECT_TRUE(passes_at_once(call(0), &mpi)) << "the blocking repeat's way stays";
  EXPECT_FALSE(ibcast_passes_at_once(call(0, 15), &mpi)) << "another count";
  EXPECT_FALSE(ibcast_passes_at_once(call(0), nullptr)) << "another named algorithm (none)";
  EXPECT_FALSE(ibcast_passes_at_once({MPI_IN_PLACE, 16, MPI_INT, 0, comm_}, &mpi))
      << "MPI_IN_PLACE";
  for (int seed = 100; seed < 150; ++seed) {
    ASSERT_EQ(nonblocking(0, seed, mpi), 0) << "a repeat straight to the library, seed " << seed;
  }
  ASSERT_EQ(nonblocking(0, 11, std::nullopt), 0);  // auto: 64 B
  if (world_size() > 1) {                          // (one rank runs linear, which sends nothing)
    EXPECT_TRUE(ibcast_passes_at_once(call(0), nullptr)) << "auto deferred below 16 KiB";
    const AlgorithmSpec binomial(Algorithm::binomial);
    ASSERT_EQ(nonblocking(0, 12, binomial), 0);
    EXPECT_FALSE(ibcast_passes_at_once(call(0), &binomial)) << "it ran leancast's binomial";
  }
  ASSERT_EQ(nonblocking(0, 13, mpi, true), 0);
  EXPECT_TRUE(ibcast_passes_at_once(call(0), &mpi)) << "the persistent call used the same plan";
  ASSERT_EQ(nonblocking(0, 14, mpi), 0);
  EXPECT_TRUE(ibcast_passes_at_once(call(0), &mpi));
}

TEST_F(Plans, NotWhileALeancastBroadcastIsOutstanding) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (one moves nothing: no task)";
  const AlgorithmSpec mpi(Algorithm::mpi);
  ASSERT_EQ(broadcast(0, 7, mpi), 0);
  ASSERT_TRUE(passes_at_once(call(0), &mpi));
  std::vector<unsigned char> big(1 << 20, world_rank() == 0 ? 5 : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(ibcast(big.data(), static_cast<int>(big.size()), MPI_BYTE, 0, comm_,
                   AlgorithmSpec(Algorithm::binomial), &request),
            MPI_SUCCESS);
  EXPECT_FALSE(passes_at_once(call(0), &mpi)) << "a blocking call must step the task";
  EXPECT_EQ(broadcast(0, 9, mpi), 0);  // the whole path, stepping the task meanwhile
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(std::count(big.begin(), big.end(), 5), static_cast<long>(big.size()));
  EXPECT_TRUE(passes_at_once(call(0), &mpi));
}

TEST_F(Plans, NotWhileOnlineTuningMayTryTheCall) {
  if (world_size() < 2) GTEST_SKIP() << "online tuning tries broadcasts that move data";
  // auto at 16 ints is tunable; where it is the library's broadcast, it repeats straight to
  // the library with tuning off, and not with tuning on (a trial may run another algorithm);
  // where it is leancast's, its copies at once do not run again while tuning is on, and the
  // trials (each algorithm's resolved plan) deliver.
  std::string by;
  const auto chosen = chosen_algorithm(comm_, 16 * sizeof(int), &by);
  ASSERT_TRUE(chosen.has_value());
  if (chosen->algorithm != Algorithm::mpi) {
    ASSERT_TRUE(set_tuning("off"));
    ASSERT_EQ(broadcast(0, 7, std::nullopt), 0);
    const detail::PlanSlot* slot = planned(call(0), nullptr);
    ASSERT_NE(slot, nullptr);
    if (!slot->plan->tuned) GTEST_SKIP() << "auto's " << to_string(*chosen) << " is not tunable";
    ASSERT_TRUE(set_tuning("online"));
    EXPECT_FALSE(detail::copies_again_apply(*slot->plan)) << "a trial may run another algorithm";
    for (int seed = 20; seed < 60; ++seed) {
      ASSERT_EQ(broadcast(0, seed, std::nullopt), 0) << "under online tuning, seed " << seed;
    }
    ASSERT_TRUE(set_tuning(""));
    return;
  }
  ASSERT_TRUE(set_tuning("off"));
  ASSERT_EQ(broadcast(0, 7, std::nullopt), 0);
  EXPECT_TRUE(passes_at_once(call(0), nullptr));
  ASSERT_TRUE(set_tuning("online"));
  EXPECT_FALSE(passes_at_once(call(0), nullptr));
  ASSERT_TRUE(set_tuning(""));
}

// shm, and cma where cross-memory attach is permitted (else it runs as shm through the whole
// run, every time): a shape's plan aims its copies at its program, and its repeats run them
// again, with the buffer each call's (two buffers in turn) and the data right; each root's
// plan has copies of its own.
TEST_F(Plans, RepeatedCopiesRunAgainIntoAnyBuffer) {
  if (world_size() < 2) GTEST_SKIP() << "one rank copies nothing";
  std::vector<int> other(32, 0);
  for (const char* name : {"shm:8K", "cma"}) {
    const AlgorithmSpec named = *parse_algorithm_spec(name);
    ASSERT_EQ(broadcast(0, 7, named), 0) << name;
    const std::uint64_t as_shm = detail::cma_runs_as_shm();
    ASSERT_EQ(broadcast(0, 8, named), 0) << name;
    if (detail::cma_runs_as_shm() != as_shm) {
      const detail::CallPlan* plan = plan_of(call(0), &named);
      EXPECT_TRUE(plan == nullptr || !plan->copies.aimed() || plan->copies.window() == nullptr)
          << name << " runs as shm, through the whole run";
      continue;
    }
    EXPECT_TRUE(copies_again(call(0), named)) << name;
    EXPECT_FALSE(passes_at_once(call(0), &named)) << name;
    EXPECT_FALSE(copies_again(call(0, 15), named)) << name << ": another count";
    for (int seed = 100; seed < 160; ++seed) {
      ASSERT_EQ(broadcast(0, seed, named, seed % 2 != 0 ? &other : nullptr), 0)
          << name << ", seed " << seed;
    }
    EXPECT_FALSE(copies_again(call(1), named)) << name << ": another root";
    ASSERT_EQ(broadcast(1, 9, named), 0) << name;
    EXPECT_TRUE(copies_again(call(1), named)) << name << ": root 1's shape now";
    EXPECT_TRUE(copies_again(call(0), named)) << name << ": root 0's plan keeps its own";
    for (int seed = 200; seed < 220; ++seed) {
      ASSERT_EQ(broadcast(1, seed, named, seed % 2 != 0 ? &other : nullptr), 0)
          << name << ", seed " << seed;
    }
  }
}

// A nonblocking broadcast with larger slots grows the window under the plan's copies; the
// repeats after it run through the new window.
TEST_F(Plans, KeptCopiesFollowTheWindow) {
  if (world_size() < 2) GTEST_SKIP() << "one rank copies nothing";
  const AlgorithmSpec shm = *parse_algorithm_spec("shm:8K");
  ASSERT_EQ(broadcast(0, 7, shm), 0);
  ASSERT_EQ(broadcast(0, 8, shm), 0);
  ASSERT_TRUE(copies_again(call(0), shm));
  std::vector<unsigned char> big(1 << 20, 0);
  for (unsigned char& byte : big) byte = world_rank() == 0 ? 3 : 0;
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(
      ibcast(big.data(), 1 << 20, MPI_BYTE, 0, comm_, *parse_algorithm_spec("shm:1M"), &request),
      MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(std::count(big.begin(), big.end(), 3), 1 << 20) << "grows the window to 1 MiB slots";
  EXPECT_TRUE(copies_again(call(0), shm));
  for (int seed = 100; seed < 120; ++seed) ASSERT_EQ(broadcast(0, seed, shm), 0) << seed;
}

// A repeated shape finds the plan it made; another count, type, root or named algorithm (or
// a parameter) gets a plan of its own; LC_Bcast_with's text is kept with its plan.
TEST_F(Plans, EachShapeHasItsOwnPlan) {
  const AlgorithmSpec binomial(Algorithm::binomial);
  ASSERT_EQ(broadcast(0, 7, binomial), 0);
  const detail::CallPlan* plan = plan_of(call(0), &binomial);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->decision.algorithm.algorithm, Algorithm::binomial);
  ASSERT_EQ(broadcast(0, 8, binomial), 0);
  EXPECT_EQ(plan_of(call(0), &binomial), plan) << "a repeat finds the same plan";
  EXPECT_EQ(plan_of(call(0, 15), &binomial), nullptr) << "another count";
  EXPECT_EQ(plan_of({data_.data(), 16, MPI_UNSIGNED, 0, comm_}, &binomial), nullptr)
      << "another type";
  EXPECT_EQ(plan_of(call(0), nullptr), nullptr) << "no algorithm named";
  ASSERT_EQ(bcast(data_.data(), 16, MPI_UNSIGNED, 0, comm_, binomial), MPI_SUCCESS);
  const detail::CallPlan* unsigned_plan =
      plan_of({data_.data(), 16, MPI_UNSIGNED, 0, comm_}, &binomial);
  EXPECT_NE(unsigned_plan, nullptr);
  EXPECT_NE(unsigned_plan, plan);
  const AlgorithmSpec knomial3 = *parse_algorithm_spec("knomial:3");
  const AlgorithmSpec knomial4 = *parse_algorithm_spec("knomial:4");
  ASSERT_EQ(broadcast(0, 9, knomial3), 0);
  EXPECT_EQ(plan_of(call(0), &knomial4), nullptr) << "another parameter";
  ASSERT_EQ(broadcast(0, 10, knomial4), 0);
  const detail::CallPlan* three = plan_of(call(0), &knomial3);
  const detail::CallPlan* four = plan_of(call(0), &knomial4);
  ASSERT_NE(three, nullptr);
  ASSERT_NE(four, nullptr);
  EXPECT_NE(three, four);
  EXPECT_EQ(four->decision.algorithm, knomial4);
  EXPECT_EQ(plan_of(call(0), &binomial), plan) << "binomial's plan stays";
  if (world_size() > 1) {
    EXPECT_EQ(plan_of(call(1), &binomial), nullptr) << "another root";
    ASSERT_EQ(broadcast(1, 11, binomial), 0);
    EXPECT_NE(plan_of(call(1), &binomial), nullptr);
    EXPECT_NE(plan_of(call(1), &binomial), plan);
  }
  for (int seed = 12; seed < 15; ++seed) {
    for (int i = 0; i < 16; ++i) data_[i] = world_rank() == 0 ? seed + i : -1;
    ASSERT_EQ(LC_Bcast_with(data_.data(), 16, MPI_INT, 0, comm_, "binomial"), MPI_SUCCESS);
    for (int i = 0; i < 16; ++i) ASSERT_EQ(data_[i], seed + i);
  }
  EXPECT_EQ(plan_of(call(0), &binomial), plan);
  EXPECT_EQ(plan->name, "binomial") << "LC_Bcast_with's text is kept with the plan";
}

// What the slot does not hold (an executor, a node-aware broadcast's levels) the plan's spec
// settles.
TEST_F(Plans, ExecutorsAndLevelsHaveTheirOwnPlans) {
  const AlgorithmSpec binomial(Algorithm::binomial);
  const AlgorithmSpec rounds = *parse_algorithm_spec("binomial@rounds");
  ASSERT_EQ(broadcast(0, 7, binomial), 0);
  EXPECT_EQ(plan_of(call(0), &rounds), nullptr) << "another executor";
  ASSERT_EQ(broadcast(0, 8, rounds), 0);
  ASSERT_NE(plan_of(call(0), &rounds), nullptr);
  EXPECT_NE(plan_of(call(0), &rounds), plan_of(call(0), &binomial));
  const AlgorithmSpec chains = *parse_algorithm_spec("node-aware:binomial/pipeline-chain");
  const AlgorithmSpec trees = *parse_algorithm_spec("node-aware:binomial/binomial");
  ASSERT_EQ(broadcast(0, 9, chains), 0);
  ASSERT_NE(plan_of(call(0), &chains), nullptr);
  EXPECT_EQ(plan_of(call(0), &trees), nullptr) << "other levels";
  EXPECT_EQ(plan_of(call(0), &chains)->decision.algorithm, chains);
}

// LC_Comm_set_algorithm changes what the settings decide: it forgets the plans.
TEST_F(Plans, SettingTheAlgorithmClearsThePlans) {
  ASSERT_EQ(broadcast(0, 7, std::nullopt), 0);
  ASSERT_NE(plan_of(call(0), nullptr), nullptr);
  ASSERT_EQ(LC_Comm_set_algorithm(comm_, "linear"), MPI_SUCCESS);
  EXPECT_EQ(plan_of(call(0), nullptr), nullptr) << "the new hint cleared the plans";
  ASSERT_EQ(broadcast(0, 8, std::nullopt), 0);
  const detail::CallPlan* plan = plan_of(call(0), nullptr);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->decision.algorithm.algorithm, Algorithm::linear);
  ASSERT_EQ(LC_Comm_set_algorithm(comm_, ""), MPI_SUCCESS);
  EXPECT_EQ(plan_of(call(0), nullptr), nullptr) << "no hint: cleared again";
  ASSERT_EQ(broadcast(0, 9, std::nullopt), 0);
  ASSERT_NE(plan = plan_of(call(0), nullptr), nullptr);
  EXPECT_NE(plan->decision.named.algorithm, Algorithm::linear);
}

// A derived type's plan is keyed by the bytes it moves: one freed and made again, which MPI
// may hand out under the old handle, moves its own bytes, never the old type's plan's.
TEST_F(Plans, DerivedTypeMadeAgainGetsThePlanOfItsBytes) {
  if (world_size() < 2) GTEST_SKIP() << "one rank moves nothing";
  const AlgorithmSpec binomial(Algorithm::binomial);
  std::vector<int> data(64);
  detail::PrivateComm* state = nullptr;
  ASSERT_EQ(detail::existing_private_comm(comm_, state), MPI_SUCCESS);
  ASSERT_NE(state, nullptr);
  auto typed = [&](MPI_Datatype type, int ints, int seed) {
    for (int i = 0; i < 64; ++i) data[i] = world_rank() == 0 && i < ints ? seed + i : -1;
    int wrong = bcast(data.data(), 1, type, 0, comm_, binomial) != MPI_SUCCESS;
    for (int i = 0; i < 64; ++i) wrong |= data[i] != (i < ints ? seed + i : -1);
    int ranks_wrong = 0;
    MPI_Allreduce(&wrong, &ranks_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return ranks_wrong;
  };
  auto by_bytes = [&](std::uint64_t bytes, MPI_Datatype type) {
    return state->plans().find(detail::PlanKey{static_cast<MPI_Count>(bytes), type, 0,
                                               detail::Request::named, &binomial, true});
  };
  MPI_Datatype first = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(4, MPI_INT, &first);
  MPI_Type_commit(&first);
  ASSERT_EQ(typed(first, 4, 100), 0);
  ASSERT_EQ(typed(first, 4, 200), 0);
  EXPECT_EQ(plan_of({data.data(), 1, first, 0, comm_}, &binomial), nullptr)
      << "a derived type is not planned by its handle";
  ASSERT_NE(by_bytes(16, first), nullptr);
  const MPI_Datatype old_handle = first;
  MPI_Type_free(&first);
  MPI_Datatype second = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(16, MPI_INT, &second);
  MPI_Type_commit(&second);
  for (int seed = 300; seed < 303; ++seed) {
    ASSERT_EQ(typed(second, 16, seed), 0)
        << "the handle came back: " << (second == old_handle ? "yes" : "no");
  }
  const detail::PlanSlot* slot = by_bytes(64, second);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->plan->info.bytes, 64u);
  MPI_Type_free(&second);
}

// More shapes than the map's 64 slots: each call still delivers, a shape's plan is there
// right after its calls, and at most 64 stay.
TEST_F(Plans, MoreShapesThanSlotsReplacePlans) {
  const AlgorithmSpec binomial(Algorithm::binomial);
  constexpr int kShapes = 100;
  std::vector<int> data(kShapes);
  for (int count = 1; count <= kShapes; ++count) {
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < count; ++i) data[i] = world_rank() == 0 ? count + round + i : -1;
      int wrong = bcast(data.data(), count, MPI_INT, 0, comm_, binomial) != MPI_SUCCESS;
      for (int i = 0; i < count; ++i) wrong |= data[i] != count + round + i;
      int ranks_wrong = 0;
      MPI_Allreduce(&wrong, &ranks_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      ASSERT_EQ(ranks_wrong, 0) << count << " ints, round " << round;
    }
    EXPECT_NE(plan_of({data.data(), count, MPI_INT, 0, comm_}, &binomial), nullptr) << count;
  }
  int kept = 0;
  for (int count = 1; count <= kShapes; ++count) {
    kept += plan_of({data.data(), count, MPI_INT, 0, comm_}, &binomial) != nullptr;
  }
  EXPECT_LE(kept, 64);
  EXPECT_GE(kept, 1);
}

// A nonblocking call of a shape runs the blocking call's plan, and LC_Bcast_init holds it:
// the same program, one more owner while the persistent broadcast lives.
TEST_F(Plans, NonblockingAndPersistentCallsUseThePlan) {
  if (world_size() < 2) GTEST_SKIP() << "one rank moves nothing: no program";
  const AlgorithmSpec binomial(Algorithm::binomial);
  ASSERT_EQ(broadcast(0, 7, binomial), 0);
  const detail::CallPlan* plan = plan_of(call(0), &binomial);
  ASSERT_NE(plan, nullptr);
  ASSERT_TRUE(plan->program);
  const detail::Program* program = plan->program.get();
  EXPECT_FALSE(plan->nonblocking.has_value());
  ASSERT_EQ(nonblocking(0, 8, binomial), 0);
  EXPECT_EQ(plan_of(call(0), &binomial), plan);
  EXPECT_EQ(plan->program.get(), program) << "the nonblocking call ran the plan's program";
  EXPECT_TRUE(plan->nonblocking.has_value()) << "its choice is kept in the plan";
  const long owners = plan->program.use_count();
  LC_Persistent persistent = LC_PERSISTENT_NULL;
  ASSERT_EQ(bcast_init(data_.data(), 16, MPI_INT, 0, comm_, binomial, &persistent), MPI_SUCCESS);
  EXPECT_EQ(plan_of(call(0), &binomial), plan);
  EXPECT_EQ(plan->program.use_count(), owners + 1) << "the persistent broadcast holds it";
  for (int start = 0; start < 3; ++start) {
    for (int i = 0; i < 16; ++i) data_[i] = world_rank() == 0 ? start + i : -1;
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(LC_Start(persistent, &request), MPI_SUCCESS);
    ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < 16; ++i) ASSERT_EQ(data_[i], start + i);
  }
  ASSERT_EQ(LC_Persistent_free(&persistent), MPI_SUCCESS);
  // A shape a nonblocking call planned first is the blocking calls' plan too.
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(ibcast(data_.data(), 15, MPI_INT, 0, comm_, binomial, &request), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  const detail::CallPlan* fifteen = plan_of(call(0, 15), &binomial);
  ASSERT_NE(fifteen, nullptr);
  EXPECT_EQ(fifteen->decision.algorithm.algorithm, Algorithm::binomial);
  ASSERT_EQ(bcast(data_.data(), 15, MPI_INT, 0, comm_, binomial), MPI_SUCCESS);
  EXPECT_EQ(plan_of(call(0, 15), &binomial), fifteen);
}

}  // namespace
}  // namespace leancast::test
