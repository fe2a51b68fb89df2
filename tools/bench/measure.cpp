#include "measure.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <numeric>

#include <leancast/leancast.hpp>

namespace leancast::bench {

namespace {
// Lets `seconds` of simulated time pass on this rank (SMPI's sleep; options.cpp keeps
// --method sync to the SMPI build).
void sleep_simulated(double seconds) {
#ifdef LEANCAST_SMPI
  const auto nanoseconds = static_cast<long long>(std::ceil(seconds * 1e9));
  const timespec span{static_cast<std::time_t>(nanoseconds / 1000000000),
                      static_cast<long>(nanoseconds % 1000000000)};
  smpi_nanosleep(&span, nullptr);
#else
  (void)seconds;
#endif
}

unsigned char pattern(int root, int salt, std::uint64_t i) {
  return static_cast<unsigned char>(i * 7 + (i >> 11) + root * 31 + salt * 13 + 1);
}
}  // namespace

void CellRunner::ReleaseShared::operator()(unsigned char* buffer) const {
#ifdef LEANCAST_SMPI
  SMPI_SHARED_FREE(buffer);
#else
  (void)buffer;
#endif
}

Broadcaster::Broadcaster(const std::string& name)
    : mpi_(name == "mpi"), algorithm_(mpi_ ? Algorithm::automatic : *parse_algorithm_spec(name)) {}

int Broadcaster::operator()(void* buf, int bytes, int root, MPI_Comm comm) const {
  if (mpi_) return MPI_Bcast(buf, bytes, MPI_BYTE, root, comm);
  return leancast::bcast(buf, bytes, MPI_BYTE, root, comm, algorithm_);
}

BufferPlan buffer_plan(Rotation rotation, std::uint64_t bytes, std::uint64_t llc_bytes,
                       std::uint64_t above) {
  const std::uint64_t size = std::max<std::uint64_t>(bytes, 1);
  const bool wanted = rotation == Rotation::on ||
                      (rotation == Rotation::automatic && size > (above != 0 ? above : llc_bytes));
  const std::uint64_t stride = (size + 63) / 64 * 64;
  if (!wanted || 2 * stride > kRotationCapBytes) return {false, 1, size};
  const std::uint64_t buffers = std::max<std::uint64_t>(2, (2 * llc_bytes + stride - 1) / stride);
  return {true, std::min(buffers, kRotationCapBytes / stride), stride};
}

namespace {
std::uint64_t arena_bytes(const Options& options, std::uint64_t llc_bytes) {
  std::uint64_t bytes = 1;
  for (std::uint64_t size : options.sizes) {
    const BufferPlan plan =
        buffer_plan(options.rotate_buffers, size, llc_bytes, options.rotate_above);
    bytes = std::max(bytes, plan.buffers * plan.stride);
  }
  return bytes;
}
}  // namespace

CellRunner::CellRunner(const Options& options, MPI_Comm comm, std::uint64_t llc_bytes)
    : options_(options), comm_(comm), llc_bytes_(llc_bytes) {
  const std::uint64_t bytes = arena_bytes(options, llc_bytes);
#ifdef LEANCAST_SMPI
  if (options.shared_buffer) {
    shared_.reset(static_cast<unsigned char*>(SMPI_SHARED_MALLOC(bytes)));
    buffer_ = shared_.get();
  }
#endif
  if (buffer_ == nullptr) {
    pages_ = PageBuffer(bytes, options.huge_pages);
    buffer_ = pages_.data();
  }
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &procs_);
}

BufferPlan CellRunner::plan(std::uint64_t bytes) const {
  return buffer_plan(options_.rotate_buffers, bytes, llc_bytes_, options_.rotate_above);
}

int CellRunner::root_of(int iteration) const {
  return options_.rotate_root ? iteration % procs_ : options_.root;
}

// Every rank makes the same calls, so turn_ and the buffer it picks agree across ranks.
unsigned char* CellRunner::next_buffer(const BufferPlan& plan) {
  if (!plan.rotated) return buffer_;
  return buffer_ + (turn_++ % plan.buffers) * plan.stride;
}

void CellRunner::prepare(unsigned char* buffer, int bytes, int root, int salt) {
  for (int i = 0; i < bytes; ++i) buffer[i] = rank_ == root ? pattern(root, salt, i) : 0;
}

std::uint64_t CellRunner::count_wrong(const unsigned char* buffer, int bytes, int root,
                                      int salt) const {
  std::uint64_t wrong = 0;
  for (int i = 0; i < bytes; ++i) wrong += buffer[i] != pattern(root, salt, i);
  return wrong;
}

// A shared buffer cannot be checked: one byte is broadcast instead, so that the cell's
// first timed broadcast still finds the algorithm's communicator set up, at a fraction of
// the wall time a simulated large one costs. Not for the library's broadcast: SMPI's
// selectors pick an algorithm by size, and one may set up on its first call what the
// one-byte pick did not (the ompi selector's k-nomial builds node communicators: at 182
// ranks and 64 KiB the timed call took 756 us instead of 76.5), so it goes at full size.
std::uint64_t CellRunner::verify(const Broadcaster& bcast, int bytes, int salt) {
  const bool checked = !options_.shared_buffer;
  const int root = root_of(0);
  unsigned char* buffer = next_buffer(plan(bytes));
  if (checked) prepare(buffer, bytes, root, salt);
  const int sent_bytes = checked || bcast.library() ? bytes : std::min(bytes, 1);
  const bool sent = bcast(buffer, sent_bytes, root, comm_) == MPI_SUCCESS;
  std::uint64_t wrong = !sent     ? static_cast<std::uint64_t>(bytes) + 1
                        : checked ? count_wrong(buffer, bytes, root, salt)
                                  : 0;
  std::uint64_t total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return total;
}

// On the VM of evidence/within-node-2core.jsonl.gz the kernel's first cross-memory copy from or
// into a page costs several microseconds more than later ones (cma-split at 16 MiB, Open MPI, 64
// rotated buffers: 13.1 and 11.8 ms a broadcast in repetitions that met buffers it had not
// copied yet, 1.0-2.2 ms after a warm-up of 70), and a page left idle for some seconds is slow
// to touch again (a write per page of a GiB: 0.07-0.13 s after a 10 s pause, 0.007 s right
// after a sweep). A user's buffer is warm after its first broadcast; the bench measures that
// steady state, not first touches, so a warm-up visits every rotated buffer.
std::uint64_t warmup_broadcasts(int warmup, const BufferPlan& buffers) {
  const auto asked = static_cast<std::uint64_t>(std::max(warmup, 0));
  return buffers.rotated && asked > 0 ? std::max(asked, buffers.buffers) : asked;
}

CellTiming CellRunner::time(const Broadcaster& bcast, int bytes, int salt) {
  const BufferPlan buffers = plan(bytes);
  const std::uint64_t warmup = warmup_broadcasts(options_.warmup, buffers);
  for (std::uint64_t i = 0; i < warmup; ++i) {
    bcast(next_buffer(buffers), bytes, root_of(static_cast<int>(i)), comm_);
  }
  switch (options_.method) {
    case Method::paper:
      return time_paper(bcast, buffers, bytes, salt);
    case Method::osu:
    case Method::fresh:
      return time_osu(bcast, buffers, bytes, salt);
    case Method::sync:
      break;
  }
  return time_sync(bcast, buffers, bytes, salt);
}

// The paper: one barrier, then `iterations` back-to-back broadcasts, each in the next
// buffer when they rotate; the slowest rank's time counts. With --check each broadcast's
// data is prepared and checked inside the loop.
CellTiming CellRunner::time_paper(const Broadcaster& bcast, const BufferPlan& buffers, int bytes,
                                  int salt) {
  std::uint64_t wrong = 0;
  const int iterations = options_.iterations_for(static_cast<std::uint64_t>(bytes));
  MPI_Barrier(comm_);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    const int root = root_of(i);
    unsigned char* buffer = next_buffer(buffers);
    if (options_.check) prepare(buffer, bytes, root, salt + i);
    bcast(buffer, bytes, root, comm_);
    if (options_.check) wrong += count_wrong(buffer, bytes, root, salt + i);
  }
  const double local = MPI_Wtime() - start;
  CellTiming timing;
  MPI_Allreduce(&local, &timing.total_seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  MPI_Allreduce(&wrong, &timing.wrong_bytes, 1, MPI_UINT64_T, MPI_SUM, comm_);
  timing.seconds_per_bcast = timing.total_seconds / iterations;
  timing.min_seconds = timing.max_seconds = timing.seconds_per_bcast;
  return timing;
}

// OSU/IMB: a barrier before each broadcast, each timed on its own; per iteration the
// slowest rank counts; mean, min and max over iterations. fresh (and --check): the data
// written before the barrier, so that no rank's cache holds a valid copy of the root's
// buffer from the broadcast before, which a single copy would read at cache speed.
CellTiming CellRunner::time_osu(const Broadcaster& bcast, const BufferPlan& buffers, int bytes,
                                int salt) {
  const int iterations = options_.iterations_for(static_cast<std::uint64_t>(bytes));
  std::vector<double> local(iterations);
  std::uint64_t wrong = 0;
  const bool fresh = options_.check || options_.method == Method::fresh;
  for (int i = 0; i < iterations; ++i) {
    const int root = root_of(i);
    unsigned char* buffer = next_buffer(buffers);
    if (fresh) prepare(buffer, bytes, root, salt + i);
    MPI_Barrier(comm_);
    const double start = MPI_Wtime();
    bcast(buffer, bytes, root, comm_);
    local[i] = MPI_Wtime() - start;
    if (options_.check) wrong += count_wrong(buffer, bytes, root, salt + i);
  }
  std::vector<double> slowest(iterations);
  MPI_Allreduce(local.data(), slowest.data(), iterations, MPI_DOUBLE, MPI_MAX, comm_);
  return per_iteration(slowest, wrong);
}

// Sums up per-iteration times (osu, sync): mean, fastest, slowest; the wrong bytes of all ranks.
CellTiming CellRunner::per_iteration(const std::vector<double>& times, std::uint64_t wrong) {
  CellTiming timing;
  MPI_Allreduce(&wrong, &timing.wrong_bytes, 1, MPI_UINT64_T, MPI_SUM, comm_);
  timing.total_seconds = std::accumulate(times.begin(), times.end(), 0.0);
  timing.seconds_per_bcast = timing.total_seconds / static_cast<double>(times.size());
  timing.min_seconds = *std::min_element(times.begin(), times.end());
  timing.max_seconds = *std::max_element(times.begin(), times.end());
  return timing;
}

// sync (SMPI): the ranks agree on an instant a lead ahead of the latest of them, sleep until
// it in simulated time, broadcast, and the time is the last finish less the first start. A
// barrier instead lets ranks leave at different times: under SMPI's default (linear) barrier
// 1 KiB took 105 us that way at P = 256, of which 11.5 us were the broadcast. A rank that
// reached the agreed instant late (the lead shorter than the agreement took) makes every rank
// broadcast again with a ten times longer lead.
CellTiming CellRunner::time_sync(const Broadcaster& bcast, const BufferPlan& buffers, int bytes,
                                 int salt) {
  const int iterations = options_.iterations_for(static_cast<std::uint64_t>(bytes));
  std::vector<double> times(iterations);
  std::uint64_t wrong = 0;
  for (int i = 0; i < iterations; ++i) {
    const int root = root_of(i);
    unsigned char* buffer = next_buffer(buffers);
    for (double lead = 1e-3;; lead *= 10) {
      if (options_.check) prepare(buffer, bytes, root, salt + i);
      const double now = MPI_Wtime();
      double latest = now;
      MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm_);
      const double wait = latest + lead - MPI_Wtime();
      if (wait > 0) sleep_simulated(wait);
      const double start = MPI_Wtime();
      bcast(buffer, bytes, root, comm_);
      // {finish, -start, late}: one MPI_MAX gives the last finish, the first start, any late.
      const std::array<double, 3> mine{MPI_Wtime(), -start, wait > 0 ? 0.0 : 1.0};
      std::array<double, 3> all{};
      MPI_Allreduce(mine.data(), all.data(), 3, MPI_DOUBLE, MPI_MAX, comm_);
      if (all[2] != 0) continue;
      times[i] = all[0] + all[1];
      break;
    }
    if (options_.check) wrong += count_wrong(buffer, bytes, root, salt + i);
  }
  return per_iteration(times, wrong);
}

}  // namespace leancast::bench
