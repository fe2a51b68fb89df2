// leancast's requests in the library's MPI_Wait, MPI_Test, their -all, -any and -some forms
// and MPI_Request_get_status, checked output by output against requests of the library's
// own in the same states.
//
// Each case is an array of requests in known states: the library's own (generalized
// requests completed or not, with a status of their own; null; an inactive persistent
// send) and leancast's (a nonblocking broadcast done, one that cannot complete yet because
// its root has not started it, one done with an error).
// The same array is built a second time with each of leancast's requests replaced by a
// library request in the same state (a generalized request with a broadcast's status, or
// the error), and the library's function runs on it. flag, index, outcount, indices, the
// return code's class, every defined status field (source, tag, count, cancelled, error
// class) and what happened to every handle must agree, with and without a leancast
// broadcast outstanding elsewhere in the process; where a broadcast failed, the outputs
// must be those the standard prescribes (expect_conforms). Ranks 0 and 1 take part; rank 0
// compares.
#include <gtest/gtest.h>
#include <leancast/leancast.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace leancast::test {
namespace {

// What one request is: N null, GD/GP the library's done/pending (a generalized request),
// LD/LP leancast's done/pending, LF leancast's done with an error, IP an inactive
// persistent request of the library's.
enum Kind { N, GD, GP, LD, LP, LF, IP };

const char* name_of(Kind k) {
  static const char* const names[] = {"N", "GD", "GP", "LD", "LP", "LF", "IP"};
  return names[k];
}

// Generalized requests: the library's own carry 3 bytes from (rank, 7); the stand-ins for
// leancast's broadcasts carry what a broadcast's status carries (nothing, any source, any
// tag), or an error.
int own_status(void* extra, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 3);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = *static_cast<int*>(extra);
  status->MPI_TAG = 7;
  return MPI_SUCCESS;
}
int broadcast_status(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  return MPI_SUCCESS;
}
int failed_status(void* extra, MPI_Status* status) {
  broadcast_status(extra, status);
  return MPI_ERR_TRUNCATE;
}
int free_nothing(void*) { return MPI_SUCCESS; }
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

int error_class_of(int code) {
  int c = MPI_SUCCESS;
  MPI_Error_class(code, &c);
  return c;
}

// Communicators of ranks 0 and 1: A for broadcasts that complete, B for those whose root
// (rank 1) starts them only after rank 0 compared, D for the failing ones, C for signals.
struct Pair {
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL, c = MPI_COMM_NULL, d = MPI_COMM_NULL;
  int rank = 0;
  int deferred = 0;  // broadcasts on B rank 0 started and rank 1 owes
};

// One array, as the function under test sees it, with what it needs to be cleaned up.
struct Array {
  std::vector<MPI_Request> requests;
  std::vector<MPI_Request> original;
  std::vector<MPI_Request> pending_grequests;  // to complete at cleanup
  std::vector<std::vector<char>> buffers;
};

int self_rank = 0;

MPI_Request grequest(int (*query)(void*, MPI_Status*), bool done) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Grequest_start(query, free_nothing, cancel_nothing, &self_rank, &r);
  if (done) MPI_Grequest_complete(r);
  return r;
}

// A leancast broadcast on `comm` that is over on rank 0 (polled with MPI_Request_get_status,
// which leaves it to the call under test); rank 1 takes part at once.
MPI_Request finished_broadcast(Pair& pair, MPI_Comm comm, int my_count, std::vector<char>& buf) {
  buf.assign(2000, 0);
  MPI_Request r = MPI_REQUEST_NULL;
  EXPECT_EQ(LC_Ibcast_with(buf.data(), my_count, MPI_BYTE, 1, comm, "binomial", &r), MPI_SUCCESS);
  if (pair.rank == 0) {
    for (int flag = 0; !flag;) MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  return r;
}

// Builds the array of `kinds` on rank 0: leancast's own requests (real) or their
// stand-ins (reference). Rank 1 only takes part in the broadcasts that complete.
Array build(Pair& pair, const std::vector<Kind>& kinds, bool real) {
  Array array;
  array.buffers.resize(kinds.size());
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    MPI_Request r = MPI_REQUEST_NULL;
    std::vector<char>& buf = array.buffers[i];
    switch (kinds[i]) {
      case N:
        break;
      case GD:
      case GP:
        r = grequest(own_status, kinds[i] == GD);
        break;
      case LD:
      case LF:
        if (real) {
          // LF: rank 1 (the root) broadcasts 1100 bytes where rank 0 expects 1000.
          r = finished_broadcast(pair, kinds[i] == LD ? pair.a : pair.d,
                                 kinds[i] == LF && pair.rank == 1 ? 1100 : 1000, buf);
        } else {
          r = grequest(kinds[i] == LD ? broadcast_status : failed_status, true);
        }
        break;
      case LP:
        if (real && pair.rank == 0) {
          buf.assign(1000, 0);
          LC_Ibcast_with(buf.data(), 1000, MPI_BYTE, 1, pair.b, "binomial", &r);
          ++pair.deferred;
        } else if (!real) {
          r = grequest(broadcast_status, false);
        }
        break;
      case IP:
        buf.assign(1000, 0);
        if (pair.rank == 0) {
          MPI_Send_init(buf.data(), 10, MPI_BYTE, 0, 99, MPI_COMM_SELF, &r);
        }
        break;
    }
    if (kinds[i] == GP || (!real && kinds[i] == LP)) array.pending_grequests.push_back(r);
    array.requests.push_back(r);
  }
  array.original = array.requests;
  return array;
}

// Rank 1 starts the broadcasts it owes; rank 0 completes everything left and frees the
// persistent requests.
void clean_up(Pair& pair, Array& array, const std::vector<Kind>& kinds, bool real) {
  if (pair.rank == 0 && real) {
    MPI_Send(&pair.deferred, 1, MPI_INT, 1, 1, pair.c);
  } else if (pair.rank == 1 && real) {
    int owed = 0;
    MPI_Recv(&owed, 1, MPI_INT, 0, 1, pair.c, MPI_STATUS_IGNORE);
    for (int k = 0; k < owed; ++k) {
      std::vector<char> buf(1000, 0);
      MPI_Request r = MPI_REQUEST_NULL;
      LC_Ibcast_with(buf.data(), 1000, MPI_BYTE, 1, pair.b, "binomial", &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  }
  pair.deferred = 0;
  for (MPI_Request g : array.pending_grequests) MPI_Grequest_complete(g);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    MPI_Request& r = array.requests[i];
    if (r == MPI_REQUEST_NULL) continue;
    if (kinds[i] == IP) {
      MPI_Request_free(&r);
    } else {
      (real ? MPI_Wait : PMPI_Wait)(&r, MPI_STATUS_IGNORE);
    }
  }
}

// A status as far as the function defines it; error_class only with MPI_ERR_IN_STATUS.
struct StatusView {
  int source = 0, tag = 0, count = 0, cancelled = 0, error_class = -1;
  friend bool operator==(const StatusView&, const StatusView&) = default;
};

std::ostream& operator<<(std::ostream& out, const StatusView& s) {
  return out << "{source " << s.source << " tag " << s.tag << " count " << s.count << " cancelled "
             << s.cancelled << " error " << s.error_class << "}";
}

// What a completion call gave back.
struct Outputs {
  int rc_class = -1, flag = -7, index = -7, outcount = -7;
  std::vector<int> indices;
  std::vector<StatusView> statuses;  // the defined ones, in the function's order
  std::vector<std::string> handles;  // per position: null, same, or other
};

StatusView view(const MPI_Status& s, bool with_error) {
  StatusView v;
  MPI_Get_count(&s, MPI_BYTE, &v.count);
  MPI_Test_cancelled(&s, &v.cancelled);
  v.source = s.MPI_SOURCE;
  v.tag = s.MPI_TAG;
  if (with_error) v.error_class = error_class_of(s.MPI_ERROR);
  return v;
}

enum Function { wait, test, waitall, testall, waitany, testany, waitsome, testsome, get_status };
const char* const kFunctionNames[] = {"Wait",     "Test",     "Waitall",
                                      "Testall",  "Waitany",  "Testany",
                                      "Waitsome", "Testsome", "Request_get_status"};

// Calls `f` (leancast's MPI_ or the library's PMPI_) once on the array.
Outputs call(Function f, Array& array, bool leancast) {
  Outputs out;
  const int n = static_cast<int>(array.requests.size());
  MPI_Request* r = array.requests.data();
  std::vector<MPI_Status> st(static_cast<std::size_t>(n) + 1);
  std::vector<int> idx(static_cast<std::size_t>(n) + 1, -7);
  int rc = MPI_SUCCESS;
  switch (f) {
    case wait:
      rc = (leancast ? MPI_Wait : PMPI_Wait)(r, st.data());
      break;
    case test:
      rc = (leancast ? MPI_Test : PMPI_Test)(r, &out.flag, st.data());
      break;
    case waitall:
      rc = (leancast ? MPI_Waitall : PMPI_Waitall)(n, r, st.data());
      break;
    case testall:
      rc = (leancast ? MPI_Testall : PMPI_Testall)(n, r, &out.flag, st.data());
      break;
    case waitany:
      rc = (leancast ? MPI_Waitany : PMPI_Waitany)(n, r, &out.index, st.data());
      break;
    case testany:
      rc = (leancast ? MPI_Testany : PMPI_Testany)(n, r, &out.index, &out.flag, st.data());
      break;
    case waitsome:
      rc = (leancast ? MPI_Waitsome : PMPI_Waitsome)(n, r, &out.outcount, idx.data(), st.data());
      break;
    case testsome:
      rc = (leancast ? MPI_Testsome : PMPI_Testsome)(n, r, &out.outcount, idx.data(), st.data());
      break;
    case get_status:
      rc =
          (leancast ? MPI_Request_get_status : PMPI_Request_get_status)(r[0], &out.flag, st.data());
      break;
  }
  out.rc_class = error_class_of(rc);
  const bool errors = out.rc_class == MPI_ERR_IN_STATUS;
  // The statuses the function defines.
  int defined = 0;
  if (f == wait || ((f == test || f == get_status) && out.flag)) defined = 1;
  if ((f == waitall || f == testall) && (f == waitall || out.flag)) defined = n;
  if ((f == waitany || f == testany) && out.index != MPI_UNDEFINED && out.index >= 0) defined = 1;
  if ((f == waitsome || f == testsome) && out.outcount != MPI_UNDEFINED && out.outcount > 0) {
    defined = out.outcount;
    out.indices.assign(idx.begin(), idx.begin() + out.outcount);
  }
  for (int k = 0; k < defined; ++k)
    out.statuses.push_back(view(st[static_cast<std::size_t>(k)], errors));
  for (int i = 0; i < n; ++i) {
    out.handles.push_back(r[i] == MPI_REQUEST_NULL                              ? "null"
                          : r[i] == array.original[static_cast<std::size_t>(i)] ? "same"
                                                                                : "other");
  }
  return out;
}

void expect_same(const Outputs& mine, const Outputs& library, const std::string& what) {
  EXPECT_EQ(mine.rc_class, library.rc_class) << what << ": return code's class";
  EXPECT_EQ(mine.flag, library.flag) << what << ": flag";
  EXPECT_EQ(mine.index, library.index) << what << ": index";
  EXPECT_EQ(mine.outcount, library.outcount) << what << ": outcount";
  EXPECT_EQ(mine.indices, library.indices) << what << ": indices";
  EXPECT_EQ(mine.statuses, library.statuses) << what << ": statuses";
  EXPECT_EQ(mine.handles, library.handles) << what << ": handles";
}

// Where a broadcast failed (LF), libraries differ where MPI lets them (MPICH's -all forms
// stop at the first error and leave the rest pending; a generalized request's error comes
// back as its own class or as MPI_ERR_OTHER), so leancast's outputs are checked against
// the standard instead: a single completion returns the error's class; a multiple one with
// statuses returns MPI_ERR_IN_STATUS, the failed status carries MPI_ERR_TRUNCATE and every
// other status MPI_SUCCESS, or MPI_ERR_PENDING with its handle unchanged.
void expect_conforms(Function f, const std::vector<Kind>& kinds, const Outputs& mine,
                     const std::string& what) {
  const auto failed = static_cast<int>(std::find(kinds.begin(), kinds.end(), LF) - kinds.begin());
  if (mine.handles[static_cast<std::size_t>(failed)] != "null") return;  // not completed here
  if (f == wait || f == test || f == waitany || f == testany) {
    EXPECT_EQ(mine.rc_class, MPI_ERR_TRUNCATE) << what;
    return;
  }
  ASSERT_EQ(mine.rc_class, MPI_ERR_IN_STATUS) << what;
  for (std::size_t k = 0; k < mine.statuses.size(); ++k) {
    const std::size_t at =
        f == waitsome || f == testsome ? static_cast<std::size_t>(mine.indices[k]) : k;
    const int error = mine.statuses[k].error_class;
    if (static_cast<int>(at) == failed) {
      // MPICH's MPI_Waitall reports a generalized request's error there as MPI_ERR_OTHER.
      EXPECT_TRUE(error == MPI_ERR_TRUNCATE || error == MPI_ERR_OTHER) << what << ": " << error;
    } else if (error == MPI_ERR_PENDING) {
      EXPECT_EQ(mine.handles[at], "same") << what << ": a pending request's handle";
    } else {
      EXPECT_EQ(error, MPI_SUCCESS) << what << ": position " << at;
    }
  }
}

// Whether `f` may be called on `kinds` without waiting forever.
bool completes(Function f, const std::vector<Kind>& kinds) {
  bool pending = false, done = false;
  for (Kind k : kinds) {
    pending = pending || k == GP || k == LP;
    done = done || k == GD || k == LD || k == LF;
  }
  if (f == wait || f == waitall) return !pending;
  if (f == waitany || f == waitsome) return done || !pending;
  return true;
}

// Open MPI 4.1.4 with threads on (MPI_THREAD_SERIALIZED and above): MPI_Waitall never
// returns on a generalized request that failed once MPI_Request_get_status saw it complete
// (finished_broadcast); a bug of the library's, with its own generalized requests too
// (docs/nonblocking.md#progress).
bool library_spins([[maybe_unused]] Function f, [[maybe_unused]] const std::vector<Kind>& kinds) {
#ifdef OMPI_MAJOR_VERSION
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  return provided >= MPI_THREAD_SERIALIZED && f == waitall &&
         std::find(kinds.begin(), kinds.end(), LF) != kinds.end();
#else
  return false;
#endif
}

TEST(Completion, EveryOutputAgreesWithTheLibrary) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "needs two ranks";
#ifdef MPICH_VERSION
  // MPICH's MPI_Request_get_status calls no poll function: below MPI_THREAD_MULTIPLE (no
  // progress thread) nothing would finish finished_broadcast's broadcasts.
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided != MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPICH below MPI_THREAD_MULTIPLE";
#endif
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  self_rank = rank;
  Pair pair;
  MPI_Comm pairs = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pairs);
  if (pairs != MPI_COMM_NULL) {
    pair.rank = rank;
    for (MPI_Comm* c : {&pair.a, &pair.b, &pair.c, &pair.d}) {
      MPI_Comm_dup(pairs, c);
      MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN);
      LC_Comm_prepare(*c);  // so that its nonblocking broadcasts are leancast's
    }
    const std::vector<std::vector<Kind>> cases{{N},          {GD},
                                               {GP},         {LD},
                                               {LP},         {LF},
                                               {IP},         {N, N},
                                               {IP, N, IP},  {GD, LD},
                                               {LD, GD},     {GP, LD},
                                               {LD, GP, GD}, {LP, GD},
                                               {GD, LP, LD}, {N, LD, N, GD},
                                               {LF, GD, LD}, {LD, LF},
                                               {GP, LF, IP}, {IP, LD, LP},
                                               {LP, LP, GD}, {GD, GD, LD, LD},
                                               {N, IP, GP}};
    int compared = 0;
    for (bool background : {false, true}) {
      for (int f = wait; f <= get_status; ++f) {
        for (const auto& kinds : cases) {
          const auto function = static_cast<Function>(f);
          if (!completes(function, kinds) || library_spins(function, kinds)) continue;
          std::string what = std::string(kFunctionNames[f]) + " on {";
          for (Kind k : kinds) what += std::string(name_of(k)) + " ";
          what += background ? "} with a broadcast outstanding elsewhere" : "}";
          // A broadcast rank 1 starts only at cleanup: outstanding on rank 0 meanwhile.
          std::vector<char> held(1000, 0);
          MPI_Request outstanding = MPI_REQUEST_NULL;
          if (background && rank == 0) {
            LC_Ibcast_with(held.data(), 1000, MPI_BYTE, 1, pair.b, "binomial", &outstanding);
            ++pair.deferred;
          }
          Array real = build(pair, kinds, true);
          Array reference = build(pair, kinds, false);
          if (rank == 0) {
            const Outputs mine = call(function, real, true);
            const Outputs library = call(function, reference, false);
            if (std::find(kinds.begin(), kinds.end(), LF) == kinds.end()) {
              expect_same(mine, library, what);
            } else {
              expect_conforms(function, kinds, mine, what);
            }
            ++compared;
          }
          clean_up(pair, real, kinds, true);
          clean_up(pair, reference, kinds, false);
          if (outstanding != MPI_REQUEST_NULL) MPI_Wait(&outstanding, MPI_STATUS_IGNORE);
        }
      }
    }
    if (rank == 0) {
      EXPECT_GT(compared, 300) << "cases compared";
    }
    for (MPI_Comm* c : {&pair.a, &pair.b, &pair.c, &pair.d}) MPI_Comm_free(c);
    MPI_Comm_free(&pairs);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

}  // namespace
}  // namespace leancast::test
