/* Fault injection for the executor tests, through MPI's profiling interface. Linked ahead
 * of the MPI library (or preloaded), it makes chosen calls of MPI_Isend, MPI_Irecv,
 * MPI_Waitsome or MPI_Waitall return MPI_ERR_OTHER without calling the library (the wait
 * calls then touch no request), and chosen calls of shm_open fail with EACCES (a rank that
 * may not map shared memory):
 *
 *   LEANCAST_TEST_FAIL=NAME:N[:K]  the N-th call of NAME and the K - 1 after it fail (K = 1),
 *                                  counting from the first call or lc_fault_shim_reset()
 *   LEANCAST_TEST_FAIL_RANK=R      on rank R of MPI_COMM_WORLD only (else on every rank)
 *
 * It also counts the requests MPI_Isend and MPI_Irecv make that no call has completed or
 * freed yet, so that a test can check that a broadcast leaves nothing posted, and the
 * MPI_Isend calls made before the first completion call since a reset (what an executor
 * posts at once). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int loaded;        /* the environment has been read */
static char target[32];   /* NAME, "" for none */
static long first, count; /* calls first .. first + count - 1 fail */
static int target_rank = -1;
static long calls;         /* calls of NAME so far on this rank */
static int injected;       /* failures made */
static long live;          /* requests made and not retired */
static long sends_at_once; /* MPI_Isend calls before the first completion call */
static int completing;     /* a completion call was made since the reset */

/* Re-reads the environment and starts counting calls again. */
void lc_fault_shim_reset(void) {
  const char* spec = getenv("LEANCAST_TEST_FAIL");
  const char* rank = getenv("LEANCAST_TEST_FAIL_RANK");
  target[0] = '\0';
  first = count = 0;
  if (spec != NULL) {
    const char* colon = strchr(spec, ':');
    if (colon != NULL && (size_t)(colon - spec) < sizeof target) {
      char* end = NULL;
      memcpy(target, spec, (size_t)(colon - spec));
      target[colon - spec] = '\0';
      first = strtol(colon + 1, &end, 10);
      count = *end == ':' ? strtol(end + 1, NULL, 10) : 1;
    }
  }
  target_rank = rank != NULL ? atoi(rank) : -1;
  calls = 0;
  injected = 0;
  sends_at_once = 0;
  completing = 0;
  loaded = 1;
}

long lc_fault_shim_sends_at_once(void) { return sends_at_once; }

int lc_fault_shim_injected(void) { return injected; }
long lc_fault_shim_live_requests(void) { return live; }

static int should_fail(const char* name) {
  if (!loaded) lc_fault_shim_reset();
  if (strcmp(name, target) != 0) return 0;
  if (target_rank >= 0) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != target_rank) return 0;
  }
  ++calls;
  if (calls < first || calls >= first + count) return 0;
  ++injected;
  return 1;
}

static long pending(int n, const MPI_Request* requests) {
  long made = 0;
  completing = 1;
  for (int i = 0; i < n; ++i) made += requests[i] != MPI_REQUEST_NULL;
  return made;
}

int MPI_Isend(const void* buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  if (should_fail("MPI_Isend")) return MPI_ERR_OTHER;
  if (!completing) ++sends_at_once;
  const int rc = PMPI_Isend(buf, n, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) live += *request != MPI_REQUEST_NULL;
  return rc;
}

int MPI_Irecv(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  if (should_fail("MPI_Irecv")) return MPI_ERR_OTHER;
  const int rc = PMPI_Irecv(buf, n, type, source, tag, comm, request);
  if (rc == MPI_SUCCESS) live += *request != MPI_REQUEST_NULL;
  return rc;
}

/* The completing calls: a request is retired when its handle comes back MPI_REQUEST_NULL. */
int MPI_Waitsome(int n, MPI_Request requests[], int* done, int indices[], MPI_Status statuses[]) {
  if (should_fail("MPI_Waitsome")) return MPI_ERR_OTHER;
  const long before = pending(n, requests);
  const int rc = PMPI_Waitsome(n, requests, done, indices, statuses);
  live -= before - pending(n, requests);
  return rc;
}

int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[]) {
  if (should_fail("MPI_Waitall")) return MPI_ERR_OTHER;
  const long before = pending(n, requests);
  const int rc = PMPI_Waitall(n, requests, statuses);
  live -= before - pending(n, requests);
  return rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const long before = pending(1, request);
  const int rc = PMPI_Wait(request, status);
  live -= before - pending(1, request);
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const long before = pending(1, request);
  const int rc = PMPI_Test(request, flag, status);
  live -= before - pending(1, request);
  return rc;
}

int MPI_Request_free(MPI_Request* request) {
  const long before = pending(1, request);
  const int rc = PMPI_Request_free(request);
  live -= before - pending(1, request);
  return rc;
}

/* shm_open, the POSIX call shm's windows are made with: fails with EACCES where asked. */
int shm_open(const char* name, int flags, mode_t mode) {
  static int (*next)(const char*, int, mode_t);
  if (next == NULL) next = (int (*)(const char*, int, mode_t))dlsym(RTLD_NEXT, "shm_open");
  if (should_fail("shm_open")) {
    errno = EACCES;
    return -1;
  }
  return next(name, flags, mode);
}
