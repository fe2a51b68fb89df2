// The MPI functions beneath leancast's own definitions of them (completion.cpp,
// stepped_calls.cpp): the next definition in the process, as dlsym(RTLD_NEXT) finds it.
// That is the MPI library's, or a profiling tool's loaded after leancast, or another copy of
// leancast's: a program linked with libleancast that also preloads the interposer has two, and each
// then passes the other's requests on (and so steps the other's broadcasts while it waits). Where
// dlsym finds none, the library's PMPI_ function.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

namespace leancast::detail {

// The definition of `name` after this one (dlsym(RTLD_NEXT)), else `fallback` (PMPI_...).
template <class Function>
Function next_definition(const char* name, Function fallback) {
  void* found = dlsym(RTLD_NEXT, name);
  return found != nullptr ? reinterpret_cast<Function>(found) : fallback;
}

struct NextMpi {
  decltype(&PMPI_Wait) wait;
  decltype(&PMPI_Test) test;
  decltype(&PMPI_Waitall) waitall;
  decltype(&PMPI_Testall) testall;
  decltype(&PMPI_Waitany) waitany;
  decltype(&PMPI_Testany) testany;
  decltype(&PMPI_Waitsome) waitsome;
  decltype(&PMPI_Testsome) testsome;
  decltype(&PMPI_Request_get_status) request_get_status;
  decltype(&PMPI_Start) start;
  decltype(&PMPI_Request_free) request_free;
  decltype(&PMPI_Cancel) cancel;
};

// Looked up once, thread-safe.
const NextMpi& next_mpi();

}  // namespace leancast::detail
