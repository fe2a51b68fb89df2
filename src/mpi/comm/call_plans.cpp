#include "mpi/comm/call_plans.hpp"

#include <leancast/schedule.hpp>

#include "mpi/run/broadcast_tag.hpp"

namespace leancast::detail {

static_assert(sizeof(PlanSlot) == 64, "one slot, one cache line");
static_assert(CallPlans::kSlots == 64, "index() takes 6 bits");

PlanSlot* CallPlans::add(const PlanKey& key, std::unique_ptr<CallPlan> plan, bool may_replace) {
  const std::uint8_t request = tag(key);
  const std::size_t start = index(key.count, key.type, key.root, request, key.by_bytes);
  PlanSlot* free = nullptr;
  for (std::size_t probe = 0; probe < kProbes && free == nullptr; ++probe) {
    PlanSlot& slot = slots_[(start + probe) % kSlots];
    if (slot.request == 0) free = &slot;
  }
  if (free == nullptr) {
    if (!may_replace) return nullptr;
    free = &slots_[(start + replaced_++ % kProbes) % kSlots];
  }
  *free = PlanSlot{.count = key.count,
                   .type = key.by_bytes ? MPI_Datatype{} : key.type,
                   .root = key.root,
                   .request = request,
                   .passes = Passes::never,
                   .ibcast_passes = false,
                   .algorithm = algorithm_byte(key.algorithm),
                   .parameter = key.algorithm ? key.algorithm->parameter : 0,
                   .plan = std::move(plan)};
  return free;
}

void CallPlans::clear() {
  for (PlanSlot& slot : slots_) slot = PlanSlot{};
}

std::unique_ptr<CallPlan> resolved_plan(const AlgorithmSpec& algorithm, std::uint64_t bytes) {
  auto plan = std::make_unique<CallPlan>();
  plan->decision = {algorithm, algorithm, "resolved"};
  plan->algorithm = algorithm;
  plan->info.bytes = bytes;
  plan->run = RunKind::schedule;
  return plan;
}

std::shared_ptr<const Program> make_program(const RunComm& state, const AlgorithmSpec& algorithm,
                                            int root, std::uint64_t bytes) {
  return std::make_shared<const Program>(
      make_schedule(algorithm, BcastShape{state.size(), root, bytes, state.nodes()}, state.rank()),
      broadcast_signature(algorithm, root, bytes));
}

}  // namespace leancast::detail
