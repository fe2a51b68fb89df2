// libleancast_pmpi_<mpi>.so: MPI_Bcast and MPI_Ibcast (and MPI_Bcast_c, MPI_Ibcast_c where
// the MPI library is MPI 4, and Open MPI's Fortran names) defined by leancast, for
// unmodified programs through LD_PRELOAD or by linking it before the MPI library. These are
// the only MPI names it defines (exports.map lists them; docs/usage.md says what that
// leaves to the library): leancast's own MPI calls, and every other function, are the MPI
// library's, whose progress engine (or the requests' poll functions, MPICH) moves the
// nonblocking broadcasts (mpi/requests/tasks.hpp). MPI_Bcast_init stays the library's: MPI
// lets no library start another's persistent request. The "mpi" algorithm and
// intercommunicators go to PMPI_Bcast. exports.map keeps everything but these names local,
// so this copy of leancast never mixes with a libleancast.so that the same program may load.
#include <mpi.h>

#include <optional>

#include "interposed_bcast.hpp"
#include "mpi/bcast.hpp"
#include "mpi/base/errors.hpp"
#include "mpi/base/pass_through.hpp"
#include "mpi/pass_at_once.hpp"
#include "mpi/base/rank0_log.hpp"
#include "mpi/base/usage_log.hpp"

namespace leancast::pmpi {

namespace {

// Log lines from this copy of leancast say they come from the interposer.
[[maybe_unused]] const bool named = (detail::set_log_name("leancast-pmpi"), true);

// Guards against recursion: if a function leancast calls (MPI_Comm_dup, ...) is itself
// wrapped by another tool that broadcasts, that broadcast goes to the MPI library.
thread_local constinit bool inside [[gnu::tls_model("initial-exec")]] = false;

// The whole path, out of line: a repeated call's way (pass_at_once.hpp) keeps no frame.
[[gnu::noinline]] int whole_bcast(const detail::BcastCall& call) {
  inside = true;
  const int rc = detail::bcast_whole(call, std::nullopt);
  inside = false;
  return rc;
}

}  // namespace

int interposed_bcast(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  const detail::BcastCall call{buf, count, type, root, comm};
  if (inside) return detail::pass_to_mpi(buf, count, type, root, comm);
  return detail::pass_at_once_or(call, nullptr, [&] { return whole_bcast(call); });
}

namespace {

int interposed_ibcast(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Request* request) {
  if (inside) return detail::pass_to_mpi_nonblocking(buf, count, type, root, comm, request);
  inside = true;
  const detail::NonblockingCall nonblocking{request, false, nullptr, true};
  const int rc = detail::bcast({buf, count, type, root, comm}, std::nullopt, &nonblocking);
  inside = false;
  return rc;
}

}  // namespace

}  // namespace leancast::pmpi

extern "C" LEANCAST_EXPORTED int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root,
                                           MPI_Comm comm) {
  return leancast::pmpi::interposed_bcast(buf, count, type, root, comm);
}

#if MPI_VERSION >= 4
extern "C" LEANCAST_EXPORTED int MPI_Bcast_c(void* buf, MPI_Count count, MPI_Datatype type,
                                             int root, MPI_Comm comm) {
  return leancast::pmpi::interposed_bcast(buf, count, type, root, comm);
}
#endif

extern "C" LEANCAST_EXPORTED int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root,
                                            MPI_Comm comm, MPI_Request* request) {
  return leancast::pmpi::interposed_ibcast(buf, count, type, root, comm, request);
}

#if MPI_VERSION >= 4
extern "C" LEANCAST_EXPORTED int MPI_Ibcast_c(void* buf, MPI_Count count, MPI_Datatype type,
                                              int root, MPI_Comm comm, MPI_Request* request) {
  return leancast::pmpi::interposed_ibcast(buf, count, type, root, comm, request);
}

#endif
