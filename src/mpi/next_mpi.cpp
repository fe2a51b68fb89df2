#include "next_mpi.hpp"

#include <dlfcn.h>

namespace leancast::detail {

namespace {

template <class Function>
Function next_or(const char* name, Function fallback) {
  void* found = dlsym(RTLD_NEXT, name);
  return found != nullptr ? reinterpret_cast<Function>(found) : fallback;
}

}  // namespace

const NextMpi& next_mpi() {
  static const NextMpi next{
      .wait = next_or("MPI_Wait", &PMPI_Wait),
      .test = next_or("MPI_Test", &PMPI_Test),
      .waitall = next_or("MPI_Waitall", &PMPI_Waitall),
      .testall = next_or("MPI_Testall", &PMPI_Testall),
      .waitany = next_or("MPI_Waitany", &PMPI_Waitany),
      .testany = next_or("MPI_Testany", &PMPI_Testany),
      .waitsome = next_or("MPI_Waitsome", &PMPI_Waitsome),
      .testsome = next_or("MPI_Testsome", &PMPI_Testsome),
      .request_get_status = next_or("MPI_Request_get_status", &PMPI_Request_get_status),
      .start = next_or("MPI_Start", &PMPI_Start),
      .request_free = next_or("MPI_Request_free", &PMPI_Request_free),
      .cancel = next_or("MPI_Cancel", &PMPI_Cancel)};
  return next;
}

}  // namespace leancast::detail
