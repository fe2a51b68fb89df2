// The MPI library's blocking calls on files and one-sided windows that can wait on another
// rank (collective ones, and the synchronizations that wait for a lock or an epoch),
// defined by leancast as stepped_calls.cpp defines the collectives: none has a nonblocking
// form that another rank's blocking call would match, so each runs as it is, under a
// BlockedInLibrary while leancast broadcasts are outstanding (LEANCAST_ASSISTED), so that
// the progress thread or Open MPI's progress engine steps them meanwhile. Without them a
// rank that opened a file with a broadcast of leancast outstanding, while another rank waited
// for that broadcast, hung. With none outstanding each is the library's after one load.
#include <mpi.h>

#include "mpi/requests/stepped_call.hpp"

#ifndef LEANCAST_SMPI
// Windows: the collective calls that make and free one, and the synchronizations.
LEANCAST_ASSISTED(Win_create,
                  (void* a0, MPI_Aint a1, int a2, MPI_Info a3, MPI_Comm a4, MPI_Win* a5), a0, a1,
                  a2, a3, a4, a5)
LEANCAST_ASSISTED(Win_allocate,
                  (MPI_Aint a0, int a1, MPI_Info a2, MPI_Comm a3, void* a4, MPI_Win* a5), a0, a1,
                  a2, a3, a4, a5)
LEANCAST_ASSISTED(Win_allocate_shared,
                  (MPI_Aint a0, int a1, MPI_Info a2, MPI_Comm a3, void* a4, MPI_Win* a5), a0, a1,
                  a2, a3, a4, a5)
LEANCAST_ASSISTED(Win_create_dynamic, (MPI_Info a0, MPI_Comm a1, MPI_Win* a2), a0, a1, a2)
LEANCAST_ASSISTED(Win_free, (MPI_Win * a0), a0)
LEANCAST_ASSISTED(Win_fence, (int a0, MPI_Win a1), a0, a1)
LEANCAST_ASSISTED(Win_lock, (int a0, int a1, int a2, MPI_Win a3), a0, a1, a2, a3)
LEANCAST_ASSISTED(Win_unlock, (int a0, MPI_Win a1), a0, a1)
LEANCAST_ASSISTED(Win_lock_all, (int a0, MPI_Win a1), a0, a1)
LEANCAST_ASSISTED(Win_unlock_all, (MPI_Win a0), a0)
LEANCAST_ASSISTED(Win_flush, (int a0, MPI_Win a1), a0, a1)
LEANCAST_ASSISTED(Win_flush_all, (MPI_Win a0), a0)
LEANCAST_ASSISTED(Win_start, (MPI_Group a0, int a1, MPI_Win a2), a0, a1, a2)
LEANCAST_ASSISTED(Win_complete, (MPI_Win a0), a0)
LEANCAST_ASSISTED(Win_wait, (MPI_Win a0), a0)

// Files: the collective calls (MPI-IO's collective reads and writes exchange data between
// the ranks, and opening, closing and resizing agree on the file).
LEANCAST_ASSISTED(File_open, (MPI_Comm a0, const char* a1, int a2, MPI_Info a3, MPI_File* a4), a0,
                  a1, a2, a3, a4)
LEANCAST_ASSISTED(File_close, (MPI_File * a0), a0)
LEANCAST_ASSISTED(File_set_view,
                  (MPI_File a0, MPI_Offset a1, MPI_Datatype a2, MPI_Datatype a3, const char* a4,
                   MPI_Info a5),
                  a0, a1, a2, a3, a4, a5)
LEANCAST_ASSISTED(File_set_size, (MPI_File a0, MPI_Offset a1), a0, a1)
LEANCAST_ASSISTED(File_preallocate, (MPI_File a0, MPI_Offset a1), a0, a1)
LEANCAST_ASSISTED(File_sync, (MPI_File a0), a0)

#define LEANCAST_FILE_ALL(NAME, BUFFER)                                                          \
  LEANCAST_ASSISTED(NAME, (MPI_File a0, BUFFER a1, int a2, MPI_Datatype a3, MPI_Status* a4), a0, \
                    a1, a2, a3, a4)
LEANCAST_FILE_ALL(File_read_all, void*)
LEANCAST_FILE_ALL(File_write_all, const void*)
LEANCAST_FILE_ALL(File_read_ordered, void*)
LEANCAST_FILE_ALL(File_write_ordered, const void*)

#define LEANCAST_FILE_AT_ALL(NAME, BUFFER)                                                        \
  LEANCAST_ASSISTED(                                                                              \
      NAME, (MPI_File a0, MPI_Offset a1, BUFFER a2, int a3, MPI_Datatype a4, MPI_Status* a5), a0, \
      a1, a2, a3, a4, a5)
LEANCAST_FILE_AT_ALL(File_read_at_all, void*)
LEANCAST_FILE_AT_ALL(File_write_at_all, const void*)
#endif
