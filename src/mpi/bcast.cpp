#include "bcast.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <leancast/leancast.hpp>

#include "byte_buffer.hpp"
#include "errors.hpp"
#include "executor.hpp"
#include "private_comm.hpp"

namespace leancast::detail {

namespace {

bool is_predefined(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

// Local argument checks, in MPICH's order; none of them communicates, so a bad argument
// on one rank never leaves that rank waiting.
std::optional<Problem> check_arguments(const void* buf, int count, MPI_Datatype type, int root,
                                       int size) {
  if (count < 0) return Problem::negative_count;
  if (type == MPI_DATATYPE_NULL) return Problem::null_datatype;
  const bool predefined = is_predefined(type);
  if (!predefined) {
    // Packing zero elements checks the datatype, commit included, in both MPI libraries.
    char scratch = 0;
    int position = 0;
    const int rc = MPI_Pack(buf, 0, type, &scratch, 0, &position, local_check_comm());
    int error_class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
    if (error_class == MPI_ERR_TYPE) return Problem::uncommitted_datatype;
  }
  if (buf == MPI_IN_PLACE) return Problem::in_place_buffer;
  // MPI_BOTTOM (NULL) is a valid base for derived types with absolute addresses.
  if (buf == nullptr && count > 0 && predefined) return Problem::null_buffer;
  if (root < 0 || root >= size) return Problem::invalid_root;
  return std::nullopt;
}

Algorithm from_environment() {
  const char* value = std::getenv("LEANCAST_BCAST_ALGORITHM");
  if (value == nullptr || *value == '\0') return Algorithm::automatic;
  if (auto parsed = parse_algorithm(value)) return *parsed;
  static std::once_flag warned;
  std::call_once(warned, [value] {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      std::fprintf(stderr,
                   "leancast: LEANCAST_BCAST_ALGORITHM=%s is not an algorithm (%s); using auto\n",
                   value, algorithm_names().c_str());
    }
  });
  return Algorithm::automatic;
}

}  // namespace

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<Algorithm> requested) {
  if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
  int inter = 0;
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS) return raise_code(comm, rc);
  // Intercommunicators have their own root semantics (MPI_ROOT, MPI_PROC_NULL): MPI's own.
  if (inter) return PMPI_Bcast(buf, count, type, root, comm);
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (auto problem = check_arguments(buf, count, type, root, size)) {
    return raise_problem(comm, *problem);
  }
  TypeInfo info;
  if (int rc = describe_type(count, type, info); rc != MPI_SUCCESS) return raise_code(comm, rc);
  if (info.bytes == 0 || size == 1) return MPI_SUCCESS;

  PrivateComm* state = nullptr;
  if (int rc = private_comm(comm, state); rc != MPI_SUCCESS) return raise_code(comm, rc);
  Algorithm algorithm = requested.value_or(from_environment());
  if (algorithm == Algorithm::automatic) algorithm = select_automatic(size, info.bytes);
  const auto program = state->program(algorithm, root, info.bytes);

  ByteBuffer bytes;
  const bool is_root = state->rank() == root;
  int rc = bytes.open(buf, count, type, info, is_root, state->comm());
  if (rc == MPI_SUCCESS) rc = execute(*program, bytes.data(), state->comm());
  if (rc == MPI_SUCCESS) rc = bytes.close();
  return raise_code(comm, rc);
}

}  // namespace leancast::detail

namespace leancast {

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return detail::bcast(buf, count, type, root, comm, std::nullopt);
}

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, Algorithm algorithm) {
  return detail::bcast(buf, count, type, root, comm, algorithm);
}

}  // namespace leancast
