// online_winner: what online tuning (LEANCAST_TUNE=online) settles on, for
// tests/sim/online_tuning_test.py. Per size given, on a fresh MPI_Comm_dup of
// MPI_COMM_WORLD: --calls back-to-back broadcasts from rank 0 that name no algorithm (so
// auto decides, and online tuning tries its candidates), then --after more with the
// winner. After each call every rank asks leancast::tuned_algorithm (which never
// communicates) whether its class has settled. Rank 0 prints per size
//
//   online BYTES WINNER settled-after CALLS
//
// (WINNER "none" where the class never settled), after checking that every rank settled at
// the same call on the same winner ("DISAGREE" otherwise) and that every call delivered the
// root's data ("WRONG" otherwise: the root stamps each call's number at both ends of the
// buffer; every byte is checked after the last call). Exit status 1 on either.
//
// --barrier: an MPI_Barrier before every broadcast (untimed by the tuner, which times the
// broadcast alone), as leancast-bench's osu method does; without it the calls run back to
// back, as in its paper method.
//
// Usage: online_winner --calls N [--after M] [--barrier] BYTES...
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <leancast/leancast.hpp>

namespace {

constexpr int kNameBytes = 96;

unsigned char pattern(std::uint64_t i) {
  return static_cast<unsigned char>(i * 13 + (i >> 11) + 5);
}

// The root's data of call `call`: the pattern, the call's number in the first and last 4
// bytes (buffers of at least 8 bytes).
void fill(std::vector<unsigned char>& buf, std::uint32_t call) {
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = pattern(i);
  std::memcpy(buf.data(), &call, 4);
  std::memcpy(buf.data() + buf.size() - 4, &call, 4);
}

bool stamped(const std::vector<unsigned char>& buf, std::uint32_t call) {
  std::uint32_t head = 0, tail = 0;
  std::memcpy(&head, buf.data(), 4);
  std::memcpy(&tail, buf.data() + buf.size() - 4, 4);
  return head == call && tail == call;
}

std::uint64_t wrong_bytes(const std::vector<unsigned char>& buf, std::uint32_t call) {
  std::vector<unsigned char> expected(buf.size());
  fill(expected, call);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < buf.size(); ++i) wrong += buf[i] != expected[i];
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  int calls = 0, after = 2;
  bool barrier = false;
  std::vector<std::uint64_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--calls" && i + 1 < argc) {
      calls = std::atoi(argv[++i]);
    } else if (arg == "--after" && i + 1 < argc) {
      after = std::atoi(argv[++i]);
    } else if (arg == "--barrier") {
      barrier = true;
    } else {
      sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    }
  }
  bool usage_ok = calls > 0 && after >= 0 && !sizes.empty();
  for (std::uint64_t size : sizes) usage_ok = usage_ok && size >= 8 && size <= (1u << 30);
  if (!usage_ok) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: online_winner --calls N [--after M] [--barrier] BYTES(8..1G)...\n");
    MPI_Finalize();
    return 2;
  }
  int failed = 0;
  for (std::uint64_t size : sizes) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    std::vector<unsigned char> buf(size);
    int settled_after = -1;
    std::uint64_t wrong = 0;
    std::uint32_t call = 0;
    for (; call < static_cast<std::uint32_t>(calls + after); ++call) {
      if (rank == 0) {
        fill(buf, call);
      } else {  // stale stamps must not pass
        std::memset(buf.data(), 0, 4);
        std::memset(buf.data() + size - 4, 0, 4);
      }
      if (barrier) MPI_Barrier(comm);
      if (leancast::bcast(buf.data(), static_cast<int>(size), MPI_BYTE, 0, comm) != MPI_SUCCESS ||
          !stamped(buf, call)) {
        ++wrong;
      }
      if (settled_after < 0 && leancast::tuned_algorithm(comm, size)) {
        settled_after = static_cast<int>(call) + 1;
      }
    }
    wrong += wrong_bytes(buf, call - 1);
    char name[kNameBytes] = "none";
    if (const auto tuned = leancast::tuned_algorithm(comm, size)) {
      std::snprintf(name, sizeof name, "%s", leancast::to_string(*tuned).c_str());
    }
    std::vector<char> names(rank == 0 ? static_cast<std::size_t>(procs) * kNameBytes : 0);
    std::vector<int> settled(rank == 0 ? procs : 0);
    MPI_Gather(name, kNameBytes, MPI_CHAR, names.data(), kNameBytes, MPI_CHAR, 0, comm);
    MPI_Gather(&settled_after, 1, MPI_INT, settled.data(), 1, MPI_INT, 0, comm);
    std::uint64_t all_wrong = 0;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
    if (rank == 0) {
      bool agree = true;
      for (int r = 1; r < procs; ++r) {
        agree = agree && std::strncmp(&names[r * kNameBytes], name, kNameBytes) == 0 &&
                settled[r] == settled_after;
      }
      std::printf("online %llu %s settled-after %d%s%s\n", static_cast<unsigned long long>(size),
                  name, settled_after, agree ? "" : " DISAGREE", all_wrong == 0 ? "" : " WRONG");
      if (!agree || all_wrong != 0) {
        for (int r = 0; r < procs; ++r) {
          std::printf("  rank %d: %s settled-after %d\n", r, &names[r * kNameBytes], settled[r]);
        }
        failed = 1;
      }
      std::fflush(stdout);
    }
    MPI_Comm_free(&comm);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
