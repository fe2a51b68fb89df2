// The commit the benchmark tools report, in a file of its own. Where a use sees the
// literal, the compiler may write it into the code as immediate stores; defined here it is
// one NUL-terminated string in the data, which leancast-sim leaves out of the bench's digest
// (bench_digest), so a commit that changes no code keeps the simulations cached before it.
#include "environment.hpp"

namespace leancast::bench {

extern const char git_revision[] = LEANCAST_GIT_REVISION;

}  // namespace leancast::bench
