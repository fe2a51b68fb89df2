// One compute node of a simulated platform: its ranks share a memory bus, and a network
// interface leads to the interconnect. Two ways to lay it out (LEANCAST_SIM_HOSTS):
//   cores (default): every core is a host of its own with one send port and one receive
//          port, which all of its rank's concurrent messages share
//          (docs/benchmarks.md#the-one-node-model-against-the-real-node); MPI then sees one rank
//          per node, so leancast-sim tells leancast the nodes through LEANCAST_RANKS_PER_NODE;
//   nodes: the node is one SimGrid host with one core per rank, so SMPI's
//          MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and its SMP-aware collectives see the
//          node; a message's copy limit then applies per message, not per rank (a
//          multi-core host is one network point: its ranks cannot have ports of their own).
// Either way a message crosses the bus, and the NIC when it leaves the node.
#pragma once

#include <simgrid/s4u/NetZone.hpp>

#include <string>
#include <utility>

namespace leancast::sim {

struct NodeModel {
  int cores = 1;
  double memory_bandwidth = 0;  // bytes/s shared by every transfer touching the node
  double core_bandwidth = 0;    // bytes/s of a rank's receive port (the receiver copies)
  double send_bandwidth = 0;    // bytes/s of a rank's send port, shared by its sends
  double core_latency = 0;      // s, per core port crossed (twice per message)
  double nic_bandwidth = 0;     // bytes/s per direction into and out of the node
  double nic_latency = 0;       // s, per network interface crossed
  // The MPI library's software cost per eager message, in time of the rank that pays it
  // (SMPI blocks the calling rank that long; it is not a link, so it is not shared;
  // smpi_settings.hpp says why rendezvous messages pay none):
  double send_overhead = 0;     // s per eager message sent
  double receive_overhead = 0;  // s per eager message received
};

// Host names, as leancast-sim writes them into smpirun's host file: "node-<node>" for a
// node host, "node-<node>-core-<core>" for a core host.
std::string node_host_name(unsigned long node);
std::string core_host_name(unsigned long node, int core);

// Whether LEANCAST_SIM_HOSTS (set by leancast-sim) leaves one host per core (anything but
// "nodes", unset included).
bool hosts_are_cores();

// Builds node `node` inside `parent`; returns the node zone's netpoint and its gateway,
// as SimGrid's cluster builders (ClusterCallbacks::netpoint) expect.
//
// Routes: a message between two ranks of one node crosses the sender's send port, the
// memory bus and the receiver's receive port; a message leaving the node crosses the
// sender's send port, the bus and the NIC. (SimGrid's star zone counts a link once per
// route, so the bus is loaded once per message; its bandwidth is fitted with that in
// mind, see hornet.cpp.)
std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> build_node(
    simgrid::s4u::NetZone* parent, unsigned long node, const NodeModel& model);

// Callbacks for SimGrid's cluster builders (dragonfly, fat tree...) that make every leaf
// a node of `model` (copied into the callbacks).
simgrid::s4u::ClusterCallbacks node_callbacks(const NodeModel& model);

// Nodes the platform must hold: LEANCAST_SIM_NODES (set by leancast-sim), else `fallback`.
unsigned long nodes_wanted(unsigned long fallback);

}  // namespace leancast::sim
