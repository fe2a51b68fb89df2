// Open MPI's Fortran bindings call PMPI_Bcast directly: mpi_bcast_ (mpif.h and `use mpi`,
// in libmpi_mpifh) and mpi_bcast_f08_ (`use mpi_f08`, in libmpi_usempif08, which calls
// into libmpi_mpifh), so an MPI_Bcast interposer alone never sees a Fortran broadcast.
// These definitions take over the Fortran names, in every name mangling Open MPI exports.
// MPICH's Fortran bindings call MPI_Bcast / MPI_Bcast_c, so the MPICH build needs none.
#include <mpi.h>

#include "interposed_bcast.hpp"

// Open MPI's Fortran MPI_BOTTOM and MPI_IN_PLACE: addresses of these common blocks.
extern "C" int mpi_fortran_bottom_;
extern "C" int mpi_fortran_in_place_;

namespace {

void fortran_bcast(void* buf, const MPI_Fint* count, const MPI_Fint* type, const MPI_Fint* root,
                   const MPI_Fint* comm, MPI_Fint* ierror) {
  if (buf == &mpi_fortran_bottom_) buf = MPI_BOTTOM;
  if (buf == &mpi_fortran_in_place_) buf = MPI_IN_PLACE;
  const int rc = leancast::pmpi::interposed_bcast(buf, *count, MPI_Type_f2c(*type), *root,
                                                  MPI_Comm_f2c(*comm));
  if (ierror != nullptr) *ierror = rc;  // optional in mpi_f08
}

}  // namespace

#define LEANCAST_FORTRAN_BCAST(name)                                                             \
  extern "C" LEANCAST_EXPORTED void name(void* buf, const MPI_Fint* count, const MPI_Fint* type, \
                                         const MPI_Fint* root, const MPI_Fint* comm,             \
                                         MPI_Fint* ierror) {                                     \
    fortran_bcast(buf, count, type, root, comm, ierror);                                         \
  }

LEANCAST_FORTRAN_BCAST(mpi_bcast)
LEANCAST_FORTRAN_BCAST(mpi_bcast_)
LEANCAST_FORTRAN_BCAST(mpi_bcast__)
LEANCAST_FORTRAN_BCAST(MPI_BCAST)
// TYPE(MPI_Comm) and TYPE(MPI_Datatype) hold one integer and come by reference, so the
// f08 entry has the same C signature.
LEANCAST_FORTRAN_BCAST(mpi_bcast_f08_)
