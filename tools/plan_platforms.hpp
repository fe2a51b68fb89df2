// leancast-plan --platform NAME: the cost model's parameters for leancast-sim's platforms,
// derived from the figures in tools/sim/platforms/NAME.cpp (which only the SMPI build
// compiles, so they are restated here; tests/plan/model_agreement_test.py checks them
// against those files).
//
// A message of m bytes costs alpha + m * beta. alpha: the latencies of the links a message
// crosses plus the MPI library's cost per eager message (send + receive overhead; SMPI
// charges it below the eager limit only, the model on every message). beta: 1 / the
// slowest link on the route, for one message alone. beta_node: 1 / the network interface's
// bandwidth, which the model shares among a node's messages between nodes (CostModel); it
// does not see that they share the node's memory bus too. send_overhead: the library's
// time per message sent, the part of alpha that holds the sender (the rest is in flight).
#pragma once

#include <array>
#include <string_view>

namespace leancast::plan {

struct PlatformModel {
  std::string_view name;
  int ranks_per_node;
  double alpha, beta;              // within a node
  double alpha_inter, beta_inter;  // between nodes
  double beta_node;                // through a node's network interface, shared
  double send_overhead;            // the library's time per message sent (holds the port)
};

namespace detail {
// hornet.cpp: core links 0.2 us, NICs 0.25 us, 3 network links of 0.13 us within a chassis,
// 0.4 + 0.1 us per eager message; receive port, NIC and links 10 GB/s, send port 12 GB/s.
constexpr double kHornetOverhead = 0.4e-6 + 0.1e-6;
constexpr PlatformModel kHornet{"hornet",
                                24,
                                2 * 0.2e-6 + kHornetOverhead,
                                1 / 10e9,
                                2 * 0.2e-6 + 2 * 0.25e-6 + 3 * 0.13e-6 + kHornetOverhead,
                                1 / 10e9,
                                1 / 10e9,
                                0.4e-6};
// laki.cpp: core links 0.25 us, host channel adapters 0.35 us, 2 switch links of 0.1 us
// under one leaf switch, 0.4 + 0.1 us per eager message; receive port 6 GB/s, send port
// 7.2 GB/s, NIC and links 3.2 GB/s.
constexpr double kLakiOverhead = 0.4e-6 + 0.1e-6;
constexpr PlatformModel kLaki{"laki",
                              8,
                              2 * 0.25e-6 + kLakiOverhead,
                              1 / 6e9,
                              2 * 0.25e-6 + 2 * 0.35e-6 + 2 * 0.1e-6 + kLakiOverhead,
                              1 / 3.2e9,
                              1 / 3.2e9,
                              0.4e-6};
}  // namespace detail

inline constexpr std::array kPlatforms{detail::kHornet, detail::kLaki};

inline const PlatformModel* find_platform(std::string_view name) {
  for (const PlatformModel& platform : kPlatforms) {
    if (platform.name == name) return &platform;
  }
  return nullptr;
}

}  // namespace leancast::plan
