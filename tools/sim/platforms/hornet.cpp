// "hornet": a model of HLRS's Cray XC40 on which the paper measured (Section V): nodes of
// 24 cores (two 12-core Haswell E5-2680v3) on a Cray Aries dragonfly, ranks placed in
// blocks of 24 per node. Load it with `smpirun -platform hornet.so` (leancast-sim does).
//
// Each number is a published figure of the hardware (approximate, as noted), an
// assumption (said so), or FITTED to one of the paper's measurements;
// docs/paper-reproduction.md shows the fit and how close the rest of the model lands.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "node.hpp"
#include "smpi_settings.hpp"

namespace sg4 = simgrid::s4u;

namespace {

constexpr leancast::sim::NodeModel kHornetNode{
    .cores = 24,  // paper, Section V: "24 cores per node"
    // FITTED: MPI_Bcast_native (scatter-ring) at P = 16 on one node, 3 MB, back-to-back
    // (leancast-sim --preset fig6) gives the paper's single-node peak of 2623 MB/s
    // (Fig. 6(a)). An intra-node message loads the bus twice (read + write), so this is
    // ~28 GB/s of MPI copies; 57 GB/s is about half the STREAM bandwidth typical of two
    // E5-2680v3 sockets (~115 GB/s).
    .memory_bandwidth = 57e9,
    // ASSUMED: one Haswell core copies ~10 GB/s (single-threaded memcpy, typical figure).
    .core_bandwidth = 10e9,
    // ~0.4 us intra-node MPI latency (typical Cray MPICH figure): two core links.
    .core_latency = 0.2e-6,
    // Aries NIC: ~10 GB/s injection per direction (PCIe Gen3 x16 host interface).
    .nic_bandwidth = 10e9,
    // ~1.3 us inter-node MPI latency (typical Aries figure): 2 x 0.2 us core links,
    // 2 x 0.25 us NICs and 3 x 0.13 us network links within a chassis.
    .nic_latency = 0.25e-6,
};

}  // namespace

extern "C" void load_platform(const sg4::Engine&);

void load_platform(const sg4::Engine&) {
    // Cray MPICH sends messages up to 8 KiB eagerly on Aries (MPICH_GNI_MAX_EAGER_MSG_SIZE
    // default 8192), larger ones by rendezvous, as the paper notes for Fig. 8.
  leancast::sim::apply_smpi_settings(8192);
    // Aries dragonfly: 4 nodes per router (blade), 16 routers per chassis joined
    // all-to-all, 6 chassis per group (3 links per chassis pair), groups joined by optical
    // links: 384 nodes per group. Only as many groups as the run needs are built.
  constexpr unsigned long kNodesPerGroup = 384;
  const auto groups = static_cast<unsigned>(
      (leancast::sim::nodes_wanted(1) + kNodesPerGroup - 1) / kNodesPerGroup);
    // SimGrid gives every dragonfly link one bandwidth and latency. Aries' router links
    // are slower than a NIC per lane (~5 GB/s) but come in bundles; up to the paper's 256
    // ranks (11 nodes, one chassis) no two routes of a ring step share one.
  const double link_bandwidth = 10e9, link_latency = 0.13e-6;
  sg4::create_dragonfly_zone(
      "hornet", nullptr, sg4::DragonflyParams({groups, 1}, {6, 3}, {16, 1}, 4),
      leancast::sim::node_callbacks(kHornetNode),
      link_bandwidth, link_latency, sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
}
