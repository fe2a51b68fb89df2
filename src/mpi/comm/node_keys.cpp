#include "mpi/comm/node_keys.hpp"

#include <map>
#include <string_view>

namespace leancast::detail {

namespace {

// Written once inside MPI_Init, before any broadcast; read-only after.
std::vector<std::uint64_t> world_keys;

}  // namespace

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

void gather_world_node_keys() {
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(size));
  const std::uint64_t mine = node_key();
  if (PMPI_Allgather(&mine, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD) ==
      MPI_SUCCESS) {
    world_keys = std::move(keys);
  }
}

NodeMap nodes_from_keys(const std::vector<std::uint64_t>& keys) {
  NodeMap nodes(keys.size());
  std::map<std::uint64_t, int> first;
  for (std::size_t r = 0; r < keys.size(); ++r) {
    nodes[r] = first.emplace(keys[r], static_cast<int>(r)).first->second;
  }
  return nodes;
}

std::optional<NodeMap> nodes_from_world(MPI_Comm comm) {
  if (world_keys.empty()) return std::nullopt;
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  int size = 0;
  PMPI_Comm_size(comm, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size)), in_world(ranks.size());
  for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  const int rc = PMPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  if (rc != MPI_SUCCESS) return std::nullopt;
  std::vector<std::uint64_t> keys(ranks.size());
  for (std::size_t r = 0; r < keys.size(); ++r) {
    const int w = in_world[r];
    if (w == MPI_UNDEFINED || w < 0 || static_cast<std::size_t>(w) >= world_keys.size()) {
      return std::nullopt;
    }
    keys[r] = world_keys[static_cast<std::size_t>(w)];
  }
  return nodes_from_keys(keys);
}

}  // namespace leancast::detail
