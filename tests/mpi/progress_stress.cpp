// progress_stress: a correct MPI program that keeps a window of nonblocking operations
// outstanding on four communicators (broadcasts, the library's nonblocking collectives,
// point-to-point messages, persistent broadcasts and sends) and completes them in a random
// order with every completion function, mixed with blocking point-to-point calls and
// blocking broadcasts (and, with --blocking-collectives under MPI_THREAD_MULTIPLE, blocking
// collectives). MPI promises that it completes; it checks every byte and the outputs of
// every completion call (flags, indices, counts, statuses, handles).
//
// Every rank draws the same program (which operation on which communicator, root, size,
// algorithm) from --seed, and its own completion order from --seed and its rank, so a run is
// reproducible. Built twice: linked with libleancast (USE_LEANCAST_API: broadcasts through
// LC_Ibcast_with, LC_Bcast_with and LC_Bcast_init with LC_Start, each with an algorithm
// drawn from every name the registry gives), and plain (MPI_Ibcast, MPI_Bcast with
// --blocking-bcast: for the interposer). A watchdog ends a run that outlives --deadline
// seconds, naming the operation it hung in.
//
// --file-window-calls: the blocking collectives also open, write, read and close a file
// (MPI-IO), allocate a window and put into it between fences, and make an intercommunicator
// between two halves of the communicator (drawn from a stream of their own, so that a seed's
// program is otherwise the same).
// --library-progress: the blocking calls that MPI may leave to the library's own (a blocking
// collective, a blocking broadcast that auto or mpi leaves to it) are made below
// MPI_THREAD_MULTIPLE too, where leancast steps its broadcasts inside Open MPI's progress
// engine, and where MPICH's has no place for it, auto leaves nonblocking broadcasts to the
// library (so under MPICH only plain, with auto: docs/nonblocking.md#progress).
//
//   progress_stress [--seed S] [--ops N] [--window W] [--max-bytes B] [--deadline SECONDS]
//                   [--thread-multiple] [--blocking-collectives] [--blocking-bcast]
//                   [--library-progress] [--file-window-calls]
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#ifdef USE_LEANCAST_API
#include <leancast/leancast.h>

#include "test_support.hpp"
#endif

namespace {

struct Options {
  std::uint64_t seed = 1;
  int ops = 300;
  int window = 20;
  std::uint64_t max_bytes = 200000;
  int deadline = 100;
  bool thread_multiple = false;
  bool blocking_collectives = false;
  bool blocking_bcast = false;
  bool library_progress = false;
  bool file_window_calls = false;
};

int rank = 0, procs = 1;
long failures = 0;
volatile sig_atomic_t current_op = -1;

void fail(const std::string& what, long op, long detail = 0) {
  if (++failures <= 20) std::printf("rank %d: op %ld: %s (%ld)\n", rank, op, what.c_str(), detail);
}

void on_deadline(int) {
  char text[128];
  const int n = std::snprintf(text, sizeof text, "progress_stress: rank %d: HANG at op %d\n", rank,
                              static_cast<int>(current_op));
  if (n > 0) (void)!write(2, text, static_cast<std::size_t>(n));
  _exit(3);
}

unsigned char pattern(std::uint64_t seed, std::uint64_t i) {
  return static_cast<unsigned char>((seed * 131 + i * 7 + (i >> 9) + 1) & 0xff);
}

// A message's data: `count` elements of `type`; the sender's (root's) hold the pattern of a
// seed, the others' zeros, and the gaps of the strided type stay zero.
struct Data {
  std::vector<unsigned char> memory;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  std::size_t unit = 1, step = 1;  // bytes per element, and from one element to the next

  void fill(std::uint64_t seed, bool sender) {
    std::fill(memory.begin(), memory.end(), 0);
    if (sender) each([&](std::size_t at, std::size_t i) { memory[at] = pattern(seed, i); });
  }
  long wrong(std::uint64_t seed) const {
    long bad = memory.back() != 0 ? 1 : 0;  // one byte past the end stays untouched
    each([&](std::size_t at, std::size_t i) { bad += memory[at] != pattern(seed, i); });
    return bad;
  }
  template <class Fn>
  void each(Fn fn) const {
    std::size_t i = 0;
    for (int e = 0; e < count; ++e) {
      for (std::size_t b = 0; b < unit; ++b) fn(e * step + b, i++);
    }
  }
};

// kind 0: bytes, 1: ints, 2: ints with a gap of one int after each (`strided`).
std::unique_ptr<Data> make_data(std::uint64_t bytes, std::uint64_t kind, MPI_Datatype strided) {
  auto data = std::make_unique<Data>();
  data->count = static_cast<int>(kind == 0 ? bytes : bytes / sizeof(int));
  if (kind != 0) {
    data->type = kind == 1 ? MPI_INT : strided;
    data->unit = sizeof(int);
    data->step = kind == 1 ? sizeof(int) : 2 * sizeof(int);
  }
  data->memory.assign(data->step * static_cast<std::size_t>(data->count) + 1, 0);
  return data;
}

// A persistent request (and, for a send, its receive) kept for the whole run.
struct Slot {
  MPI_Comm comm = MPI_COMM_NULL;
  bool broadcast = false;
  int root = 0;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // broadcast, or receive + send
#ifdef USE_LEANCAST_API
  LC_Persistent persistent = LC_PERSISTENT_NULL;  // a broadcast's: each start a new request
#endif
  std::unique_ptr<Data> data, in;
  int pending = 0;  // of its requests started and not yet completed on this rank
};

// One outstanding request and what to check when it completes.
struct Pending {
  MPI_Request* handle;   // its own (`owned`) or a Slot's
  Slot* slot = nullptr;  // persistent
  bool stays = false;    // the handle stays, inactive (the library's persistent requests)
  std::function<void(const MPI_Status&)> check;
  long op = 0;
  std::shared_ptr<MPI_Request> owned;
  std::vector<std::shared_ptr<void>> buffers;  // what the operation reads or writes
};

class Stress {
 public:
  explicit Stress(const Options& o)
      : o_(o), program_(o.seed), local_(o.seed * 7919 + rank), extra_(o.seed * 31 + 1) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    mpich_ = std::strstr(version, "MPICH") != nullptr;
    if (o.file_window_calls) {  // the files' names: this job's
      job_ = rank == 0 ? static_cast<long>(getpid()) : 0;
      MPI_Bcast(&job_, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    }
    MPI_Datatype one = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, 2 * sizeof(int), &strided_);
    MPI_Type_free(&one);
    MPI_Type_commit(&strided_);
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    comms_.push_back(c);
    MPI_Comm_split(MPI_COMM_WORLD, 0, procs - rank, &c);  // the ranks reversed
    comms_.push_back(c);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);  // two halves
    comms_.push_back(c);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    comms_.push_back(c);
    // Each communicator's private duplicate, so that its nonblocking broadcasts may be
    // leancast's (a nonblocking call may not make one): LC_Comm_prepare where linked, else
    // a blocking broadcast that moves data, through the interposer.
    for (MPI_Comm comm : comms_) {
#ifdef USE_LEANCAST_API
      LC_Comm_prepare(comm);
#else
      int word = 0;
      MPI_Bcast(&word, 1, MPI_INT, 0, comm);
#endif
    }
#ifdef USE_LEANCAST_API
    algorithms_ = leancast::test::algorithm_names_under_test();
    algorithms_.push_back("mpi");
#endif
    make_slots();
  }

  ~Stress() {
    for (auto& slot : slots_) {
      for (MPI_Request& r : slot->requests) {
        if (r != MPI_REQUEST_NULL && !slot->broadcast) MPI_Request_free(&r);
      }
#ifdef USE_LEANCAST_API
      if (slot->persistent != LC_PERSISTENT_NULL) LC_Persistent_free(&slot->persistent);
#endif
    }
    for (MPI_Comm& c : comms_) MPI_Comm_free(&c);
    MPI_Type_free(&strided_);
  }

  long broadcasts() const { return broadcasts_; }

  void run() {
    for (int op = 0; op < o_.ops; ++op) {
      current_op = op;
      step(op);
      while (!pending_.empty() &&
             (static_cast<int>(pending_.size()) >= o_.window || local_() % 3 == 0)) {
        complete_some(op);
      }
    }
    current_op = o_.ops;
    while (!pending_.empty()) complete_some(o_.ops);
  }

 private:
  // The program's draws: the same on every rank.
  std::uint64_t draw(std::uint64_t n) { return program_() % n; }
  std::uint64_t draw_bytes() {
    if (draw(8) == 0) return draw(3);  // 0, 1 or 2 bytes
    const int bits = 1 + static_cast<int>(draw(64 - __builtin_clzll(o_.max_bytes)));
    return std::min<std::uint64_t>(o_.max_bytes, (1ull << (bits - 1)) + draw(1ull << (bits - 1)));
  }
  std::string draw_algorithm(bool blocking) {
    if (algorithms_.empty()) return {};
    for (;;) {
      std::string name = algorithms_[draw(algorithms_.size())];
      // auto and mpi may leave a blocking broadcast to the library's MPI_Bcast, a blocking
      // collective: it moves this rank's broadcasts only under MPI_THREAD_MULTIPLE or
      // inside the library's progress engine.
      if (!blocking || o_.thread_multiple || o_.library_progress ||
          (name != "auto" && name != "mpi")) {
        return name;
      }
    }
  }

  static int rank_in(MPI_Comm c) {
    int r = 0;
    MPI_Comm_rank(c, &r);
    return r;
  }
  static int size_of(MPI_Comm c) {
    int s = 0;
    MPI_Comm_size(c, &s);
    return s;
  }

  void step(int op) {
    const std::uint64_t kind = draw(100);
    MPI_Comm comm = comms_[draw(comms_.size())];
    if (kind < 40) {
      start_bcast(op, comm);
    } else if (kind < 55) {
      start_collective(op, comm, draw(4));
    } else if (kind < 68) {
      start_ring(op, comm, draw_bytes());
    } else if (kind < 76) {
      start_slot(op, *slots_[draw(slots_.size())]);
    } else if (kind < 86) {
      blocking_p2p(op, comm, draw(3), draw_bytes());
    } else if (kind < 93) {
      blocking_bcast(op, comm);
    } else if (o_.blocking_collectives) {
      blocking_collective(op, comm, draw(2));
    }
  }

  // A request of its own, pending until a completion call completes it; `buffers` live as
  // long.
  MPI_Request* expect(long op, std::function<void(const MPI_Status&)> check,
                      std::vector<std::shared_ptr<void>> buffers) {
    auto handle = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    pending_.push_back(
        {handle.get(), nullptr, false, std::move(check), op, handle, std::move(buffers)});
    return handle.get();
  }
  std::function<void(const MPI_Status&)> bytes_check(long op, const Data* data, std::string what) {
    return [=](const MPI_Status&) {
      if (long bad = data->wrong(op)) fail("wrong bytes: " + what, op, bad);
    };
  }

  std::shared_ptr<Data> bcast_data(int op, MPI_Comm comm, int root) {
    std::shared_ptr<Data> data = make_data(draw_bytes(), draw(3), strided_);
    data->fill(op, rank_in(comm) == root);
    return data;
  }

  void start_bcast(int op, MPI_Comm comm) {
    const int root = static_cast<int>(draw(size_of(comm)));
    const auto data = bcast_data(op, comm, root);
    const std::string algorithm = draw_algorithm(false);
    MPI_Request* request = expect(op, bytes_check(op, data.get(), "Ibcast " + algorithm), {data});
#ifdef USE_LEANCAST_API
    const int rc = LC_Ibcast_with(data->memory.data(), data->count, data->type, root, comm,
                                  algorithm.c_str(), request);
#else
    const int rc = MPI_Ibcast(data->memory.data(), data->count, data->type, root, comm, request);
#endif
    if (rc != MPI_SUCCESS) {
      pending_.pop_back();
      return fail("MPI_Ibcast " + algorithm, op, rc);
    }
    ++broadcasts_;
  }

  void blocking_bcast(int op, MPI_Comm comm) {
    const int root = static_cast<int>(draw(size_of(comm)));
    const auto data = bcast_data(op, comm, root);
    const std::string algorithm = draw_algorithm(true);
#ifdef USE_LEANCAST_API
    const int rc =
        LC_Bcast_with(data->memory.data(), data->count, data->type, root, comm, algorithm.c_str());
#else
    if (!o_.blocking_bcast && !o_.blocking_collectives) return;
    const int rc = MPI_Bcast(data->memory.data(), data->count, data->type, root, comm);
#endif
    if (rc != MPI_SUCCESS) return fail("MPI_Bcast " + algorithm, op, rc);
    ++broadcasts_;
    bytes_check(op, data.get(), "Bcast " + algorithm)(MPI_Status{});
  }

  // 0 Iallreduce, 1 Iallgather, 2 Ibarrier, 3 the library's own Ibcast.
  void start_collective(int op, MPI_Comm comm, std::uint64_t which) {
    const int size = size_of(comm), me = rank_in(comm);
    const auto values = std::make_shared<std::vector<int>>(2 * size + 64, -1);
    int* v = values->data();
    int rc = MPI_SUCCESS;
    if (which == 0) {
      for (int i = 0; i < 32; ++i) v[i] = op + i + me;
      MPI_Request* request = expect(op,
                                    [=](const MPI_Status&) {
                                      for (int i = 0; i < 32; ++i) {
                                        if (v[32 + i] != size * (op + i) + size * (size - 1) / 2)
                                          return fail("Iallreduce", op, i);
                                      }
                                    },
                                    {values});
      rc = MPI_Iallreduce(v, v + 32, 32, MPI_INT, MPI_SUM, comm, request);
    } else if (which == 1) {
      v[0] = op * 10 + me;
      MPI_Request* request = expect(op,
                                    [=](const MPI_Status&) {
                                      for (int i = 0; i < size; ++i) {
                                        if (v[1 + i] != op * 10 + i)
                                          return fail("Iallgather", op, i);
                                      }
                                    },
                                    {values});
      rc = MPI_Iallgather(v, 1, MPI_INT, v + 1, 1, MPI_INT, comm, request);
    } else if (which == 2) {
      rc = MPI_Ibarrier(comm, expect(op, [](const MPI_Status&) {}, {}));
    } else {
      const int root = op % size;
      if (me == root) v[0] = op;
      MPI_Request* request = expect(op,
                                    [=](const MPI_Status&) {
                                      if (v[0] != op) fail("PMPI_Ibcast", op, v[0]);
                                    },
                                    {values});
      rc = PMPI_Ibcast(v, 1, MPI_INT, root, comm, request);
    }
    if (rc != MPI_SUCCESS) fail("a nonblocking collective failed to start", op, rc);
  }

  // Every rank sends `bytes` to its right neighbour and receives as many from its left.
  void start_ring(int op, MPI_Comm comm, std::uint64_t bytes) {
    const int size = size_of(comm), me = rank_in(comm);
    const int left = (me + size - 1) % size, right = (me + 1) % size, tag = op % 30000;
    std::shared_ptr<Data> out = make_data(bytes, 0, strided_), in = make_data(bytes, 0, strided_);
    out->fill(op * 3 + me, true);
    const Data* got = in.get();
    MPI_Request* receive =
        expect(op,
               [=](const MPI_Status& status) {
                 int count = -1;
                 MPI_Get_count(&status, MPI_BYTE, &count);
                 if (status.MPI_SOURCE != left || status.MPI_TAG != tag || count != got->count) {
                   return fail("a ring message's status", op, status.MPI_SOURCE);
                 }
                 if (long bad = got->wrong(op * 3 + left)) fail("a ring message's bytes", op, bad);
               },
               {in});
    MPI_Irecv(in->memory.data(), in->count, MPI_BYTE, left, tag, comm, receive);
    MPI_Isend(out->memory.data(), out->count, MPI_BYTE, right, tag, comm,
              expect(op, [](const MPI_Status&) {}, {out}));
  }

  // 0: MPI_Sendrecv around the ring; 1: MPI_Ssend and MPI_Recv, odd-even; 2: MPI_Isend, then
  // MPI_Probe and MPI_Recv of the left neighbour's message.
  void blocking_p2p(int op, MPI_Comm comm, std::uint64_t how, std::uint64_t bytes) {
    const int size = size_of(comm), me = rank_in(comm);
    const int left = (me + size - 1) % size, right = (me + 1) % size, tag = op % 30000;
    if (how == 1 && size == 1) return;  // a synchronous send to oneself waits forever
    std::shared_ptr<Data> out = make_data(bytes, 0, strided_), in = make_data(bytes, 0, strided_);
    out->fill(op * 3 + me, true);
    MPI_Status status;
    int rc = MPI_SUCCESS;
    if (how == 0) {
      rc = MPI_Sendrecv(out->memory.data(), out->count, MPI_BYTE, right, tag, in->memory.data(),
                        in->count, MPI_BYTE, left, tag, comm, &status);
    } else if (how == 1) {
      if (me % 2 == 0) rc = MPI_Ssend(out->memory.data(), out->count, MPI_BYTE, right, tag, comm);
      if (rc == MPI_SUCCESS) {
        rc = MPI_Recv(in->memory.data(), in->count, MPI_BYTE, left, tag, comm, &status);
      }
      if (me % 2 == 1 && rc == MPI_SUCCESS) {
        rc = MPI_Ssend(out->memory.data(), out->count, MPI_BYTE, right, tag, comm);
      }
    } else {
      MPI_Isend(out->memory.data(), out->count, MPI_BYTE, right, tag, comm,
                expect(op, [](const MPI_Status&) {}, {out}));
      rc = MPI_Probe(left, tag, comm, &status);
      int count = -1;
      MPI_Get_count(&status, MPI_BYTE, &count);
      if (count != in->count) fail("MPI_Probe's count", op, count);
      if (rc == MPI_SUCCESS) {
        rc = MPI_Recv(in->memory.data(), in->count, MPI_BYTE, left, tag, comm, &status);
      }
    }
    if (rc != MPI_SUCCESS) return fail("a blocking point-to-point call", op, rc);
    if (status.MPI_SOURCE != left || status.MPI_TAG != tag) fail("a blocking receive's status", op);
    if (long bad = in->wrong(op * 3 + left)) fail("a blocking receive's bytes", op, bad);
  }

  void blocking_collective(int op, MPI_Comm comm, std::uint64_t which) {
    const int size = size_of(comm), me = rank_in(comm);
    int rc = MPI_SUCCESS;
    if (o_.file_window_calls) which = extra_() % 5;
    if (which == 2) return file_calls(op, comm);
    if (which == 3) return window_calls(op, comm);
    if (which == 4) return intercomm_calls(op, comm);
    if (which == 0) {
      int in = op + me, out = -1;
      rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
      if (out != size * op + size * (size - 1) / 2) fail("MPI_Allreduce", op, out);
    } else {
      rc = MPI_Barrier(comm);
    }
    if (rc != MPI_SUCCESS) fail("a blocking collective", op, rc);
  }

  // Each rank writes its value at its place in a new file and reads its left neighbour's.
  void file_calls(int op, MPI_Comm comm) {
    const int size = size_of(comm), me = rank_in(comm);
    int first = rank;  // of the ranks in `comm` (the two halves' files must differ)
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    const std::string path = "/tmp/leancast-stress-" + std::to_string(job_) + "-" +
                             std::to_string(op) + "-" + std::to_string(first);
    MPI_File file;
    if (MPI_File_open(comm, path.c_str(),
                      MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                      &file) != MPI_SUCCESS) {
      return fail("MPI_File_open", op);
    }
    int mine = op * 1000 + me, left = -1;
    const MPI_Offset at = static_cast<MPI_Offset>(me) * sizeof(int);
    const MPI_Offset left_at = static_cast<MPI_Offset>((me + size - 1) % size) * sizeof(int);
    if (MPI_File_write_at_all(file, at, &mine, 1, MPI_INT, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        MPI_File_sync(file) != MPI_SUCCESS || MPI_Barrier(comm) != MPI_SUCCESS ||
        MPI_File_sync(file) != MPI_SUCCESS ||
        MPI_File_read_at_all(file, left_at, &left, 1, MPI_INT, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      fail("MPI-IO", op);
    } else if (left != op * 1000 + (me + size - 1) % size) {
      fail("MPI_File_read_at_all", op, left);
    }
    if (MPI_File_close(&file) != MPI_SUCCESS) fail("MPI_File_close", op);
  }

  // Each rank puts its value into its right neighbour's window between two fences, then
  // locks its own. The value is checked under Open MPI only: MPICH 4.0.2's puts into
  // MPI_Win_allocate's windows land wrongly here without leancast too; and not on the two
  // halves, whose windows Open MPI 4.1.4 fails now and then to make at the same time
  // (docs/testing.md).
  void window_calls(int op, MPI_Comm comm) {
    const int size = size_of(comm), me = rank_in(comm);
    if (size != procs) return;
    int* cell = nullptr;
    MPI_Win win;
    if (MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &cell, &win) !=
        MPI_SUCCESS) {
      return fail("MPI_Win_allocate", op);
    }
    *cell = -1;
    const int mine = op * 1000 + me;
    if (MPI_Win_fence(0, win) != MPI_SUCCESS ||
        MPI_Put(&mine, 1, MPI_INT, (me + 1) % size, 0, 1, MPI_INT, win) != MPI_SUCCESS ||
        MPI_Win_fence(0, win) != MPI_SUCCESS) {
      fail("MPI_Put between fences", op);
    } else if (*cell != op * 1000 + (me + size - 1) % size && !mpich_) {
      fail("MPI_Put", op, *cell);
    }
    if (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win) != MPI_SUCCESS ||
        MPI_Win_unlock(me, win) != MPI_SUCCESS) {
      fail("MPI_Win_lock", op);
    }
    if (MPI_Win_free(&win) != MPI_SUCCESS) fail("MPI_Win_free", op);
  }

  // An intercommunicator between the even and the odd ranks of `comm`.
  void intercomm_calls(int op, MPI_Comm comm) {
    const int size = size_of(comm), me = rank_in(comm);
    if (size < 2) return;
    MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    MPI_Comm_split(comm, me % 2, me, &half);
    if (MPI_Intercomm_create(half, 0, comm, me % 2 == 0 ? 1 : 0, op % 1000, &inter) !=
        MPI_SUCCESS) {
      fail("MPI_Intercomm_create", op);
    } else {
      int remote = 0;
      MPI_Comm_remote_size(inter, &remote);
      if (remote != (me % 2 == 0 ? size / 2 : (size + 1) / 2))
        fail("MPI_Comm_remote_size", op, remote);
      MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&half);
  }

  // Per communicator a persistent broadcast (linked build: leancast's own handle; the
  // interposer leaves MPI_Bcast_init to the library) and a persistent send to the right
  // neighbour with its receive from the left.
  void make_slots() {
    for (MPI_Comm comm : comms_) {
      const int size = size_of(comm), me = rank_in(comm);
#ifdef USE_LEANCAST_API
      auto bcast = std::make_unique<Slot>();
      bcast->comm = comm;
      bcast->broadcast = true;
      bcast->root = size - 1;
      bcast->data = make_data(70000 + 1000 * slots_.size(), slots_.size() % 3, strided_);
      Data& d = *bcast->data;
      MPI_Info info = MPI_INFO_NULL;
      MPI_Info_create(&info);
      MPI_Info_set(info, "leancast_bcast_algorithm",
                   algorithms_[slots_.size() % algorithms_.size()].c_str());
      LC_Bcast_init(d.memory.data(), d.count, d.type, bcast->root, comm, info, &bcast->persistent);
      MPI_Info_free(&info);
      slots_.push_back(std::move(bcast));
#endif
      auto send = std::make_unique<Slot>();
      send->comm = comm;
      send->data = make_data(5000, 0, strided_);
      send->in = make_data(5000, 0, strided_);
      MPI_Recv_init(send->in->memory.data(), 5000, MPI_BYTE, (me + size - 1) % size, 30001, comm,
                    &send->requests[0]);
      MPI_Send_init(send->data->memory.data(), 5000, MPI_BYTE, (me + 1) % size, 30001, comm,
                    &send->requests[1]);
      slots_.push_back(std::move(send));
    }
  }

  // Starts a slot again, after completing its last start on this rank if still pending.
  void start_slot(int op, Slot& slot) {
    while (slot.pending > 0) {
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (pending_[i].slot == &slot) {
          complete(op, {i}, 0);
          break;
        }
      }
    }
    const int me = rank_in(slot.comm), size = size_of(slot.comm);
    const int active = slot.broadcast ? 1 : 2;
    slot.data->fill(slot.broadcast ? op : op * 5 + me, !slot.broadcast || me == slot.root);
    if (slot.in) slot.in->fill(0, false);
#ifdef USE_LEANCAST_API
    const int rc =
        active == 1 ? LC_Start(slot.persistent, &slot.requests[0]) : MPI_Startall(2, slot.requests);
#else
    const int rc = MPI_Startall(2, slot.requests);
#endif
    if (rc != MPI_SUCCESS) return fail("MPI_Start", op, rc);
    slot.pending = active;
    if (slot.broadcast) {
      pending_.push_back({&slot.requests[0],
                          &slot,
                          false,
                          bytes_check(op, slot.data.get(), "persistent"),
                          op,
                          {},
                          {}});
      return;
    }
    const int left = (me + size - 1) % size;
    const Data* in = slot.in.get();
    pending_.push_back({&slot.requests[0],
                        &slot,
                        true,
                        [=](const MPI_Status& status) {
                          if (status.MPI_SOURCE != left) fail("a persistent receive's source", op);
                          if (long bad = in->wrong(op * 5 + left))
                            fail("a persistent receive", op, bad);
                        },
                        op,
                        {},
                        {}});
    pending_.push_back({&slot.requests[1], &slot, true, [](const MPI_Status&) {}, op, {}, {}});
  }

  // Some pending requests, completed by a completion function drawn from this rank's own
  // generator.
  void complete_some(long op) {
    std::vector<std::size_t> all(pending_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::shuffle(all.begin(), all.end(), local_);
    all.resize(1 + local_() % std::min<std::size_t>(all.size(), 6));
    complete(op, all, static_cast<int>(local_() % 9));
  }

  // Completes (some of) pending_[picked] with function `how`, checks its outputs, runs each
  // completed request's check and forgets it.
  void complete(long op, std::vector<std::size_t> picked, int how);

  Options o_;
  std::mt19937_64 program_;
  std::mt19937_64 local_;
  std::mt19937_64 extra_;  // --file-window-calls' draws (the same on every rank)
  long job_ = 0;
  bool mpich_ = false;
  MPI_Datatype strided_ = MPI_DATATYPE_NULL;
  std::vector<MPI_Comm> comms_;
  std::vector<std::string> algorithms_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Pending> pending_;
  long broadcasts_ = 0;
};

const char* const kFunctions[] = {"MPI_Wait",     "MPI_Test",     "MPI_Waitall",
                                  "MPI_Testall",  "MPI_Waitany",  "MPI_Testany",
                                  "MPI_Waitsome", "MPI_Testsome", "MPI_Request_get_status"};

void Stress::complete(long op, std::vector<std::size_t> picked, int how) {
  // MPICH 4.0's MPI_Request_get_status calls no generalized request's poll function, so a
  // loop on it alone steps no leancast broadcast where no progress thread does (below
  // MPI_THREAD_MULTIPLE): MPI_Test instead there (docs/nonblocking.md#progress).
  if (how == 8 && mpich_ && !o_.thread_multiple) how = 1;
  const int n = static_cast<int>(picked.size());
  if (how <= 1 || how == 8) picked.resize(1);
  const int k = static_cast<int>(picked.size());
  std::vector<MPI_Request> requests(k), before(k);
  for (int i = 0; i < k; ++i) requests[i] = before[i] = *pending_[picked[i]].handle;
  std::vector<MPI_Status> statuses(k);
  std::vector<int> done;  // positions in `picked` that completed
  const std::string name = kFunctions[how];
  const auto bad = [&](const char* what, long value) { fail(name + ": " + what, op, value); };
  int rc = MPI_SUCCESS, flag = 0, index = MPI_UNDEFINED, outcount = MPI_UNDEFINED;
  std::vector<int> indices(k, -1);
  switch (how) {
    case 0:
      rc = MPI_Wait(&requests[0], &statuses[0]);
      done = {0};
      break;
    case 1:
    case 3:
      do {
        flag = -1;
        rc = how == 1 ? MPI_Test(&requests[0], &flag, &statuses[0])
                      : MPI_Testall(k, requests.data(), &flag, statuses.data());
        if (flag != 0 && flag != 1) bad("flag is neither 0 nor 1", flag);
        if (!flag && requests != before) bad("a request changed although flag is 0", 0);
      } while (rc == MPI_SUCCESS && flag == 0);
      for (int i = 0; i < k; ++i) done.push_back(i);
      break;
    case 2:
      rc = MPI_Waitall(k, requests.data(), statuses.data());
      for (int i = 0; i < k; ++i) done.push_back(i);
      break;
    case 4:
    case 5:
      do {
        flag = -1;
        index = -7;
        rc = how == 4 ? (flag = 1, MPI_Waitany(k, requests.data(), &index, &statuses[0]))
                      : MPI_Testany(k, requests.data(), &index, &flag, &statuses[0]);
        if (flag != 0 && flag != 1) bad("flag is neither 0 nor 1", flag);
        if (!flag && index != MPI_UNDEFINED)
          bad("index is not MPI_UNDEFINED although flag is 0", index);
        if (flag && (index < 0 || index >= k)) bad("index out of range", index);
      } while (rc == MPI_SUCCESS && flag == 0);
      if (index >= 0 && index < k) {
        statuses[index] = statuses[0];
        done = {index};
      }
      break;
    case 6:
    case 7:
      do {
        outcount = -7;
        rc = how == 6
                 ? MPI_Waitsome(k, requests.data(), &outcount, indices.data(), statuses.data())
                 : MPI_Testsome(k, requests.data(), &outcount, indices.data(), statuses.data());
        if (outcount < 0 || outcount > k || (how == 6 && outcount == 0)) bad("outcount", outcount);
      } while (rc == MPI_SUCCESS && outcount == 0);
      for (int j = 0; j < std::max(outcount, 0) && j < k; ++j) {
        const int i = indices[j];
        if (i < 0 || i >= k || std::count(indices.begin(), indices.begin() + outcount, i) != 1) {
          bad("indices", i);
          continue;
        }
        done.push_back(i);
      }
      {
        std::vector<MPI_Status> by_request(k);
        for (int j = 0; j < static_cast<int>(done.size()); ++j) by_request[done[j]] = statuses[j];
        statuses = by_request;
      }
      break;
    case 8:
      do {
        flag = -1;
        rc = MPI_Request_get_status(requests[0], &flag, &statuses[0]);
        if (flag != 0 && flag != 1) bad("flag is neither 0 nor 1", flag);
      } while (rc == MPI_SUCCESS && flag == 0);
      if (requests[0] != before[0]) bad("the request changed", 0);
      rc = MPI_Wait(&requests[0], &statuses[0]);
      done = {0};
      break;
  }
  if (rc != MPI_SUCCESS) bad("returned an error", rc);
  (void)n;
  std::vector<bool> completed(k, false);
  for (int i : done) completed[i] = true;
  for (int i = 0; i < k; ++i) {
    Pending& p = pending_[picked[i]];
    if (!completed[i]) {
      if (requests[i] != before[i]) bad("a request that did not complete changed", i);
      continue;
    }
    if (p.stays ? requests[i] != before[i] : requests[i] != MPI_REQUEST_NULL) {
      bad(p.stays ? "a persistent request's handle changed"
                  : "a completed request's handle is not MPI_REQUEST_NULL",
          i);
    }
    *p.handle = requests[i];
    p.check(statuses[i]);
    if (p.slot != nullptr) --p.slot->pending;
  }
  // Forget the completed ones, highest position first.
  std::vector<std::size_t> gone;
  for (int i = 0; i < k; ++i) {
    if (completed[i]) gone.push_back(picked[i]);
  }
  std::sort(gone.rbegin(), gone.rend());
  for (std::size_t at : gone) pending_.erase(pending_.begin() + static_cast<long>(at));
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&] { return i + 1 < argc ? std::strtoull(argv[++i], nullptr, 10) : 0ull; };
    if (a == "--seed")
      o.seed = value();
    else if (a == "--ops")
      o.ops = static_cast<int>(value());
    else if (a == "--window")
      o.window = std::max(1, static_cast<int>(value()));
    else if (a == "--max-bytes")
      o.max_bytes = std::max<std::uint64_t>(4, value());
    else if (a == "--deadline")
      o.deadline = static_cast<int>(value());
    else if (a == "--thread-multiple")
      o.thread_multiple = true;
    else if (a == "--blocking-collectives")
      o.blocking_collectives = true;
    else if (a == "--blocking-bcast")
      o.blocking_bcast = true;
    else if (a == "--library-progress")
      o.library_progress = true;
    else if (a == "--file-window-calls")
      o.file_window_calls = true;
    else {
      std::fprintf(stderr, "progress_stress: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, o.thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                  &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  if (o.thread_multiple && provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::printf("skipped: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    return 77;
  }
  if (o.blocking_collectives && !o.thread_multiple && !o.library_progress) {
    if (rank == 0)
      std::printf("--blocking-collectives needs --thread-multiple or --library-progress\n");
    MPI_Finalize();
    return 2;
  }
  signal(SIGALRM, on_deadline);
  alarm(static_cast<unsigned>(o.deadline));
  long made = 0;
  {
    Stress stress(o);
    stress.run();
    made = stress.broadcasts();
  }
  alarm(0);
  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("progress_stress: seed %llu, %d operations, window %d, P = %d: ",
                static_cast<unsigned long long>(o.seed), o.ops, o.window, procs);
    if (total == 0) {
      std::printf("made at least %ld broadcasts; all data correct\n", made);
    } else {
      std::printf("FAILED: %ld wrong results\n", total);
    }
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
