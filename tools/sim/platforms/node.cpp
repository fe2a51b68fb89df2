#include "node.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdlib>

namespace sg4 = simgrid::s4u;

namespace leancast::sim {

std::string node_host_name(unsigned long node) { return "node-" + std::to_string(node); }

std::string core_host_name(unsigned long node, int core) {
  return node_host_name(node) + "-core-" + std::to_string(core);
}

bool hosts_are_cores() {
  const char* value = std::getenv("LEANCAST_SIM_HOSTS");
  return value == nullptr || std::string(value) != "nodes";
}

namespace {

// The node as one host of `model.cores` cores. A FATPIPE link caps each message at one
// core's copy bandwidth without making the ranks share it (each has its own core); the
// loopback route crosses it as the core-host layout crosses two core links.
void add_node_host(sg4::NetZone* zone, unsigned long node, const NodeModel& model,
                   const sg4::Link* bus) {
  const std::string name = node_host_name(node);
  const sg4::Host* host = zone->create_host(name, 1e9)->set_core_count(model.cores)->seal();
  const auto copy_limit = [&](const std::string& link, double latency) {
    return zone->create_link(link, model.core_bandwidth)
        ->set_latency(latency)
        ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
        ->seal();
  };
  const sg4::Link* core = copy_limit(name + "-core", model.core_latency);
  const sg4::Link* loop = copy_limit(name + "-loopback", 2 * model.core_latency);
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute{core}, sg4::LinkInRoute{bus}}, true);
  zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                  {sg4::LinkInRoute{loop}, sg4::LinkInRoute{bus}}, false);
}

// The send port's bandwidth: the model's, or LEANCAST_SIM_SEND_BANDWIDTH (bytes/s), which
// exists only for the calibration sweep of
// docs/benchmarks.md#the-one-node-model-against-the-real-node.
double send_bandwidth(const NodeModel& model) {
  const char* value = std::getenv("LEANCAST_SIM_SEND_BANDWIDTH");
  const double given = value != nullptr ? std::strtod(value, nullptr) : 0;
  return given > 0 ? given : model.send_bandwidth;
}

// Core `core` as a host of its own. Its ports are SHARED links: all messages the rank has
// in flight share its send port, all it receives share its receive port, as one MPI
// process has one CPU to drive them (and, under single-copy CMA, concurrent readers of one
// process contend). Two links rather than one split-duplex link, so that the two
// directions can differ (hornet.cpp says why they do).
void add_core_host(sg4::NetZone* zone, unsigned long node, int core, const NodeModel& model,
                   const sg4::Link* bus) {
  const std::string name = core_host_name(node, core);
  const sg4::Host* host = zone->create_host(name, 1e9)->seal();
  const auto port = [&](const std::string& link, double bandwidth) {
    return zone->create_link(link, bandwidth)->set_latency(model.core_latency)->seal();
  };
  const sg4::Link* send = port(name + "-send", send_bandwidth(model));
  const sg4::Link* receive = port(name + "-receive", model.core_bandwidth);
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute{send}, sg4::LinkInRoute{bus}}, false);
  zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr,
                  {sg4::LinkInRoute{bus}, sg4::LinkInRoute{receive}}, false);
}

}  // namespace

std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> build_node(
    sg4::NetZone* parent, unsigned long node, const NodeModel& model) {
  const std::string name = node_host_name(node);
  auto* zone = sg4::create_star_zone(name);
  zone->set_parent(parent);
  const sg4::Link* bus = zone->create_link(name + "-memory", model.memory_bandwidth)
                             ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                             ->seal();
  if (hosts_are_cores()) {
    for (int core = 0; core < model.cores; ++core) add_core_host(zone, node, core, model, bus);
  } else {
    add_node_host(zone, node, model, bus);
  }
  auto* gateway = zone->create_router(name + "-nic");
  const sg4::Link* nic = zone->create_split_duplex_link(name + "-nic", model.nic_bandwidth)
                             ->set_latency(model.nic_latency)
                             ->seal();
  zone->add_route(gateway, nullptr, nullptr, nullptr, {{nic, sg4::LinkInRoute::Direction::UP}},
                  true);
  zone->seal();
  return {zone->get_netpoint(), gateway};
}

sg4::ClusterCallbacks node_callbacks(const NodeModel& model) {
  return sg4::ClusterCallbacks([model](sg4::NetZone* zone, const std::vector<unsigned long>&,
                                       unsigned long id) { return build_node(zone, id, model); });
}

unsigned long nodes_wanted(unsigned long fallback) {
  const char* value = std::getenv("LEANCAST_SIM_NODES");
  if (value == nullptr) return fallback;
  const unsigned long nodes = std::strtoul(value, nullptr, 10);
  return nodes > 0 ? nodes : fallback;
}

}  // namespace leancast::sim
