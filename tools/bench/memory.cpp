#include "memory.hpp"

#include "pages.hpp"

#include <sched.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

namespace leancast::bench {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr int kCopyReps = 5;  // best of these, after one untimed copy

// "32768K", "1024K", "8M": the sizes in /sys/devices/system/cpu/cpu0/cache/index*/size.
std::uint64_t parse_cache_size(const std::string& text) {
  std::size_t end = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &end);
  } catch (...) {
    return 0;
  }
  const char unit = end < text.size() ? text[end] : ' ';
  return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : unit == 'G' ? value << 30 : value;
}

// The largest data or unified cache of the highest level cpu0 has (its share of the node's
// last-level cache); sysconf's figure where sysfs has none; 32 MiB where neither says.
void find_last_level_cache(MemoryInfo& memory) {
  int best_level = 0;
  std::uint64_t best_size = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size)) continue;
    if (type == "Instruction") continue;
    const std::uint64_t bytes = parse_cache_size(size);
    if (bytes > 0 && level >= best_level) {
      best_size = level > best_level ? bytes : std::max(best_size, bytes);
      best_level = level;
    }
  }
  if (best_size > 0) {
    memory.llc_bytes = best_size;
    memory.llc_source = "sysfs";
    return;
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) {
    memory.llc_bytes = static_cast<std::uint64_t>(l3);
    memory.llc_source = "sysconf";
  }
#endif
}

// A byte of each copy's result, kept so that the copy cannot be left out.
volatile unsigned char copy_sink = 0;

// One copy of `bytes` from src to dst, timed.
double timed_copy(unsigned char* dst, const unsigned char* src, std::uint64_t bytes) {
  const double start = MPI_Wtime();
  std::memcpy(dst, src, bytes);
  const double seconds = MPI_Wtime() - start;
  copy_sink = dst[bytes / 2];
  return seconds;
}

// The same copy through the kernel's cross-memory attach; infinity where it is refused.
double timed_cross_copy(unsigned char* dst, const unsigned char* src, std::uint64_t bytes) {
  const double start = MPI_Wtime();
  for (std::uint64_t done = 0; done < bytes;) {
    iovec to{dst + done, bytes - done};
    iovec from{const_cast<unsigned char*>(src) + done, bytes - done};
    const ssize_t got = process_vm_readv(getpid(), &to, 1, &from, 1, 0);
    if (got <= 0) return std::numeric_limits<double>::infinity();
    done += static_cast<std::uint64_t>(got);
  }
  const double seconds = MPI_Wtime() - start;
  copy_sink = dst[bytes / 2];
  return seconds;
}

// Rank 0 copies alone (memcpy, then cross-memory attach), the others wait in a barrier; then
// every rank copies at once (memcpy, then cross-memory attach) and each node sums its bytes
// over its slowest rank's time. Best of kCopyReps each, between buffers on huge pages where
// `huge_pages`.
void measure_copy_rates(MPI_Comm comm, MPI_Comm node, bool huge_pages, MemoryInfo& memory) {
  int rank = 0, node_size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(node, &node_size);
  // Well above the cache: 4 LLC (64 MiB .. 512 MiB) for one core; all ranks of a node
  // together at least as much, each rank at least 16 MiB.
  const std::uint64_t one = std::clamp<std::uint64_t>(4 * memory.llc_bytes, 64 * kMiB, 512 * kMiB);
  const std::uint64_t each = std::max<std::uint64_t>(one / node_size, 16 * kMiB);
  const std::uint64_t bytes = rank == 0 ? std::max(one, each) : each;
  const PageBuffer src_pages(bytes, huge_pages, 1), dst_pages(bytes, huge_pages, 0);
  unsigned char* src = src_pages.data();
  unsigned char* dst = dst_pages.data();

  double one_core = std::numeric_limits<double>::infinity();
  double cross = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep <= kCopyReps; ++rep) {
    MPI_Barrier(comm);
    if (rank == 0) {
      const double seconds = timed_copy(dst, src, one);
      const double cross_seconds = timed_cross_copy(dst, src, one);
      if (rep > 0) one_core = std::min(one_core, seconds);
      if (rep > 0) cross = std::min(cross, cross_seconds);
    }
    MPI_Barrier(comm);
  }
  double all_cores = std::numeric_limits<double>::infinity();
  double all_cross = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep <= kCopyReps; ++rep) {
    double local[2] = {0, 0}, slowest[2] = {0, 0};
    MPI_Barrier(comm);
    local[0] = timed_copy(dst, src, each);
    MPI_Barrier(comm);
    local[1] = timed_cross_copy(dst, src, each);
    MPI_Allreduce(local, slowest, 2, MPI_DOUBLE, MPI_MAX, node);
    if (rep > 0) all_cores = std::min(all_cores, slowest[0]);
    if (rep > 0) all_cross = std::min(all_cross, slowest[1]);
  }
  double rates[4] = {
      static_cast<double>(one) / one_core, static_cast<double>(each) * node_size / all_cores,
      static_cast<double>(one) / cross, static_cast<double>(each) * node_size / all_cross};
  MPI_Bcast(rates, 4, MPI_DOUBLE, 0, comm);  // rank 0's node
  memory.one_core_bytes_per_second = rates[0];
  memory.all_cores_bytes_per_second = rates[1];
  memory.cross_memory_bytes_per_second = rates[2];
  memory.cross_memory_all_bytes_per_second = rates[3];
  memory.one_core_copy_bytes = one;
  memory.all_cores_copy_bytes = each;
  MPI_Bcast(&memory.all_cores_copy_bytes, 1, MPI_UINT64_T, 0, comm);
  memory.measured = true;
}

// Spins until `ready()`, yielding the core after a while: two ranks on one core (an
// oversubscribed node) would otherwise pass the flag once per time slice. Not the library's
// wait_until (guest_wait.hpp): its pause per look and its clock reads would be timed too.
template <class Ready>
void spin_until(Ready ready) {
  for (int look = 0; !ready(); ++look) {
    if (look > 1000) sched_yield();
  }
}

// Ranks 0 and 1 of `node` pass a flag in a shared line back and forth; the others wait.
void measure_round_trip(MPI_Comm comm, MPI_Comm node, MemoryInfo& memory) {
  constexpr int kTrips = 10000, kRoundTripReps = 5;
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  double seconds = 0;
  if (node_size >= 2) {
    char* base = nullptr;
    MPI_Win window = MPI_WIN_NULL;
    MPI_Win_allocate_shared(node_rank == 0 ? 256 : 0, 1, MPI_INFO_NULL, node, &base, &window);
    MPI_Aint size = 0;
    int unit = 0;
    MPI_Win_shared_query(window, 0, &size, &unit, &base);
    // Two lines, one written by each side.
    std::atomic_ref<std::int64_t> ping(*reinterpret_cast<std::int64_t*>(base));
    std::atomic_ref<std::int64_t> pong(*reinterpret_cast<std::int64_t*>(base + 128));
    if (node_rank == 0) ping.store(0), pong.store(0);
    std::vector<double> runs;
    std::int64_t trip = 0;
    for (int rep = 0; rep < kRoundTripReps; ++rep) {
      MPI_Barrier(node);
      const double start = MPI_Wtime();
      for (int i = 0; i < kTrips && node_rank < 2; ++i) {
        ++trip;
        if (node_rank == 0) {
          ping.store(trip, std::memory_order_release);
          spin_until([&] { return pong.load(std::memory_order_acquire) == trip; });
        } else {
          spin_until([&] { return ping.load(std::memory_order_acquire) == trip; });
          pong.store(trip, std::memory_order_release);
        }
      }
      runs.push_back((MPI_Wtime() - start) / kTrips);
    }
    MPI_Win_free(&window);
    std::nth_element(runs.begin(), runs.begin() + kRoundTripReps / 2, runs.end());
    seconds = runs[kRoundTripReps / 2];
  }
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, comm);  // rank 0's node
  memory.core_round_trip_seconds = seconds;
}

}  // namespace

MemoryInfo probe_memory(MPI_Comm comm, bool measure, std::uint64_t cache_bytes, bool huge_pages) {
  int rank = 0, procs = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &procs);
  MemoryInfo memory;
  // Rank 0's cache size and where it came from (as an index into kSources) for every rank.
  static constexpr const char* kSources[] = {"default", "sysfs", "sysconf", "--cache"};
  std::uint64_t llc[2] = {0, 0};
  if (rank == 0) {
    if (cache_bytes != 0) {
      memory.llc_bytes = cache_bytes;
      memory.llc_source = "--cache";
    } else {
      find_last_level_cache(memory);
    }
    llc[0] = memory.llc_bytes;
    llc[1] = static_cast<std::uint64_t>(
        std::find(std::begin(kSources), std::end(kSources), memory.llc_source) -
        std::begin(kSources));
  }
  MPI_Bcast(llc, 2, MPI_UINT64_T, 0, comm);  // every rank rotates through the same buffers
  memory.llc_bytes = llc[0];
  memory.llc_source = kSources[llc[1]];
  if (!measure) return memory;

  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  MPI_Bcast(&node_size, 1, MPI_INT, 0, comm);
  memory.node_ranks = node_size;
  memory.one_node = node_size == procs;
  measure_copy_rates(comm, node, huge_pages, memory);
  measure_round_trip(comm, node, memory);
  MPI_Comm_free(&node);
  return memory;
}

std::optional<double> memory_bound_seconds(const MemoryInfo& memory, int procs,
                                           std::uint64_t bytes) {
  if (!memory.measured || !memory.one_node || procs < 2 || memory.one_core_bytes_per_second <= 0 ||
      memory.all_cores_bytes_per_second <= 0) {
    return std::nullopt;
  }
  return (procs - 1) * static_cast<double>(bytes) / memory.all_cores_bytes_per_second;
}

}  // namespace leancast::bench
