// Rank arithmetic shared by the schedules: ranks relative to the root, powers of two.
#pragma once

#include <bit>
#include <cstdint>

namespace leancast::detail {

inline int relative_rank(int rank, int root, int procs) { return (rank - root + procs) % procs; }
inline int absolute_rank(int relative, int root, int procs) { return (relative + root) % procs; }

// Smallest power of two >= n (n >= 1).
inline int ceil_pow2(int n) { return static_cast<int>(std::bit_ceil(static_cast<unsigned>(n))); }
// ceil(log2 n) for n >= 1.
inline int ceil_log2(int n) { return std::countr_zero(static_cast<unsigned>(ceil_pow2(n))); }
// Lowest set bit of q > 0.
inline int lowest_bit(int q) { return q & -q; }

}  // namespace leancast::detail
