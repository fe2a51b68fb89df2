#include "smpi_settings.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <string>

namespace leancast::sim {

void apply_smpi_settings(int eager_bytes) {
  using simgrid::s4u::Engine;
  Engine::set_config("smpi/bw-factor:0:1");
  Engine::set_config("smpi/lat-factor:0:1");
  Engine::set_config("network/crosstraffic:0");
  Engine::set_config("smpi/send-is-detached-thresh:" + std::to_string(eager_bytes));
}

}  // namespace leancast::sim
