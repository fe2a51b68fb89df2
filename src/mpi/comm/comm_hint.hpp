// Per-communicator choice: LC_Comm_set_algorithm, or the info key leancast_bcast_algorithm
// where the MPI library keeps it, names the algorithm for the broadcasts on that
// communicator and on its duplicates (select/decide.hpp has the precedence).
//
// Neither MPI library here keeps an info key it does not know: MPICH 4.0 drops it from
// MPI_Comm_set_info and MPI_Comm_dup_with_info, Open MPI 4.1 from MPI_Comm_set_info (it
// keeps MPI_Comm_dup_with_info's, but MPI_Comm_dup does not copy it). leancast defines no
// MPI function to catch the key on its way, so LC_Comm_set_algorithm sets the hint, kept as
// an attribute of the communicator whose copy callback gives it to every MPI_Comm_dup and
// MPI_Comm_idup. A communicator without one is asked MPI_Comm_get_info once, at its first
// broadcast (an MPI library that keeps the key). The hint is read into the private
// communicator's state when that is made, and LC_Comm_set_algorithm updates it there (which
// forgets the plans of call shapes), so a broadcast with a private communicator pays
// nothing for it; one without pays one MPI_Comm_get_attr.
//
// A value that is no algorithm leancast accepts prints one warning (rank 0 of the
// communicator) and counts as no hint. Not under SMPI.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <string_view>

#include <leancast/algorithm.hpp>

namespace leancast::detail {

inline constexpr const char* kAlgorithmInfoKey = "leancast_bcast_algorithm";

// The key's value in `info` (MPI_INFO_NULL: none), if there.
std::optional<std::string> algorithm_info_value(MPI_Info info);

// The hint of the intracommunicator `comm`, if it has a valid one.
std::optional<AlgorithmSpec> comm_hint(MPI_Comm comm);

// Sets the hint of `comm` (empty: none), for LC_Comm_set_algorithm.
void set_comm_hint(MPI_Comm comm, const std::optional<AlgorithmSpec>& algorithm);

// Takes the key from `info` (MPI_INFO_NULL: none) for `comm`. `replace`: the hints of
// `comm` are `info`'s (MPI_Comm_dup_with_info, or what MPI_Comm_get_info says), so no key
// means no hint; otherwise (MPI_Comm_set_info) no key leaves the hint as it is. Returns the
// hint `comm` has now if this call set it (an empty inner optional: it has none), else
// nothing (left as it was): what the caller gives a private state already made.
std::optional<std::optional<AlgorithmSpec>> take_hint(MPI_Comm comm, MPI_Info info, bool replace);

}  // namespace leancast::detail
