// The bytes a broadcast moves. Predefined contiguous datatypes are broadcast in place;
// every other datatype is packed once into a byte buffer on the root and unpacked on
// the receivers, which writes only the bytes the receiver's type map covers. Packed
// bytes depend only on the type signature, so root and receivers may use different
// datatypes with the same signature.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include <leancast/schedule.hpp>

namespace leancast::detail {

struct TypeInfo {
  std::uint64_t bytes = 0;  // count * MPI_Type_size: the same on every rank
  bool in_place = false;    // a predefined type without gaps: the user's buffer is the bytes
};

// Size and layout of count elements of `type` (a valid, committed datatype). A byte size
// beyond 2^64 is MPI_ERR_COUNT.
int describe_type(MPI_Count count, MPI_Datatype type, TypeInfo& info);

// True where MPI_Pack takes int sizes only (MPI 3): packing an element of more than
// INT_MAX bytes is impossible there.
bool packs_with_int_sizes_only();

class ByteBuffer {
 public:
  // Binds to the user's buffer; on the root packs it if the type needs packing.
  int open(void* buf, MPI_Count count, MPI_Datatype type, const TypeInfo& info, bool is_root,
           MPI_Comm comm);
  std::byte* data() { return data_; }
  // The executor calls prepare before it sends `bytes` (the root's bytes must be packed by
  // then) and received after a receive of `bytes` completed (what is complete may be
  // unpacked). Both return an MPI error code.
  int prepare(ByteRange) { return MPI_SUCCESS; }
  int received(ByteRange) { return MPI_SUCCESS; }
  // On a receiver that packed, unpacks into the user's buffer what is not unpacked yet.
  int close();

 private:
  void* user_ = nullptr;
  MPI_Count count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool unpack_ = false;
  std::byte* data_ = nullptr;
  std::vector<std::byte> packed_;
};

}  // namespace leancast::detail
