// pipeline-chain: relative rank q receives from q - 1 and forwards to q + 1, the message
// cut into segments (Open MPI's chain/pipeline broadcast, NCCL's ring broadcast). With S
// segments it takes P - 2 + S rounds; each rank has at most one receive and one send in
// flight per round, and every link carries each byte once.
#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "ranks.hpp"

namespace leancast::detail {

RankSchedule pipeline_chain_schedule(const BcastShape& shape, int rank,
                                     std::uint64_t segment_bytes) {
  const int q = relative_rank(rank, shape.root, shape.procs);
  TreePlace place{.parent = q - 1, .depth = static_cast<std::uint32_t>(q), .children = {}};
  if (q + 1 < shape.procs) place.children.push_back(q + 1);
  return pipelined_tree(shape, rank, segment_bytes, place);
}

}  // namespace leancast::detail
