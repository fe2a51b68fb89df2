#include "measure.hpp"

#include <algorithm>
#include <numeric>

#include <leancast/leancast.hpp>

namespace leancast::bench {

namespace {
unsigned char pattern(int root, int salt, std::uint64_t i) {
  return static_cast<unsigned char>(i * 7 + (i >> 11) + root * 31 + salt * 13 + 1);
}

unsigned char* allocate_buffer(std::uint64_t bytes, bool shared) {
#ifdef LEANCAST_SMPI
  if (shared) return static_cast<unsigned char*>(SMPI_SHARED_MALLOC(bytes));
#endif
  (void)shared;
  return new unsigned char[bytes]();
}
}  // namespace

void CellRunner::Release::operator()(unsigned char* buffer) const {
#ifdef LEANCAST_SMPI
  if (shared) return SMPI_SHARED_FREE(buffer);
#endif
  delete[] buffer;
}

Broadcaster::Broadcaster(const std::string& name)
    : mpi_(name == "mpi"), algorithm_(mpi_ ? Algorithm::automatic : *parse_algorithm_spec(name)) {}

int Broadcaster::operator()(void* buf, int bytes, int root, MPI_Comm comm) const {
  if (mpi_) return MPI_Bcast(buf, bytes, MPI_BYTE, root, comm);
  return leancast::bcast(buf, bytes, MPI_BYTE, root, comm, algorithm_);
}

CellRunner::CellRunner(const Options& options, MPI_Comm comm, std::uint64_t max_bytes)
    : options_(options),
      comm_(comm),
      buffer_(allocate_buffer(std::max<std::uint64_t>(max_bytes, 1), options.shared_buffer),
              Release{options.shared_buffer}) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &procs_);
}

int CellRunner::root_of(int iteration) const {
  return options_.rotate_root ? iteration % procs_ : options_.root;
}

void CellRunner::prepare(int bytes, int root, int salt) {
  for (int i = 0; i < bytes; ++i) buffer_[i] = rank_ == root ? pattern(root, salt, i) : 0;
}

std::uint64_t CellRunner::count_wrong(int bytes, int root, int salt) const {
  std::uint64_t wrong = 0;
  for (int i = 0; i < bytes; ++i) wrong += buffer_[i] != pattern(root, salt, i);
  return wrong;
}

std::uint64_t CellRunner::verify(const Broadcaster& bcast, int bytes, int salt) {
  if (options_.shared_buffer) return 0;
  const int root = root_of(0);
  prepare(bytes, root, salt);
  std::uint64_t wrong = bcast(buffer_.get(), bytes, root, comm_) == MPI_SUCCESS
                            ? count_wrong(bytes, root, salt)
                            : static_cast<std::uint64_t>(bytes) + 1;
  std::uint64_t total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return total;
}

CellTiming CellRunner::time(const Broadcaster& bcast, int bytes, int salt) {
  for (int i = 0; i < options_.warmup; ++i) bcast(buffer_.get(), bytes, root_of(i), comm_);
  return options_.method == Method::paper ? time_paper(bcast, bytes, salt)
                                          : time_osu(bcast, bytes, salt);
}

// The paper: one barrier, then `iterations` back-to-back broadcasts; the slowest rank's
// time counts. With --check each broadcast's data is prepared and checked inside the loop.
CellTiming CellRunner::time_paper(const Broadcaster& bcast, int bytes, int salt) {
  std::uint64_t wrong = 0;
  MPI_Barrier(comm_);
  const double start = MPI_Wtime();
  for (int i = 0; i < options_.iterations; ++i) {
    const int root = root_of(i);
    if (options_.check) prepare(bytes, root, salt + i);
    bcast(buffer_.get(), bytes, root, comm_);
    if (options_.check) wrong += count_wrong(bytes, root, salt + i);
  }
  const double local = MPI_Wtime() - start;
  CellTiming timing;
  MPI_Allreduce(&local, &timing.total_seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  MPI_Allreduce(&wrong, &timing.wrong_bytes, 1, MPI_UINT64_T, MPI_SUM, comm_);
  timing.seconds_per_bcast = timing.total_seconds / options_.iterations;
  timing.min_seconds = timing.max_seconds = timing.seconds_per_bcast;
  return timing;
}

// OSU/IMB: a barrier before each broadcast, each timed on its own; per iteration the
// slowest rank counts; mean, min and max over iterations.
CellTiming CellRunner::time_osu(const Broadcaster& bcast, int bytes, int salt) {
  std::vector<double> local(options_.iterations), slowest(options_.iterations);
  std::uint64_t wrong = 0;
  for (int i = 0; i < options_.iterations; ++i) {
    const int root = root_of(i);
    if (options_.check) prepare(bytes, root, salt + i);
    MPI_Barrier(comm_);
    const double start = MPI_Wtime();
    bcast(buffer_.get(), bytes, root, comm_);
    local[i] = MPI_Wtime() - start;
    if (options_.check) wrong += count_wrong(bytes, root, salt + i);
  }
  MPI_Allreduce(local.data(), slowest.data(), options_.iterations, MPI_DOUBLE, MPI_MAX, comm_);
  CellTiming timing;
  MPI_Allreduce(&wrong, &timing.wrong_bytes, 1, MPI_UINT64_T, MPI_SUM, comm_);
  timing.total_seconds = std::accumulate(slowest.begin(), slowest.end(), 0.0);
  timing.seconds_per_bcast = timing.total_seconds / options_.iterations;
  timing.min_seconds = *std::min_element(slowest.begin(), slowest.end());
  timing.max_seconds = *std::max_element(slowest.begin(), slowest.end());
  return timing;
}

}  // namespace leancast::bench
