// The shared memory of the shm algorithm (executor_shared.cpp): one MPI-3 window per group
// of ranks that broadcast through it (a communicator's ranks for shm, each node's for
// node-aware:X/shm), made at the first such broadcast, kept with the private communicator
// and freed with it.
//
// Layout, allocated by the group's first rank (the others map it, MPI_Win_shared_query),
// every field on its own cache line so that no two writers share one:
//   consumed[member]  how many segments the member has done, counted since the window was
//                     made: copied out, or (the writer) copied in
//   header[slot]      published (segment number + 1, released after the data), the
//                     broadcast's signature, the segment's byte range, its writer, a flag
//   data[slot]        slot_bytes each
// Every member takes part in every broadcast through the window, in the same order (MPI's
// rule for collectives), and counts the same segments, so a segment's number is the same
// on every member without any message: segment g goes to slot g % slots, and its writer
// waits until every member has done segment g - slots before it reuses the slot.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace leancast::detail {

// Slots in a window: 8 let a writer run a few segments ahead of its slowest reader while the
// window stays at 8 segments (MPICH's release_gather uses 4 cells, of 32 KiB by default).
// Not varied in the measurements yet; the slot size was (docs/algorithms.md#shm-new).
constexpr std::uint64_t kSharedSlots = 8;

struct alignas(64) SlotHeader {
  std::uint64_t published = 0;  // atomic: segment number + 1 once its bytes are in
  std::uint64_t signature = 0;  // broadcast_signature of the writer's broadcast
  std::uint64_t offset = 0;     // the segment's bytes in the message
  std::uint64_t length = 0;
  std::int64_t writer = 0;      // member index
  std::uint64_t flagged = 0;    // the writer has seen an error (node-aware: its leader's)
};

struct alignas(64) MemberLine {
  std::uint64_t consumed = 0;  // atomic
};

class SharedWindow {
 public:
  ~SharedWindow();
  SharedWindow(const SharedWindow&) = delete;
  SharedWindow& operator=(const SharedWindow&) = delete;

  // Collective over `comm` (the private communicator): the ranks of equal `group` form one
  // window. On success `out` is set. If some group's ranks do not share memory, every rank
  // gets MPI_ERR_UNSUPPORTED_OPERATION and `why` names the cause.
  static int create(MPI_Comm comm, int group, std::uint64_t slot_bytes,
                    std::unique_ptr<SharedWindow>& out, std::string& why);

  // Collective over the members: a larger window if slots of `slot_bytes` do not fit; a new
  // window starts counting segments from 0.
  int reserve(std::uint64_t slot_bytes);

  int members() const { return members_; }
  int member() const { return member_; }
  // The member index of private-communicator rank `rank` (-1: not a member).
  int member_of(int rank) const;
  std::uint64_t slot_bytes() const { return slot_bytes_; }

  std::atomic_ref<std::uint64_t> consumed(int member) const {
    return std::atomic_ref<std::uint64_t>(lines_[member].consumed);
  }
  SlotHeader& header(std::uint64_t segment) const { return headers_[segment % kSharedSlots]; }
  std::byte* data(std::uint64_t segment) const {
    return data_ + (segment % kSharedSlots) * slot_bytes_;
  }
  // Segments done through this window, on every member alike.
  std::uint64_t& segments() { return segments_; }

  // MPI_Win_free, collective over the members (at MPI_Finalize, shared_window.cpp).
  void free_window();

 private:
  SharedWindow(MPI_Comm members, std::vector<int> ranks) : comm_(members), ranks_(std::move(ranks)) {}
  int allocate(std::uint64_t slot_bytes);
  void release();

  MPI_Comm comm_ = MPI_COMM_NULL;  // the members, in private-communicator rank order
  std::vector<int> ranks_;          // private-communicator rank of each member
  int members_ = 0;
  int member_ = 0;
  MPI_Win win_ = MPI_WIN_NULL;
  MemberLine* lines_ = nullptr;
  SlotHeader* headers_ = nullptr;
  std::byte* data_ = nullptr;
  std::uint64_t slot_bytes_ = 0;
  std::uint64_t segments_ = 0;
};

// Shared windows this process holds now (tests: freeing a communicator frees its windows).
std::size_t shared_windows_alive();

}  // namespace leancast::detail
