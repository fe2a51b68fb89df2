// The interposer's broadcast, shared by its C and Fortran entry points.
#pragma once

#include <mpi.h>

// What the interposer defines is exported (the build hides everything else; MPICH's mpi.h
// declares its functions without a visibility of their own). exports.map lists the names.
#define LEANCAST_EXPORTED [[gnu::visibility("default")]]

namespace leancast::pmpi {

// leancast's broadcast with the process's settings; a call that arrives while this
// thread is already inside leancast goes to PMPI_Bcast.
int interposed_bcast(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm);

}  // namespace leancast::pmpi
