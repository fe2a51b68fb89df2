#include "smpi_settings.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <string>

namespace leancast::sim {

namespace {

// A setting given on the command line (smpirun --cfg, leancast-sim --smpi-config) wins.
void set_unless_given(const std::string& name, const std::string& value) {
  if (simgrid::config::is_default(name.c_str())) simgrid::s4u::Engine::set_config(name + ":" + value);
}

}  // namespace

void apply_smpi_settings(int eager_bytes) {
  set_unless_given("smpi/bw-factor", "0:1");
  set_unless_given("smpi/lat-factor", "0:1");
  set_unless_given("network/crosstraffic", "0");
  set_unless_given("smpi/send-is-detached-thresh", std::to_string(eager_bytes));
  // SMPI's "default" MPI_Allgather posts every pair's message at once, and at 256 ranks
  // SimGrid's solver gives up on that many tiny flows ("Cannot saturate more a constraint
  // that has no active element"); MPICH's allgather, which Cray's MPI runs, does not.
  set_unless_given("smpi/allgather", "mpich");
}

}  // namespace leancast::sim
