#include "mpi/comm/node_keys.hpp"

#include <map>
#include <string_view>

namespace leancast::detail {

std::uint64_t node_key() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  // FNV-1a: a stable hash; two node names that collide would be taken for one node.
  std::uint64_t hash = 14695981039346656037ull;
  for (char c : std::string_view(name, static_cast<std::size_t>(length))) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return hash;
}

NodeMap nodes_from_keys(const std::vector<std::uint64_t>& keys) {
  NodeMap nodes(keys.size());
  std::map<std::uint64_t, int> first;
  for (std::size_t r = 0; r < keys.size(); ++r) {
    nodes[r] = first.emplace(keys[r], static_cast<int>(r)).first->second;
  }
  return nodes;
}

}  // namespace leancast::detail
