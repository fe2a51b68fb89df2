// bcast_boost: a Boost.MPI program that knows nothing of leancast. boost::mpi::broadcast
// of plain arrays (one MPI_Bcast of MPI_INT) and of serialized values (a size, then
// MPI_PACKED bytes), on the world communicator and on a split one; every value checked.
#include <boost/mpi.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace mpi = boost::mpi;

namespace {

int check_world(const mpi::communicator& world) {
  int failures = 0;
  for (int root = 0; root < world.size(); ++root) {
    std::vector<int> numbers;
    if (world.rank() == root)
      for (int i = 0; i < 50000; ++i) numbers.push_back(i * 3 + root);
    mpi::broadcast(world, numbers, root);
    bool ok = numbers.size() == 50000;
    for (int i = 0; ok && i < 50000; ++i) ok = numbers[i] == i * 3 + root;
    failures += !ok;

    std::map<std::string, int> table;
    if (world.rank() == root) table = {{"root", root}, {std::string(20000, 'x'), 7}};
    mpi::broadcast(world, table, root);
    failures += table.size() != 2 || table["root"] != root || table[std::string(20000, 'x')] != 7;

    int plain[1000];
    for (int i = 0; i < 1000; ++i) plain[i] = world.rank() == root ? i - root : 0;
    mpi::broadcast(world, plain, 1000, root);
    for (int i = 0; i < 1000; ++i) failures += plain[i] != i - root;
  }
  return failures;
}

int check_split(const mpi::communicator& world) {
  const mpi::communicator half = world.split(world.rank() % 2);
  std::string text;
  if (half.rank() == 0) text = std::string(100000, 'a') + std::to_string(world.rank() % 2);
  mpi::broadcast(half, text, 0);
  return text != std::string(100000, 'a') + std::to_string(world.rank() % 2);
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment environment(argc, argv);
  mpi::communicator world;
  const int failures = check_world(world) + check_split(world);
  if (failures) std::fprintf(stderr, "rank %d: FAILED %d checks\n", world.rank(), failures);
  const int total = mpi::all_reduce(world, failures, std::plus<int>());
  if (world.rank() == 0) {
    std::printf("bcast_boost: rank 0 made at least %d broadcasts; %s\n", 3 * world.size() + 1,
                total ? "FAILED" : "all data correct");
  }
  return total ? 1 : 0;
}
