// The round-by-round executor: each round's receives, then its sends, are posted, and the
// rank waits for all of them before the next round. Kept for comparison with the dataflow
// executor (LEANCAST_EXECUTOR=rounds); it does not check received sizes or signatures.
#include <algorithm>
#include <vector>

#include "broadcast_tag.hpp"
#include "executor.hpp"

namespace leancast::detail {

namespace {

int post(const Execution& run, const Operation& op, std::vector<MPI_Request>& requests) {
  std::byte* start = run.buffer->data() + op.bytes.offset;
  const int tag = message_tag(run.sequence, run.signature, false);
  int rc = MPI_SUCCESS;
  for_each_message(op.bytes.length, [&](std::uint64_t offset, std::uint64_t bytes) {
    const auto count = static_cast<int>(bytes);
    MPI_Request request = MPI_REQUEST_NULL;
    rc = op.direction == Direction::recv
             ? MPI_Irecv(start + offset, count, MPI_BYTE, op.peer, MPI_ANY_TAG, run.comm, &request)
             : MPI_Isend(start + offset, count, MPI_BYTE, op.peer, tag, run.comm, &request);
    if (rc == MPI_SUCCESS) requests.push_back(request);
    return rc == MPI_SUCCESS;
  });
  return rc;
}

}  // namespace

Outcome execute_rounds(const Execution& run) {
  const std::vector<Operation>& operations = run.program->operations;
  std::vector<MPI_Request> requests;
  std::size_t begin = 0;
  while (begin < operations.size()) {
    std::size_t end = begin;
    while (end < operations.size() && operations[end].round == operations[begin].round) ++end;
    requests.clear();
    for (Direction pass : {Direction::recv, Direction::send}) {
      for (std::size_t i = begin; i < end; ++i) {
        const Operation& op = operations[i];
        if (op.direction != pass) continue;
        int rc = pass == Direction::send ? run.buffer->prepare(op.bytes) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS) rc = post(run, op, requests);
        if (rc != MPI_SUCCESS) return {rc, {}};
      }
    }
    if (int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                             MPI_STATUSES_IGNORE);
        rc != MPI_SUCCESS) {
      return {rc, {}};
    }
    for (std::size_t i = begin; i < end; ++i) {
      if (operations[i].direction != Direction::recv) continue;
      if (int rc = run.buffer->received(operations[i].bytes); rc != MPI_SUCCESS) return {rc, {}};
    }
    begin = end;
  }
  return {};
}

}  // namespace leancast::detail
