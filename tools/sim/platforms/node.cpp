#include "node.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdlib>

namespace sg4 = simgrid::s4u;

namespace leancast::sim {

std::string core_host_name(unsigned long node, int core) {
  return "node-" + std::to_string(node) + "-core-" + std::to_string(core);
}

std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> build_node(
    sg4::NetZone* parent, unsigned long node, const NodeModel& model) {
  const std::string name = "node-" + std::to_string(node);
  auto* zone = sg4::create_star_zone(name);
  zone->set_parent(parent);
  const sg4::Link* bus = zone->create_link(name + "-memory", model.memory_bandwidth)
                             ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                             ->seal();
  for (int core = 0; core < model.cores; ++core) {
    const sg4::Host* host = zone->create_host(core_host_name(node, core), 1e9)->seal();
    const sg4::Link* link =
        zone->create_split_duplex_link(core_host_name(node, core), model.core_bandwidth)
            ->set_latency(model.core_latency)
            ->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {{link, sg4::LinkInRoute::Direction::UP}, sg4::LinkInRoute{bus}}, true);
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
  return sg4::ClusterCallbacks(
      [model](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
        return build_node(zone, id, model);
      });
}

unsigned long nodes_wanted(unsigned long fallback) {
  const char* value = std::getenv("LEANCAST_SIM_NODES");
  if (value == nullptr) return fallback;
  const unsigned long nodes = std::strtoul(value, nullptr, 10);
  return nodes > 0 ? nodes : fallback;
}

}  // namespace leancast::sim
