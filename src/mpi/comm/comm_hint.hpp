// Per-communicator choice: the info key leancast_bcast_algorithm (MPI_Comm_set_info,
// MPI_Comm_dup_with_info) names the algorithm for the broadcasts on that communicator and
// on its duplicates (select/decide.hpp has the precedence).
//
// Neither MPI library here keeps an info key it does not know: MPICH 4.0 drops it from
// MPI_Comm_set_info and MPI_Comm_dup_with_info, Open MPI 4.1 from MPI_Comm_set_info (it
// keeps MPI_Comm_dup_with_info's, but MPI_Comm_dup does not copy it). So leancast defines
// MPI_Comm_set_info and MPI_Comm_dup_with_info itself (communicators.cpp, in libleancast and
// in the interposer; they call the library's PMPI_ versions first) and keeps the parsed hint as
// an attribute of the communicator, whose copy callback gives it to every MPI_Comm_dup
// and MPI_Comm_idup. A communicator leancast saw no hint for is asked MPI_Comm_get_info
// once, at its first broadcast (an MPI library that keeps the key, or a call that went
// past leancast's definitions). The hint is read into the private communicator's state
// when that is made, and MPI_Comm_set_info updates it there (and forgets the choices
// remembered by size), so a broadcast with a private communicator pays nothing for it; one
// without pays one MPI_Comm_get_attr.
//
// A value that is no algorithm leancast accepts prints one warning (rank 0 of the
// communicator) and counts as no hint. Not under SMPI (no definitions of MPI functions).
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

// Takes the key from `info` (MPI_INFO_NULL: none) for `comm`. `replace`: the hints of
// `comm` are `info`'s (MPI_Comm_dup_with_info, or what MPI_Comm_get_info says), so no key
// means no hint; otherwise (MPI_Comm_set_info) no key leaves the hint as it is. Returns the
// hint `comm` has now if this call set it (an empty inner optional: it has none), else
// nothing (left as it was): what the caller gives a private state already made.
std::optional<std::optional<AlgorithmSpec>> take_hint(MPI_Comm comm, MPI_Info info, bool replace);

}  // namespace leancast::detail
