#include "mpi/base/next_mpi.hpp"

namespace leancast::detail {

const NextMpi& next_mpi() {
  static const NextMpi next{
      .wait = next_definition("MPI_Wait", &PMPI_Wait),
      .test = next_definition("MPI_Test", &PMPI_Test),
      .waitall = next_definition("MPI_Waitall", &PMPI_Waitall),
      .testall = next_definition("MPI_Testall", &PMPI_Testall),
      .waitany = next_definition("MPI_Waitany", &PMPI_Waitany),
      .testany = next_definition("MPI_Testany", &PMPI_Testany),
      .waitsome = next_definition("MPI_Waitsome", &PMPI_Waitsome),
      .testsome = next_definition("MPI_Testsome", &PMPI_Testsome),
      .request_get_status = next_definition("MPI_Request_get_status", &PMPI_Request_get_status),
      .start = next_definition("MPI_Start", &PMPI_Start),
      .request_free = next_definition("MPI_Request_free", &PMPI_Request_free),
      .cancel = next_definition("MPI_Cancel", &PMPI_Cancel)};
  return next;
}

}  // namespace leancast::detail
