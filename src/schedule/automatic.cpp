// auto: MPICH's broadcast selection (MPIR_Bcast_intra_auto in MPICH 3.x/4.x): binomial for
// short messages (< MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288 bytes) or few processes
// (< MPIR_CVAR_BCAST_MIN_PROCS = 8); scatter + recursive doubling for medium messages
// (< MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288) on power-of-two P; the scatter + ring
// otherwise, where leancast runs the paper's tuned ring instead of the enclosed one.
// MPICH compares with '<', so 12288 bytes is already a medium message (the paper's
// Figure 7 measures the rings there) and 524288 a long one.
#include <bit>

#include <leancast/algorithm.hpp>

namespace leancast {

constexpr std::uint64_t kShortMessageBytes = 12288;
constexpr std::uint64_t kLongMessageBytes = 524288;
constexpr int kMinProcs = 8;

Algorithm select_automatic(int procs, std::uint64_t bytes) {
  if (bytes < kShortMessageBytes || procs < kMinProcs) return Algorithm::binomial;
  if (bytes < kLongMessageBytes && std::has_single_bit(static_cast<unsigned>(procs))) {
    return Algorithm::scatter_doubling;
  }
  return Algorithm::scatter_ring_tuned;
}

}  // namespace leancast
