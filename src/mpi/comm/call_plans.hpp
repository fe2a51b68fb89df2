// One prepared plan per call shape on a communicator: what a broadcast of that count,
// datatype, root and request runs, decided once (the decision, the program, the copies at
// once, the library's broadcast where auto defers), looked up by every later call of the
// shape: a blocking call runs it, a nonblocking one starts it, LC_Bcast_init holds it.
//
// The map is open-addressed, 64 slots of one cache line each, at most 4 probes, and a full
// probe window replaces one of its plans: a lookup is a hash and a few compares, with no
// allocation, and a shape that repeats finds its plan on the line its probe starts at. A
// predefined datatype is keyed by its handle (it never comes to name another type); a
// derived one, and every type under LEANCAST_CHECK (whose calls are checked anew anyway), by
// the bytes it moves: a derived type freed and made again may come back under the same
// handle, and what is planned depends only on the bytes. Cleared where the communicator's
// hint changes (PrivateComm::set_hint), the only input of a decision that may change.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <leancast/algorithm.hpp>

#include "mpi/run/broadcast_run.hpp"
#include "mpi/run/program.hpp"
#include "select/decide.hpp"

namespace leancast::detail {

// What a call asked for: the settings' choice, an algorithm it names, or one already resolved
// (online tuning's trial or settled choice, cma's stand-in shm: their programs and copies).
enum class Request : std::uint8_t { none = 1, named, resolved };  // 0: an empty slot

// How a plan's blocking call runs: the library's broadcast, nothing (no byte to move, or one
// rank: a request still completes), or leancast's schedule.
enum class RunKind : std::uint8_t { library, nothing, schedule };

// Whether a blocking call of the plan goes to PMPI_Bcast at once (pass_at_once.hpp): `always`
// where it was decided for the library and LEANCAST_VERBOSE is off (nothing to count);
// `unless_tuning` where that was auto's choice, which online tuning may try otherwise.
enum class Passes : std::uint8_t { never, always, unless_tuning };

struct CallPlan {
  // First, on the line a repeat's copies read: whether online tuning decides its blocking
  // calls while it is on, and the copies at once aimed at its program (CopiesAtOnce,
  // broadcast_run.hpp: its repeats run them again).
  bool tuned = false;
  CopiesAtOnce copies;
  Decision decision;                       // the blocking call's
  std::optional<AlgorithmSpec> algorithm;  // the request's (named, resolved)
  TypeInfo info;  // keyed by handle: the calls'; by bytes: only `bytes` holds for every call
  RunKind run = RunKind::library;
  // A nonblocking call's choice (nonblocking_choice), once made and not one that depends on
  // the window; for the interposer's calls or the API's.
  std::optional<Decision> nonblocking;
  bool nonblocking_interposed = false;
  std::shared_ptr<const Program> program;  // this rank's, made at the plan's first run
  std::string name;  // the text LC_Bcast_with named its algorithm with ("": none yet)
};

// A plan's key and the words a repeat reads, on one line.
struct alignas(64) PlanSlot {
  MPI_Count count = 0;  // the call's, or (by bytes) the bytes it moves
  MPI_Datatype type{};  // by handle: the call's type (by bytes: unset)
  int root = 0;
  std::uint8_t request = 0;  // Request, with kByBytes; 0: empty
  Passes passes = Passes::never;
  bool ibcast_passes = false;  // a nonblocking call goes to the library's MPI_Ibcast at once
  // The request's algorithm and parameter (none: 0, 0), which settle a flat algorithm's
  // equality here; the plan's full spec settles a node-aware one's or one with an executor.
  std::uint8_t algorithm = 0;
  std::uint64_t parameter = 0;
  std::unique_ptr<CallPlan> plan;
};

// A lookup's key: `algorithm` is the request's (null for Request::none).
struct PlanKey {
  MPI_Count count;
  MPI_Datatype type;
  int root;
  Request request;
  const AlgorithmSpec* algorithm;
  bool by_bytes;
};

class CallPlans {
 public:
  static constexpr std::size_t kSlots = 64, kProbes = 4;
  static constexpr std::uint8_t kByBytes = 0x80;

  // The plan of a call with a predefined type (by handle) and `named` (null: none), if made.
  [[gnu::always_inline]] PlanSlot* find(const BcastCall& call, const AlgorithmSpec* named) {
    return find(
        {call.count, call.type, call.root, named ? Request::named : Request::none, named, false});
  }
  [[gnu::always_inline]] PlanSlot* find(const PlanKey& key) {
    return probe(key, [](const PlanSlot&) { return true; });
  }
  // The plan of a call by handle that named its algorithm with the text `name`, if made.
  PlanSlot* find_name(const BcastCall& call, const char* name) {
    return probe({call.count, call.type, call.root, Request::named, nullptr, false},
                 [name](const PlanSlot& slot) { return slot.plan->name == name; });
  }

  // A new plan under `key` (not there): in a free slot of its probe window, else in place of
  // one of the window's plans, or (`may_replace` false: a lookup made while a plan runs, which
  // must outlive it) nowhere: null.
  PlanSlot* add(const PlanKey& key, std::unique_ptr<CallPlan> plan, bool may_replace = true);
  void clear();

 private:
  static std::uint8_t tag(const PlanKey& key) {
    return static_cast<std::uint8_t>(static_cast<std::uint8_t>(key.request) |
                                     (key.by_bytes ? kByBytes : 0));
  }
  static std::uint64_t handle_bits(MPI_Datatype type) {
    std::uint64_t bits = 0;  // a pointer (Open MPI) or an int (MPICH)
    std::memcpy(&bits, &type, sizeof type);
    return bits;
  }
  // Named algorithms of one shape share a probe window (the C API finds them by their text).
  static std::size_t index(MPI_Count count, MPI_Datatype type, int root, std::uint8_t request,
                           bool by_bytes) {
    // One multiplication (a repeat's way pays for it): the words mixed, their top bits spread.
    const std::uint64_t h =
        ((static_cast<std::uint64_t>(count) ^
          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(root)) << 40) ^ request) ^
         (by_bytes ? 0 : handle_bits(type))) *
        0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h >> 58);  // the top 6 bits: one of 64
  }
  // A request's algorithm as the slot keeps it (none: 0).
  static std::uint8_t algorithm_byte(const AlgorithmSpec* spec) {
    return spec ? static_cast<std::uint8_t>(static_cast<int>(spec->algorithm) + 1) : 0;
  }
  // Whether the slot's algorithm and parameter settle equality: a flat algorithm on the
  // process's executor (its other fields are their defaults).
  static bool flat(const AlgorithmSpec& spec) {
    return spec.algorithm != Algorithm::node_aware && !spec.executor;
  }
  [[gnu::always_inline]] static bool matches(const PlanSlot& slot, const PlanKey& key) {
    if (slot.request != tag(key) || slot.count != key.count || slot.root != key.root ||
        (!key.by_bytes && slot.type != key.type)) {
      return false;
    }
    if (key.algorithm == nullptr) return true;
    return slot.algorithm == algorithm_byte(key.algorithm) &&
           slot.parameter == key.algorithm->parameter &&
           (flat(*key.algorithm) || *slot.plan->algorithm == *key.algorithm);
  }

  // The first slot of key's probe window that matches it (any named algorithm where the
  // key names none) and `also` accepts.
  template <class Also>
  [[gnu::always_inline]] PlanSlot* probe(const PlanKey& key, Also also) {
    const std::size_t start = index(key.count, key.type, key.root, tag(key), key.by_bytes);
    for (std::size_t step = 0; step < kProbes; ++step) {
      PlanSlot& slot = slots_[(start + step) % kSlots];
      if (matches(slot, key) && also(slot)) return &slot;
    }
    return nullptr;
  }

  std::array<PlanSlot, kSlots> slots_{};
  std::size_t replaced_ = 0;  // which slot of a full window the next add replaces
};

// The plan of a call whose algorithm is resolved already (Request::resolved) moving `bytes`:
// its program and copies (the decision each call's).
std::unique_ptr<CallPlan> resolved_plan(const AlgorithmSpec& algorithm, std::uint64_t bytes);

// This rank's program for a broadcast of `algorithm` (resolved) on `state`'s communicator.
std::shared_ptr<const Program> make_program(const RunComm& state, const AlgorithmSpec& algorithm,
                                            int root, std::uint64_t bytes);

}  // namespace leancast::detail
