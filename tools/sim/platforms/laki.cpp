// "laki": a model of HLRS's NEC cluster Laki, the paper's second machine (Section V):
// nodes of 8 cores (two 4-core Xeon X5560, Nehalem) on an InfiniBand fat tree. The paper
// shows no Laki numbers ("basically the same trend" as Hornet), so nothing here is
// fitted: the node is scaled from hornet's fit and the network is nominal InfiniBand.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "node.hpp"
#include "smpi_settings.hpp"

namespace sg4 = simgrid::s4u;

namespace {

constexpr leancast::sim::NodeModel kLakiNode{
    .cores = 8,  // paper, Section V: "8 cores per node"
    // SCALED from hornet's fitted 57 GB/s by the nodes' STREAM bandwidths (~38 GB/s for
    // two X5560 sockets with 3 DDR3-1333 channels each, ~115 GB/s for two E5-2680v3).
    .memory_bandwidth = 19e9,
    // ASSUMED: one Nehalem core copies ~6 GB/s.
    .core_bandwidth = 6e9,
    // SCALED: hornet's send port is 1.2x its receive port (fitted there); the same here.
    .send_bandwidth = 7.2e9,
    // ~0.5 us intra-node MPI latency: two core links.
    .core_latency = 0.25e-6,
    // ASSUMED QDR InfiniBand (the paper does not say): 4 x 10 Gb/s with 8b/10b coding,
    // ~3.2 GB/s of MPI bandwidth per direction.
    .nic_bandwidth = 3.2e9,
    // ~1.6 us inter-node MPI latency: 2 x 0.25 us core links, 2 x 0.35 us host channel
    // adapters, and 0.1 us per switch link below (2 or 4 links).
    .nic_latency = 0.35e-6,
    // ASSUMED: the MPI library's per-message costs fitted on hornet (hornet.cpp).
    .send_overhead = 0.4e-6,
    .receive_overhead = 0.1e-6,
};

}  // namespace

extern "C" void load_platform(const sg4::Engine&);

void load_platform(const sg4::Engine&) {
  // The paper does not give Laki's eager limit; SimGrid's default of 64 KiB is kept.
  leancast::sim::apply_smpi_settings(65536, kLakiNode.send_overhead, kLakiNode.receive_overhead);
  // Two-level fat tree of 36-port switches at full bisection: 18 leaf switches with 18
  // nodes each and 18 uplinks, one to each of 18 spine switches (324 nodes, 2592 cores).
  const double link_bandwidth = 3.2e9, link_latency = 0.1e-6;
  sg4::create_fatTree_zone("laki", nullptr, sg4::FatTreeParams(2, {18, 18}, {1, 18}, {1, 1}),
                           leancast::sim::node_callbacks(kLakiNode), link_bandwidth, link_latency,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
}
