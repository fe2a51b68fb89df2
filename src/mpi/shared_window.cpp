#include "shared_window.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

#include "errors.hpp"

namespace leancast::detail {

namespace {

// Slots grow in powers of two from 4 KiB, so that a communicator's mixed sizes settle on
// one window instead of making a new one each time.
constexpr std::uint64_t kMinSlotBytes = 4096;

std::uint64_t rounded_slot(std::uint64_t bytes) {
  return std::bit_ceil(std::max(bytes, kMinSlotBytes));
}

// The windows alive, in the order they were made (the same on every member). MPI_Finalize
// deletes MPI_COMM_WORLD's attributes (and so its private state) only after Open MPI has
// shut its one-sided component down, too late for MPI_Win_free; an attribute on
// MPI_COMM_SELF, deleted first thing in MPI_Finalize, frees them before, in that order.
std::mutex live_mutex;
std::vector<SharedWindow*> live;

int free_windows_at_finalize(MPI_Comm, int, void*, void*) {
  std::vector<SharedWindow*> windows;
  {
    std::lock_guard lock(live_mutex);
    windows.swap(live);
  }
  for (SharedWindow* window : windows) window->free_window();
  return MPI_SUCCESS;
}

void track(SharedWindow* window) {
  static std::once_flag once;
  std::call_once(once, [] {
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_windows_at_finalize, &keyval,
                               nullptr) == MPI_SUCCESS) {
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  });
  std::lock_guard lock(live_mutex);
  live.push_back(window);
}

void untrack(SharedWindow* window) {
  std::lock_guard lock(live_mutex);
  std::erase(live, window);
}


}  // namespace

std::size_t shared_windows_alive() {
  std::lock_guard lock(live_mutex);
  return live.size();
}

SharedWindow::~SharedWindow() {
  release();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

int SharedWindow::create(MPI_Comm comm, int group, std::uint64_t slot_bytes,
                         std::unique_ptr<SharedWindow>& out, std::string& why) {
#ifdef LEANCAST_SMPI
  // SMPI neither prices the copies (simulated time would leave them out) nor switches
  // between simulated ranks while one spins on a flag, so shm is not simulated at all.
  (void)comm, (void)group, (void)slot_bytes, (void)out;
  why = "shm: not under SMPI, which would neither time its copies nor let a rank that waits "
        "on shared memory hand the turn to the rank it waits for; shm works within one node "
        "of a real machine";
  return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm members = MPI_COMM_NULL;
  if (int rc = MPI_Comm_split(comm, group, rank, &members); rc != MPI_SUCCESS) return rc;
  int size = 0;
  MPI_Comm_size(members, &size);
  // Do the members share memory? MPI's answer, not leancast's node map (which
  // LEANCAST_RANKS_PER_NODE may have drawn), on every rank of the communicator alike.
  MPI_Comm shared = MPI_COMM_NULL;
  int rc = MPI_Comm_split_type(members, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  int shared_size = 0;
  if (rc == MPI_SUCCESS) {
    MPI_Comm_size(shared, &shared_size);
    MPI_Comm_free(&shared);
  }
  int shares = shared_size == size ? 1 : 0;
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, &shares, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS || !shares) MPI_Comm_free(&members);
  if (rc != MPI_SUCCESS) return rc;
  if (!shares) {
    why = "shm: ranks that would broadcast through one shared window do not share memory "
          "(MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) puts them on several nodes); shm works "
          "within one node, node-aware:BETWEEN/shm across nodes";
    return MPI_ERR_UNSUPPORTED_OPERATION;
  }
  std::vector<int> ranks(static_cast<std::size_t>(size));
  rc = MPI_Allgather(&rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, members);
  auto window = std::unique_ptr<SharedWindow>(new SharedWindow(members, std::move(ranks)));
  if (rc != MPI_SUCCESS) return rc;
  window->members_ = size;
  MPI_Comm_rank(members, &window->member_);
  // Every rank of the communicator learns whether every group got its window, so that
  // where auto chose shm all of them fall back to the library's broadcast together.
  const int allocated = window->allocate(slot_bytes);
  int everywhere = allocated == MPI_SUCCESS ? 1 : 0;
  if (rc = MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, comm); rc != MPI_SUCCESS) {
    return rc;
  }
  if (!everywhere) {
    why = allocated == MPI_SUCCESS
              ? "shm: MPI_Win_allocate_shared failed for other ranks' shared window"
              : "shm: MPI_Win_allocate_shared failed: " + error_text(allocated);
    return MPI_ERR_UNSUPPORTED_OPERATION;  // the window, if made, goes with `window`
  }
  out = std::move(window);
  return MPI_SUCCESS;
}

int SharedWindow::member_of(int rank) const {
  const auto it = std::find(ranks_.begin(), ranks_.end(), rank);
  return it == ranks_.end() ? -1 : static_cast<int>(it - ranks_.begin());
}

int SharedWindow::reserve(std::uint64_t slot_bytes) {
  if (slot_bytes <= slot_bytes_) return MPI_SUCCESS;
  // Every member has left the last broadcast through the old window (copied out what it
  // read) before any frees it.
  if (int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
  release();
  return allocate(slot_bytes);
}

int SharedWindow::allocate(std::uint64_t slot_bytes) {
  slot_bytes = rounded_slot(slot_bytes);
  const std::uint64_t lines = sizeof(MemberLine) * static_cast<std::uint64_t>(members_);
  const std::uint64_t headers = sizeof(SlotHeader) * kSharedSlots;
  const std::uint64_t total = lines + headers + slot_bytes * kSharedSlots;
  void* base = nullptr;
  // The first member allocates everything, so the window is one contiguous piece.
  const auto mine = static_cast<MPI_Aint>(member_ == 0 ? total : 0);
  int rc = MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, comm_, &base, &win_);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
  MPI_Aint size = 0;
  int unit = 0;
  rc = MPI_Win_shared_query(win_, 0, &size, &unit, &base);
  if (rc == MPI_SUCCESS && member_ == 0) std::memset(base, 0, total);
  // Nobody reads the counters before they are zero.
  if (rc == MPI_SUCCESS) rc = MPI_Barrier(comm_);
  if (rc != MPI_SUCCESS) {
    release();
    return rc;
  }
  auto* bytes = static_cast<std::byte*>(base);
  lines_ = reinterpret_cast<MemberLine*>(bytes);
  headers_ = reinterpret_cast<SlotHeader*>(bytes + lines);
  data_ = bytes + lines + headers;
  slot_bytes_ = slot_bytes;
  segments_ = 0;
  track(this);
  return MPI_SUCCESS;
}

void SharedWindow::release() {
  untrack(this);
  free_window();
}

void SharedWindow::free_window() {
  if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
  lines_ = nullptr;
  headers_ = nullptr;
  data_ = nullptr;
  slot_bytes_ = 0;
}

}  // namespace leancast::detail
