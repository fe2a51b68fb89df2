// What a completed receive must be: of this broadcast (its sequence and signature), of the
// size the schedule expects, not flagged by a failed sender. Every executor checks here.
#include "mpi/run/receive_check.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "mpi/base/errors.hpp"
#include "mpi/run/broadcast_tag.hpp"

namespace leancast::detail {

int class_of(int code) {
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(code, &error_class);
  return error_class;
}

void record_failure(Outcome& outcome, int code, std::string message) {
  if (outcome.code != MPI_SUCCESS) return;
  outcome.code = code;
  outcome.message = std::move(message);
}

namespace {

// A message of an earlier broadcast on this communicator (left over by an erroneous
// one): passed over, the receive posted again, and reported (the earlier broadcast may
// have shown its error nowhere, when the ranks that disagreed only sent). A later
// broadcast's message can only come from a rank that counts broadcasts differently.
enum class Sequence { current, earlier, later };
Sequence sequence_of(const Execution& run, const MPI_Status& status) {
  if (run.sequence_mask == 0) return Sequence::current;
  const std::uint32_t behind = (run.sequence - sequence_of_tag(status.MPI_TAG)) & run.sequence_mask;
  if (behind == 0) return Sequence::current;
  return behind <= run.sequence_mask / 2 ? Sequence::earlier : Sequence::later;
}

}  // namespace

bool check_receive(const Execution& run, const Operation& op, std::uint64_t length,
                   const MPI_Status& status, int error, Outcome& outcome) {
  const auto fail = [&](int code, std::string message) {
    record_failure(outcome, code, std::move(message));
  };
  const auto where = [&] {
    return fmt::format("rank {} from rank {} (bytes [{}, +{}) of the broadcast)", run.rank, op.peer,
                       op.bytes.offset, op.bytes.length);
  };
  if (error == MPI_SUCCESS || class_of(error) == MPI_ERR_TRUNCATE) {
    if (const Sequence sequence = sequence_of(run, status); sequence != Sequence::current) {
      if (sequence == Sequence::earlier) {
        fail(MPI_ERR_OTHER, fmt::format("leancast: {}: a message left over by an earlier, "
                                        "erroneous broadcast on this communicator arrived "
                                        "(the ranks disagreed on its root, count or "
                                        "algorithm); passed over, this broadcast's data is "
                                        "right",
                                        where()));
        return false;
      }
      fail(MPI_ERR_OTHER, fmt::format("leancast: {}: the message belongs to a later broadcast "
                                      "on this communicator; the ranks disagree on how many "
                                      "broadcasts ran",
                                      where()));
      return true;
    }
  }
  if (error != MPI_SUCCESS) {
    if (class_of(error) != MPI_ERR_TRUNCATE) {
      fail(class_of(error),
           fmt::format("leancast: receive {} failed: {}", where(), error_text(error)));
      return true;
    }
    // Open MPI counts the whole message in a truncated receive's status, MPICH nothing.
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    const std::string size = static_cast<std::uint64_t>(count) > length
                                 ? fmt::format("a message of {} bytes", count)
                                 : std::string("a longer message");
    fail(MPI_ERR_TRUNCATE, fmt::format("leancast: {}: {} arrived where the schedule expects "
                                       "{}; the ranks disagree on the count, root or algorithm",
                                       where(), size, length));
    return true;
  }
  // The size first: a message of another size is MPI_ERR_TRUNCATE, as in MPI's own
  // broadcasts, whatever else differs.
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (static_cast<std::uint64_t>(count) != length) {
    fail(MPI_ERR_TRUNCATE,
         fmt::format("leancast: {}: {} bytes arrived where the schedule expects {}; the ranks "
                     "disagree on the count, root or algorithm",
                     where(), count, length));
    return true;
  }
  if (signature_of_tag(status.MPI_TAG) != run.signature) {
    fail(MPI_ERR_OTHER,
         fmt::format("leancast: {}: the message belongs to another broadcast (its root, "
                     "count or algorithm differ, or it was left over by an earlier "
                     "erroneous broadcast)",
                     where()));
    return true;
  }
  if (tag_reports_error(status.MPI_TAG)) {
    fail(MPI_ERR_OTHER, fmt::format("leancast: {}: rank {} passed on an error an earlier rank "
                                    "of the broadcast had",
                                    where(), op.peer));
  }
  return true;
}

}  // namespace leancast::detail
