// The bytes a broadcast moves. Predefined contiguous datatypes are broadcast in place;
// every other datatype goes through a packed byte buffer, cut into pieces of whole
// elements: the root packs a piece when a send first needs its bytes, a receiver unpacks a
// piece as soon as all its bytes arrived, so packing and unpacking overlap the transfers.
// Unpacking writes only the bytes the receiver's type map covers. Packed bytes depend only
// on the type signature, so root and receivers may use different datatypes with the same
// signature (and so cut the packed bytes into different pieces). Each thread keeps its last
// packed buffer for the next broadcast (byte_buffer.cpp says why).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <leancast/schedule.hpp>

#include "schedule/held_bytes.hpp"

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
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ~ByteBuffer();
  // Binds to the user's buffer; takes a packed buffer if the type needs packing
  // (uninitialised: every byte is packed or received before it is read). Packs nothing.
  int open(void* buf, MPI_Count count, MPI_Datatype type, const TypeInfo& info, bool is_root,
           MPI_Comm comm);
  // A buffer opened in place (TypeInfo::in_place), bound to another user buffer of the same
  // count and type: what open() would do, without storing what stays the same.
  void rebind_in_place(void* buf) {
    user_ = buf;
    data_ = static_cast<std::byte*>(buf);
  }
  std::byte* data() { return data_; }
  // The executor calls prepare before it sends `bytes` (on the root: packs the pieces that
  // cover them and are not packed yet) and received after a receive of `bytes` completed
  // (unpacks the pieces it completed). Any order, overlaps allowed. MPI error codes.
  int prepare(ByteRange bytes);
  int received(ByteRange bytes);
  // On a receiver that packed, unpacks into the user's buffer the pieces not unpacked yet.
  int close();
  // A receiver's received() then only records: every piece is unpacked by close().
  void unpack_at_close() { unpack_at_close_ = true; }

 private:
  ByteRange piece(std::uint64_t index) const;
  int pack_piece(std::uint64_t index);
  int unpack_piece(std::uint64_t index);
  int move_piece(std::uint64_t index, bool packing);

  void* user_ = nullptr;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Aint extent_ = 0;
  std::uint64_t element_bytes_ = 0;
  std::uint64_t total_bytes_ = 0;
  MPI_Count per_piece_ = 1;        // elements per piece
  std::uint64_t piece_bytes_ = 0;  // packed bytes per piece (the last may be shorter)
  bool packs_ = false;             // the root of a packed type
  bool unpacks_ = false;           // a receiver of a packed type
  bool unpack_at_close_ = false;
  std::vector<bool> done_;         // per piece: packed (root) or unpacked (receiver)
  std::uint64_t pieces_left_ = 0;  // pieces not done
  HeldBytes held_;                 // receiver: the packed bytes received so far
  std::byte* data_ = nullptr;
  std::unique_ptr<std::byte[]> packed_;
  std::uint64_t capacity_ = 0;
};

}  // namespace leancast::detail
