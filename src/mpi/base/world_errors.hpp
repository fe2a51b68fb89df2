// MPICH 4.0 raises the errors of completion calls (a truncated receive in MPI_Waitsome) on
// MPI_COMM_WORLD, not on the request's communicator: under the default fatal handler there
// a rank that receives a longer message would abort instead of returning the error. While
// leancast runs a broadcast (a blocking one, or a step of nonblocking ones), the world's
// handler is MPI_ERRORS_RETURN (errors other threads meet on MPI_COMM_WORLD meanwhile
// return too); the first to start sets it, the last restores it.
#pragma once

#include <mpi.h>

#include <mutex>

namespace leancast::detail {

#ifdef MPICH_VERSION
class WorldErrorsReturn {
 public:
  WorldErrorsReturn() {
    const std::lock_guard<std::mutex> guard(lock_);
    if (running_++ > 0) return;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~WorldErrorsReturn() {
    const std::lock_guard<std::mutex> guard(lock_);
    if (--running_ > 0) return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved_);
    MPI_Errhandler_free(&saved_);
  }
  WorldErrorsReturn(const WorldErrorsReturn&) = delete;
  WorldErrorsReturn& operator=(const WorldErrorsReturn&) = delete;

 private:
  static inline std::mutex lock_;
  static inline int running_ = 0;
  static inline MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};
#else
struct WorldErrorsReturn {};  // Open MPI and SMPI raise them on the request's communicator
#endif

}  // namespace leancast::detail
