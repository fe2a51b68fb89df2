// The tag every broadcast message carries on the private communicator.
//
// Receives take MPI_ANY_TAG (messages between a pair match in posting order, see
// executor.hpp), so the tag is free to carry what the receiver checks:
//   bit 0       the sender has seen an error: it still completes its schedule, so that the
//               ranks after it are not left waiting, and they return an error too (MPICH
//               marks such messages with an error bit in the tag as well).
//   bits 1..14  a signature of the broadcast: root, byte count and algorithm hashed, the
//               same on every rank of a correct program. A message whose signature
//               differs comes from a rank that disagrees on one of them (an erroneous
//               program): an error, never data used silently.
//   bits 15..   the broadcast's sequence number on its communicator, in as many bits as
//               the library's MPI_TAG_UB leaves (16 under Open MPI, 13 under MPICH, none
//               where MPI_TAG_UB is the standard's minimum 32767). A message of an earlier
//               broadcast, left over when an erroneous one sent more messages than its
//               receivers took, is recognised and received again, not taken for this one's.
#pragma once

#include <cstdint>

#include <leancast/algorithm.hpp>

namespace leancast::detail {

constexpr int kSignatureBits = 14;

// FNV-1a over the fields, folded to kSignatureBits.
inline int broadcast_signature(const AlgorithmSpec& spec, int root, std::uint64_t bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto mix = [&](std::uint64_t value) {
    for (int i = 0; i < 8; ++i, value >>= 8) hash = (hash ^ (value & 0xff)) * 1099511628211ull;
  };
  for (const LevelSpec level : {spec.level(), spec.between_nodes, spec.within_nodes}) {
    mix(static_cast<std::uint64_t>(level.algorithm));
    mix(level.parameter);
  }
  mix(static_cast<std::uint64_t>(root));
  mix(bytes);
  return static_cast<int>((hash ^ (hash >> 32)) & ((1u << kSignatureBits) - 1));
}

constexpr int kSequenceShift = kSignatureBits + 1;

inline int message_tag(std::uint32_t sequence, int signature, bool failed) {
  return static_cast<int>(sequence << kSequenceShift) | signature << 1 | (failed ? 1 : 0);
}
inline int signature_of_tag(int tag) { return (tag >> 1) & ((1 << kSignatureBits) - 1); }
inline std::uint32_t sequence_of_tag(int tag) {
  return static_cast<std::uint32_t>(tag) >> kSequenceShift;
}

// Sequence bits a tag can carry below `tag_ub` (MPI_TAG_UB), at most 16.
inline int sequence_bits(int tag_ub) {
  int bits = 0;
  while (bits < 16 && (std::int64_t{1} << (kSequenceShift + bits + 1)) - 1 <= tag_ub) ++bits;
  return bits;
}
inline bool tag_reports_error(int tag) { return (tag & 1) != 0; }

}  // namespace leancast::detail
