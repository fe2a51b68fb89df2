// leancast's messages to the user: printed on stderr by rank 0 of MPI_COMM_WORLD only,
// prefixed with the name of the component ("leancast" for the library, "leancast-pmpi"
// for the interposer, which carries its own copy of the library).
#pragma once

#include <string_view>

namespace leancast::detail {

// Set once, before MPI_Init, by the component's own startup code.
void set_log_name(const char* name);

// True on rank 0 of MPI_COMM_WORLD (MPI must be initialized).
bool is_world_rank0();

// On world rank 0: prints "<name>: <line>\n" to stderr in one write and flushes.
void rank0_print(std::string_view line);

// On any rank: the same line (for messages that rank 0 of another communicator prints).
void log_print(std::string_view line);

}  // namespace leancast::detail
