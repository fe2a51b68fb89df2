#include "executor.hpp"

#include <algorithm>
#include <vector>

namespace leancast::detail {

namespace {

constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 30;
constexpr std::uint32_t kTags = 32768;  // MPI guarantees MPI_TAG_UB >= 32767
// Pipelines can run more rounds than there are tags, so rounds r and r + 32768 share a tag.
// They still match correctly: a rank finishes (Waitall) round r before it posts round r + 1,
// so between one pair the messages of equal tag are sent and received in round order, and
// MPI never lets messages of one (source, tag, communicator) overtake each other.

int post(const Operation& op, std::byte* buffer, MPI_Comm comm, std::vector<MPI_Request>& requests) {
  const int tag = static_cast<int>(op.round % kTags);
  std::uint64_t offset = op.bytes.offset;
  std::uint64_t left = op.bytes.length;
  do {  // a zero-byte operation still sends one (empty) message
    const int count = static_cast<int>(std::min(left, kMaxMessage));
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = op.direction == Direction::recv
                       ? MPI_Irecv(buffer + offset, count, MPI_BYTE, op.peer, tag, comm, &request)
                       : MPI_Isend(buffer + offset, count, MPI_BYTE, op.peer, tag, comm, &request);
    if (rc != MPI_SUCCESS) return rc;
    requests.push_back(request);
    offset += static_cast<std::uint64_t>(count);
    left -= static_cast<std::uint64_t>(count);
  } while (left > 0);
  return MPI_SUCCESS;
}

}  // namespace

int execute(std::span<const Operation> operations, std::byte* buffer, MPI_Comm comm) {
  std::vector<MPI_Request> requests;
  std::size_t begin = 0;
  while (begin < operations.size()) {
    std::size_t end = begin;
    while (end < operations.size() && operations[end].round == operations[begin].round) ++end;
    requests.clear();
    for (Direction pass : {Direction::recv, Direction::send}) {
      for (std::size_t i = begin; i < end; ++i) {
        if (operations[i].direction != pass) continue;
        if (int rc = post(operations[i], buffer, comm, requests); rc != MPI_SUCCESS) return rc;
      }
    }
    if (int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                             MPI_STATUSES_IGNORE);
        rc != MPI_SUCCESS) {
      return rc;
    }
    begin = end;
  }
  return MPI_SUCCESS;
}

}  // namespace leancast::detail
