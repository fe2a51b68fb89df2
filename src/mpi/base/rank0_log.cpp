#include "mpi/base/rank0_log.hpp"

#include <mpi.h>

#include <cstdio>
#include <string>

namespace leancast::detail {

namespace {
const char* log_name = "leancast";
}  // namespace

void set_log_name(const char* name) { log_name = name; }

// Asked once, at the first message (during a broadcast): the summary prints from
// MPI_Finalize, where SMPI no longer answers MPI_Comm_rank.
bool is_world_rank0() {
  static const bool rank0 = [] {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
  }();
  return rank0;
}

void rank0_print(std::string_view line) {
  if (is_world_rank0()) log_print(line);
}

void log_print(std::string_view line) {
  std::string text = std::string(log_name) + ": ";
  text += line;
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace leancast::detail
