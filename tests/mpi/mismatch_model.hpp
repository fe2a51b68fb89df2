// What the dataflow executor does when the ranks disagree on a broadcast, worked out
// without MPI: each rank runs the schedule of its own view, MPI pairs the k-th send from a
// rank with the k-th receive from it (any tag), and the executor's rules decide the rest
// (receives posted in schedule order, `window` operations at a time; a send once its bytes
// are held; a message of another signature or length, or flagged, is an error; the bytes
// count as held anyway and what depends on them goes out flagged). Messages are assumed
// eager (at most kEagerBytes, as in the tests): a send completes without its receive, so
// the executor's send window and round order never hold a send back for long, and a send
// goes out once its bytes are held.
//
// It tells the mismatch tests which cases would leave a rank waiting forever (not run), and
// which ranks are sure to return an error: those a revealing or flagged message reaches.
// Whether a send that does not depend on the error is flagged depends on timing, so other
// ranks may return an error too, or the right data.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <leancast/algorithm.hpp>
#include <leancast/schedule.hpp>

namespace leancast::test {

// What one rank believes the broadcast is.
struct View {
  AlgorithmSpec algorithm;
  int root = 0;
  std::uint64_t bytes = 0;
};

// Messages up to this size are sent eagerly by both MPI libraries here (Open MPI's shared
// memory eager limit is 4 KiB): a left-over one completes at its sender. A larger left-over
// message is never received, so its sender waits forever.
constexpr std::uint64_t kEagerBytes = 4096;

struct Prediction {
  std::vector<bool> must_fail;  // per rank: a revealing or flagged message reaches it
  bool hangs = false;           // some rank waits forever
  std::uint64_t leftovers = 0;  // messages no receive takes: stale on the communicator
  // A receive takes a stale message of its own signature and length: its bytes are wrong
  // and nothing tells (identical signatures cannot be told apart).
  bool silently_stale = false;
  std::string reason;  // why it hangs, or what is left over
};

// The broadcasts of one communicator, one after another: messages one leaves over are
// taken by the receives of the next.
class Model {
 public:
  // `nodes`: the node map the library uses; `window`: receives in flight (LEANCAST_WINDOW);
  // `sequences`: the tags carry broadcast sequence numbers (broadcast_tag.hpp), so a
  // receive passes over messages of earlier broadcasts, and its rank reports an error.
  Model(std::shared_ptr<const NodeMap> nodes, int window, bool sequences)
      : nodes_(std::move(nodes)), window_(window), sequences_(sequences) {}

  // One broadcast, `views[r]` rank r's view of it.
  Prediction run(const std::vector<View>& views);

  struct Message {
    std::uint64_t length;
    int signature;
    bool flagged;   // surely flagged: its bytes depend on a receive that failed
    int broadcast;  // which run() sent it
  };

 private:
  std::shared_ptr<const NodeMap> nodes_;
  int window_;
  bool sequences_;
  int broadcasts_ = 0;
  std::map<std::pair<int, int>, std::vector<Message>> stale_;  // (from, to) -> in order
};

}  // namespace leancast::test
