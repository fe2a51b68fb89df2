// One compute node of a simulated platform: its cores are SimGrid hosts (one MPI rank
// each) behind a shared memory bus, and a network interface leads to the interconnect.
#pragma once

#include <simgrid/s4u/NetZone.hpp>

#include <string>
#include <utility>

namespace leancast::sim {

struct NodeModel {
  int cores = 1;
  double memory_bandwidth = 0;  // bytes/s shared by every transfer touching the node
  double core_bandwidth = 0;    // bytes/s one rank can copy on its own
  double core_latency = 0;      // s, per core link crossed (twice per message)
  double nic_bandwidth = 0;     // bytes/s per direction into and out of the node
  double nic_latency = 0;       // s, per network interface crossed
};

// Host name of `core` on node `node`: "node-<node>-core-<core>". leancast-sim writes
// the same names into smpirun's host file.
std::string core_host_name(unsigned long node, int core);

// Builds node `node` inside `parent`; returns the node zone's netpoint and its gateway,
// as SimGrid's cluster builders (ClusterCallbacks::netpoint) expect.
//
// Routes: a message between two cores of one node crosses the sender's core link, the
// memory bus twice (a copy reads and writes the node's memory) and the receiver's core
// link; a message leaving the node crosses its core link, the bus once and the NIC.
std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> build_node(
    simgrid::s4u::NetZone* parent, unsigned long node, const NodeModel& model);

// Callbacks for SimGrid's cluster builders (dragonfly, fat tree...) that make every leaf
// a node of `model` (copied into the callbacks).
simgrid::s4u::ClusterCallbacks node_callbacks(const NodeModel& model);

// Nodes the platform must hold: LEANCAST_SIM_NODES (set by leancast-sim), else `fallback`.
unsigned long nodes_wanted(unsigned long fallback);

}  // namespace leancast::sim
