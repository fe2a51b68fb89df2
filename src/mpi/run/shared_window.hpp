// The shared memory of the shm algorithm (executor_shared.cpp): one window per group of
// ranks that broadcast through it (a communicator's ranks for shm, each node's for
// node-aware:X/shm), made at the first such broadcast, kept with the private communicator
// and unmapped with it.
//
// The memory is a POSIX shared-memory object that the group's first rank creates and the
// others map by name (shm_open), not an MPI window: MPI_Win_allocate_shared is a blocking
// collective without a nonblocking form, and a window has to be made inside nonblocking
// broadcasts, which may not wait for other ranks (nonblocking.hpp). Making one is an
// exchange of nonblocking collectives over the private communicator (WindowSetup): every
// rank posts its process, then each group's first rank the object it made, then every rank
// whether it could map its group's memory; the ranks of the whole communicator so learn
// together whether every group has a window, and where one does not (ranks on several
// nodes, no /dev/shm), they all fall back or fail together. The object is made only once
// every rank has come to the setup, and unlinked once every member has mapped it (at once
// where something failed): a job killed while a rank had not come to the setup (killed, or
// stuck elsewhere until a timeout) leaves nothing in /dev/shm, nor one killed once the window
// is made; only a kill within the setup's last two rounds can.
//
// Layout, every field on its own cache line so that no two writers share one:
//   consumed[member]  how many segments the member has done, counted since the window was
//                     made: copied out, or (the writer) copied in
//   slot[s]           a header line: published (segment number + 1, released after the
//                     data), the broadcast's signature, the segment's byte range, its
//                     writer, a flag; then slot_bytes of data
//   cross[member]     the cma broadcasts (executor_cross.cpp): the member's broadcast number,
//                     how many bytes of it it holds, where they are, whether it is done
// Every member takes part in every broadcast through the window, in the same order (MPI's
// rule for collectives), and counts the same segments, so a segment's number is the same
// on every member without any message: segment g goes to slot g % slots, and its writer
// waits until every member has done segment g - slots before it reuses the slot. A larger
// window replaces a smaller one at the same broadcast on every member; each unmaps the old
// one itself (the memory lives until the last member unmaps it), so no member waits for
// another to leave it.
//
// Cross-memory attach (cma) reads another member's memory with process_vm_readv, which the
// kernel allows only where this process may ptrace that one (same user, and the Yama or
// container policy permitting); cma-split's sources write with process_vm_writev, which the
// same rule governs. Making a window tests both: each member reads a word of another's and
// writes one, and the members of every group agree, with the mapping, on whether all could;
// where one could not, cma broadcasts run as shm on every rank together (cross_allowed()).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace leancast::detail {

// Slots in a window: as many as fit kSharedSlotBudget bytes of data, from 8 to 16. A writer
// runs at most slots() segments ahead of its slowest reader, and learns that one is free
// only through a cache line's round trip between cores (1.3-1.8 us on the VM of
// evidence/within-node-2core.jsonl.gz): back-to-back broadcasts of 64 B with 8 slots ran at 8 per
// round trip, 0.83-1.25x Open MPI's vader (whose ring holds many small messages), with 16
// 1.66-2.04x, with 64-256 2.05-2.20x (git show 36aaa05^:docs/benchmarks/shm-slots). Every page of a
// window costs each member a few microseconds when the window is made on that VM (map() in
// shared_window.cpp), so no more than 16, and 512 KiB of data: 16 slots up to 32 KiB, 8
// from 64 KiB (8 and 16 slots of 64 KiB ran alike from 64 KiB there; a window of 16 took
// 4.0-4.5 ms to make, of 8 2.1-2.6 ms: git show 36aaa05^:docs/benchmarks/shm-first-calls). Large
// slots stay at 8, as MPICH's release_gather keeps 4 cells (of 32 KiB by default), so that a window
// stays at a few MiB per node.
constexpr std::uint64_t kMinSharedSlots = 8;
constexpr std::uint64_t kMaxSharedSlots = 16;
constexpr std::uint64_t kSharedSlotBudget = std::uint64_t{1} << 19;

struct alignas(64) SlotHeader {
  std::uint64_t published = 0;  // atomic: segment number + 1 once its bytes are in
  std::uint64_t signature = 0;  // broadcast_signature of the writer's broadcast
  std::uint64_t offset = 0;     // the segment's bytes in the message
  std::uint64_t length = 0;
  std::int64_t writer = 0;    // member index
  std::uint64_t flagged = 0;  // the writer has seen an error (node-aware: its leader's)
};

struct alignas(64) MemberLine {
  std::uint64_t consumed = 0;  // atomic
};

// A member's part in the cma broadcasts; only the member writes its first line, only its
// source the second.
struct alignas(64) CrossLine {
  std::uint64_t generation = 0;  // atomic: the broadcast the line describes (1, 2, ...)
  std::uint64_t held = 0;        // atomic: the member holds the message's bytes [0, held)
  std::uint64_t done = 0;        // atomic: the last broadcast whose reads it finished
  std::uint64_t address = 0;     // where those bytes are, in the member's address space
  std::uint64_t signature = 0;   // broadcast_signature of the member's broadcast
  std::uint64_t flagged = 0;     // the member saw an error: what it holds may be wrong
  // atomic, cma-split: its source has written into its buffer every part that ends at or
  // before this byte (the member sets 0 before it publishes its generation).
  alignas(64) std::uint64_t written = 0;
};

// A mapping of one window's memory.
class SharedMapping {
 public:
  SharedMapping() = default;
  SharedMapping(void* base, std::size_t bytes);
  SharedMapping(SharedMapping&& other) noexcept;
  SharedMapping& operator=(SharedMapping&& other) noexcept;
  ~SharedMapping();
  std::byte* base() const { return base_; }
  explicit operator bool() const { return base_ != nullptr; }

 private:
  std::byte* base_ = nullptr;
  std::size_t bytes_ = 0;
};

class SharedWindow {
 public:
  // The window of the ranks `ranks` (private-communicator ranks, ascending), this rank
  // being member `member`; its memory comes with install().
  SharedWindow(std::vector<int> ranks, int member);

  int members() const { return static_cast<int>(ranks_.size()); }
  int member() const { return member_; }
  // The member index of private-communicator rank `rank` (-1: not a member), and back.
  int member_of(int rank) const;
  int rank_of(int member) const { return ranks_[static_cast<std::size_t>(member)]; }
  std::uint64_t slot_bytes() const { return slot_bytes_; }
  std::uint64_t slots() const { return slots_count_; }

  std::atomic_ref<std::uint64_t> consumed(int member) const {
    return std::atomic_ref<std::uint64_t>(lines_[member].consumed);
  }
  // A slot is its header line followed by its data, so that a small segment's bytes sit in
  // the line beside its flag: the reader's miss on the flag brings them along (the adjacent
  // line prefetch), one transfer between cores instead of two.
  SlotHeader& header(std::uint64_t segment) const {
    return *reinterpret_cast<SlotHeader*>(slots_ + (segment % slots_count_) * slot_stride());
  }
  std::byte* data(std::uint64_t segment) const {
    return slots_ + (segment % slots_count_) * slot_stride() + sizeof(SlotHeader);
  }
  // Segments done through this window, on every member alike.
  std::uint64_t& segments() { return segments_; }
  // This member's knowledge, as a writer, of which segments' slots are free: those below
  // free_below() (every member had done segment free_below() - slots() - 1 when it
  // last looked). A writer reads the other members' lines only when it passes that mark:
  // every read of a line another core wrote is a transfer between cores, and one per small
  // broadcast made shm slower than Open MPI's coll sm at 64 B.
  std::uint64_t& free_below() { return free_below_; }

  CrossLine& cross(int member) const { return cross_[member]; }
  // cma broadcasts through this window, on every member alike.
  std::uint64_t& cross_broadcasts() { return cross_broadcasts_; }
  // The process of member `member`, and whether every member of every group could read
  // another's memory (else why not, on the first rank that could not).
  long pid_of(int member) const { return pids_[static_cast<std::size_t>(member)]; }
  bool cross_allowed() const { return cross_allowed_; }
  const std::string& cross_denied() const { return cross_denied_; }

  // Slots in a window whose slots hold `slot_bytes` (a rounded_slot), and the bytes of one
  // of `members` members.
  static std::uint64_t slots_for(std::uint64_t slot_bytes);
  static std::uint64_t bytes_for(int members, std::uint64_t slot_bytes);
  // Slots grow in powers of two from 4 KiB, so that a communicator's mixed sizes settle on
  // one window instead of making a new one each time.
  static std::uint64_t rounded_slot(std::uint64_t bytes);

  // Takes `memory` (zeroed, bytes_for(members(), slot_bytes)) in place of the window's
  // memory so far, counting segments and cma broadcasts from 0 again; `pids`: the members'
  // processes; `cross_denied`: "" where cma may run, else why not.
  void install(SharedMapping memory, std::uint64_t slot_bytes, std::vector<long> pids,
               std::string cross_denied);

 private:
  std::vector<int> ranks_;
  int member_ = 0;
  SharedMapping memory_;
  MemberLine* lines_ = nullptr;
  std::uint64_t slot_stride() const { return sizeof(SlotHeader) + slot_bytes_; }
  std::byte* slots_ = nullptr;
  CrossLine* cross_ = nullptr;
  std::uint64_t slot_bytes_ = 0;
  std::uint64_t slots_count_ = kMinSharedSlots;
  std::uint64_t segments_ = 0;
  std::uint64_t free_below_ = kMinSharedSlots;
  std::uint64_t cross_broadcasts_ = 0;
  std::vector<long> pids_;
  bool cross_allowed_ = false;
  std::string cross_denied_;
};

// Making or growing the windows of one kind (the communicator's, or each node's) with slots
// of at least `slot_bytes`: every rank of the private communicator takes part, at the same
// broadcast. The constructor posts the exchange; step() advances it without waiting (false
// while it goes on), creating the group's memory on its first rank once every rank has
// posted its record, and unlinking it once every rank has mapped its group's. Then error() is
// MPI_SUCCESS, and `window` has its new memory, on every rank, or on every rank an error:
// MPI_ERR_UNSUPPORTED_OPERATION with why() where some group could not share memory, or
// the failed collective's code.
class WindowSetup {
 public:
  WindowSetup(MPI_Comm comm, int rank, SharedWindow& window, std::uint64_t slot_bytes);
  ~WindowSetup();
  WindowSetup(const WindowSetup&) = delete;
  WindowSetup& operator=(const WindowSetup&) = delete;

  bool step();
  // The request step() waits for: a blocking caller may complete it (MPI_Wait) in between.
  MPI_Request* waiting_on() { return &request_; }
  int error() const { return error_; }
  const std::string& why() const { return why_; }

  // What each rank tells the others in the first round.
  struct Record {
    std::int32_t rank;
    std::int32_t unused;
    std::int64_t bytes;
    std::int64_t pid;
    std::uint64_t probe;  // address of a word the others read to test cross-memory attach
    std::uint64_t sink;   // and of one they write (cma-split's sources write)
  };
  // And in the second.
  struct Made {
    char name[48];       // the shared-memory object its group's first rank made ("": none)
    std::int32_t error;  // errno of what failed on this rank; 0: none
  };

 private:
  bool posted(int rc);
  void create();
  void unlink_created();
  void open_leader();
  int probe_cross() const;
  void finish();

  MPI_Comm comm_;
  int rank_;
  SharedWindow& window_;
  std::uint64_t slot_bytes_;
  // 0: the records travel, 1: the objects' names, 2: the agreement, 3: done
  int phase_ = 0;
  MPI_Request request_ = MPI_REQUEST_NULL;
  Record mine_{};
  std::vector<Record> all_;
  Made made_{};
  std::vector<Made> all_made_;
  std::string created_;  // the object this rank made and has not unlinked yet
  SharedMapping mapped_;
  // What the ranks agree on (MPI_MIN): mapped, and the first rank that could not read
  // another's memory, as rank * 256 + errno (INT_MAX: none).
  int ok_[2] = {0, 0}, everywhere_[2] = {0, 0};
  int error_ = MPI_SUCCESS;
  std::string why_;
};

// Shared windows this process holds now (tests: freeing a communicator frees its windows).
std::size_t shared_windows_alive();

}  // namespace leancast::detail
