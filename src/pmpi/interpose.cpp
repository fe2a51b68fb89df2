// libleancast_pmpi_<mpi>.so: MPI_Bcast and MPI_Ibcast (and MPI_Bcast_c, MPI_Ibcast_c,
// MPI_Bcast_init and MPI_Bcast_init_c where the MPI library is MPI 4) defined by leancast,
// with the completion calls that know its requests (mpi/requests/completion.cpp) and the
// other calls exports.map lists (MPI_Init, MPI_Finalize, communicator constructors, blocking
// calls that must step leancast's outstanding broadcasts: docs/usage.md), for unmodified
// programs through LD_PRELOAD or by linking it before the MPI library. leancast's own MPI
// calls, and every function not defined here, are the MPI library's; the "mpi" algorithm
// and intercommunicators go to PMPI_Bcast. exports.map keeps everything but these names
// local, so this copy of leancast never mixes with a libleancast.so that the same program
// may load.
#include <mpi.h>

#include <optional>
#include <string>

#include "interposed_bcast.hpp"
#include "mpi/bcast.hpp"
#include "mpi/comm/comm_hint.hpp"
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

// The whole path, out of line: the short way (pass_at_once.hpp) keeps no frame.
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
  const detail::NonblockingCall nonblocking{request, false};
  const int rc = detail::bcast({buf, count, type, root, comm}, std::nullopt, &nonblocking);
  inside = false;
  return rc;
}

#if MPI_VERSION >= 4
// The info key leancast_bcast_algorithm names the algorithm, as for LC_Bcast_init.
int interposed_bcast_init(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request) {
  if (inside) return PMPI_Bcast_init_c(buf, count, type, root, comm, info, request);
  inside = true;
  if (request != nullptr) *request = MPI_REQUEST_NULL;  // as after any error
  std::optional<AlgorithmSpec> algorithm;
  int rc = MPI_SUCCESS;
  if (const auto value = detail::algorithm_info_value(info)) {
    std::string why;
    algorithm = parse_algorithm_spec(*value, &why);
    if (!algorithm) rc = detail::raise_message(comm, MPI_ERR_ARG, "leancast: " + why);
  }
  if (rc == MPI_SUCCESS) {
    const detail::NonblockingCall persistent{request, true};
    rc = detail::bcast({buf, count, type, root, comm}, algorithm, &persistent);
  }
  inside = false;
  return rc;
}
#endif

}  // namespace

}  // namespace leancast::pmpi

extern "C" int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return leancast::pmpi::interposed_bcast(buf, count, type, root, comm);
}

#if MPI_VERSION >= 4
extern "C" int MPI_Bcast_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  return leancast::pmpi::interposed_bcast(buf, count, type, root, comm);
}
#endif

extern "C" int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                          MPI_Request* request) {
  return leancast::pmpi::interposed_ibcast(buf, count, type, root, comm, request);
}

#if MPI_VERSION >= 4
extern "C" int MPI_Ibcast_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                            MPI_Request* request) {
  return leancast::pmpi::interposed_ibcast(buf, count, type, root, comm, request);
}

extern "C" int MPI_Bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                              MPI_Info info, MPI_Request* request) {
  return leancast::pmpi::interposed_bcast_init(buf, count, type, root, comm, info, request);
}

extern "C" int MPI_Bcast_init_c(void* buf, MPI_Count count, MPI_Datatype type, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return leancast::pmpi::interposed_bcast_init(buf, count, type, root, comm, info, request);
}
#endif

// The verbose summary prints at MPI_Finalize even in a program that never broadcast.
extern "C" int MPI_Finalize() {
  try {
    leancast::detail::install_summary_hook();
  } catch (...) {  // reading the settings failed to allocate: finalize without a summary
  }
  return PMPI_Finalize();
}
