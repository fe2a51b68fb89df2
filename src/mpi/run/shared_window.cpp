#include "mpi/run/shared_window.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>

#include <fmt/format.h>

namespace leancast::detail {

namespace {

constexpr std::uint64_t kMinSlotBytes = 4096;

std::atomic<std::size_t> mappings_alive{0};

// 64 bits no other process can foresee. The process and a count alone named objects that
// another process held: a job killed before it unlinked its objects left them in /dev/shm,
// and PIDs recycle (in containers they are small), so a later process of the same PID, or
// one in another PID namespace sharing /dev/shm, met them and could not make a window.
std::uint64_t random_bits() {
  std::uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits)) {
    return bits;
  }
  // No getrandom (an old kernel, a seccomp filter): the clock and an address, which differ
  // between processes enough to be retried past (create()).
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return (static_cast<std::uint64_t>(now.tv_sec) << 32) ^ static_cast<std::uint64_t>(now.tv_nsec) ^
         (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&bits)) << 12);
}

// A name for a new object: the process and a count, to tell whose it is, and random bits.
std::string fresh_name() {
  static std::atomic<unsigned> made{0};
  return fmt::format("/leancast-{}-{}-{:016x}", static_cast<long>(getpid()), made.fetch_add(1),
                     random_bits());
}

// Names tried before the group's first member gives up (each exists already: EEXIST).
constexpr int kNameTries = 8;

// Maps the object `fd` names and reads one byte of each page; the descriptor is closed either
// way. errno on failure.
// MAP_POPULATE maps every page now, at the window's making. Yet on the VM of
// evidence/within-node-2core.jsonl.gz a process's first access to each mapped page, read or write,
// still took about 4.5 us (no fault counted in the process: the cost lies below the guest's
// kernel), so that calls 2-16 of a fresh communicator's shm broadcasts of 1 KiB took
// 20.7 us each against 0.31 us with this read (git show 36aaa05^:docs/benchmarks/shm-first-calls),
// and online tuning's trials, which fall on a window's first slots, lost shm below 16 KiB. Reading
// every page here moves that cost to the window's making, which no trial times and which is
// collective anyway. Reading changes nothing: no other member
// uses the window before every member has mapped it (WindowSetup's second round).
int map(int fd, std::uint64_t bytes, SharedMapping& out) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  const int failed = base == MAP_FAILED ? errno : 0;
  close(fd);
  if (failed != 0) return failed;
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const auto* bytes_at = static_cast<const volatile unsigned char*>(base);
  unsigned char seen = 0;
  for (std::uint64_t at = 0; at < bytes; at += page) seen |= bytes_at[at];
  (void)seen;
  out = SharedMapping(base, bytes);
  return 0;
}

// The word another member reads to learn whether it may read this process's memory.
constexpr std::uint64_t kProbeValue = 0x6c65616e63617374;  // "leancast"
const volatile std::uint64_t probe_word = kProbeValue;
// The word another member writes (the value it read) to learn whether it may write here.
volatile std::uint64_t probe_sink = 0;

}  // namespace

SharedMapping::SharedMapping(void* base, std::size_t bytes)
    : base_(static_cast<std::byte*>(base)), bytes_(bytes) {
  mappings_alive.fetch_add(1);
}

SharedMapping::SharedMapping(SharedMapping&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

SharedMapping& SharedMapping::operator=(SharedMapping&& other) noexcept {
  if (this != &other) {
    this->~SharedMapping();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

SharedMapping::~SharedMapping() {
  if (base_ == nullptr) return;
  munmap(base_, bytes_);
  base_ = nullptr;
  mappings_alive.fetch_sub(1);
}

std::size_t shared_windows_alive() { return mappings_alive.load(); }

SharedWindow::SharedWindow(std::vector<int> ranks, int member)
    : ranks_(std::move(ranks)), member_(member) {}

int SharedWindow::member_of(int rank) const {
  const auto it = std::find(ranks_.begin(), ranks_.end(), rank);
  return it == ranks_.end() ? -1 : static_cast<int>(it - ranks_.begin());
}

std::uint64_t SharedWindow::rounded_slot(std::uint64_t bytes) {
  return std::bit_ceil(std::max(bytes, kMinSlotBytes));
}

std::uint64_t SharedWindow::slots_for(std::uint64_t slot_bytes) {
  return std::clamp(kSharedSlotBudget / std::max<std::uint64_t>(slot_bytes, 1), kMinSharedSlots,
                    kMaxSharedSlots);
}

std::uint64_t SharedWindow::bytes_for(int members, std::uint64_t slot_bytes) {
  return (sizeof(MemberLine) + sizeof(CrossLine)) * static_cast<std::uint64_t>(members) +
         (sizeof(SlotHeader) + slot_bytes) * slots_for(slot_bytes);
}

void SharedWindow::install(SharedMapping memory, std::uint64_t slot_bytes, std::vector<long> pids,
                           std::string cross_denied) {
  memory_ = std::move(memory);
  std::byte* bytes = memory_.base();
  lines_ = reinterpret_cast<MemberLine*>(bytes);
  bytes += sizeof(MemberLine) * ranks_.size();
  cross_ = reinterpret_cast<CrossLine*>(bytes);
  bytes += sizeof(CrossLine) * ranks_.size();
  slots_ = bytes;
  slot_bytes_ = slot_bytes;
  slots_count_ = slots_for(slot_bytes);
  segments_ = 0;
  free_below_ = slots_count_;
  cross_broadcasts_ = 0;
  pids_ = std::move(pids);
  cross_allowed_ = cross_denied.empty();
  cross_denied_ = std::move(cross_denied);
}

WindowSetup::WindowSetup(MPI_Comm comm, int rank, SharedWindow& window, std::uint64_t slot_bytes)
    : comm_(comm), rank_(rank), window_(window), slot_bytes_(slot_bytes) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  all_.resize(static_cast<std::size_t>(size));
  all_made_.resize(static_cast<std::size_t>(size));
  mine_.rank = rank;
  mine_.pid = static_cast<std::int64_t>(getpid());
  mine_.probe = reinterpret_cast<std::uintptr_t>(&probe_word);
  mine_.sink = reinterpret_cast<std::uintptr_t>(&probe_sink);
  mine_.bytes = static_cast<std::int64_t>(SharedWindow::bytes_for(window.members(), slot_bytes));
  posted(PMPI_Iallgather(&mine_, sizeof mine_, MPI_BYTE, all_.data(), sizeof mine_, MPI_BYTE, comm_,
                         &request_));
}

WindowSetup::~WindowSetup() {
  // A collective cannot be cancelled: one the others take part in is completed.
  if (request_ != MPI_REQUEST_NULL) PMPI_Wait(&request_, MPI_STATUS_IGNORE);
  unlink_created();
}

// A round posted (true), or the setup ends with the code of the call that failed.
bool WindowSetup::posted(int rc) {
  if (rc == MPI_SUCCESS) return true;
  error_ = rc;
  phase_ = 3;
  return false;
}

void WindowSetup::unlink_created() {
  if (!created_.empty()) shm_unlink(created_.c_str());
  created_.clear();
}

// The group's first member: the object, at its full size (posix_fallocate: a /dev/shm
// too small fails here, not with SIGBUS at the first copy), zeroed by the system. A name
// that exists is someone else's object: left alone, and another name tried.
// LEANCAST_TEST_SHM_NAME=NAME makes NAME the first name tried, for the test of a stale
// object under the next name.
void WindowSetup::create() {
  const char* forced = std::getenv("LEANCAST_TEST_SHM_NAME");
  std::string name;
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < kNameTries; ++tries) {
    name = tries == 0 && forced != nullptr && forced[0] != '\0' ? forced : fresh_name();
    if (name.size() >= sizeof made_.name) {
      made_.error = ENAMETOOLONG;
      return;
    }
    fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    made_.error = errno;
    return;
  }
  created_ = name;
  int failed = posix_fallocate(fd, 0, mine_.bytes);
  if (failed == EOPNOTSUPP || failed == EINVAL)
    failed = ftruncate(fd, mine_.bytes) == 0 ? 0 : errno;
  if (failed != 0) {
    close(fd);
  } else {
    failed = map(fd, static_cast<std::uint64_t>(mine_.bytes), mapped_);
  }
  // No member maps an object whose maker failed, nor one of a group of one: its name can go.
  if (failed != 0 || window_.members() == 1) unlink_created();
  made_.error = failed;
  if (failed == 0) std::snprintf(made_.name, sizeof made_.name, "%s", name.c_str());
}

// The other members: the first member's object, by the name it sent.
void WindowSetup::open_leader() {
  const Record& leader = all_[static_cast<std::size_t>(window_.rank_of(0))];
  const Made& made = all_made_[static_cast<std::size_t>(window_.rank_of(0))];
  if (made.error != 0 || made.name[0] == '\0') {
    why_ = fmt::format("shm: rank {} could not make {} bytes of shared memory: {}", leader.rank,
                       leader.bytes, std::strerror(made.error));
    return;
  }
  if (window_.member() == 0) return;  // mapped it when it made it
  const int fd = shm_open(made.name, O_RDWR, 0);
  const int failed = fd < 0 ? errno : map(fd, static_cast<std::uint64_t>(leader.bytes), mapped_);
  if (failed != 0) {
    why_ = fmt::format(
        "shm: ranks that would broadcast through one shared window do not share "
        "memory (rank {} cannot map rank {}'s {}: {}); shm works within one node, "
        "node-aware:BETWEEN/shm across nodes",
        rank_, leader.rank, made.name, std::strerror(failed));
  }
}

bool WindowSetup::step() {
  if (phase_ == 3) return true;
  int done = 0;
  if (!posted(PMPI_Test(&request_, &done, MPI_STATUS_IGNORE))) return true;
  if (!done) return false;
  if (phase_ == 0) {
    // Every rank has come: only now is there an object, so that a rank that never comes
    // (killed, or waiting elsewhere until the job is killed) leaves none in /dev/shm.
    if (window_.member() == 0) create();
    phase_ = 1;
    return !posted(PMPI_Iallgather(&made_, sizeof made_, MPI_BYTE, all_made_.data(), sizeof made_,
                                   MPI_BYTE, comm_, &request_));
  }
  if (phase_ == 1) {
    open_leader();
    ok_[0] = mapped_ ? 1 : 0;
    const int denied = mapped_ ? probe_cross() : 0;
    ok_[1] = denied == 0 ? INT_MAX : rank_ * 256 + std::min(denied, 255);
    phase_ = 2;
    return !posted(PMPI_Iallreduce(ok_, everywhere_, 2, MPI_INT, MPI_MIN, comm_, &request_));
  }
  finish();
  phase_ = 3;
  return true;
}

// Reads the probe word of another member of the group (the first, or for the first the
// second) by cross-memory attach and writes it into that member's sink word: 0 if both
// worked, else the errno that says why not.
// LEANCAST_TEST_DENY_CMA=1 makes this rank's read fail as a ptrace policy would (EPERM),
// for the tests of the fallback.
int WindowSetup::probe_cross() const {
  if (window_.members() < 2) return 0;
  if (const char* deny = std::getenv("LEANCAST_TEST_DENY_CMA");
      deny && std::strcmp(deny, "1") == 0) {
    return EPERM;
  }
  const Record& other =
      all_[static_cast<std::size_t>(window_.rank_of(window_.member() == 0 ? 1 : 0))];
  std::uint64_t value = 0;
  iovec local{&value, sizeof value};
  iovec remote{reinterpret_cast<void*>(other.probe), sizeof value};
  const ssize_t got = process_vm_readv(static_cast<pid_t>(other.pid), &local, 1, &remote, 1, 0);
  if (got != static_cast<ssize_t>(sizeof value)) return got < 0 ? errno : EIO;
  if (value != kProbeValue) return EIO;
  iovec sink{reinterpret_cast<void*>(other.sink), sizeof value};
  const ssize_t put = process_vm_writev(static_cast<pid_t>(other.pid), &local, 1, &sink, 1, 0);
  if (put != static_cast<ssize_t>(sizeof value)) return put < 0 ? errno : EIO;
  return 0;
}

void WindowSetup::finish() {
  // Every member has mapped the object or failed to: its name can go.
  unlink_created();
  if (everywhere_[0]) {
    std::vector<long> pids;
    for (int m = 0; m < window_.members(); ++m) {
      pids.push_back(static_cast<long>(all_[static_cast<std::size_t>(window_.rank_of(m))].pid));
    }
    std::string denied;
    if (everywhere_[1] != INT_MAX) {
      denied = fmt::format(
          "rank {} may not read or write another rank's memory "
          "(process_vm_readv/writev: {})",
          everywhere_[1] / 256, std::strerror(everywhere_[1] % 256));
    }
    window_.install(std::move(mapped_), slot_bytes_, std::move(pids), std::move(denied));
    return;
  }
  mapped_ = SharedMapping();
  error_ = MPI_ERR_UNSUPPORTED_OPERATION;
  if (why_.empty()) {
    why_ =
        "shm: another rank of the communicator could not map its group's shared memory "
        "(ranks on several nodes, or no room in /dev/shm); shm works within one node, "
        "node-aware:BETWEEN/shm across nodes";
  }
}

}  // namespace leancast::detail
