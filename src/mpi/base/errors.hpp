// Reporting bad arguments the way MPI does: an error code of the right class, raised
// through the communicator's error handler.
#pragma once

#include <mpi.h>

#include <string>

namespace leancast::detail {

enum class Problem {
  null_communicator,
  negative_count,
  null_datatype,
  uncommitted_datatype,
  null_buffer,
  in_place_buffer,
  invalid_root,
  unknown_algorithm,
  element_too_large,
  null_request,
};

// Raises `problem` on `comm` (on MPI_COMM_WORLD for MPI_COMM_NULL, as Open MPI and MPICH
// do for an invalid communicator) and returns its code. The code belongs to the MPI
// error class of the problem and carries a leancast message, which
// MPI_ERRORS_ARE_FATAL prints before it aborts.
int raise_problem(MPI_Comm comm, Problem problem);

// The code raise_problem raises for `problem`, without raising it.
int problem_code(Problem problem);

// MPI_Error_string of `code` ("code N" where MPI has none), for messages that quote it.
std::string error_text(int code);

// Raises an error code that came back from an MPI call on `comm` and returns it.
int raise_code(MPI_Comm comm, int code);

// Raises an error of the class of `code` whose MPI_Error_string is `message` (a code of
// that class kept for messages, its string replaced each time), and returns that code.
// Where the MPI library cannot carry the text, the plain class is raised and the message
// goes to stderr instead, so it is never lost. An empty message: raise_code.
int raise_message(MPI_Comm comm, int code, const std::string& message);

}  // namespace leancast::detail
